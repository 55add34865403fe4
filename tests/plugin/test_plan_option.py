"""The plan inside a benchmark session: ``--legalbench-plan`` prints the plan of the collected
items and runs none of them; ``--legalbench-max-cost`` under a plan that costs more stops a
live run before its first call (counted at a reference server), the plan in the summary."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_legalbench.reference_backend import ReferenceBackend
from tests.support.plugin_sessions import (
    MODES,
    Bench,
    bench,
    isolate_environment,
    prepare,
    reference_server_args,
    served_reference,
)

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, corpus_root: Path) -> None:
    isolate_environment(monkeypatch, corpus_root)


@pytest.fixture
def shared(tmp_path_factory: pytest.TempPathFactory, corpus_root: Path) -> Bench:
    return bench(tmp_path_factory, corpus_root)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[ReferenceBackend]:
    with served_reference(monkeypatch, batch_delay_s=0.5) as backend:
        yield backend


def test_the_plan_option_prints_the_plan_and_runs_nothing(
        pytester: pytest.Pytester, shared: Bench, served: ReferenceBackend) -> None:
    prepare(pytester)
    result = pytester.runpytest_subprocess(*shared.args(*MODES), *reference_server_args(served),
                                           "--legalbench-plan", "-n", "2")
    output = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, output
    result.stdout.fnmatch_lines([
        "plan: 3 questions, 6 items (navindex, inject)*",
        "*inject*inject.answer*",
        "*navindex*navindex.scan*",
        "*navindex*judge.forward*",
        "total *$*",
        "legalbench plan: 6 item(s) planned, none run (--legalbench-plan)"])
    # Planned in this process: no worker started, no item ran, nothing was called.
    assert "passed" not in output.splitlines()[-1]
    assert "[gw0]" not in output
    assert "run journal" not in output and "partial" not in output
    assert sum(served.answered.values()) == 0


def test_a_plan_over_the_limit_stops_the_run_before_its_first_call(
        pytester: pytest.Pytester, shared: Bench, served: ReferenceBackend) -> None:
    prepare(pytester)
    result = pytester.runpytest_subprocess(*shared.args(*MODES), *reference_server_args(served),
                                           "--legalbench-max-cost=0.001",
                                           "--legalbench-report=out")
    output = result.stdout.str()
    # Not a failure: the items are skipped with the reason, and nothing was sent.
    result.assert_outcomes(skipped=1)
    assert sum(served.answered.values()) == 0
    result.stdout.fnmatch_lines([
        "*the plan of this run costs $*more than the spending limit of $0.0010*",
        "plan: 3 questions, 6 items (navindex, inject)*",
        "total *$*"])
    # The plan is printed once in the summary.
    assert output.count("plan: 3 questions, 6 items") == 1, output


def test_a_plan_under_the_limit_runs(
        pytester: pytest.Pytester, shared: Bench, served: ReferenceBackend) -> None:
    prepare(pytester)
    result = pytester.runpytest_subprocess(*shared.args(*MODES), *reference_server_args(served),
                                           "--legalbench-max-cost=100")
    result.assert_outcomes(passed=6)
    # No plan is printed (the summary only says where its output lengths were kept).
    assert "plan: 3 questions" not in result.stdout.str()
    assert "total " not in result.stdout.str()


def test_a_run_leaves_its_output_lengths_for_the_next_plan(
        pytester: pytest.Pytester, shared: Bench, served: ReferenceBackend) -> None:
    # Each xdist worker has its own bench, and its tests run one at a time: no other test
    # writes this memory meanwhile.
    shutil.rmtree(shared.cache / "output-lengths", ignore_errors=True)
    prepare(pytester)
    server = reference_server_args(served)
    before = pytester.runpytest_subprocess(*shared.args(*MODES), *server, "--legalbench-plan")
    before.stdout.fnmatch_lines([("*outputs assumed (a cited answer of about 300 tokens*"
                                  "a judge's input holds the answers it compares*")])
    result = pytester.runpytest_subprocess(*shared.args(*MODES), *server)
    result.assert_outcomes(passed=6)
    # A reference server reached by URL under its own kind is no third-party server: its
    # calls are named by the backend that sent them.
    memory = shared.cache / "output-lengths" / "anthropic+claude-sonnet-4-6+claude-opus-4-7.json"
    calls = sum(served.answered.values())
    kept = f"output lengths of {calls} anthropic calls kept for the next plan: {memory}"
    result.stdout.fnmatch_lines([kept])
    after = pytester.runpytest_subprocess(*shared.args(*MODES), *server, "--legalbench-plan")
    measured = (f"*outputs measured on {calls} calls of earlier runs on anthropic with "
                f"claude-sonnet-4-6 and claude-opus-4-7 *")
    after.stdout.fnmatch_lines([measured])
    assert sum(served.answered.values()) == calls  # planning called nothing
