"""``legalbench batches RUN_DIR`` against a reference backend served here: the journal's
batches with where each stands, ``--cancel`` of those still running (and only those),
``--json``, runs on the embedded backend listed without a server, and the user's errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_legalbench.llm.backend import ClientConfig
from pytest_legalbench.llm.batch_requests import BatchRequest
from pytest_legalbench.llm.batches import (
    BatchClient,
    BatchSettings,
    BatchWaitExpired,
    Submission,
)
from pytest_legalbench.reference_backend import ReferenceBackend
from pytest_legalbench.run.journal import (
    BatchCall,
    BatchEntry,
    JournalWriter,
    journal_line,
)
from tests.support.batch_samples import FakeClock, answering_requests
from tests.support.lease_project import run_command


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def server(clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> Iterator[ReferenceBackend]:
    with ReferenceBackend(batch_delay_s=60.0, clock=clock) as backend:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "not-a-key")
        monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
        monkeypatch.delenv("LEGALBENCH_BACKEND", raising=False)
        yield backend


def _journal(folder: Path, submissions: list[tuple[Submission, list[BatchRequest]]],
             backend: str = "anthropic") -> None:
    writer = JournalWriter(folder / "journal.jsonl")
    for submission, requests in submissions:
        calls = tuple(BatchCall(r.custom_id, r.digest, f"test_legalbench/{r.custom_id}",
                                "navembed.answer", 1, "q1") for r in requests)
        writer.append(journal_line(BatchEntry("run1", "digest", submission.batch_id,
                                              submission.attempt, backend, calls)))


def _submit(server: ReferenceBackend, clock: FakeClock,
            requests: list[BatchRequest]) -> Submission:
    """One batch created and not waited on, as by a run stopped right after it."""
    made: list[Submission] = []
    config = ClientConfig(backend="anthropic", api_key="not-a-key", base_url=server.base_url)
    settings = BatchSettings(poll_interval_s=30, max_wait_s=1)
    with BatchClient(config, settings, on_submitted=made.append, clock=clock,
                     sleep=clock.sleep) as client, pytest.raises(BatchWaitExpired):
        client.run(requests)
    return made[0]


def test_lists_each_batch_with_its_state_and_cancels_only_those_running(
        tmp_path: Path, server: ReferenceBackend, clock: FakeClock,
        capsys: pytest.CaptureFixture[str]) -> None:
    requests = answering_requests()
    first = _submit(server, clock, requests[:4])
    clock.now += 61  # the first batch ends; the second is still processing
    second = _submit(server, clock, requests[4:6])
    _journal(tmp_path, [(first, requests[:4]), (second, requests[4:6])])
    base = ["batches", str(tmp_path), "--base-url", server.base_url, "-q"]
    status, out, _ = run_command(capsys, *base)
    assert status == 0
    lines = out.splitlines()
    assert lines[1].startswith(first.batch_id) and "ended (4 succeeded)" in lines[1]
    assert lines[3].startswith(second.batch_id) and "in_progress (2 processing)" in lines[3]
    assert lines[2].strip() == "navembed.answer"
    assert lines[-1] == "2 batch(es), 6 request(s); 1 still in progress"
    status, out, _ = run_command(capsys, *base, "--cancel")
    assert status == 0
    assert "canceling (2 processing)" in out and "ended (4 succeeded)" in out
    status, out, _ = run_command(capsys, *base, "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["batch_id"] for row in rows] == [first.batch_id, second.batch_id]
    assert rows[1]["state"]["processing_status"] == "ended"
    assert rows[1]["state"]["request_counts"]["canceled"] == 2
    assert rows[0]["requests"] == 4 and rows[0]["stages"] == ["navembed.answer"]


def test_batches_of_the_embedded_backend_are_listed_from_the_journal_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    requests = answering_requests()[:2]
    _journal(tmp_path, [(Submission("msgbatch_ref000001_x", tuple(r.custom_id for r in requests)),
                         requests)], backend="reference")
    status, out, _ = run_command(capsys, "batches", str(tmp_path), "--cancel")
    assert status == 0
    assert out.splitlines()[0] == ("nothing to cancel: every batch was gone with its run (the "
                                   "embedded reference backend)")
    assert "msgbatch_ref000001_x" in out and "1 batch(es), 2 request(s)" in out


def test_a_folder_without_a_journal_or_batches_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_command(capsys, "batches", str(tmp_path / "nowhere"))
    assert status == 2
    assert f"{tmp_path / 'nowhere'}: no journal.jsonl there" in err
    (tmp_path / "journal.jsonl").write_text("", encoding="utf-8")
    status, out, _ = run_command(capsys, "batches", str(tmp_path))
    assert status == 0 and "this run created no message batch" in out


def test_batches_on_a_server_need_its_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("LEGALBENCH_BACKEND", raising=False)
    requests = answering_requests()[:1]
    _journal(tmp_path, [(Submission("msgbatch_01", (requests[0].custom_id,)), requests)])
    status, _, err = run_command(capsys, "batches", str(tmp_path), "-q")
    assert status == 2
    assert "set ANTHROPIC_API_KEY" in err
