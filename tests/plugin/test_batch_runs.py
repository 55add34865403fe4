"""Batch runs through pytester (``--legalbench-batch``) on the reference backend: the summary
of the interactive run with costs at the batch rate and lines that say so, cassettes
byte-identical to an interactive recording (so a replay is the same whichever way they were
recorded), each request submitted once (counted at the server), the batches journaled with
the item and call of each request, progress and phases on the terminal, a killed run resumed
without submitting anything twice, and the same under two xdist workers.

The sessions run the three questions of the shared recording under navindex and inject
(``tests.support.plugin_sessions``). Runs that must count at the server point the plugin at a
``ReferenceBackend`` this test process serves (``--legalbench-base-url``), which outlives
the sessions it answers.
"""

from __future__ import annotations

import json
import re
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_legalbench.reference_backend import ReferenceBackend
from tests.support.benchmark_project import benchmark_project
from tests.support.plugin_sessions import (
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

# Each test runs the benchmark in subprocesses, two or three times.
pytestmark = pytest.mark.slow

#: The lines with dollars (the cost lines, inject's footprint-and-cost line, the crossover):
#: what a batch run prices differently.
PRICED = re.compile(r"^  (cost|crossover|token footprint.*; cost)")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


@pytest.fixture
def shared(tmp_path_factory: pytest.TempPathFactory, corpus_root: Path) -> Bench:
    return bench(tmp_path_factory, corpus_root)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[ReferenceBackend]:
    with served_reference(monkeypatch, batch_delay_s=2.0) as backend:
        yield backend


def _unpriced(lines: list[str]) -> list[str]:
    return [line for line in lines if not PRICED.match(line)
            and not line.startswith("legalbench batch:")]


def _priced(lines: list[str]) -> list[str]:
    return [line for line in lines if PRICED.match(line)]


def _dollars(line: str) -> list[float]:
    return [float(amount) for amount in re.findall(r"\$([0-9.]+)", line)]


def _journal(folder: Path, kind: str) -> list[dict[str, object]]:
    lines = (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    return [entry for entry in map(json.loads, lines) if entry["kind"] == kind]


def _journaled_requests(folder: Path) -> Counter[str]:
    """How often the run's journal says each request (by digest) was submitted; each call
    (custom id) once."""
    calls = [call for entry in _journal(folder, "batch")
             for call in entry["calls"]]  # type: ignore[union-attr]
    assert len({c["custom_id"] for c in calls}) == len(calls)  # type: ignore[index]
    return Counter(str(c["request"]) for c in calls)  # type: ignore[index]


def test_a_batch_run_gives_the_interactive_summary_at_the_batch_rate(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory,
        corpus_root: Path, shared: Bench) -> None:
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester)
    result = pytester.runpytest_subprocess(
        *shared.args(*MODES), "--record-mode=rewrite", "--legalbench-batch",
        "--legalbench-report=out", "-p", "no:randomly")
    result.assert_outcomes(passed=6)
    batch, interactive = summary_section(result.outlines), summary_section(list(run.lines))
    # Verdicts, key facts, recall and footprints are the interactive run's ...
    assert _unpriced(batch) == [
        line.replace("  token footprint", "  token footprint (batch)")
        for line in _unpriced(interactive)]
    # ... and every dollar amount is half of it, on lines that say "batch".
    for ours, theirs in zip(_priced(batch), _priced(interactive), strict=True):
        assert ours.startswith(("  cost (batch):", "  crossover (batch):",
                                "  token footprint (batch) ")), ours
        assert _dollars(ours) == pytest.approx([d / 2 for d in _dollars(theirs)], abs=1e-4)
    assert "at batch prices" in "\n".join(batch)
    # The recorded cassettes are byte for byte the interactive recording's: a replay is the
    # same whichever way they were recorded.
    ours_files = sorted(p.relative_to(pytester.path / "cassettes" / "reference")
                        for p in (pytester.path / "cassettes" / "reference").rglob("*.yaml"))
    theirs_files = sorted(p.relative_to(run.cassettes) for p in run.cassettes.rglob("*.yaml"))
    assert ours_files == theirs_files and ours_files
    for name in ours_files:
        assert (pytester.path / "cassettes" / "reference" / name).read_bytes() == \
            (run.cassettes / name).read_bytes(), name
    # Three phases: scans and both answers; the answers after a scan and the judges of
    # modes that scan nothing; the remaining judges. Each on the terminal, and journaled.
    output = result.stdout.str()
    assert ("legalbench batch: phase 1: 6 request(s) in 1 batch(es) (3 inject.answer, "
            "3 navindex.scan)") in output
    assert "legalbench batch: phase 3: 6 request(s) in 1 batch(es) (3 judge.forward, " \
           "3 judge.reverse)" in output
    assert "legalbench batch: batched: 6 item(s)" in output
    assert re.search(r"phase 1: \d+ batch(es)? \(0 still processing\)", output)
    batches = _journal(pytester.path / "out", "batch")
    calls = [call for entry in batches for call in entry["calls"]]  # type: ignore[union-attr]
    assert len({c["custom_id"] for c in calls}) == len(calls)  # type: ignore[index]
    assert {c["stage"] for c in calls} == {  # type: ignore[index]
        "inject.answer", "navindex.scan", "navindex.answer", "judge.forward", "judge.reverse"}
    assert {c["scope"].split("/")[0] for c in calls} == {  # type: ignore[index]
        "test_legalbench", "test_legalbench-inject"}
    # Inject answers each question once, whichever item asked first.
    assert sum(c["stage"] == "inject.answer" for c in calls) == 3  # type: ignore[index]
    stored = json.loads((pytester.path / "out" / "results.json").read_text(encoding="utf-8"))
    assert stored["summary"]["modes"]["navindex"]["batch"] == {"batch": 15, "calls": 15}
    assert stored["summary"]["modes"]["inject"]["batch"] == {"batch": 3, "calls": 3}
    assert all(call.get("batch") is True for record in stored["records"]
               for arm in ("inject_calls", "mode_calls", "judge_calls")
               for call in record[arm])


def test_the_server_counts_each_batch_request_once(
        pytester: pytest.Pytester, shared: Bench, served: ReferenceBackend) -> None:
    prepare(pytester)
    result = pytester.runpytest_subprocess(*shared.args(*MODES), *reference_server_args(served),
                                           "--legalbench-batch", "--legalbench-report=out")
    result.assert_outcomes(passed=6)
    submitted = served.batches.submitted
    # Each call submitted once: the server's count of each request is the number of calls
    # that send it (a control's two judge directions over two refusals are one request).
    assert submitted == _journaled_requests(pytester.path / "out")
    assert sum(submitted.values()) == 15
    assert served.batches.processed == submitted
    # Nothing went to POST /v1/messages: every call was served from a batch.
    assert sum(served.answered.values()) == sum(submitted.values())
    assert "served 15 call(s) from stored answers (15 from batches)" in result.stdout.str()


def test_a_run_killed_after_its_first_batch_resumes_without_paying_twice(
        pytester: pytest.Pytester, shared: Bench, served: ReferenceBackend,
        monkeypatch: pytest.MonkeyPatch) -> None:
    prepare(pytester)
    args = [*shared.args(*MODES), *reference_server_args(served), "--legalbench-batch",
            "--legalbench-report=out"]
    pytester.makeconftest(KILL_AFTER_BATCH_CONFTEST)
    first = pytester.runpytest_subprocess(*args)
    (pytester.path / "conftest.py").unlink()
    assert first.ret == -signal.SIGKILL
    (paid,) = _journal(pytester.path / "out", "batch")
    assert len(paid["calls"]) == len(served.batches.submitted)  # type: ignore[arg-type]
    resumed = pytester.runpytest_subprocess(*args, "--legalbench-resume=out")
    resumed.assert_outcomes(passed=6)
    assert "collected from the journal's batches" in resumed.stdout.str()
    # Every call was submitted once, across both sessions, counted at the server.
    assert served.batches.submitted == _journaled_requests(pytester.path / "out")
    assert sum(served.batches.submitted.values()) == 15
    # The same summary as a run that was never interrupted, against a fresh server.
    with ReferenceBackend(batch_delay_s=0.5) as fresh:
        whole = pytester.runpytest_subprocess(*shared.args(*MODES), *reference_server_args(fresh),
                                              "--legalbench-batch")
    whole.assert_outcomes(passed=6)
    assert _unpriced(summary_section(resumed.outlines)) == \
        _unpriced(summary_section(whole.outlines))
    assert _priced(summary_section(resumed.outlines)) == _priced(summary_section(whole.outlines))


def test_two_workers_each_batch_their_share_and_match_one_process(
        pytester: pytest.Pytester, shared: Bench, served: ReferenceBackend) -> None:
    prepare(pytester)
    result = pytester.runpytest_subprocess(*shared.args(*MODES), *reference_server_args(served),
                                           "--legalbench-batch", "-n", "2",
                                           "--legalbench-report=out")
    result.assert_outcomes(passed=6)
    assert served.batches.submitted == _journaled_requests(pytester.path / "out")
    assert sum(served.batches.submitted.values()) == 15
    output = result.stdout.str()
    assert "legalbench batch: [gw0] batched:" in output
    assert "legalbench batch: [gw1] batched:" in output
    # Whole questions per worker: inject answers each question once in all.
    calls = [call for entry in _journal(pytester.path / "out", "batch")
             for call in entry["calls"]]  # type: ignore[union-attr]
    assert sum(c["stage"] == "inject.answer" for c in calls) == 3  # type: ignore[index]
    with ReferenceBackend(batch_delay_s=0.5) as fresh:
        one = pytester.runpytest_subprocess(*shared.args(*MODES), *reference_server_args(fresh),
                                            "--legalbench-batch")
    assert _unpriced(summary_section(result.outlines)) == _unpriced(summary_section(one.outlines))
    assert _priced(summary_section(result.outlines)) == _priced(summary_section(one.outlines))


def test_batch_mode_needs_a_scheduler_that_fixes_each_workers_share(
        pytester: pytest.Pytester, shared: Bench) -> None:
    prepare(pytester)
    result = pytester.runpytest_subprocess(*shared.args(*MODES), "--legalbench-batch",
                                           "-n", "2", "--dist", "loadfile")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("*--legalbench-batch under xdist needs --dist load or "
                                 "loadgroup*not --dist loadfile*")])


