"""Workers on other hosts: two execnet socket servers on loopback, each in its own working
folder with its own cache folder (``LEGALBENCH_CACHE_DIR`` in its environment, as on a host
of its own), reached as ``--tx socket=127.0.0.1:PORT`` with the benchmark sent by
``--rsyncdir``. They give the summary of the serial run; each builds its indexes in its own
cache; the run's journal, on the controller's host, holds every item (the controller writes
it for them), so a resume there finds them all finished. A batch run on them sends each
batch line to the controller's journal relay before waiting on the batch, and a resume hands
them the run's batches to collect instead of paying for them again."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_legalbench.reference_backend import ReferenceBackend
from tests.support.plugin_sessions import (
    FOREIGN_ENV,
    KILL_AFTER_BATCH_CONFTEST,
    MODES,
    Bench,
    bench,
    isolate_environment,
    prepare,
    recording,
    reference_server_args,
    served_reference,
    summary_section,
)

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int, server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert server.poll() is None, "the socket server exited"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"no socket server on port {port}")


@contextlib.contextmanager
def _socket_hosts(base: Path, corpus_root: Path,
                  **extra_env: str) -> Iterator[list[tuple[int, Path]]]:
    """Two socket servers, each with its own working and cache folder: (port, folder)."""
    started: list[tuple[int, Path, subprocess.Popen[str]]] = []
    try:
        for name in ("host-a", "host-b"):
            folder = base / name
            folder.mkdir()
            env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
            env.update(LEGALBENCH_CACHE_DIR=str(folder / "cache"),
                       LEGALBENCH_CORPUS_DIR=str(corpus_root), HF_HUB_OFFLINE="1", **extra_env)
            port = _free_port()
            server = subprocess.Popen(
                [sys.executable, "-u", "-m", "execnet.script.socketserver", f"127.0.0.1:{port}"],
                cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                text=True)
            started.append((port, folder, server))
            _listening(port, server)
        yield [(port, folder) for port, folder, _ in started]
    finally:
        for _, _, server in started:
            server.terminate()
            server.wait(timeout=30)


@pytest.fixture
def hosts(tmp_path: Path, corpus_root: Path) -> Iterator[list[tuple[int, Path]]]:
    """Two socket servers on loopback, each a host of its own."""
    with _socket_hosts(tmp_path, corpus_root) as started:
        yield started


def _remote_args(shared: Bench, hosts: list[tuple[int, Path]], module: Path) -> list[str]:
    # No cache folder given: each worker takes its own host's (its environment).
    own = [arg for arg in shared.args(*MODES) if not arg.startswith("--legalbench-cache-dir")]
    return [*own, *(f"--tx=socket=127.0.0.1:{port}" for port, _ in hosts), "--dist=load",
            f"--rsyncdir={module.parent}", "--max-worker-restart=0", "-p", "no:randomly", "-W",
            "ignore::DeprecationWarning", str(module)]


def test_two_socket_workers_on_their_own_folders_match_the_serial_run(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path, hosts: list[tuple[int, Path]]) -> None:
    serial = recording(tmp_path_factory, corpus_root)
    shared = bench(tmp_path_factory, corpus_root)
    prepare(pytester, serial.cassettes)
    module = pytester.path / "test_legalbench.py"
    result = pytester.runpytest_subprocess(*_remote_args(shared, hosts, module),
                                           "--legalbench-report=out", timeout=600)
    result.assert_outcomes(passed=6)
    assert summary_section(result.outlines) == summary_section(serial.lines)
    # Each worker ran in its own folder and built its indexes in its own host's cache.
    for _, folder in hosts:
        assert (folder / "pyexecnetcache" / pytester.path.name / "test_legalbench.py").exists()
        assert any((folder / "cache").rglob("*")), f"{folder}: no cache built there"
    # The journal on this host holds all six items, written here from the workers' reports.
    lines = [json.loads(line) for line in
             (pytester.path / "out" / "journal.jsonl").read_text(encoding="utf-8").splitlines()]
    finished = {entry["item"] for entry in lines if entry["kind"] == "item"}
    assert len(finished) == 6
    planned = [entry for entry in lines if entry["kind"] == "plan"]
    assert planned and all(len(entry["items"]) == 6 for entry in planned)
    # Resumed on this host: the workers are handed the finished items and run none again.
    again = pytester.runpytest_subprocess(*_remote_args(shared, hosts, module),
                                          "--legalbench-resume=out", timeout=600)
    again.assert_outcomes(passed=6)
    assert summary_section(again.outlines) == summary_section(serial.lines)


def _batch_lines(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    return [entry for entry in map(json.loads, lines) if entry["kind"] == "batch"]


def _without_batch_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("legalbench batch:")]


def _journaled_requests(folder: Path) -> Counter[str]:
    calls = [call for entry in _batch_lines(folder) for call in entry["calls"]]
    assert len({c["custom_id"] for c in calls}) == len(calls)
    return Counter(str(c["request"]) for c in calls)


@contextlib.contextmanager
def _batch_hosts(pytester: pytest.Pytester, factory: pytest.TempPathFactory, corpus_root: Path,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ReferenceBackend, Bench,
                                                                    list[str]]]:
    """A served reference backend, two socket hosts that reach it with a key, the benchmark
    prepared: (server, bench, the options of a batch run on those hosts)."""
    with served_reference(monkeypatch, batch_delay_s=1.0) as served, \
            _socket_hosts(factory.mktemp("hosts"), corpus_root,
                          ANTHROPIC_API_KEY="not-a-key") as remote:
        shared = bench(factory, corpus_root)
        prepare(pytester)
        yield served, shared, [*_remote_args(shared, remote, pytester.path / "test_legalbench.py"),
                               *reference_server_args(served), "--legalbench-batch"]


def test_a_batch_run_on_socket_workers_journals_their_batches_here(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _batch_hosts(pytester, tmp_path_factory, corpus_root,
                      monkeypatch) as (served, shared, remote_batch):
        result = pytester.runpytest_subprocess(*remote_batch, "--legalbench-report=out",
                                               timeout=600)
        result.assert_outcomes(passed=6)
        output = result.stdout.str()
        assert "legalbench batch: [gw0] batched:" in output
        assert "legalbench batch: [gw1] batched:" in output
        # Both workers' batches are in this host's journal, each request submitted once
        # (counted at the server) and every call served from a batch.
        assert served.batches.submitted == _journaled_requests(pytester.path / "out")
        assert sum(served.batches.submitted.values()) == 15
        assert sum(served.answered.values()) == 15
        assert len({entry["run"] for entry in _batch_lines(pytester.path / "out")}) == 1
    with ReferenceBackend(batch_delay_s=0.5) as fresh:
        one = pytester.runpytest_subprocess(*shared.args(*MODES), *reference_server_args(fresh),
                                            "--legalbench-batch")
    one.assert_outcomes(passed=6)
    # The same summary, costs at the batch rate included; only the batch lines say which
    # worker sent what.
    assert _without_batch_lines(summary_section(result.outlines)) == \
        _without_batch_lines(summary_section(one.outlines))


def test_socket_workers_resuming_a_batch_run_collect_its_batches_instead_of_paying(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _batch_hosts(pytester, tmp_path_factory, corpus_root,
                      monkeypatch) as (served, shared, remote_batch):
        # Interrupted on this host after paying for its first batch.
        pytester.makeconftest(KILL_AFTER_BATCH_CONFTEST)
        local = [*shared.args(*MODES), *reference_server_args(served), "--legalbench-batch"]
        first = pytester.runpytest_subprocess(*local, "--legalbench-report=out")
        (pytester.path / "conftest.py").unlink()
        assert first.ret == -signal.SIGKILL
        assert len(_batch_lines(pytester.path / "out")) == 1
        # Resumed on two workers elsewhere: they are handed that batch and collect it.
        resumed = pytester.runpytest_subprocess(*remote_batch, "--legalbench-resume=out",
                                                timeout=600)
        resumed.assert_outcomes(passed=6)
        assert "collected from the journal's batches" in resumed.stdout.str()
        assert served.batches.submitted == _journaled_requests(pytester.path / "out")
        assert sum(served.batches.submitted.values()) == 15
        assert len(_batch_lines(pytester.path / "out")) > 1


def test_a_journal_relay_that_cannot_listen_is_a_usage_error(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path, hosts: list[tuple[int, Path]]) -> None:
    prepare(pytester)
    module = pytester.path / "test_legalbench.py"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = pytester.runpytest_subprocess(
            *_remote_args(bench(tmp_path_factory, corpus_root), hosts, module),
            "--legalbench-batch", f"--legalbench-journal-relay=127.0.0.1:{port}", timeout=600)
    assert result.ret != pytest.ExitCode.OK
    assert f"--legalbench-journal-relay 127.0.0.1:{port}: cannot listen there" in \
        result.stdout.str() + result.stderr.str()
