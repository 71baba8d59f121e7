"""A tiny JSON-over-HTTP client (standard library only, so importing it costs nothing at start-up)."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from .errors import ServiceError


def post_json(url: str, payload: dict[str, Any], *, headers: dict[str, str] | None = None,
              timeout: float = 120.0) -> Any:
    """POST ``payload`` as JSON and return the decoded reply; any failure is a ``ServiceError`` naming the URL."""
    request = urllib.request.Request(url, data=json.dumps(payload).encode("utf-8"), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace")[:300]
        raise ServiceError(f"{url} answered HTTP {exc.code}: {detail}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise ServiceError(f"cannot reach {url}: {exc}; is the server running?") from exc
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ServiceError(f"{url} answered something that is not JSON: {body[:200]!r}") from exc


def join_url(base_url: str, path: str) -> str:
    return base_url.rstrip("/") + "/" + path.lstrip("/")


OPENAI_URL = "https://api.openai.com/v1"
TRUSTED_URLS = "RIGHT_RAG_TRUSTED_URLS"


def _origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url.strip())
    return parts.scheme.lower(), parts.netloc.lower()


def trusted(url: str, explicit: bool) -> bool:
    """Whether the environment's API key may go to ``url``: it came from the environment itself, or it is
    OpenAI's API, ``OPENAI_BASE_URL``, or one of ``RIGHT_RAG_TRUSTED_URLS`` (same scheme and host)."""
    if not explicit:
        return True
    allowed = [OPENAI_URL, os.environ.get("OPENAI_BASE_URL", ""), *os.environ.get(TRUSTED_URLS, "").split()]
    return _origin(url) in {_origin(u) for u in allowed if u}


@dataclass(frozen=True)
class Endpoint:
    """Where a model server answers: base URL, optional bearer key, timeout."""

    base_url: str
    api_key: str = ""
    timeout: float = 120.0

    @classmethod
    def ollama(cls, base_url: str | None = None, timeout: float = 120.0) -> Endpoint:
        """``base_url``, else ``OLLAMA_HOST``, else Ollama's local default."""
        return cls(base_url or os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434"), "", timeout)

    @classmethod
    def openai(cls, base_url: str | None = None, api_key: str | None = None, timeout: float = 120.0) -> Endpoint:
        """``base_url``/``api_key``, else ``OPENAI_BASE_URL``/``OPENAI_API_KEY``, else OpenAI's API.

        ``OPENAI_API_KEY`` goes only to OpenAI's API, to ``OPENAI_BASE_URL`` and to the URLs listed in
        ``RIGHT_RAG_TRUSTED_URLS`` (space-separated): a ``generator_url`` written in a project's right_rag.toml
        (a project someone else made, say) never receives the key from this environment."""
        url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
        if api_key is None:
            api_key = os.environ.get("OPENAI_API_KEY", "") if trusted(url, explicit=base_url is not None) else ""
        return cls(url, api_key, timeout)

    def post(self, path: str, payload: dict[str, Any]) -> tuple[str, Any]:
        """POST to ``base_url/path``; returns the URL (for error messages) and the decoded reply."""
        url = join_url(self.base_url, path)
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            return url, post_json(url, payload, headers=headers, timeout=self.timeout)
        except ServiceError as exc:
            if self.api_key or " 401" not in str(exc) or not os.environ.get("OPENAI_API_KEY"):
                raise
            raise ServiceError(f"{exc}; OPENAI_API_KEY was not sent to {self.base_url}, which comes from the "
                               f"project's settings: to send it, add the URL to {TRUSTED_URLS}") from exc
