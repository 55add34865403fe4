"""A retrieval service on loopback that speaks the documented JSON, for the tests of the
``http://`` mode: each POST of ``{"id", "question", "documents", "budget_tokens"}`` is kept
(headers and body) and answered ``{"passages": [...]}``, from canned answers first (a status,
a body, headers; or a delay), then by ranking paragraphs of its own copy of the documents
by the words they share with the question."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_WORD = re.compile(r"[a-z0-9$%.,]+")


@dataclass(frozen=True)
class Seen:
    """One request as the service received it."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The body, parsed."""
        return json.loads(self.body)


@dataclass
class Canned:
    """One answer given instead of the ranked one."""

    status: int = 200
    body: bytes = b'{"passages": []}'
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def paragraph_passages(texts: Mapping[str, str], question: str, top: int = 3,
                       ) -> list[dict[str, object]]:
    """The ``top`` paragraphs sharing most words with ``question``, without spans."""
    asked = set(_WORD.findall(question.lower()))
    scored = []
    for doc_id, text in texts.items():
        for paragraph in (p.strip() for p in text.split("\n\n")):
            shared = len(asked & set(_WORD.findall(paragraph.lower())))
            if paragraph and shared:
                scored.append((-shared, doc_id, paragraph))
    return [{"doc_id": doc_id, "text": paragraph, "score": -negative}
            for negative, doc_id, paragraph in sorted(scored)[:top]]


class RetrievalService:
    """The service: start it with ``running``; ``url`` is where it answers."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.texts = dict(texts)
        self.seen: list[Seen] = []
        self.canned: list[Canned] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "the service is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/retrieve"

    def _answer(self, seen: Seen) -> Canned:
        with self._lock:
            self.seen.append(seen)
            if self.canned:
                return self.canned.pop(0)
        asked = seen.json
        passages = paragraph_passages({d: self.texts[d] for d in asked["documents"]
                                       if d in self.texts}, asked["question"])
        return Canned(body=json.dumps({"passages": passages}).encode("utf-8"))

    @contextmanager
    def running(self) -> Iterator[RetrievalService]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                answer = service._answer(Seen("POST", self.path, dict(self.headers.items()),
                                              body))
                if answer.delay_s:
                    time.sleep(answer.delay_s)
                try:
                    self.send_response(answer.status)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()
            thread.join(5)
