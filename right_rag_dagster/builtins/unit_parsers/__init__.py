"""Built-in unit parsers."""
