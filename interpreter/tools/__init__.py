"""The `liturgy` command and the tools behind it: simulate, fuzz, bench, profile."""
