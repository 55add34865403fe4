"""The spending limit: a call whose most could take the run past it is never made, spending
is shared by the run's processes, and a benchmark run stops cleanly with its summary and
journal, to be finished by a resume."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from pytest_legalbench.llm.cost_guard import CostGuard, CostLimitReached, SpendMeter
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import load_price_card
from tests.support.plugin_sessions import (
    MODES,
    bench,
    isolate_environment,
    prepare,
    recording,
    summary_section,
)

#: 4,000 characters of prompt: 1,000 estimated input tokens ($0.003) besides the JSON keys.
PARAMS = {"system": [{"type": "text", "text": "x" * 4000}], "messages": [], "max_tokens": 1000}


def call(input_tokens: int, output_tokens: int) -> Call:
    return Call(stage="navembed.answer", model="m", usage=Usage(input_tokens, 0, 0,
                                                                 output_tokens),
                latency_s=0.0, backend="reference")


def test_a_call_that_could_pass_the_limit_is_refused(tmp_path: Path) -> None:
    guard = CostGuard(Decimal("0.04"), load_price_card(), SpendMeter())
    # At most about 1,020 input tokens ($0.0031) and 1,000 output tokens ($0.015).
    guard.before("navembed.answer", "m", PARAMS)
    guard.after(call(10_000, 0))  # $0.03 spent
    with pytest.raises(CostLimitReached) as raised:
        guard.before("judge.forward", "m", PARAMS)
    assert str(raised.value).startswith(
        "stopped at cost limit $0.0400: $0.0300 spent, and the next call (judge.forward) "
        "could cost up to $0.018")


def test_spending_is_shared_through_one_file(tmp_path: Path) -> None:
    path = tmp_path / ".spend-run"
    first, second = SpendMeter(path), SpendMeter(path)
    first.add(Decimal("0.25"))
    second.add(Decimal("0.125"))
    assert first.total() == second.total() == Decimal("0.375")
    assert SpendMeter(tmp_path / "none").total() == Decimal(0)


def test_a_run_stops_cleanly_at_its_limit_and_a_resume_finishes_it(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_environment(monkeypatch, corpus_root)
    run = recording(tmp_path_factory, corpus_root)
    prepare(pytester, run.cassettes)
    args = [*bench(tmp_path_factory, corpus_root).args(*MODES), "--legalbench-report=out",
            "-p", "no:randomly"]
    stopped = pytester.runpytest_subprocess(*args, "--legalbench-max-cost=1.60")
    first = next(line for line in stopped.outlines if line.startswith("legalbench summary"))
    assert first.startswith("legalbench summary (partial: ")
    assert ", stopped at cost limit $1.6000: $" in first
    outcomes = stopped.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("errors", 0) == 0
    assert outcomes["passed"] < 6
    lines = [json.loads(line) for line in
             (pytester.path / "out" / "journal.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sum(line["kind"] == "item" for line in lines) == outcomes["passed"]
    assert [line["kind"] for line in lines].count("stop") == 1
    resumed = pytester.runpytest_subprocess(*args, "--legalbench-resume=out")
    resumed.assert_outcomes(passed=6)
    assert summary_section(resumed.outlines) == summary_section(run.lines)
