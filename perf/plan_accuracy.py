"""How close ``legalbench plan`` comes to what a run spends: the plan's estimate against the
ledger of a reference-backend run, per stage, as the ratio estimate / actual.

Run: ``.venv/bin/python perf/plan_accuracy.py [--qa-run DIR] [--gandr-run DIR] [--out FILE]``
(corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). Without ``--qa-run`` it replays
the default benchmark (navembed:closure and navindex, judged against inject) from the committed
cassettes into a temporary report folder; without ``--gandr-run`` it replays GANDR and the
baselines that run offline (gandr, b1, b2, b4, b5; k = 2, the cassettes' repeats). Those runs
are the reference: every call in their ledgers carries the usage the reference backend reported.

The questions are split in two by their position in id order: the even ones ("dev") are the
split the plan's rules were written against; the odd ones ("held-out") were not looked at.
Three plans are compared with the ledger, each on both splits:

* ``assumed``: the plan as a first run prints it, output lengths assumed;
* ``calibrated``: output lengths (and navagent/GANDR calls per item) measured on the other
  split's ledger, as ``legalbench plan --calibrate RUN`` measures them on a previous run.

The target: input tokens (everything the prompt holds: uncached, cache writes, cache reads)
within 15% of the ledger for every stage. Numbers are printed and written, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from measuring import OUTPUT, REPO, commit, corpus_dir, machine_load

from pytest_legalbench.defaults import DEFAULT_PROFILE
from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.gandr.report import read_records
from pytest_legalbench.gandr.settings import GandrSettings
from pytest_legalbench.ingest.questions import load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import load_price_card, price
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.plugin.values import resolve_cache_dir
from pytest_legalbench.results.results_file import read_run
from pytest_legalbench.run.cost_plan import Plan, make_plan, measured_calls
from pytest_legalbench.run.plan_calls import OutputLengths, PlanSelection

QA_MODES = ("navembed:closure", "navindex")
GANDR_MODES = ("gandr", "gandr:b1", "gandr:b2", "gandr:b4", "gandr:b5")
#: The repeats of the committed GANDR cassettes (pyproject's legalbench_repeats).
GANDR_REPEATS = 2
TARGET = 0.15
NOTES = [
    "input = every prompt token (uncached + cache write + cache read); the target is on it",
    ("a split's own plan writes inject's corpus and the index to the cache once; the run wrote "
    "them while answering a dev question, so the held-out ledger has only cache reads: its "
    "input matches, its dollars differ by that one write"),
    ("outputs are the run's to decide: 'assumed' uses the plan's assumed lengths (300-token "
    "answers; the reference backend's extractive answers average under 100), 'calibrated' "
    "the other split's measured means; a judge reads both answers, so its input follows them"),
]


def replay(modes: tuple[str, ...], folder: Path) -> float:
    """Replay ``modes`` of the default benchmark from the cassettes into ``folder``."""
    command = [sys.executable, "-m", "pytest", "benchmarks", "-q", "-n", "2",
               "-p", "no:cacheprovider", "--legalbench-report", str(folder),
               *(f"--mode={mode}" for mode in modes)]
    env = {**os.environ, "LEGALBENCH_CORPUS_DIR": str(corpus_dir()), "HF_HUB_OFFLINE": "1"}
    began = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"the replay failed ({done.returncode}):\n{done.stdout[-3000:]}"
                         f"\n{done.stderr[-3000:]}")
    return round(time.monotonic() - began, 1)


def actual_by_stage(calls: list[tuple[str, Call]],
                    questions: set[str]) -> dict[tuple[str, str], tuple[int, Usage]]:
    """Calls and usage per (arm, stage) of the questions in ``questions``."""
    found: dict[tuple[str, str], tuple[int, Usage]] = {}
    for arm, call in calls:
        if call.question_id not in questions:
            continue
        count, usage = found.get((arm, call.stage), (0, Usage()))
        found[(arm, call.stage)] = (count + 1, usage + call.usage)
    return found


def compare(plan: Plan, actual: dict[tuple[str, str], tuple[int, Usage]]) -> list[dict[str, Any]]:
    """Per (arm, stage): estimate, actual and their ratio for calls, input and output."""
    rows = []
    estimated = {(s.arm, s.stage): s for s in plan.stages}
    for key in sorted(set(estimated) | set(actual)):
        stage = estimated.get(key)
        count, usage = actual.get(key, (0, Usage()))
        est_calls = stage.calls if stage else 0.0
        est = stage.usage if stage else Usage()
        rows.append({
            "arm": key[0], "stage": key[1],
            "calls": {"estimate": round(est_calls, 2), "actual": count,
                      "ratio": _ratio(est_calls, count)},
            "input": {"estimate": est.footprint, "actual": usage.footprint,
                      "ratio": _ratio(est.footprint, usage.footprint)},
            "input_parts": {"estimate": [est.input_tokens, est.cache_creation_input_tokens,
                                         est.cache_read_input_tokens],
                            "actual": [usage.input_tokens, usage.cache_creation_input_tokens,
                                       usage.cache_read_input_tokens]},
            "output": {"estimate": est.output_tokens, "actual": usage.output_tokens,
                       "ratio": _ratio(est.output_tokens, usage.output_tokens)},
        })
    return rows


def _ratio(estimate: float, actual: float) -> float | None:
    return None if not actual else round(estimate / actual, 3)


def verdict(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether every stage's input is within the target, and the worst stage."""
    ratios = [(row["input"]["ratio"], f"{row['arm']} {row['stage']}") for row in rows]
    missing = [name for ratio, name in ratios if ratio is None]
    scored = [(abs(ratio - 1), ratio, name) for ratio, name in ratios if ratio is not None]
    worst = max(scored) if scored else (0.0, None, None)
    return {"every_stage_within_15pct": not missing and all(d <= TARGET for d, _, _ in scored),
            "stages_within": sum(1 for d, _, _ in scored if d <= TARGET),
            "stages": len(ratios), "worst": {"stage": worst[2], "ratio": worst[1]},
            "unmatched": missing}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qa-run", type=Path, help="report folder of a default-benchmark run")
    parser.add_argument("--gandr-run", type=Path, help="report folder of a GANDR run (k=2)")
    parser.add_argument("--out", type=Path, default=OUTPUT / "plan_accuracy.json")
    args = parser.parse_args()
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="plan-accuracy-") as scratch:
        qa_folder = args.qa_run or Path(scratch) / "qa"
        gandr_folder = args.gandr_run or Path(scratch) / "gandr"
        if args.qa_run is None:
            timings["qa_replay_s"] = replay(QA_MODES, qa_folder)
        if args.gandr_run is None:
            timings["gandr_replay_s"] = replay(GANDR_MODES, gandr_folder)
        qa_records = read_run(qa_folder).records
        gandr_records = read_records(gandr_folder)
    calls = measured_calls(qa_records, gandr_records)
    cache = resolve_cache_dir(os.environ.get("LEGALBENCH_CACHE_DIR"))
    documents = load_documents(Selection(profile=DEFAULT_PROFILE), corpus_dir=corpus_dir(),
                               cache_dir=cache)
    indexes = build_indexes(documents, cache_dir=cache)
    questions = load_question_set(question_sets_dir() / DEFAULT_PROFILE)
    ids = sorted(q.id for q in questions)
    splits = {"dev": set(ids[0::2]), "held-out": set(ids[1::2])}
    everything = set(ids)
    card = load_price_card()
    report: dict[str, Any] = {"measured": "plan estimate / reference-backend ledger, per stage",
                              "target": "input tokens within 15% for every stage",
                              "commit": commit(), "machine_load": machine_load(),
                              "timings": timings, "splits": {k: sorted(v)
                                                             for k, v in splits.items()},
                              "notes": NOTES, "results": {}}
    for name, chosen in splits.items():
        other = next(ids for split, ids in splits.items() if split != name)
        subset = tuple(q for q in questions if q.id in chosen)
        for suite, modes, repeats in (("qa", QA_MODES, 5), ("gandr", GANDR_MODES,
                                                            GANDR_REPEATS)):
            selection = PlanSelection(questions=subset, modes=modes, documents=documents,
                                      indexes=indexes, mode_settings=ModeSettings(),
                                      repeats=repeats, gandr=GandrSettings())
            actual = actual_by_stage([(arm, c) for arm, c in calls
                                      if (arm in modes or (suite == "qa" and arm == "inject"))],
                                     chosen)
            measured_on = [(arm, c) for arm, c in calls if c.question_id in other]
            for kind, outputs in (("assumed", OutputLengths()),
                                  ("calibrated", OutputLengths.calibrated(
                                      measured_on, f"the {'held-out' if name == 'dev' else 'dev'}"
                                                   f" split's ledger"))):
                plan = make_plan(selection, card, outputs)
                rows = compare(plan, actual)
                report["results"][f"{suite}/{name}/{kind}"] = {
                    "verdict": verdict(rows), "rows": rows,
                    "dollars_interactive": {"estimate": str(plan.cost("interactive")),
                                            "actual": str(_dollars(actual, plan))}}
    # The whole run against the plan a first run prints (nothing measured to calibrate on).
    for suite, modes, repeats in (("qa", QA_MODES, 5), ("gandr", GANDR_MODES, GANDR_REPEATS)):
        selection = PlanSelection(questions=tuple(questions), modes=modes, documents=documents,
                                  indexes=indexes, repeats=repeats)
        actual = actual_by_stage([(arm, c) for arm, c in calls
                                  if arm in modes or (suite == "qa" and arm == "inject")],
                                 everything)
        plan = make_plan(selection, card)
        rows = compare(plan, actual)
        report["results"][f"{suite}/all/assumed"] = {
            "verdict": verdict(rows), "rows": rows,
            "dollars_interactive": {"estimate": str(plan.cost("interactive")),
                                    "actual": str(_dollars(actual, plan))}}
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for key, result in report["results"].items():
        v = result["verdict"]
        print(f"{key:<28} {v['stages_within']}/{v['stages']} stages within 15%; worst "
              f"{v['worst']['stage']} x{v['worst']['ratio']}")
    print(f"written: {args.out}")


def _dollars(actual: dict[tuple[str, str], tuple[int, Usage]], plan: Plan) -> Decimal:
    """What the ledger's calls cost at the plan's card, each at its stage's planned model."""
    models = {(s.arm, s.stage): s.model for s in plan.stages}
    return sum((price(usage, plan.card, models.get(key, "any")).total
                for key, (_, usage) in actual.items()), start=Decimal(0))


if __name__ == "__main__":
    main()
