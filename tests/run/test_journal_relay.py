"""The journal relay: a remote worker's batch line reaches the controller's journal before the
worker goes on, and nothing but this run's batch lines, with this run's token, gets in."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_legalbench.run.journal import (
    BatchCall,
    BatchEntry,
    JournalError,
    JournalWriter,
    journal_line,
    read_journal,
)
from pytest_legalbench.run.journal_relay import (
    JournalRelay,
    RelayAddress,
    parse_bind,
    relay_writer,
)

RUN = "run-a"


def _entry(run: str = RUN, batch_id: str = "msgbatch_1") -> BatchEntry:
    return BatchEntry(run, "d" * 12, batch_id, 1, "reference",
                      (BatchCall("c-0", "r" * 16, "qa/q1-navindex", "navindex.answer", 0, "q1"),
                       BatchCall("c-1", "s" * 16, "qa/q1", "inject.answer", 0, "q1")))


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal.jsonl"


@pytest.fixture
def relay(journal: Path) -> Iterator[JournalRelay]:
    writer = JournalWriter(journal)
    with JournalRelay(("127.0.0.1", 0), RUN,
                      lambda entry: writer.append(journal_line(entry))) as started:
        yield started


def test_a_sent_batch_line_is_in_the_journal_when_the_send_returns(
        relay: JournalRelay, journal: Path) -> None:
    send = relay_writer(relay.address)
    send(_entry(batch_id="msgbatch_1"))
    assert [b.batch_id for b in read_journal(journal).batches] == ["msgbatch_1"]
    send(_entry(batch_id="msgbatch_2"))
    (_, second) = read_journal(journal).batches
    assert second.batch_id == "msgbatch_2"
    assert second.submission().custom_ids == ("c-0", "c-1")


def test_a_line_with_another_token_is_refused_and_not_written(
        relay: JournalRelay, journal: Path) -> None:
    wrong = RelayAddress(relay.address.host, relay.address.port, "0" * 32)
    with pytest.raises(JournalError, match="refused it: wrong token"):
        relay_writer(wrong)(_entry())
    assert not journal.exists()


def test_a_line_of_another_run_is_refused(relay: JournalRelay, journal: Path) -> None:
    with pytest.raises(JournalError, match="a line of run run-b, not of run-a"):
        relay_writer(relay.address)(_entry(run="run-b"))
    assert not journal.exists()


@pytest.mark.parametrize("line", [b"not json\n", json.dumps({"token": "x"}).encode() + b"\n"])
def test_garbage_is_answered_with_a_refusal(relay: JournalRelay, line: bytes) -> None:
    with socket.create_connection((relay.address.host, relay.address.port), timeout=5) as conn:
        conn.sendall(line)
        reply = json.loads(conn.makefile("rb").readline())
    assert reply["ok"] is False and reply["error"]


def test_only_batch_lines_get_in(relay: JournalRelay, journal: Path) -> None:
    request = {"token": relay.address.token,
               "line": {**journal_line(_entry()), "kind": "stop", "reason": "no"}}
    with socket.create_connection((relay.address.host, relay.address.port), timeout=5) as conn:
        conn.sendall(json.dumps(request).encode() + b"\n")
        reply = json.loads(conn.makefile("rb").readline())
    assert reply == {"ok": False, "error": "a relayed line: not a batch line of the run journal"}
    assert not journal.exists()


def test_an_unreachable_relay_is_an_error_naming_its_address() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nothing listens there any more.
    with pytest.raises(JournalError, match=rf"relay at 127\.0\.0\.1:{port} cannot be reached"):
        relay_writer(RelayAddress("127.0.0.1", port, "t"), timeout_s=5)(_entry())


def test_a_journal_that_cannot_be_written_is_reported_to_the_worker(tmp_path: Path) -> None:
    def refuse(entry: BatchEntry) -> None:
        raise OSError(28, "No space left on device")

    with JournalRelay(("127.0.0.1", 0), RUN, refuse) as relay, \
            pytest.raises(JournalError, match="the journal could not be written"):
        relay_writer(relay.address)(_entry())


@pytest.mark.parametrize(("value", "bind"), [("127.0.0.1:0", ("127.0.0.1", 0)),
                                             ("0.0.0.0:8765", ("0.0.0.0", 8765)),
                                             ("[::1]:9000", ("::1", 9000))])
def test_bind_addresses_parse(value: str, bind: tuple[str, int]) -> None:
    assert parse_bind(value) == bind


@pytest.mark.parametrize("value", ["8765", "host:", ":80", "host:70000", "host:port"])
def test_bad_bind_addresses_are_refused(value: str) -> None:
    with pytest.raises(ValueError, match="is not HOST:PORT"):
        parse_bind(value)
