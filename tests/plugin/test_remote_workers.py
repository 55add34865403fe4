"""Workers on other hosts: two execnet socket servers on loopback, each in its own working
folder with its own cache folder (``LEGALBENCH_CACHE_DIR`` in its environment, as on a host
of its own), reached as ``--tx socket=127.0.0.1:PORT`` with the benchmark sent by
``--rsyncdir``. They give the summary of the serial run; each builds its indexes in its own
cache; the run's journal, on the controller's host, holds every item (the controller writes
it for them), so a resume there finds them all finished."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.plugin_sessions import (
    FOREIGN_ENV,
    MODES,
    Bench,
    bench,
    isolate_environment,
    prepare,
    recording,
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


@pytest.fixture
def hosts(tmp_path: Path, corpus_root: Path) -> Iterator[list[tuple[int, Path]]]:
    """Two socket servers, each with its own working and cache folder: (port, folder)."""
    started: list[tuple[int, Path, subprocess.Popen[str]]] = []
    try:
        for name in ("host-a", "host-b"):
            folder = tmp_path / name
            folder.mkdir()
            env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
            env.update(LEGALBENCH_CACHE_DIR=str(folder / "cache"),
                       LEGALBENCH_CORPUS_DIR=str(corpus_root), HF_HUB_OFFLINE="1")
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


def _remote_args(shared: Bench, hosts: list[tuple[int, Path]], module: Path) -> list[str]:
    # No cache folder given: each worker takes its own host's (its environment).
    own = [arg for arg in shared.args(*MODES) if not arg.startswith("--legalbench-cache-dir")]
    return [*own, *(f"--tx=socket=127.0.0.1:{port}" for port, _ in hosts), "--dist=load",
            f"--rsyncdir={module.parent}", "-p", "no:randomly", "-W",
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


def test_batch_mode_refuses_workers_on_other_hosts(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path) -> None:
    prepare(pytester)
    result = pytester.runpytest_subprocess(
        *bench(tmp_path_factory, corpus_root).args(*MODES), "--legalbench-batch",
        "--tx=socket=127.0.0.1:9", "--dist=load")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--legalbench-batch runs on this host's workers only*"])
