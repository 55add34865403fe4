"""Interrupted benchmark runs through pytester: a SIGINT or a SIGKILL after some items keeps
their records in the journal, the partial run says so and leaves a whole report alone, and
``--legalbench-resume`` runs the rest to the summary an uninterrupted run prints (and removes
the partial report the interruption left beside the whole one).

Every session replays copies of the shared recording's cassettes (``test_benchmark_plugin``).
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.support.plugin_sessions import (
    MODES,
    bench,
    isolate_environment,
    prepare,
    recording,
    summary_section,
)

# Each test runs the benchmark two or three times in subprocesses, one of them killed.
pytestmark = pytest.mark.slow

#: Sends the signal named by $KILL_SIGNAL to its own process once $KILL_AFTER items finished.
KILLER_CONFTEST = """
import os
import signal

finished = []
# What is simulated is Ctrl-C in a terminal: a process a shell without job control started in
# the background inherits SIGINT ignored, and would never see the signal.
signal.signal(signal.SIGINT, signal.default_int_handler)

def pytest_runtest_logfinish(nodeid, location):
    finished.append(nodeid)
    if len(finished) == int(os.environ["KILL_AFTER"]):
        os.kill(os.getpid(), getattr(signal, os.environ["KILL_SIGNAL"]))
"""


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


def journal_items(folder: Path) -> list[dict[str, object]]:
    """The item lines of a run folder's journal."""
    lines = (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    return [line for line in map(json.loads, lines) if line["kind"] == "item"]


def interrupted(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: list[str],
                sig: str, after: int) -> pytest.RunResult:
    """A subprocess session that signals itself once ``after`` items finished."""
    pytester.makeconftest(KILLER_CONFTEST)
    monkeypatch.setenv("KILL_SIGNAL", sig)
    monkeypatch.setenv("KILL_AFTER", str(after))
    result = pytester.runpytest_subprocess(*args)
    (pytester.path / "conftest.py").unlink()
    return result


@pytest.mark.parametrize("sig", ["SIGINT", "SIGKILL"])
def test_an_interrupted_run_keeps_its_items_and_a_resume_finishes_it(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch, sig: str) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    args = [*bench(tmp_path_factory, corpus_root).args(*MODES), "--legalbench-report=out",
            "-p", "no:randomly"]
    first = interrupted(pytester, monkeypatch, args, sig, after=2)
    out = pytester.path / "out"
    kept = journal_items(out)
    assert len(kept) == 2 and all("envelope" in line for line in kept)
    if sig == "SIGKILL":
        assert first.ret == -signal.SIGKILL
        assert "legalbench summary" not in first.stdout.str()
    else:
        assert first.ret == pytest.ExitCode.INTERRUPTED
        assert "legalbench summary (partial: 2 of 6 items)" in first.outlines
        assert ("run journal: out/journal.jsonl (run the rest with --legalbench-resume out)"
                in first.outlines)
        assert (out / "report.md").read_text(encoding="utf-8").startswith(
            "# legalbench report (partial: 2 of 6 items): ")
        stored = json.loads((out / "results.json").read_text(encoding="utf-8"))
        assert stored["run"]["notes"][0] == "partial: 2 of 6 items"
        assert len(stored["records"]) == 2
    resumed = pytester.runpytest_subprocess(*args, "--legalbench-resume=out")
    resumed.assert_outcomes(passed=6)
    assert summary_section(resumed.outlines) == summary_section(run.lines)
    # The resumed run ran only the four items the journal lacked.
    assert len(journal_items(out)) == 6
    assert len({line["item"] for line in journal_items(out)}) == 6
    whole = (out / "report.md").read_text(encoding="utf-8")
    assert whole.startswith("# legalbench report: ")
    assert whole == (run.report / "report.md").read_text(encoding="utf-8")


def test_a_partial_run_never_replaces_a_whole_report_and_its_resume_removes_it(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    args = [*bench(tmp_path_factory, corpus_root).args(*MODES), "--legalbench-report=out",
            "-p", "no:randomly"]
    pytester.runpytest_subprocess(*args).assert_outcomes(passed=6)
    out = pytester.path / "out"
    whole = (out / "results.json").read_bytes()
    result = interrupted(pytester, monkeypatch, args, "SIGINT", after=1)
    assert "legalbench summary (partial: 1 of 6 items)" in result.outlines
    assert (out / "results.json").read_bytes() == whole
    partial = json.loads((out / "partial" / "results.json").read_text(encoding="utf-8"))
    assert len(partial["records"]) == 1
    # The whole run's journal was set aside, not appended to or lost.
    assert len(journal_items(out)) == 1
    set_aside = (out / "journal.1.jsonl").read_text(encoding="utf-8").splitlines()
    assert sum(json.loads(line)["kind"] == "item" for line in set_aside) == 6
    # Resumed to the end, the run's complete report replaces the partial one it left.
    resumed = pytester.runpytest_subprocess(*args, "--legalbench-resume=out")
    resumed.assert_outcomes(passed=6)
    assert not (out / "partial").exists()
    assert ("removed out/partial: the interrupted run's partial report, which this resumed run "
            "completes") in resumed.outlines
    stored = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert len(stored["records"]) == 6 and not stored["run"]["notes"][0].startswith("partial")


def test_every_xdist_worker_journals_and_a_resume_runs_under_xdist(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    args = [*bench(tmp_path_factory, corpus_root).args(*MODES), "--legalbench-report=out"]
    first = interrupted(pytester, monkeypatch, [*args, "-p", "no:xdist"], "SIGKILL", after=3)
    assert first.ret == -signal.SIGKILL
    resumed = pytester.runpytest_subprocess(*args, "-n", "2", "--legalbench-resume=out")
    resumed.assert_outcomes(passed=6)
    assert summary_section(resumed.outlines) == summary_section(run.lines)
    lines = journal_items(pytester.path / "out")
    assert len(lines) == 6
    # One run token for the first session's items, one for the resumed session's, written
    # by both of its workers into the one file.
    assert len({line["run"] for line in lines}) == 2


def test_a_resume_under_other_settings_is_one_startup_error(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    shared = bench(tmp_path_factory, corpus_root)
    interrupted(pytester, monkeypatch, [*shared.args(*MODES), "--legalbench-report=out"],
                "SIGINT", after=1)
    result = pytester.runpytest(*shared.args("navindex"), "--legalbench-resume=out",
                                "--legalbench-judge=preference")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        ("ERROR: --legalbench-resume out: that run used other settings (judge: "
        "reference-anchored -> preference; modes: navindex, inject -> navindex); resume with "
        "the same settings, or start a new run without --legalbench-resume")])
    missing = pytester.runpytest(*shared.args(*MODES), "--legalbench-resume=nowhere")
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    missing.stderr.fnmatch_lines(["ERROR: --legalbench-resume nowhere: no journal.jsonl there *"])


def test_a_run_without_a_report_folder_journals_under_the_cache(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    shared = bench(tmp_path_factory, corpus_root)
    args = [*shared.args("navindex"), "-p", "no:randomly"]
    result = interrupted(pytester, monkeypatch, args, "SIGINT", after=1)
    (line,) = [line for line in result.outlines if line.startswith("run journal: ")]
    folder = Path(line.rsplit(" ", 1)[1].rstrip(")"))
    assert folder.parent == shared.cache / "runs"
    assert line == (f"run journal: {folder / 'journal.jsonl'} (run the rest with "
                    f"--legalbench-resume {folder})")
    resumed = pytester.runpytest_subprocess(*args, f"--legalbench-resume={folder}")
    resumed.assert_outcomes(passed=3)
    assert "legalbench summary" in resumed.outlines
    assert not (folder / "results.json").exists()
    assert len(journal_items(folder)) == 3
