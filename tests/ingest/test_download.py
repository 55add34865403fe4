"""Downloading documents against a local HTTP server: checksums, statuses, retries, User-Agent."""

from __future__ import annotations

import hashlib
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.download import (
    DEFAULT_USER_AGENT,
    USER_AGENT_ENV,
    fetch_document,
    resolve_user_agent,
)

BODY = b"<html><body><p>Section 1. Definitions.</p></body></html>"
BODY_SHA = hashlib.sha256(BODY).hexdigest()
AGENT = "Example Research contact@example.org"


@dataclass(frozen=True)
class Reply:
    """One scripted answer: status, body, extra headers and a delay before answering."""

    status: int = 200
    body: bytes = BODY
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0


@dataclass
class Script:
    """Replies per path, served in order (the last one repeats), and what the server saw."""

    replies: dict[str, list[Reply]] = field(default_factory=dict)
    seen: list[tuple[str, str | None]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, path: str, agent: str | None) -> Reply:
        with self.lock:
            self.seen.append((path, agent))
            queue = self.replies.get(path, [Reply(status=404, body=b"not here")])
            return queue.pop(0) if len(queue) > 1 else queue[0]


@dataclass
class Server:
    script: Script
    base_url: str

    def url(self, path: str) -> str:
        return self.base_url + path


@pytest.fixture
def server() -> Iterator[Server]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            reply = script.next_reply(self.path, self.headers.get("User-Agent"))
            if reply.delay_s:
                time.sleep(reply.delay_s)
            try:
                self.send_response(reply.status)
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except OSError:
                pass  # The client gave up (timeout tests); nothing left to answer.

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # A short poll keeps shutdown() quick; the default waits up to half a second.
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    try:
        yield Server(script, f"http://127.0.0.1:{httpd.server_address[1]}")
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def sleeps() -> list[float]:
    return []


def _fetch(
    url: str,
    dest: Path,
    sleeps: list[float],
    *,
    sha256: str = BODY_SHA,
    user_agent: str | None = AGENT,
    timeout: float = 5.0,
) -> Path:
    # No proxy handler: a proxy set in the environment must not intercept 127.0.0.1.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return fetch_document(
        url,
        dest,
        sha256=sha256,
        user_agent=user_agent,
        timeout=timeout,
        opener=opener,
        sleep=sleeps.append,
    )


def test_success_writes_verified_bytes_and_sends_the_user_agent(
    server: Server, tmp_path: Path, sleeps: list[float]
) -> None:
    server.script.replies["/ex10.htm"] = [Reply()]
    dest = tmp_path / "cache" / "ex10.htm"
    assert _fetch(server.url("/ex10.htm"), dest, sleeps) == dest
    assert dest.read_bytes() == BODY
    assert server.script.seen == [("/ex10.htm", AGENT)]
    assert sleeps == []
    assert [p.name for p in dest.parent.iterdir()] == ["ex10.htm"]


def test_checksum_mismatch_writes_nothing(
    server: Server, tmp_path: Path, sleeps: list[float]
) -> None:
    server.script.replies["/ex10.htm"] = [Reply(body=b"tampered")]
    dest = tmp_path / "ex10.htm"
    url = server.url("/ex10.htm")
    with pytest.raises(CorpusError) as info:
        _fetch(url, dest, sleeps)
    message = str(info.value)
    assert url in message and BODY_SHA in message
    assert hashlib.sha256(b"tampered").hexdigest() in message
    assert list(tmp_path.iterdir()) == []


def test_checksum_mismatch_keeps_an_existing_file(
    server: Server, tmp_path: Path, sleeps: list[float]
) -> None:
    server.script.replies["/ex10.htm"] = [Reply(body=b"tampered")]
    dest = tmp_path / "ex10.htm"
    dest.write_bytes(b"previous copy")
    with pytest.raises(CorpusError, match="checksum mismatch"):
        _fetch(server.url("/ex10.htm"), dest, sleeps)
    assert dest.read_bytes() == b"previous copy"


def test_not_found_fails_at_once_naming_url_and_status(
    server: Server, tmp_path: Path, sleeps: list[float]
) -> None:
    url = server.url("/missing.htm")
    with pytest.raises(CorpusError, match="HTTP 404") as info:
        _fetch(url, tmp_path / "m.htm", sleeps)
    assert url in str(info.value)
    assert len(server.script.seen) == 1 and sleeps == []
    assert not (tmp_path / "m.htm").exists()


