"""``legalbench plan`` on a small folder written here: the table, JSON, a calibration from a
stored run or from what earlier runs left in the cache, the spending-limit check and the
errors a user can make."""

from __future__ import annotations

import functools
import json
import math
import statistics
from decimal import Decimal
from pathlib import Path

import pytest

from pytest_legalbench.commands.cli import build_parser
from pytest_legalbench.commands.common import UsageProblem, question_set
from pytest_legalbench.defaults import DEFAULT_ANSWER_MODEL, DEFAULT_JUDGE_MODEL
from pytest_legalbench.gandr.report import read_records
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.questions import load_question_set
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.results.results_file import read_run
from pytest_legalbench.run import question_source as source_module
from pytest_legalbench.run.output_memory import MemoryKey, remember
from pytest_legalbench.run.question_source import question_source
from pytest_legalbench.spans.cuad_question_set import cuad_question_set
from pytest_legalbench.stats.stratified_sample import stratified_sample
from tests.support.cuad_corpus import make_corpus
from tests.support.lease_project import lease_project, run_command
from tests.support.replayed_runs import Runs


@pytest.fixture
def lease(tmp_path: Path) -> list[str]:
    folder, questions, _ = lease_project(tmp_path)
    return ["--docs", str(folder), "--questions", str(questions), "-q",
            "--cache-dir", str(tmp_path / "cache")]


