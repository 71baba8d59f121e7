"""The playground's HTTP server: the standard library's threaded server on 127.0.0.1, the page's static files
from the package, and the JSON API (``api.py``). Starts in well under a second: no Dagster, no web framework."""

from __future__ import annotations

import json
import mimetypes
import signal
import threading
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ..errors import ConfigError
from ..project import Project
from .api import PlaygroundApi

STATIC = resources.files(__package__).joinpath("static")
MAX_BODY = 1 << 20


def make_handler(api: PlaygroundApi) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one project's API."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "right-rag-playground"

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            url = urlsplit(self.path)
            if url.path.startswith("/api/"):
                self._api("GET", url.path, dict(parse_qsl(url.query)), None)
            else:
                self._static(url.path)

        def do_POST(self) -> None:  # noqa: N802
            url = urlsplit(self.path)
            if self.headers.get_content_type() != "application/json":  # a plain form post from another site
                self._reply_json(415, {"error": "send the request body as application/json"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._reply_json(413, {"error": "request too large"})
                return
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._reply_json(400, {"error": "the request body is not JSON"})
                return
            self._api("POST", url.path, dict(parse_qsl(url.query)), body)

        def _api(self, method: str, path: str, params: dict[str, str], body: dict[str, Any] | None) -> None:
            try:
                reply = api.handle(method, path, params, body)
            except Exception as exc:  # noqa: BLE001 (a bug must reach the page, not end the thread silently)
                reply = (500, {"error": f"{type(exc).__name__}: {exc}"})
            self._reply_json(*reply)

        def _static(self, path: str) -> None:
            name = "index.html" if path in ("", "/") else path.lstrip("/")
            target = STATIC.joinpath(*name.split("/"))
            if ".." in name.split("/") or not target.is_file():
                self._reply_json(404, {"error": f"no page {path}"})
                return
            data = target.read_bytes()
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", (mimetypes.guess_type(name)[0] or "application/octet-stream")
                             + ("; charset=utf-8" if name.endswith((".html", ".js", ".css")) else ""))
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write(data)

        def _reply_json(self, status: int, payload: Any) -> None:
            data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (quiet: the page shows errors)
            return

    return Handler


def make_server(project: Project, port: int) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1:``port`` (0: any free port); ``ConfigError`` when the port is taken."""
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(PlaygroundApi(project)))
    except OSError as exc:
        raise ConfigError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}; pass another --port") from exc
    server.daemon_threads = True
    return server


def url_of(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/"


def start_in_thread(project: Project, port: int = 0) -> ThreadingHTTPServer:
    """A running server in a background thread (tests, notebooks); stop it with ``server.shutdown()``."""
    server = make_server(project, port)
    threading.Thread(target=server.serve_forever, name="right-rag-playground", daemon=True).start()
    return server


def serve(project: Project, port: int, open_browser: bool = True) -> None:
    """Serve until interrupted, opening the page in the default browser first unless told not to."""
    server = make_server(project, port)
    # SIGTERM stops the server cleanly even when this process inherited it ignored (a parent that ran Dagster
    # in-process maps SIGTERM to its SIGINT disposition, which may be "ignore").
    signal.signal(signal.SIGTERM, _exit_on_signal)
    print(f"right-rag playground for {project.root} on {url_of(server)} (Ctrl+C to stop)", flush=True)
    if open_browser:
        webbrowser.open(url_of(server))
    try:
        server.serve_forever()
    finally:
        server.server_close()


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)
