"""The reference backend's HTTP server on loopback, and its lifecycle.

Connections are HTTP/1.0 (one request each), so no idle keep-alive connection can hold a
worker thread open and ``stop()`` always finishes promptly. Besides ``POST /v1/messages`` and
``count_tokens`` it serves the Message Batches endpoints (``reference_backend.batches``).
"""

from __future__ import annotations

import json
import re
import socket
import struct
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import TYPE_CHECKING

from pytest_legalbench.reference_backend.batches import BATCHES_PATH, BatchStore, request_key
from pytest_legalbench.reference_backend.cache import PromptCache
from pytest_legalbench.reference_backend.faults import FaultLog, FaultPlan
from pytest_legalbench.reference_backend.identity import BACKEND_HEADER, REFERENCE_MODEL
from pytest_legalbench.reference_backend.request_parsing import parse_request
from pytest_legalbench.reference_backend.responder import request_digest, respond
from pytest_legalbench.reference_backend.wire import (
    MessagesRequest,
    WireError,
    error_body,
    invalid,
    message_body,
)

if TYPE_CHECKING:
    from typing import Self

_MESSAGES = "/v1/messages"
_COUNT_TOKENS = "/v1/messages/count_tokens"
# How often the serving loop looks for a shutdown request: stop() waits at most this long.
_POLL_S = 0.05
#: Largest request body read, in bytes (the real API refuses bodies over 32 MB too).
MAX_BODY_BYTES = 64 * 1024 * 1024
#: Largest batch create body read: the API's 256 MB limit on one batch.
MAX_BATCH_BODY_BYTES = 256 * 1000 * 1000
_BATCH = re.compile(rf"{BATCHES_PATH}/(?P<id>[^/]+)(?P<tail>/cancel|/results)?")


