"""A small real HTTP server on 127.0.0.1 speaking Ollama's and OpenAI's chat and embedding APIs.

Replies are deterministic: a chat answer quotes the first line of excerpt [1] and cites it (or says the
documents do not answer when the question contains "moons"); embeddings are character statistics. Every
request is recorded so tests can check what the client sent.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NOT_FOUND = "Not found in the documents."


def chat_reply(messages: list[dict[str, str]]) -> str:
    user = messages[-1]["content"]
    question = user.rsplit("Question:", 1)[-1]
    if "moons" in question:
        return NOT_FOUND
    excerpt = re.search(r"^\[1\] \(.*?\)\n(.+)$", user, re.M)
    return f"{excerpt.group(1).strip()[:80] if excerpt else 'nothing'} [1][2]"


def embedding(text: str) -> list[float]:
    letters = [c for c in text.lower() if c.isalpha()]
    return [float(len(text)), float(sum(c in "aeiou" for c in letters)), float(len(text.split())), 1.0]


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "body": body,  # type: ignore[attr-defined]
                                     "authorization": self.headers.get("Authorization")})
        if body.get("model") == "broken":
            self._send(500, {"error": "model exploded"})
        elif self.path == "/api/chat":
            self._send(200, {"message": {"role": "assistant", "content": chat_reply(body["messages"])}})
        elif self.path == "/v1/chat/completions":
            self._send(200, {"choices": [{"message": {"content": chat_reply(body["messages"])}}]})
        elif self.path == "/api/embed":
            self._send(200, {"embeddings": [embedding(t) for t in body["input"]]})
        elif self.path == "/v1/embeddings":
            data = [{"index": i, "embedding": embedding(t)} for i, t in enumerate(body["input"])]
            self._send(200, {"data": list(reversed(data))})  # any order: clients sort by index
        else:
            self._send(404, {"error": f"no route {self.path}"})

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass


@contextmanager
def running_server() -> Iterator[ThreadingHTTPServer]:
    """Start the server on a free port of 127.0.0.1; ``server.url`` is its base URL; stopped on exit."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.requests = []  # type: ignore[attr-defined]
    server.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
