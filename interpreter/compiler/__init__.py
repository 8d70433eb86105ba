"""The compiler: checked program -> closures and the step machine."""