def test_unwritable_destination_is_a_corpus_error(
    server: Server, tmp_path: Path, sleeps: list[float]
) -> None:
    server.script.replies["/ex10.htm"] = [Reply()]
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    # The destination's folder would have to be inside a regular file.
    with pytest.raises(CorpusError, match="cannot write") as info:
        _fetch(server.url("/ex10.htm"), blocker / "ex10.htm", sleeps)
    assert str(blocker / "ex10.htm") in str(info.value)


def test_service_unavailable_then_success_is_retried(
    server: Server, tmp_path: Path, sleeps: list[float]
) -> None:
    server.script.replies["/ex10.htm"] = [Reply(status=503, body=b"busy"), Reply()]
    dest = tmp_path / "ex10.htm"
    _fetch(server.url("/ex10.htm"), dest, sleeps)
    assert dest.read_bytes() == BODY
    assert len(server.script.seen) == 2
    assert sleeps == [2.0]


def test_persistent_server_errors_give_up_after_three_attempts(
    server: Server, tmp_path: Path, sleeps: list[float]
) -> None:
    server.script.replies["/ex10.htm"] = [Reply(status=500, body=b"boom")]
    url = server.url("/ex10.htm")
    with pytest.raises(CorpusError, match="after 3 attempts") as info:
        _fetch(url, tmp_path / "ex10.htm", sleeps)
    assert url in str(info.value) and "HTTP 500" in str(info.value)
    assert len(server.script.seen) == 3
    assert sleeps == [2.0, 4.0]


def test_too_many_requests_honours_retry_after(
    server: Server, tmp_path: Path, sleeps: list[float]
) -> None:
    slow_down = Reply(status=429, body=b"slow down", headers=(("Retry-After", "7"),))
    server.script.replies["/ex10.htm"] = [slow_down, Reply()]
    _fetch(server.url("/ex10.htm"), tmp_path / "ex10.htm", sleeps)
    assert sleeps == [7.0]


def test_timeouts_are_retried_then_reported(
    server: Server, tmp_path: Path, sleeps: list[float]
) -> None:
    server.script.replies["/slow.htm"] = [Reply(delay_s=0.5)]
    url = server.url("/slow.htm")
    with pytest.raises(CorpusError, match="timed out") as info:
        _fetch(url, tmp_path / "slow.htm", sleeps, timeout=0.1)
    assert url in str(info.value)
    assert len(server.script.seen) == 3 and len(sleeps) == 2
    assert not (tmp_path / "slow.htm").exists()


def test_refused_connection_names_the_url(tmp_path: Path, sleeps: list[float]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/gone.htm"
    with pytest.raises(CorpusError, match="cannot connect") as info:
        _fetch(url, tmp_path / "gone.htm", sleeps)
    assert url in str(info.value)


@pytest.mark.parametrize(
    ("url", "sha256", "problem"),
    [
        ("http://127.0.0.1:9/x", "abc", "not a sha256"),
        ("file:///etc/hostname", BODY_SHA, "only http and https"),
    ],
)
def test_bad_arguments_are_refused_before_any_request(
    url: str, sha256: str, problem: str, tmp_path: Path, sleeps: list[float]
) -> None:
    with pytest.raises(CorpusError, match=problem):
        _fetch(url, tmp_path / "x", sleeps, sha256=sha256)


def test_user_agent_comes_from_the_environment_when_not_given(
    server: Server, tmp_path: Path, sleeps: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(USER_AGENT_ENV, "Env Agent env@example.org")
    server.script.replies["/ex10.htm"] = [Reply()]
    _fetch(server.url("/ex10.htm"), tmp_path / "a.htm", sleeps, user_agent=None)
    assert server.script.seen == [("/ex10.htm", "Env Agent env@example.org")]


def test_user_agent_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(USER_AGENT_ENV, raising=False)
    assert resolve_user_agent() == DEFAULT_USER_AGENT
    assert (
        DEFAULT_USER_AGENT.startswith("pytest-legalbench/") and USER_AGENT_ENV in DEFAULT_USER_AGENT
    )
    monkeypatch.setenv(USER_AGENT_ENV, "from env")
    assert resolve_user_agent() == "from env"
    assert resolve_user_agent("explicit") == "explicit"
