"""The output lengths a run leaves for the next plan: kept per backend and models, pooled stage
by stage, and read back as the plan's ``OutputLengths``."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.build_lock import build_lock, lock_file
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.run import output_memory
from pytest_legalbench.run.output_memory import (
    MemoryKey,
    StageMemory,
    memory_path,
    planned_backend,
    recall,
    remember,
)

KEY = MemoryKey("reference", "claude-sonnet-4-6", "claude-opus-4-7")
DAY = datetime(2026, 12, 4, tzinfo=UTC)
LATER = datetime(2026, 12, 5, tzinfo=UTC)


def _call(stage: str, output: int, question: str = "q1") -> Call:
    return Call(stage=stage, model="reference", backend="reference",
                usage=Usage(100, 0, 0, output), latency_s=0.0, question_id=question)


def test_a_run_is_remembered_and_read_back_as_the_plans_lengths(tmp_path: Path) -> None:
    calls = [("inject", _call("inject.answer", 90, "q1")),
             ("inject", _call("inject.answer", 110, "q2")),
             ("navagent", _call("navagent.turn", 40, "q1")),
             ("navagent", _call("navagent.turn", 60, "q1")),
             ("navagent", _call("navagent.turn", 50, "q2"))]
    path = remember(tmp_path, KEY, calls, "reports/A", now=DAY)
    assert path == tmp_path / "output-lengths" / \
        "reference+claude-sonnet-4-6+claude-opus-4-7.json"
    lengths = recall(tmp_path, KEY)
    assert lengths is not None
    assert lengths.output("inject.answer") == 100.0
    assert lengths.output("navagent.turn") == 50.0
    # Three turns over two questions: 1.5 turns per item of navagent.
    assert lengths.calls_per_item["navagent.turn"] == 1.5
    # A stage no run measured is still assumed.
    assert lengths.output("judge.forward") == 120.0
    assert lengths.source == ("5 calls of earlier runs on reference with claude-sonnet-4-6 "
                              f"and claude-opus-4-7 (latest 2026-12-04; remembered in {path})")
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["schema_version"] == 1
    assert stored["stages"]["inject.answer"] == {
        "mean_output": 100.0, "calls": 2, "run": "reports/A", "date": "2026-12-04",
        "calls_per_item": 1.0, "runs": 1}


def test_a_later_run_is_pooled_by_calls_and_the_other_stages_are_kept(tmp_path: Path) -> None:
    remember(tmp_path, KEY, [("inject", _call("inject.answer", 100, "q1")),
                             ("inject", _call("inject.answer", 100, "q2")),
                             ("navindex", _call("judge.forward", 80))], "A", now=DAY)
    remember(tmp_path, KEY, [("inject", _call("inject.answer", 400))], "B", now=LATER)
    lengths = recall(tmp_path, KEY)
    assert lengths is not None
    # Two calls of 100 and one of 400: the one-question run does not undo the first.
    assert lengths.output("inject.answer") == 200.0
    assert lengths.output("judge.forward") == 80.0
    assert "latest 2026-12-05" in lengths.source
    stored = json.loads(memory_path(tmp_path, KEY).read_text(encoding="utf-8"))
    assert stored["stages"]["inject.answer"] == {
        "mean_output": 200.0, "calls": 3, "run": "B", "date": "2026-12-05",
        "calls_per_item": 1.0, "runs": 2}
    assert stored["stages"]["judge.forward"]["run"] == "A"


def test_the_memory_weighs_at_most_the_window_and_a_larger_run_replaces_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output_memory, "POOL_WINDOW", 4)
    remember(tmp_path, KEY, [("inject", _call("inject.answer", 100, f"q{i}")) for i in range(3)],
             "A", now=DAY)
    remember(tmp_path, KEY, [("inject", _call("inject.answer", 400, f"q{i}")) for i in range(2)],
             "B", now=DAY)
    # The window holds four calls: B's two and two of A's three.
    stage = json.loads(memory_path(tmp_path, KEY).read_text(encoding="utf-8"))["stages"][
        "inject.answer"]
    assert (stage["mean_output"], stage["calls"], stage["runs"]) == (250.0, 4, 2)
    remember(tmp_path, KEY, [("inject", _call("inject.answer", 10, f"q{i}")) for i in range(5)],
             "C", now=LATER)
    stage = json.loads(memory_path(tmp_path, KEY).read_text(encoding="utf-8"))["stages"][
        "inject.answer"]
    assert (stage["mean_output"], stage["calls"], stage["runs"], stage["run"]) == (
        10.0, 5, 1, "C")


def test_a_run_ending_while_another_writes_waits_for_it_and_pools(tmp_path: Path) -> None:
    lock = lock_file(tmp_path, f"output-lengths-{KEY.file_name()}")
    with build_lock(lock, "the other run's memory"):
        # Another run holds the memory: this one waits instead of overwriting what it writes.
        later = threading.Thread(target=remember, args=(
            tmp_path, KEY, [("inject", _call("inject.answer", 400))], "B"))
        later.start()
        later.join(timeout=0.5)
        assert later.is_alive()
        assert not memory_path(tmp_path, KEY).exists()
    later.join(timeout=10)
    assert not later.is_alive()
    lengths = recall(tmp_path, KEY)
    assert lengths is not None and lengths.output("inject.answer") == 400.0


@given(st.floats(0, 4000), st.integers(1, 3000), st.floats(0, 4000), st.integers(1, 3000))
def test_a_pooled_mean_lies_between_the_two_and_stands_for_at_most_the_window(
        earlier_mean: float, earlier_calls: int, later_mean: float, later_calls: int) -> None:
    earlier = StageMemory(round(earlier_mean, 3), earlier_calls, "A", "2026-12-04")
    later = StageMemory(round(later_mean, 3), later_calls, "B", "2026-12-05")
    pooled = earlier.pooled(later)
    low, high = sorted((earlier.mean_output, later.mean_output))
    assert low - 0.001 <= pooled.mean_output <= high + 0.001
    assert later_calls <= pooled.calls <= max(output_memory.POOL_WINDOW, later_calls)
    assert pooled.run == "B"


def test_lengths_are_never_read_for_another_backend_or_model(tmp_path: Path) -> None:
    remember(tmp_path, KEY, [("inject", _call("inject.answer", 100))], "A", now=DAY)
    assert recall(tmp_path, MemoryKey("anthropic", KEY.answer_model, KEY.judge_model)) is None
    assert recall(tmp_path, MemoryKey("reference", "claude-haiku-4-5", KEY.judge_model)) is None
    assert recall(tmp_path, MemoryKey("reference", KEY.answer_model, "other")) is None


def test_no_calls_leave_no_memory(tmp_path: Path) -> None:
    assert remember(tmp_path, KEY, [], "A") is None
    assert not (tmp_path / "output-lengths").exists()


@pytest.mark.parametrize("text", ["not json", '{"schema_version": 99, "stages": {}}',
                                  '{"schema_version": 1, "stages": {"x": {"calls": 1}}}'])
def test_an_unreadable_memory_is_assumed_away_and_replaced(tmp_path: Path, text: str) -> None:
    path = memory_path(tmp_path, KEY)
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    assert recall(tmp_path, KEY) is None
    remember(tmp_path, KEY, [("inject", _call("inject.answer", 70))], "A", now=DAY)
    lengths = recall(tmp_path, KEY)
    assert lengths is not None and lengths.output("inject.answer") == 70.0


def test_model_names_become_safe_file_names() -> None:
    key = MemoryKey("anthropic", "org/model:q4 v2", "")
    assert key.file_name() == "anthropic+org_model_q4_v2+_.json"


@pytest.mark.parametrize(("requested", "env", "backend"), [
    (None, {}, "reference"),
    (None, {"ANTHROPIC_API_KEY": "k"}, "anthropic"),
    ("reference", {"ANTHROPIC_API_KEY": "k"}, "reference"),
    # A plan needs no key: the backend asked for is the one planned.
    ("anthropic", {}, "anthropic"),
    # Another Messages-API server is named by its host, as its calls name it.
    (None, {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:8080"},
     "messages-api at 127.0.0.1:8080"),
    (None, {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "https://api.anthropic.com"},
     "anthropic"),
])
def test_the_planned_backend_names_it_as_its_calls_do(requested: str | None,
                                                      env: dict[str, str],
                                                      backend: str) -> None:
    assert planned_backend(requested, env) == backend


def test_a_base_url_given_to_the_run_overrides_the_environments() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:8080"}
    assert planned_backend(None, env, "http://10.0.0.5:9000/") == "messages-api at 10.0.0.5:9000"


@pytest.mark.parametrize(("kind", "backend"), [
    ("reference", "anthropic"), ("llama.cpp", "messages-api at 127.0.0.1:8080"),
    ("auto", "messages-api at 127.0.0.1:8080"), (None, "messages-api at 127.0.0.1:8080")])
def test_only_a_third_party_server_is_named_by_its_host(kind: str | None, backend: str) -> None:
    assert planned_backend("anthropic", {"ANTHROPIC_API_KEY": "k"}, "http://127.0.0.1:8080",
                           kind) == backend