class ReferenceBackend:
    """A deterministic, model-free Messages API server on 127.0.0.1 (a context manager)."""

    def __init__(self, context_window: int = 200_000, cache_ttl_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic,
                 faults: FaultPlan | None = None, batch_delay_s: float = 1.0) -> None:
        if context_window < 1:
            raise ValueError(f"context_window must be at least 1, got {context_window}")
        self.context_window = context_window
        self.faults = FaultLog(faults) if faults is not None else None
        """The faults injected so far, when a fault plan was given."""
        self.cache = PromptCache(cache_ttl_s, clock)
        self.answered: Counter[str] = Counter()
        """Messages requests answered, interactive or in a batch, by ``batches.request_key``
        of their body (a batch request's params as the SDK would send them)."""
        self._answered_lock = threading.Lock()
        self.batches = BatchStore(lambda body: self.handle(_MESSAGES, body), clock,
                                  batch_delay_s, self.faults)
        """The Message Batches this backend accepted (``batches.BatchStore``)."""
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        """Whether the server is accepting requests."""
        return self._server is not None

    @property
    def base_url(self) -> str:
        """The URL to give the SDK as ``base_url``; only while running."""
        if self._server is None:
            raise RuntimeError("the reference backend is not running: call start() first")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Self:
        """Bind an ephemeral loopback port and serve in a background thread (no-op if running)."""
        with self._lock:
            if self._server is None:
                server = _Server(("127.0.0.1", 0), _Handler)
                server.backend = self
                host, port = server.server_address[:2]
                self.batches.base_url = f"http://{host!s}:{port}"
                # Daemon threads are only a backstop: stop() shuts down and joins them.
                self._thread = threading.Thread(
                    target=server.serve_forever, kwargs={"poll_interval": _POLL_S},
                    name="legalbench-reference-backend", daemon=True)
                self._server = server
                self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, join the thread and close the socket (idempotent)."""
        with self._lock:
            server, thread = self._server, self._thread
            self._server = self._thread = None
        if server is not None:
            server.shutdown()
            server.server_close()
        if thread is not None:
            thread.join()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    def handle(self, path: str, body: bytes) -> tuple[int, dict[str, object]]:
        """Answer one POST to ``path``: the status and the JSON body of the response."""
        try:
            if path == _COUNT_TOKENS:
                counted = parse_request(body, needs_max_tokens=False)
                return 200, {"input_tokens": counted.input_tokens}
            request = parse_request(body, needs_max_tokens=True)
            self._check_window(request)
            with self._answered_lock:
                self.answered[request_key(body)] += 1
            digest = request_digest(path, body)
            reply = respond(request, digest)
            usage = {**self.cache.usage(request), "output_tokens": reply.output_tokens}
            return 200, message_body(message_id=f"msg_ref_{digest}", model=REFERENCE_MODEL,
                                     content=reply.content, stop_reason=reply.stop_reason,
                                     usage=usage)
        except WireError as error:
            return error.status, error_body(error.error_type, error.message)

    def _check_window(self, request: MessagesRequest) -> None:
        tokens = request.input_tokens
        if tokens > self.context_window:
            raise invalid(f"prompt is too long: {tokens} tokens > {self.context_window} maximum")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    backend: ReferenceBackend


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == BATCHES_PATH or _BATCH.fullmatch(path):
            self._batch("POST", path)
            return
        if path not in (_MESSAGES, _COUNT_TOKENS):
            self._send(404, error_body("not_found_error", f"no such endpoint: POST {path}"))
            return
        length = self._length()
        if length is None:
            return
        body = self.rfile.read(length)
        faults = self.server.backend.faults
        if faults is not None and path == _MESSAGES:
            fault = faults.next_fault(path, body)
            if fault is not None:
                self._inject(fault, faults.plan)
                return
        try:
            status, payload = self.server.backend.handle(path, body)
        except Exception as error:  # noqa: BLE001 (a response, never a stack trace)
            status, payload = 500, error_body(
                "api_error", f"the reference backend failed on this request: "
                             f"{type(error).__name__}: {error}")
        self._send(status, payload)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == BATCHES_PATH or _BATCH.fullmatch(path):
            self._batch("GET", path)
        elif path in (_MESSAGES, _COUNT_TOKENS):
            self._send(405, error_body("invalid_request_error", f"{path} accepts POST only"))
        else:
            self._send(404, error_body("not_found_error", f"no such endpoint: GET {path}"))

    def do_DELETE(self) -> None:
        path = self.path.split("?", 1)[0]
        if _BATCH.fullmatch(path):
            self._batch("DELETE", path)
        else:
            self._send(404, error_body("not_found_error", f"no such endpoint: DELETE {path}"))

    def _batch(self, method: str, path: str) -> None:
        """Serve one Message Batches endpoint."""
        store = self.server.backend.batches
        match = _BATCH.fullmatch(path)
        batch_id, tail = (match["id"], match["tail"] or "") if match else ("", "")
        route = (method, "" if match is None else "{id}" + tail)
        try:
            if route == ("POST", ""):
                length = self._length(MAX_BATCH_BODY_BYTES)
                if length is None:
                    return
                self._send(200, store.create(self.rfile.read(length)))
            elif route == ("GET", ""):
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                self._send(200, store.page({k: v[-1] for k, v in query.items()}))
            elif route == ("GET", "{id}"):
                self._send(200, store.retrieve(batch_id))
            elif route == ("POST", "{id}/cancel"):
                self._send(200, store.cancel(batch_id))
            elif route == ("DELETE", "{id}"):
                self._send(200, store.delete(batch_id))
            elif route == ("GET", "{id}/results"):
                self._send_bytes(200, store.results(batch_id), "application/x-jsonl")
            else:
                self._send(405, error_body("invalid_request_error",
                                           f"{path} does not accept {method}"))
        except WireError as error:
            self._send(error.status, error_body(error.error_type, error.message))

    def _length(self, limit: int = MAX_BODY_BYTES) -> int | None:
        raw = self.headers.get("Content-Length")
        try:
            length = int(raw) if raw is not None else -1
        except ValueError:
            length = -1
        if length < 0:
            self._send(400, error_body("invalid_request_error",
                                       "a Content-Length header is required"))
            return None
        if length > limit:
            self._discard(length)
            self._send(413, error_body("request_too_large",
                                       f"request body of {length} bytes exceeds "
                                       f"{limit} bytes"))
            return None
        return length

    def _discard(self, length: int) -> None:
        """Read an unwanted body, so the client sees the error instead of a reset."""
        while length > 0:
            chunk = self.rfile.read(min(length, 1 << 20))
            if not chunk:
                return
            length -= len(chunk)

    def _inject(self, fault: str, plan: FaultPlan) -> None:
        """Answer with ``fault`` instead of the request's answer (``faults.FAULT_KINDS``)."""
        said = f"injected fault ({fault})"
        if fault == "429":
            self._send(429, error_body("rate_limit_error", said),
                       {"retry-after-ms": "10", "retry-after": "1"})
        elif fault == "529":
            self._send(529, error_body("overloaded_error", said))
        elif fault == "500":
            self._send(500, error_body("api_error", said))
        elif fault == "malformed":
            self._send(200, error_body("overloaded_error", said))
        elif fault in ("bad-text", "bad-block"):
            block = ({"type": "text", "text": 404} if fault == "bad-text"
                     else {"type": "hologram", "data": said})
            self._send(200, message_body(message_id="msg_ref_fault", model=REFERENCE_MODEL,
                                         content=[block], stop_reason="end_turn",
                                         usage={"input_tokens": 1, "output_tokens": 1}))
        elif fault == "short":
            data = json.dumps(error_body("api_error", said)).encode("utf-8")
            self.send_response_only(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(2 * len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif fault == "timeout":
            time.sleep(plan.stall_s)  # the client gave up long before: nothing is sent
        else:  # reset: an RST instead of an answer
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
        self.close_connection = True

    def _send(self, status: int, payload: dict[str, object],
              headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self._send_bytes(status, data, "application/json", headers)

    def _send_bytes(self, status: int, data: bytes, content_type: str,
                    headers: dict[str, str] | None = None) -> None:
        # No Date or Server header: the same request gets the same bytes.
        self.send_response_only(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header(BACKEND_HEADER, "reference")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet: a benchmark run makes thousands of requests."""
