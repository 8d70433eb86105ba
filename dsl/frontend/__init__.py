"""The language's front end: grammar, parser, syntax tree, card files."""
