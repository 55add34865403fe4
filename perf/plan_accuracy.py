"""How close ``legalbench plan`` comes to what a run spends: the plan's estimate against the
ledger of a reference-backend run, per stage, as the ratio estimate / actual.

Run: ``nice -n 5 .venv/bin/python perf/plan_accuracy.py [--qa-run DIR] [--gandr-run DIR]
[--cuad-run DIR] [--cuad-sample N] [--cuad-from FILE] [--out FILE]`` (corpus from $LEGALBENCH_CORPUS_DIR, else
../shared/corpus). Without ``--qa-run`` it replays the default benchmark (navembed:closure and
navindex, judged against inject) from the committed cassettes into a temporary report folder;
without ``--gandr-run`` it replays GANDR and the baselines that run offline (gandr, b1, b2, b4,
b5; k = 2, the cassettes' repeats). Those runs are the reference: every call in their ledgers
carries the usage the reference backend reported.

The same check at the scale issue 31 is about: a live run of the ``cuad`` profile on the
reference backend (no cassettes: ``--disable-recording``), ``--legalbench-sample 300`` (the
sample of ``perf/cuad_run.py``, whose unit and query vectors the shared cache holds), modes
navembed (closure) and navembed:chunks judged against inject, which reads each question's
transaction set (scope auto: the 510 contracts do not fit a window), ``-n 2``; then the plan of
the same 300 questions. ``--cuad-run DIR`` keeps that run's report in DIR (a DIR already
holding a results.json is read, not run again). The run embeds with
``LEGALBENCH_EMBEDDING_BACKEND`` (default here torch-bf16, the backend the cached vectors were
made with; another would embed the contracts again, for an hour). The plan's selection is
checked against the run's: the same question ids, and per stage the planned calls equal to the
ledger's; ``legalbench plan --profile cuad --sample N --json`` and ``pytest benchmarks
--legalbench-plan`` with the run's options are run too, and each is compared with the plan
this script makes (``legalbench_plan_command_equal``, ``pytest_legalbench_plan_equal``).
``--cuad-from FILE`` copies that part from an earlier output instead, saying so
(``cuad.reused_from``): the run embeds every unit of its contracts, an hour where the cache
holds no vectors of them.

The questions are split in two by their position in id order: the even ones ("dev") are the
split the plan's rules were written against; the odd ones ("held-out") were not looked at.
Three plans are compared with the ledger, each on both splits:

* ``assumed``: the plan as a first run prints it, output lengths assumed;
* ``calibrated``: output lengths (and navagent/GANDR calls per item) measured on the other
  split's ledger, as ``legalbench plan --calibrate RUN`` measures them on a previous run;
* ``remembered``: the plan ``legalbench plan`` makes by default after a run on the other
  split, its lengths kept in a cache (``run.output_memory``) and read back from it.

The target: input tokens (everything the prompt holds: uncached, cache writes, cache reads)
within 15% of the ledger for every stage. Numbers are printed and written, never asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
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
from pytest_legalbench.ingest.questions import load_question, load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import load_price_card, price
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.plugin.values import resolve_cache_dir
from pytest_legalbench.results.results_file import read_run
from pytest_legalbench.run.cost_plan import Plan, make_plan, measured_calls
from pytest_legalbench.run.output_memory import MemoryKey, recall, remember
from pytest_legalbench.run.plan_calls import OutputLengths, PlanSelection

QA_MODES = ("navembed:closure", "navindex")
#: The cuad run at scale: the modes and sample of perf/cuad_run.py's target command.
CUAD_MODES = ("navembed:closure", "navembed:chunks")
CUAD_SAMPLE = 300
#: The file beside the cuad run's report that says how it was run.
RUN_NOTE = "plan_accuracy_run.json"
#: The embedding backend the shared cache's cuad vectors were made with.
CUAD_EMBEDDING_BACKEND = "torch-bf16"
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
    ("'remembered' is the plan a user gets by default after a run on the other split: that "
     "run's calls kept by run.output_memory in a cache and read back from it (the same means "
     "as 'calibrated', stored to three decimals)"),
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


def run_cuad(folder: Path, sample: int, backend: str) -> dict[str, Any]:
    """The cuad profile's judged run on the reference backend into ``folder``, timed."""
    command = [sys.executable, "-m", "pytest", "benchmarks", "-q", "-n", "2",
               "-p", "no:cacheprovider", "--disable-recording",
               "--legalbench-backend", "reference", "--legalbench-profile", "cuad",
               "--legalbench-sample", str(sample), "--legalbench-report", str(folder),
               *(f"--mode={mode}" for mode in CUAD_MODES)]
    load = machine_load()
    began = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=_cuad_env(backend), capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the cuad run failed ({done.returncode}):\n{done.stdout[-3000:]}"
                         f"\n{done.stderr[-3000:]}")
    last = done.stdout.strip().splitlines()[-1:] or [""]
    return {"command": " ".join(["pytest", *command[3:]]), "seconds":
            round(time.monotonic() - began, 1), "last_line": last[0], "load_before": load,
            "load_after": machine_load()}


