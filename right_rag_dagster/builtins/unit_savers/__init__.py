"""Built-in unit savers."""
