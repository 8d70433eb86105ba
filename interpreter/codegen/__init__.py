"""Code generation: Python source for expressions, statements, choices and fused steps."""
