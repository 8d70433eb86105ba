"""The checker: names, types, card files and semantic warnings over the syntax tree."""
