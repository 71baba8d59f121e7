"""Built-in document loaders."""
