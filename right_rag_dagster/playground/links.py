"""Links into the playground (the Dagster UI's asset metadata points here); no imports beyond the stdlib."""

from __future__ import annotations

from urllib.parse import urlencode

DEFAULT_PORT = 8421


def playground_url(port: int = DEFAULT_PORT, **params: str | None) -> str:
    """``http://127.0.0.1:<port>/`` with the page's selections as query parameters (empty ones left out)."""
    query = urlencode({key: value for key, value in params.items() if value})
    return f"http://127.0.0.1:{port}/" + (f"?{query}" if query else "")
