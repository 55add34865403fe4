"""Batch lines of xdist workers on other hosts, written into the run journal on this one.

A batch run writes each batch's id to the journal before it waits on the batch, so that an
interrupted run collects what it paid for instead of submitting it again. A worker on another
host has no journal to write: the run's folder is on the controller's host, and xdist's channel
carries only xdist's own events. So the controller listens on a TCP address the workers reach
(loopback for socket servers on this host; a forwarded port for ssh hosts), and a worker sends
each batch line there and waits for the controller's acknowledgement, which comes after the
line is fsync'd. A wrong token, a line that is not a batch line, or a run other than this one
is refused; a worker that cannot reach the relay fails its batch run with the address named.

The protocol is one JSON object per line each way: ``{"token": ..., "line": {...}}`` in,
``{"ok": true}`` or ``{"ok": false, "error": "..."}`` out.
"""

from __future__ import annotations

import hmac
import json
import secrets
import socket
import socketserver
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Self

from pytest_legalbench.run.journal import BatchEntry, JournalError, batch_entry, journal_line

#: Seconds a worker waits for the controller to acknowledge one batch line.
RELAY_TIMEOUT_S = 60.0
#: The longest request line read (a batch line holds every request of its batch).
_MAX_LINE = 256 * 1024 * 1024


@dataclass(frozen=True)
class RelayAddress:
    """Where a worker sends its batch lines, and the token that proves it is this run's."""

    host: str
    port: int
    token: str

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def parse_bind(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (port 0: any free port) as a bind address; ValueError naming it."""
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{value!r} is not HOST:PORT (port 0 to 65535)")
    return host.strip("[]"), int(port)


class JournalRelay:
    """The controller's side: accepts batch lines of run ``run`` and hands each to ``write``
    (which appends it to the journal) before acknowledging it."""

    def __init__(self, bind: tuple[str, int], run: str,
                 write: Callable[[BatchEntry], None]) -> None:
        self.run = run
        self.token = secrets.token_hex(16)
        self._write = write
        self._lock = threading.Lock()
        relay = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                for raw in iter(lambda: self.rfile.readline(_MAX_LINE), b""):
                    reply = relay.receive(raw)
                    self.wfile.write(json.dumps(reply).encode("utf-8") + b"\n")
                    self.wfile.flush()

        self._server = socketserver.ThreadingTCPServer(bind, Handler, bind_and_activate=False)
        self._server.daemon_threads = True
        self._server.allow_reuse_address = True
        self._server.server_bind()
        self._server.server_activate()
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="legalbench-journal-relay", daemon=True)

    @property
    def address(self) -> RelayAddress:
        """The address and token a worker is handed."""
        host, port = self._server.server_address[:2]
        return RelayAddress(str(host), int(port), self.token)

    def receive(self, raw: bytes) -> dict[str, Any]:
        """The reply to one request line: written and acknowledged, or refused with why."""
        try:
            request = json.loads(raw)
        except ValueError:
            return {"ok": False, "error": "not a JSON line"}
        if not isinstance(request, dict) or not hmac.compare_digest(
                str(request.get("token", "")), self.token):
            return {"ok": False, "error": "wrong token: not this run's relay"}
        line = request.get("line")
        try:
            entry = batch_entry(line if isinstance(line, Mapping) else {}, "a relayed line")
        except JournalError as error:
            return {"ok": False, "error": str(error)}
        if entry.run != self.run:
            return {"ok": False, "error": f"a line of run {entry.run}, not of {self.run}"}
        try:
            with self._lock:  # one journal append at a time, in the order received
                self._write(entry)
        except (OSError, JournalError) as error:
            return {"ok": False, "error": f"the journal could not be written: {error}"}
        return {"ok": True}

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Serve in a background thread."""
        self._thread.start()

    def close(self) -> None:
        """Stop serving and release the address."""
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()


def relay_writer(address: RelayAddress,
                 timeout_s: float = RELAY_TIMEOUT_S) -> Callable[[BatchEntry], None]:
    """The worker's side: a function that sends one batch line to the controller and returns
    once it is in the journal; JournalError, naming the address, when it is not."""

    def send(entry: BatchEntry) -> None:
        request = json.dumps({"token": address.token, "line": journal_line(entry)})
        try:
            with socket.create_connection((address.host, address.port),
                                          timeout=timeout_s) as connection:
                connection.sendall(request.encode("utf-8") + b"\n")
                with connection.makefile("rb") as replies:
                    raw = replies.readline()
        except OSError as error:
            raise JournalError(
                f"batch {entry.batch_id}: the run journal's relay at {address} cannot be "
                f"reached from this worker ({error}); a worker on another host must reach "
                f"the controller there (--legalbench-journal-relay)") from None
        try:
            reply = json.loads(raw)
        except ValueError:
            reply = None
        if not isinstance(reply, dict) or reply.get("ok") is not True:
            problem = reply.get("error") if isinstance(reply, dict) else "no reply"
            raise JournalError(f"batch {entry.batch_id}: the run journal's relay at {address} "
                               f"refused it: {problem}")

    return send