def test_plan_prints_stages_and_dollars_per_mode(lease: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_command(capsys, "plan", *lease, "--mode", "navindex", "--mode",
                                 "navembed")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == ("plan: 2 questions, 4 items (navindex, navembed:closure); payload "
                        "budget 6,000 tokens; answers at most 2,048 tokens")
    stages = [line.split()[1] for line in lines[4:11]]
    assert stages == ["inject.answer", "navindex.scan", "navindex.answer", "judge.forward",
                      "judge.reverse", "navembed.answer", "judge.forward"]
    assert any(line.startswith("total ") for line in lines)
    assert "interactive      batch   no cache" in out


def test_plan_json_has_every_stage_and_price(lease: list[str],
                                             capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_command(capsys, "plan", *lease, "--mode", "navindex", "--judge",
                                 "keyfacts", "--payload-budget", "2000", "--json")
    assert status == 0
    plan = json.loads(out)
    assert plan["payload_budget_tokens"] == 2000 and plan["items"] == 2
    assert [s["stage"] for s in plan["stages"]] == ["inject.answer", "navindex.scan",
                                                    "navindex.answer"]
    total = plan["cost"]["total"]
    assert Decimal(total["batch"]) * 2 == Decimal(total["interactive"])
    assert plan["outputs"].startswith("assumed")


def test_plan_measures_output_lengths_on_a_stored_run(
        lease: list[str], runs: Runs, capsys: pytest.CaptureFixture[str]) -> None:
    """Run B (navembed:hybrid and GANDR, replayed): its mean output per stage replaces the
    assumed lengths, and GANDR's calls per item come from it."""
    status, out, _ = run_command(capsys, "plan", *lease, "--mode", "navembed:hybrid",
                                 "--mode", "gandr", "--repeats", "2", "--json",
                                 "--calibrate", str(runs.b))
    assert status == 0
    plan = json.loads(out)
    assert plan["outputs"] == f"measured on {runs.b}"
    stored = read_run(runs.b).records
    answers = [c.usage.output_tokens for r in stored for c in r.mode_calls
               if c.stage == "navembed.answer"]
    stages = {(s["arm"], s["stage"]): s for s in plan["stages"]}
    answer = stages[("navembed:hybrid", "navembed.answer")]
    assert answer["usage"]["output_tokens"] == math.ceil(
        answer["calls"] * statistics.fmean(answers) - 1e-9)
    gandr = read_records(runs.b)
    drafts = sum(1 for item in gandr for repeat in item.repeats for c in repeat.calls
                 if c.stage == "gandr.draft")
    assert stages[("gandr", "gandr.draft")]["calls"] == round(2 * drafts / len(gandr), 2)


def test_plan_over_a_limit_exits_3_with_the_reason(lease: list[str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_command(capsys, "plan", *lease, "--mode", "navindex",
                                   "--max-cost", "0.001", "--batch")
    assert status == 3
    assert out.startswith("plan: 2 questions")
    assert "\nlegalbench: the plan of this run costs $" in err
    assert "(through batches), more than the spending limit of $0.0010" in err
    status, _, _ = run_command(capsys, "plan", *lease, "--mode", "navindex", "--max-cost", "50")
    assert status == 0


@pytest.mark.parametrize(("args", "message"), [
    (["--mode", "navimdex"], "--mode='navimdex'"),
    (["--max-cost", "-2"], "--max-cost='-2': expected a positive number of dollars"),
    (["--gandr", "rounds=2"], "--gandr: 'rounds=2': expected NAME=VALUE"),
    (["--repeats", "0"], "--repeats: expected a whole number >= 1"),
    (["--calibrate", "/no/such/run"], "--calibrate /no/such/run: no such folder or file")])
def test_plan_names_a_bad_option(lease: list[str], capsys: pytest.CaptureFixture[str],
                                 args: list[str], message: str) -> None:
    status, _, err = run_command(capsys, "plan", *lease, *args)
    assert status == 2
    assert message in err


def test_a_calibration_without_calls_is_refused(lease: list[str], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    status, _, err = run_command(capsys, "plan", *lease, "--calibrate", str(empty))
    assert status == 2 and "no results.json or gandr-results.json with model calls" in err


def test_plan_takes_the_runs_sample(lease: list[str], capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, _ = run_command(capsys, "plan", *lease, "--mode", "navindex", "--sample", "1",
                                 "--json")
    assert status == 0
    assert (json.loads(out)["questions"], json.loads(out)["items"]) == (1, 1)
    monkeypatch.setenv("LEGALBENCH_SAMPLE", "1")
    status, out, _ = run_command(capsys, "plan", *lease, "--mode", "navindex", "--json")
    assert status == 0 and json.loads(out)["questions"] == 1
    status, _, err = run_command(capsys, "plan", *lease, "--sample", "0")
    assert status == 2 and "--sample='0': expected a whole number of at least 1" in err


def test_the_cuad_profile_is_planned_on_its_generated_set_and_the_runs_sample(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``legalbench plan --profile cuad`` reads the set a run generates (no set is packaged),
    and ``--sample N`` draws the questions a run with ``--legalbench-sample N`` draws."""
    corpus, manifest = make_corpus(tmp_path / "corpus")
    # The packaged manifest lists the real 510 contracts; this corpus has its own.
    monkeypatch.setattr(source_module, "cuad_question_set",
                        functools.partial(cuad_question_set, manifest_path=manifest))
    cache = tmp_path / "cache"
    args = build_parser().parse_args(["plan", "--profile", "cuad", "--corpus-dir", str(corpus),
                                      "--cache-dir", str(cache), "--sample", "5"])
    source = question_source("cuad", None, corpus_dir=corpus, cache_dir=cache)
    everything = load_question_set(source.folder)
    documents = tuple(Document(doc_id=doc_id, title=doc_id, text="")
                      for doc_id in sorted({d for q in everything for d in q.documents}))
    assert source.catalogue is not None
    sampled = question_set(args, "cuad", documents, sample=5)
    assert [q.id for q in sampled] == sorted(stratified_sample(source.catalogue, 5))
    assert question_set(args, "cuad", documents) == everything
    with pytest.raises(UsageProblem, match="documents not in this corpus"):
        question_set(args, "cuad", documents[1:])


def test_plan_expects_what_earlier_runs_on_its_backend_measured(
        lease: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "LEGALBENCH_BACKEND",
                 "LEGALBENCH_ANSWER_MODEL", "LEGALBENCH_JUDGE_MODEL"):
        monkeypatch.delenv(name, raising=False)
    cache = Path(lease[lease.index("--cache-dir") + 1])
    answers = [("inject", Call(stage="inject.answer", model="reference", backend="reference",
                               usage=Usage(10, 0, 0, output), latency_s=0.0, question_id=q))
               for q, output in (("q1", 40), ("q2", 60))]
    path = remember(cache, MemoryKey("reference", DEFAULT_ANSWER_MODEL, DEFAULT_JUDGE_MODEL),
                    answers, "reports/A")
    status, out, err = run_command(capsys, "plan", *lease, "--mode", "navindex", "--json")
    assert status == 0
    plan = json.loads(out)
    assert plan["outputs"].startswith("measured on 2 calls of earlier runs on reference with "
                                      f"{DEFAULT_ANSWER_MODEL} and {DEFAULT_JUDGE_MODEL}")
    assert str(path) in plan["outputs"]
    inject = next(s for s in plan["stages"] if s["stage"] == "inject.answer")
    assert inject["usage"]["output_tokens"] == 2 * 50
    # Stages no run measured are still assumed: the scan's 300 tokens per call.
    scan = next(s for s in plan["stages"] if s["stage"] == "navindex.scan")
    assert scan["usage"]["output_tokens"] == 2 * 300
    status, out, _ = run_command(capsys, "plan", *lease, "--mode", "navindex", "--json",
                                 "--assumed-lengths")
    assert status == 0 and json.loads(out)["outputs"].startswith("assumed")
    # Another backend's lengths are not this one's.
    status, out, _ = run_command(capsys, "plan", *lease, "--mode", "navindex", "--json",
                                 "--backend", "anthropic")
    assert status == 0 and json.loads(out)["outputs"].startswith("assumed")
    status, _, err = run_command(capsys, "plan", *lease, "--assumed-lengths", "--calibrate",
                                 str(cache))
    assert status == 2
    assert "--calibrate and --assumed-lengths exclude each other" in err
