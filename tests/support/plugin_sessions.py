"""Benchmark sessions the plugin tests share: the three-question bench, the one recording
session per test run (a subprocess on the reference backend), and readers of what a run left
(its summary section, its JUnit records)."""

from __future__ import annotations

import ast
import contextlib
import fcntl
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

import pytest

from tests.support.benchmark_project import seed_vector_record

if TYPE_CHECKING:
    from pytest_legalbench.reference_backend import ReferenceBackend

REPO = Path(__file__).resolve().parents[2]
BENCH_MODULE = (REPO / "benchmarks" / "test_legalbench.py").read_text(encoding="utf-8")
QUESTIONS = REPO / "benchmarks" / "questions" / "transactions"
#: Two document-bound questions (commercial and licensing) and one out-of-scope control.
QUESTION_IDS = ("glufox-royalty-base", "netgear-marketing-funds", "netgear-territory-today")
CONTROL = "netgear-marketing-funds"
MODES = ("navindex", "inject")
#: Settings the surrounding environment could hold; each test chooses its own.
FOREIGN_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "LEGALBENCH_BACKEND",
               "LEGALBENCH_JUDGE", "LEGALBENCH_PROFILE", "LEGALBENCH_ANSWER_MODEL",
               "LEGALBENCH_JUDGE_MODEL", "LEGALBENCH_CACHE_DIR")
RECORD_KEYS = {"question_id", "kind", "practice_area", "mode", "question", "reference", "judge",
               "inject_answer", "mode_answer", "raw_forward", "raw_reverse", "verdict",
               "keyfacts_inject", "keyfacts_mode", "evidence_recall", "node_ids",
               "payload_tokens", "scan_tokens", "inject_calls", "mode_calls", "judge_calls",
               "provisions", "evidence", "mode_traits"}
# Dumps every item's user_properties as JSON, which fails the session unless they are builtins.
DUMP_CONFTEST = """
import json
from pathlib import Path

def pytest_runtest_logreport(report):
    line = json.dumps({"nodeid": report.nodeid, "when": report.when,
                       "properties": report.user_properties})
    with open(Path(__file__).with_name("records.jsonl"), "a", encoding="utf-8") as out:
        out.write(line + "\\n")
"""


def isolate_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    """An absolute corpus folder (pytester changes directory) and no inherited backend."""
    # (numpy, scipy and vcr are imported by conftest.py before any in-process run.)
    monkeypatch.setenv("LEGALBENCH_CORPUS_DIR", str(corpus_root))
    for name in FOREIGN_ENV:
        monkeypatch.delenv(name, raising=False)


@dataclass(frozen=True)
class Bench:
    """The folders every benchmark session of these tests shares."""

    questions: Path
    cache: Path
    corpus: Path

    def args(self, *modes: str) -> list[str]:
        """Command-line arguments for a session over the three questions under ``modes``."""
        return [f"--legalbench-questions={self.questions}",
                f"--legalbench-corpus-dir={self.corpus}", f"--legalbench-cache-dir={self.cache}",
                "-p", "no:cacheprovider", *(f"--mode={mode}" for mode in modes)]


def bench(factory: pytest.TempPathFactory, corpus: Path) -> Bench:
    """The shared question folder and cache (indexes are built once per test session)."""
    return _bench(factory.getbasetemp(), corpus)


# Cached by the session's base folder, so both test modules share one cache and recording.
@functools.cache
def _bench(base: Path, corpus: Path) -> Bench:
    questions = base / "legalbench-questions"
    questions.mkdir()
    for question in QUESTION_IDS:
        shutil.copy(QUESTIONS / f"{question}.yaml", questions)
    cache = base / "legalbench-cache"
    cache.mkdir()
    return Bench(questions, cache, corpus)


@dataclass(frozen=True)
class Recording:
    """What the recording session left behind."""

    folder: Path
    lines: tuple[str, ...]

    @property
    def cassettes(self) -> Path:
        """The reference backend's cassettes it recorded."""
        return self.folder / "cassettes" / "reference"

    @property
    def report(self) -> Path:
        """Its --legalbench-report folder."""
        return self.folder / "report"


def recording(factory: pytest.TempPathFactory, corpus: Path) -> Recording:
    """Run the benchmark once (subprocess, reference backend, no cassettes yet: it records)."""
    done = _recording(factory.getbasetemp(), corpus)
    if isinstance(done, str):
        pytest.fail(done, pytrace=False)
    return done