def _cuad_env(backend: str) -> dict[str, str]:
    return {**os.environ, "LEGALBENCH_CORPUS_DIR": str(corpus_dir()), "HF_HUB_OFFLINE": "1",
            "LEGALBENCH_EMBEDDING_BACKEND": backend}


def cli_plan(sample: int, backend: str) -> dict[str, Any]:
    """``legalbench plan`` of the cuad run's selection, as JSON."""
    command = [sys.executable, "-m", "pytest_legalbench.commands.cli", "plan", "-q",
               "--profile", "cuad", "--sample", str(sample), "--json",
               *(part for mode in CUAD_MODES for part in ("--mode", mode))]
    done = subprocess.run(command, cwd=REPO, env=_cuad_env(backend), capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"legalbench plan failed ({done.returncode}):\n{done.stderr[-3000:]}")
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def session_plan(sample: int, backend: str) -> dict[tuple[str, str], tuple[int, ...]]:
    """``pytest benchmarks --legalbench-plan`` of the cuad run's selection: per (arm, stage)
    the calls and the input, cache write, cache read and output columns it prints."""
    command = [sys.executable, "-m", "pytest", "benchmarks", "-q", "-p", "no:cacheprovider",
               "--legalbench-plan", "--legalbench-backend", "reference",
               "--legalbench-profile", "cuad", "--legalbench-sample", str(sample),
               *(f"--mode={mode}" for mode in CUAD_MODES)]
    done = subprocess.run(command, cwd=REPO, env=_cuad_env(backend), capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"--legalbench-plan failed ({done.returncode}):\n"
                         f"{done.stdout[-3000:]}")
    lines = done.stdout.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("arm ")) + 1
    found: dict[tuple[str, str], tuple[int, ...]] = {}
    for line in lines[start:]:
        if not line.strip():
            break
        arm, stage, _model, *numbers = line.split()
        found[(arm, stage)] = tuple(int(n.replace(",", "")) for n in numbers[:5])
    return found


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


def split_results(report: dict[str, Any], suite: str, selection: PlanSelection,
                  calls: list[tuple[str, Call]], ids: list[str], card: Any,
                  keep: Any) -> None:
    """Per split of ``ids`` (even and odd positions): the assumed plan and the plan with
    outputs measured on the other split, against the split's ledger; then the whole run
    against the assumed plan. ``keep`` says which of ``calls`` belong to ``suite``."""
    splits = {"dev": set(ids[0::2]), "held-out": set(ids[1::2])}
    ours = [(arm, c) for arm, c in calls if keep(arm)]
    for name, chosen in splits.items():
        other = next(ids for split, ids in splits.items() if split != name)
        subset = dataclasses.replace(selection, questions=tuple(
            q for q in selection.questions if q.id in chosen))
        actual = actual_by_stage(ours, chosen)
        measured_on = [(arm, c) for arm, c in calls if c.question_id in other]
        other_name = "held-out" if name == "dev" else "dev"
        for kind, outputs in (("assumed", OutputLengths()),
                              ("calibrated", OutputLengths.calibrated(
                                  measured_on, f"the {other_name} split's ledger")),
                              ("remembered", remembered(measured_on, selection,
                                                        f"the {other_name} split's run"))):
            plan = make_plan(subset, card, outputs)
            report["results"][f"{suite}/{name}/{kind}"] = result(plan, actual)
    # The whole run against the plan a first run prints (nothing measured to calibrate on).
    plan = make_plan(selection, card)
    report["results"][f"{suite}/all/assumed"] = result(plan, actual_by_stage(ours, set(ids)))


def remembered(calls: list[tuple[str, Call]], selection: PlanSelection,
               run: str) -> OutputLengths:
    """What a plan reads by default after a run made ``calls``: kept in a cache of its own,
    read back from it."""
    key = MemoryKey("reference", selection.answer_model, selection.judge_model)
    with tempfile.TemporaryDirectory(prefix="plan-accuracy-memory-") as memory:
        remember(Path(memory), key, calls, run)
        found = recall(Path(memory), key)
    assert found is not None  # the calls were just kept
    return found


