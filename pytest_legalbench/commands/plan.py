"""``legalbench plan``: what a run would call and cost, before it calls anything: per stage the
calls and the estimated input, cache and output tokens; per mode the dollars interactive and
through batches, with the prompt cache and without it, and at most."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_legalbench.commands.common import (
    Progress,
    UsageProblem,
    add_backend_options,
    add_mode_sources,
    add_selectors,
    add_setting,
    answer_model,
    backend_choice,
    cache_folder,
    indexes_of,
    load_selection,
    mode_help,
    mode_registry,
    mode_settings,
    question_set,
)
from pytest_legalbench.defaults import DEFAULT_JUDGE, DEFAULT_JUDGE_MODEL, DEFAULT_REPEATS, JUDGES
from pytest_legalbench.gandr.settings import with_overrides
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.plugin.options import option
from pytest_legalbench.plugin.settings import resolve_modes
from pytest_legalbench.plugin.values import Chosen, SettingsError, choose, count_of, dollars_of

if TYPE_CHECKING:
    from pytest_legalbench.gandr.record import GandrRecord
    from pytest_legalbench.results.item_record import ItemRecord
    from pytest_legalbench.run.plan_calls import OutputLengths


def register(commands: Any) -> None:
    """Add the ``plan`` subcommand."""
    plan = commands.add_parser(
        "plan", help="estimate a run's calls, tokens and dollars before making any call")
    add_selectors(plan)
    plan.add_argument("--mode", action="append", dest="modes", metavar="MODE",
                      help=f"{mode_help()}, or a GANDR system (gandr, gandr:b1 ... gandr:b5, "
                           f"gandr:all); repeat for several (default: navembed and navindex)")
    plan.add_argument("--questions", type=Path,
                      help="folder of question YAML files (default: the packaged set of the "
                           "profile; cuad's generated set)")
    add_setting(plan, option("sample"), metavar="N")
    plan.add_argument("--judge", choices=JUDGES,
                      help=f"judging protocol (default: $LEGALBENCH_JUDGE, else {DEFAULT_JUDGE})")
    plan.add_argument("--judge-model", help=f"judge model (default: $LEGALBENCH_JUDGE_MODEL, "
                                            f"else {DEFAULT_JUDGE_MODEL})")
    plan.add_argument("--repeats", type=int,
                      help="seeded repeats per GANDR item (default: $LEGALBENCH_REPEATS, "
                           "else 5)")
    plan.add_argument("--gandr", action="append", default=[], metavar="NAME=VALUE",
                      help="change one GANDR setting, e.g. max_rounds=2 (repeatable)")
    plan.add_argument("--price-card", type=Path, help="price card file (default: the packaged "
                                                      "card)")
    plan.add_argument("--calibrate", type=Path, metavar="RUN",
                      help="a previous run's report folder (results.json, gandr-results.json): "
                           "its mean output per stage replaces the assumed lengths, and its "
                           "navagent and GANDR calls per item the assumed counts (default: "
                           "what earlier runs on the same backend and models measured, kept "
                           "in the cache's output-lengths/ folder, else assumed lengths)")
    plan.add_argument("--assumed-lengths", action="store_true",
                      help="plan with the assumed output lengths even where earlier runs "
                           "measured them")
    plan.add_argument("--max-cost", metavar="DOLLARS",
                      help="exit with status 3 when the expected cost exceeds this, as a run "
                           "with --legalbench-max-cost stops before its first call")
    plan.add_argument("--batch", action="store_true",
                      help="with --max-cost: check the cost of a run through the Message "
                           "Batches API")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    add_mode_sources(plan)
    add_backend_options(plan, answering=True)
    plan.set_defaults(run=run_plan)


def run_plan(args: argparse.Namespace, progress: Progress) -> int:
    """Estimate every call of the selected run and print the plan."""
    registry = mode_registry(args)
    try:
        modes = resolve_modes(args.modes or (), registry=registry)
    except SettingsError as error:
        raise UsageProblem(str(error)) from None
    limit = _limit(args.max_cost)
    repeats = _repeats(args.repeats)
    try:
        gandr = with_overrides(args.gandr)
    except ValueError as error:
        raise UsageProblem(f"--gandr: {error}") from None
    # Imported here: the plan builds every prompt with the run's own functions, which bring
    # GANDR's passage index (numpy) with them.
    from pytest_legalbench.run.cost_plan import PlanOverLimit, make_plan, over_limit
    from pytest_legalbench.run.plan_calls import OutputLengths, PlanSelection

    if args.calibrate and args.assumed_lengths:
        raise UsageProblem("--calibrate and --assumed-lengths exclude each other: give one")
    card = load_price_card(args.price_card)
    judge_model = (args.judge_model or os.environ.get("LEGALBENCH_JUDGE_MODEL")
                   or DEFAULT_JUDGE_MODEL)
    if args.calibrate:
        outputs = _calibration(args.calibrate, progress)
    elif args.assumed_lengths:
        outputs = OutputLengths()
    else:
        outputs = _recalled(args, judge_model, progress)
    selection_info, documents = load_selection(args, progress)
    questions = question_set(args, selection_info.profile, documents, sample=_sample(args),
                             progress=progress)
    indexes = indexes_of(args, documents, progress)
    selection = PlanSelection(
        questions=questions, modes=modes, documents=documents, indexes=indexes,
        mode_settings=mode_settings(args), answer_model=answer_model(args),
        judge_model=judge_model,
        judge=args.judge or _env_choice("LEGALBENCH_JUDGE", JUDGES) or DEFAULT_JUDGE,
        repeats=repeats, gandr=gandr, registry=registry)
    progress(f"planning {len(questions)} questions x {len(modes)} modes")
    plan = make_plan(selection, card, outputs)
    if args.json:
        from pytest_legalbench.files.record_json import to_builtins

        print(json.dumps(to_builtins(plan.record()), indent=2))
    else:
        print("\n".join(plan.lines()))
    if limit is not None:
        try:
            over_limit(plan, limit, batch=args.batch)
        except PlanOverLimit as error:
            print(f"legalbench: {str(error).splitlines()[0]}", file=sys.stderr)
            return 3
    return 0


def _recalled(args: argparse.Namespace, judge_model: str,
                progress: Progress) -> OutputLengths:
    """The output lengths earlier runs on the plan's backend and models left in the cache;
    the assumed ones when none did."""
    from pytest_legalbench.run.output_memory import MemoryKey, planned_backend, recall
    from pytest_legalbench.run.plan_calls import OutputLengths

    requested, base_url, server_kind = backend_choice(args)
    key = MemoryKey(planned_backend(requested, os.environ, base_url, server_kind),
                    answer_model(args), judge_model)
    found = recall(cache_folder(args), key)
    if found is None:
        return OutputLengths()
    progress(f"output lengths measured by earlier runs on {key.backend} "
             f"(--assumed-lengths to plan without them)")
    return found


def _calibration(folder: Path, progress: Progress) -> OutputLengths:
    """The output lengths measured on the run stored in ``folder``."""
    from pytest_legalbench.gandr.report import ResultsFileError as GandrFileError
    from pytest_legalbench.gandr.report import read_records
    from pytest_legalbench.results.results_file import ResultsFileError, read_run, results_path
    from pytest_legalbench.run.cost_plan import measured_calls
    from pytest_legalbench.run.plan_calls import OutputLengths

    if not folder.exists():
        raise UsageProblem(f"--calibrate {folder}: no such folder or file")
    qa: Sequence[ItemRecord] = ()
    gandr: Sequence[GandrRecord] = ()
    found = results_path(folder)
    if found.is_file():
        try:
            qa = read_run(found).records
        except ResultsFileError as error:
            raise UsageProblem(f"--calibrate: {error}") from None
    if folder.is_dir() and (folder / "gandr-results.json").is_file():
        try:
            gandr = read_records(folder)
        except GandrFileError as error:
            raise UsageProblem(f"--calibrate: {error}") from None
    calls = measured_calls(qa, gandr)
    if not calls:
        raise UsageProblem(f"--calibrate {folder}: no results.json or gandr-results.json with "
                           f"model calls in it (run the benchmark with --legalbench-report)")
    progress(f"output lengths measured on {len(calls)} calls of {folder}")
    return OutputLengths.calibrated(calls, str(folder))


def _limit(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        return dollars_of(Chosen(text, "--max-cost"))
    except SettingsError as error:
        raise UsageProblem(str(error)) from None


def _sample(args: argparse.Namespace) -> int | None:
    """The questions of the run's stratified sample (``--sample`` or the environment), None
    for every question."""
    chosen = choose([option("sample")], {"sample": args.setting_sample}, {}, os.environ,
                    from_cli=True)["sample"]
    try:
        return None if chosen is None else count_of(chosen)
    except SettingsError as error:
        raise UsageProblem(str(error)) from None


def _repeats(given: int | None) -> int:
    raw = given if given is not None else os.environ.get(option("repeats").env or "")
    if raw is None or raw == "":
        return DEFAULT_REPEATS
    try:
        repeats = int(raw)
    except ValueError:
        repeats = 0
    if repeats < 1:
        raise UsageProblem(f"--repeats: expected a whole number >= 1, got {raw!r}")
    return repeats


def _env_choice(name: str, allowed: tuple[str, ...]) -> str | None:
    value = os.environ.get(name)
    if value and value not in allowed:
        raise UsageProblem(f"{name}={value!r} is not one of {', '.join(allowed)}")
    return value or None
