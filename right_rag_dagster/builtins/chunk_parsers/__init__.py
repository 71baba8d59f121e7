"""Built-in chunk parsers."""
