"""Built-in chunk savers."""