def test_navagent_takes_a_batch_per_turn_and_matches_the_interactive_run(
        pytester: pytest.Pytester, shared_cache: Path) -> None:
    questions = benchmark_project(pytester, ("netgear-territory-today",), [])
    args = [f"--legalbench-questions={questions}", f"--legalbench-cache-dir={shared_cache}",
            "--legalbench-backend=reference", "--mode=navagent", "--disable-recording",
            "-p", "no:cacheprovider", "-p", "no:randomly"]
    interactive = pytester.runpytest_subprocess(*args, timeout=600)
    interactive.assert_outcomes(passed=1)
    batch = pytester.runpytest_subprocess(*args, "--legalbench-batch", "--legalbench-report=out",
                                          timeout=600)
    batch.assert_outcomes(passed=1)
    assert _unpriced(summary_section(batch.outlines)) == [
        line.replace("  token footprint", "  token footprint (batch)")
        for line in _unpriced(summary_section(interactive.outlines))]
    # The turns depend on each other: each is a phase of its own, its batch holding the
    # one item's turn of that depth.
    stages = [[c["stage"] for c in entry["calls"]]  # type: ignore[union-attr,index]
              for entry in _journal(pytester.path / "out", "batch")]
    navigation = [s for s in stages if any(stage.startswith("navagent.") for stage in s)]
    assert len(navigation) >= 3
    assert [s for batch_stages in navigation for s in batch_stages
            if s.startswith("navagent.")][:2] == ["navagent.turn1", "navagent.turn2"]
    assert all(sum(s.startswith("navagent.") for s in batch_stages) == 1
               for batch_stages in navigation)
    assert "served" in batch.stdout.str() and "sent interactively" not in batch.stdout.str()
