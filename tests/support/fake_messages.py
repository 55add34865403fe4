"""A scripted stand-in for the Messages API on 127.0.0.1, for tests of the model client.

Each test scripts the replies in order (status, JSON body, headers, a delay to force a client
timeout); every request received is kept for assertions. The server runs in a thread and is
always shut down: use it as a context manager.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Self

DEFAULT_MODEL = "fake-model-1"

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                403: "permission_error", 404: "not_found_error", 413: "request_too_large",
                429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


@dataclass(frozen=True)
class Reply:
    """One scripted response; ``body`` is sent as JSON, ``raw`` (if set) as is."""

    status: int = 200
    body: object = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    raw: bytes | None = None


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: object


def usage(input_tokens: int = 10, output_tokens: int = 5, cache_write: int | None = 0,
          cache_read: int | None = 0) -> dict[str, object]:
    """A usage block; None for a cache field sends it as JSON null."""
    return {"input_tokens": input_tokens, "output_tokens": output_tokens,
            "cache_creation_input_tokens": cache_write, "cache_read_input_tokens": cache_read}


def _message(content: list[dict[str, object]], model: str, stop_reason: str,
             usage_block: Mapping[str, object] | None) -> dict[str, object]:
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": dict(usage_block) if usage_block is not None else usage()}


def text_reply(*texts: str, model: str = DEFAULT_MODEL, stop_reason: str = "end_turn",
               usage_block: Mapping[str, object] | None = None) -> Reply:
    """A 200 message with one text block per argument."""
    blocks: list[dict[str, object]] = [{"type": "text", "text": t} for t in texts or ("ok",)]
    return Reply(body=_message(blocks, model, stop_reason, usage_block))


def tool_reply(name: str, tool_input: object, *, model: str = DEFAULT_MODEL,
               usage_block: Mapping[str, object] | None = None) -> Reply:
    """A 200 message calling tool ``name`` with ``tool_input``."""
    block: dict[str, object] = {"type": "tool_use", "id": "toolu_fake", "name": name,
                                "input": tool_input}
    return Reply(body=_message([block], model, "tool_use", usage_block))


def error_reply(status: int, message: str, *, error_type: str | None = None,
                headers: Mapping[str, str] | None = None) -> Reply:
    """An error shaped like the Messages API's."""
    kind = error_type or _ERROR_TYPES.get(status, "api_error")
    return Reply(status=status, headers=dict(headers or {}),
                 body={"type": "error", "error": {"type": kind, "message": message}})


def count_reply(input_tokens: int) -> Reply:
    """A count_tokens answer."""
    return Reply(body={"input_tokens": input_tokens})


class FakeMessages:
    """The scripted server. ``base_url`` is valid between start() and stop()."""

    def __init__(self, *replies: Reply, gets: Mapping[str, Reply] | None = None) -> None:
        self._script: deque[Reply] = deque(replies)
        # GET answers by path (/v1/models), served every time; other GETs get a 404. GETs are
        # listed in get_paths, not in requests (which holds the POSTs).
        self._gets = dict(gets or {})
        self.get_paths: list[str] = []
        self._received: list[Received] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def script(self, *replies: Reply) -> None:
        """Queue more replies, served in order."""
        with self._lock:
            self._script.extend(replies)

    @property
    def requests(self) -> list[Received]:
        """Requests received so far, in order."""
        with self._lock:
            return list(self._received)

    @property
    def pending(self) -> int:
        """Scripted replies not yet served."""
        with self._lock:
            return len(self._script)

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:<port> of the running server."""
        if self._server is None:
            raise RuntimeError("FakeMessages is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def port(self) -> int:
        """The port while running."""
        if self._server is None:
            raise RuntimeError("FakeMessages is not running")
        return int(self._server.server_address[1])

    def start(self) -> Self:
        """Bind an ephemeral port and serve in a thread."""
        if self._server is not None:
            return self
        self._stopping.clear()
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        # Handler threads are joined by server_close(), so nothing outlives stop().
        server.daemon_threads = False
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fake-messages",
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake delayed replies, join every thread, close the socket."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join()
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _next(self, received: Received) -> Reply:
        with self._lock:
            self._received.append(received)
            if self._script:
                return self._script.popleft()
            count = len(self._received)
        # 400, not 5xx: the client must not retry its way past a test's missing script line.
        return error_reply(400, f"fake Messages server: script exhausted at request {count} "
                                f"({received.method} {received.path})")


def _handler_for(fake: FakeMessages) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers at stop

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body: object = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            received = Received("POST", self.path, {k.lower(): v for k, v in self.headers.items()},
                                body)
            reply = fake._next(received)
            if reply.delay_s and fake._stopping.wait(reply.delay_s):
                return  # shutting down: drop the reply
            try:
                self._send(reply)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and hung up, which is what a delay is for

        def do_GET(self) -> None:
            with fake._lock:
                fake.get_paths.append(self.path)
            self._send(fake._gets.get(self.path) or error_reply(404, f"no GET {self.path} here"))

        def _send(self, reply: Reply) -> None:
            payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep test output clean

    return Handler
