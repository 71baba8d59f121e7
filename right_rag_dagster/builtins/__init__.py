"""Built-in plugins, discovered like those under a project's spec/ (same folder layout)."""
