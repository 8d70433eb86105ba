"""The Liturgy language: grammar, parser, AST, checker and diagnostics."""