# A failed recording is cached too (as its message): every test needing it fails at once.
@functools.cache
def _recording(base: Path, corpus: Path) -> Recording | str:
    # One recording per test session: under xdist it sits beside the workers' folders, made
    # by whichever worker needs it first while the other waits on the lock.
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / "legalbench-recording"
    with (root / "legalbench-recording.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        output = folder / "output.txt"
        if not output.exists():
            problem = _record(folder, _bench(base, corpus), corpus)
            if problem is not None:
                return problem
        return Recording(folder, tuple(output.read_text(encoding="utf-8").splitlines()))


def _record(folder: Path, shared: Bench, corpus: Path) -> str | None:
    """Run the recording session in ``folder``: None when it passed, else what went wrong."""
    if folder.exists():
        shutil.rmtree(folder)  # a recording that failed or died half-way
    folder.mkdir()
    (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (folder / "test_legalbench.py").write_text(BENCH_MODULE, encoding="utf-8")
    (folder / "conftest.py").write_text(DUMP_CONFTEST, encoding="utf-8")
    seed_vector_record(folder)
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENV}
    env["LEGALBENCH_CORPUS_DIR"] = str(corpus)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *shared.args(*MODES), "--junitxml=junit.xml",
         "--legalbench-report=report"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        return (f"the recording session failed ({done.returncode}):\n{done.stdout[-4000:]}\n"
                f"{done.stderr[-2000:]}")
    # Written last: its presence says the recording is whole.
    (folder / "output.txt").write_text(done.stdout, encoding="utf-8")
    return None


def summary_section(lines: Sequence[str]) -> list[str]:
    """The 'legalbench summary' lines of a run's output, without the paths of the report and
    of the output lengths kept in the cache (each run of a comparison has its own folders)."""
    if "legalbench summary" not in lines:
        raise AssertionError("no legalbench summary in the output:\n" + "\n".join(lines[-40:]))
    section: list[str] = []
    for line in lines[lines.index("legalbench summary"):]:
        if line.startswith("="):
            break
        if not line.startswith(("report:", "output lengths ")):
            section.append(line)
    return section


def junit_records(path: Path, product: str = "qa") -> dict[str, dict[str, Any]]:
    """Each test case's record of ``product`` from its legalbench_record envelope (pytest
    writes its repr), by test name."""
    found: dict[str, dict[str, Any]] = {}
    for case in ElementTree.parse(path).iter("testcase"):
        for prop in case.iter("property"):
            if prop.get("name") == "legalbench_record":
                envelope = ast.literal_eval(str(prop.get("value")))
                if envelope["product"] == product:
                    found[str(case.get("name"))] = envelope["record"]
    return found


def item_ids(modes: Sequence[str], questions: Sequence[str] = QUESTION_IDS) -> set[str]:
    """The test names of the items of ``questions`` under ``modes``."""
    return {f"test_question[{question}-{mode}]" for question in questions for mode in modes}


def prepare(pytester: pytest.Pytester, cassettes: Path | None = None,
            backend: str = "reference") -> None:
    """The benchmark module in pytester's folder, with copies of ``cassettes`` for ``backend``."""
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_legalbench=BENCH_MODULE)
    if cassettes is not None:
        shutil.copytree(cassettes, pytester.path / "cassettes" / backend)
    seed_vector_record(pytester.path)


def collected(pytester: pytest.Pytester, shared: Bench, *args: str) -> set[str]:
    """The item names ``--collect-only -q`` lists."""
    result = pytester.runpytest("--collect-only", "-q", *shared.args(), *args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    return {line.split("::", 1)[1] for line in result.outlines if "::test_question[" in line}


@contextlib.contextmanager
def served_reference(monkeypatch: pytest.MonkeyPatch,
                     batch_delay_s: float) -> Iterator[ReferenceBackend]:
    """A reference backend outside the sessions, reached as a Messages-API server (its
    batches end ``batch_delay_s`` after they are created)."""
    from pytest_legalbench.reference_backend import ReferenceBackend

    with ReferenceBackend(batch_delay_s=batch_delay_s) as backend:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "not-a-key")
        yield backend


def reference_server_args(backend: ReferenceBackend) -> list[str]:
    """The options that point a session at ``backend`` as a live server, recording nothing."""
    return ["--legalbench-backend=anthropic", f"--legalbench-base-url={backend.base_url}",
            "--legalbench-server-kind=reference", "--disable-recording", "-p", "no:randomly"]


#: Kills its own process (SIGKILL) once the run journal holds a batch: a run interrupted
#: after paying for its first batch, before collecting it.
KILL_AFTER_BATCH_CONFTEST = """
import json
import os
import signal
import threading
import time
from pathlib import Path

def _watch(journal):
    while True:
        if journal.exists() and any(json.loads(line).get("kind") == "batch"
                                    for line in journal.read_text().splitlines() if line):
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.02)

def pytest_configure(config):
    journal = Path(config.rootpath, "out", "journal.jsonl")
    threading.Thread(target=_watch, args=(journal,), daemon=True).start()
"""