def result(plan: Plan, actual: dict[tuple[str, str], tuple[int, Usage]]) -> dict[str, Any]:
    """One plan against one ledger: the verdict, every stage's row, the dollars."""
    rows = compare(plan, actual)
    return {"verdict": verdict(rows), "rows": rows,
            "dollars_interactive": {"estimate": str(plan.cost("interactive")),
                                    "actual": str(_dollars(actual, plan))}}


def cuad_scale(args: argparse.Namespace, report: dict[str, Any], card: Any) -> None:
    """The cuad run at scale, its plans per split, and the checks that both had the same
    selection (question ids, calls per stage, the command's plan)."""
    from pytest_legalbench.run.question_source import question_source, sampled_files

    folder = args.cuad_run
    info: dict[str, Any] = {"sample": args.cuad_sample, "modes": list(CUAD_MODES),
                            "embedding_backend": args.embedding_backend}
    with tempfile.TemporaryDirectory(prefix="plan-accuracy-cuad-") as scratch:
        folder = folder or Path(scratch) / "cuad"
        # What the run was (its command, time and load) is kept beside its report, so a
        # second look at the same run reports it too.
        kept = folder / RUN_NOTE
        if not (folder / "results.json").is_file():
            info["run"] = run_cuad(folder, args.cuad_sample, args.embedding_backend)
            kept.write_text(json.dumps(info["run"], indent=1) + "\n", encoding="utf-8")
            print(f"cuad run: {info['run']['seconds']} s, {info['run']['last_line']}")
        else:
            info["run"] = {"read_from": str(folder), **(
                json.loads(kept.read_text(encoding="utf-8")) if kept.is_file() else {})}
        records = read_run(folder).records
    began = time.monotonic()
    cache = resolve_cache_dir(os.environ.get("LEGALBENCH_CACHE_DIR"))
    documents = load_documents(Selection(profile="cuad"), corpus_dir=corpus_dir(),
                               cache_dir=cache)
    indexes = build_indexes(documents, cache_dir=cache)
    # The run's own question source and sample: the generated set, drawn from its catalogue.
    source = question_source("cuad", None, corpus_dir=corpus_dir(), cache_dir=cache)
    files = sampled_files(source, args.cuad_sample)
    assert files is not None  # a generated set has a catalogue
    questions = tuple(sorted((load_question(path) for path in files), key=lambda q: q.id))
    ran = {record.question_id for record in records}
    info["questions"] = {"sampled": len(questions), "with_records": len(ran),
                         "items": len(records), "set": source.label()}
    if ran != {q.id for q in questions}:
        raise SystemExit(f"the run answered other questions than the plan's sample: "
                         f"{sorted(ran ^ {q.id for q in questions})[:5]}")
    selection = PlanSelection(questions=questions, modes=CUAD_MODES, documents=documents,
                              indexes=indexes)
    calls = measured_calls(records)
    ids = sorted(q.id for q in questions)
    info["splits"] = {"dev": ids[0::2], "held-out": ids[1::2]}
    split_results(report, "cuad", selection, calls, ids, card, lambda arm: True)
    info["plan_seconds"] = round(time.monotonic() - began, 1)
    whole = report["results"]["cuad/all/assumed"]["rows"]
    info["calls_per_stage_equal_the_run"] = all(
        row["calls"]["estimate"] == row["calls"]["actual"] for row in whole)
    # The command a user runs prints the same plan for the same selection.
    printed = cli_plan(args.cuad_sample, args.embedding_backend)
    # By default the command plans with what earlier runs on the reference backend left in
    # the cache (this script's runs among them): so does the plan it is compared with.
    ours = make_plan(selection, card, recall(cache, MemoryKey(
        "reference", selection.answer_model, selection.judge_model)))
    info["command_plan_outputs"] = ours.outputs
    printed_stages = {(s["arm"], s["stage"]): (s["calls"], s["usage"]["input_tokens"],
                                               s["usage"]["cache_creation_input_tokens"],
                                               s["usage"]["cache_read_input_tokens"],
                                               s["usage"]["output_tokens"])
                      for s in printed["stages"]}
    our_stages = {(s.arm, s.stage): (s.calls, s.usage.input_tokens,
                                     s.usage.cache_creation_input_tokens,
                                     s.usage.cache_read_input_tokens, s.usage.output_tokens)
                  for s in ours.stages}
    info["legalbench_plan_command_equal"] = printed_stages == our_stages
    # And so does a benchmark session asked only to plan (its table: calls and token columns).
    session = session_plan(args.cuad_sample, args.embedding_backend)
    info["pytest_legalbench_plan_equal"] = session == {
        key: (round(calls), *tokens) for key, (calls, *tokens) in our_stages.items()}
    info["plan_notes"] = list(ours.notes)
    report["cuad"] = info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qa-run", type=Path, help="report folder of a default-benchmark run")
    parser.add_argument("--gandr-run", type=Path, help="report folder of a GANDR run (k=2)")
    parser.add_argument("--cuad-run", type=Path,
                        help="report folder of the cuad run (run into it when it holds no "
                             "results.json)")
    parser.add_argument("--cuad-sample", type=int, default=CUAD_SAMPLE)
    parser.add_argument("--embedding-backend", default=CUAD_EMBEDDING_BACKEND,
                        help="the cuad run's embedding backend (that of the cached vectors)")
    parser.add_argument("--cuad-from", type=Path, metavar="FILE",
                        help="take the cuad run's section and results from this earlier output "
                             "instead of running it (the output names the file and its commit)")
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
    card = load_price_card()
    report: dict[str, Any] = {"measured": "plan estimate / reference-backend ledger, per stage",
                              "target": "input tokens within 15% for every stage",
                              "commit": commit(), "machine_load": machine_load(),
                              "timings": timings, "splits": {"dev": ids[0::2],
                                                             "held-out": ids[1::2]},
                              "notes": NOTES, "results": {}}
    for suite, modes, repeats in (("qa", QA_MODES, 5), ("gandr", GANDR_MODES, GANDR_REPEATS)):
        selection = PlanSelection(questions=tuple(questions), modes=modes, documents=documents,
                                  indexes=indexes, mode_settings=ModeSettings(),
                                  repeats=repeats, gandr=GandrSettings())
        split_results(report, suite, selection, calls, ids, card,
                      lambda arm, m=modes, q=suite == "qa": arm in m or (q and arm == "inject"))
    if args.cuad_from is not None:
        earlier = json.loads(args.cuad_from.read_text(encoding="utf-8"))
        report["cuad"] = {**earlier["cuad"], "reused_from": {
            "file": str(args.cuad_from), "commit": earlier.get("commit"),
            "why": "not measured in this run: its results are those of the file's commit"}}
        report["results"].update({key: value for key, value in earlier["results"].items()
                                  if key.startswith("cuad/")})
    else:
        cuad_scale(args, report, card)
    report["cuad"]["verdicts"] = {key: value["verdict"]["every_stage_within_15pct"]
                                  for key, value in report["results"].items()
                                  if key.startswith("cuad/")}
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for key, found in report["results"].items():
        v = found["verdict"]
        print(f"{key:<28} {v['stages_within']}/{v['stages']} stages within 15%; worst "
              f"{v['worst']['stage']} x{v['worst']['ratio']}")
    for key in ("cuad/dev/remembered", "cuad/held-out/remembered", "cuad/all/assumed"):
        if key not in report["results"]:
            continue
        print(f"\n{key}: per stage, input estimate / actual (calls, output)")
        for row in report["results"][key]["rows"]:
            print(f"  {row['arm']:<17} {row['stage']:<16} input x{row['input']['ratio']}  "
                  f"({row['input']['estimate']:,} / {row['input']['actual']:,}); calls "
                  f"{row['calls']['estimate']}/{row['calls']['actual']}; output "
                  f"x{row['output']['ratio']}")
    info = report["cuad"]
    print(f"\ncuad: {info['questions']}; calls per stage equal the run's: "
          f"{info['calls_per_stage_equal_the_run']}; legalbench plan prints the same plan: "
          f"{info['legalbench_plan_command_equal']}; so does --legalbench-plan: "
          f"{info['pytest_legalbench_plan_equal']}")
    print(f"written: {args.out}")


def _dollars(actual: dict[tuple[str, str], tuple[int, Usage]], plan: Plan) -> Decimal:
    """What the ledger's calls cost at the plan's card, each at its stage's planned model."""
    models = {(s.arm, s.stage): s.model for s in plan.stages}
    return sum((price(usage, plan.card, models.get(key, "any")).total
                for key, (_, usage) in actual.items()), start=Decimal(0))


if __name__ == "__main__":
    main()
