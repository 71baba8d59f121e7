"""Format readers behind the default document loader: PDF text layer, Docling formats, UTF-8 text."""
