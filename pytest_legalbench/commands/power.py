"""``legalbench power``: how many questions a comparison of two modes needs, and the smallest
difference a run of a given size can detect, paired and unpaired: from given rates, or from a
stored run's observed discordance (``legalbench power RUN/``), one plan per comparison the run
made."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import Progress, UsageProblem

#: Run sizes of the minimum-detectable-effect table when --n is not given.
DEFAULT_SIZES = (30, 50, 100, 200, 300, 500, 1000, 2000, 5000)


def register(commands: Any) -> None:
    """Add the ``power`` subcommand."""
    power = commands.add_parser(
        "power", help="questions needed to detect a difference between two modes, and the "
                      "smallest difference a run of n questions detects (paired and unpaired), "
                      "from given rates or from a stored run's observed discordance")
    power.add_argument("stored_run", nargs="?", type=Path, metavar="RUN",
                       help="a report folder or its results.json: plan every comparison the "
                            "run made from its observed discordance (the share of questions "
                            "on which the two arms' key facts disagree) and the second arm's "
                            "accuracy")
    power.add_argument("--effect", type=float, metavar="D",
                       help="the difference of key-fact accuracy to detect, as a share "
                            "(0.05 = 5 points); without it only the table is printed")
    power.add_argument("--rate", type=float, metavar="P",
                       help="the expected accuracy of the comparison's baseline arm, as a "
                            "share; needed for the unpaired design")
    power.add_argument("--discordance", type=float, metavar="PSI",
                       help="the share of questions on which the two arms disagree (one right, "
                            "the other wrong); it decides the paired design. Without it, and "
                            "with --rate, arms that are independent are assumed, which "
                            "overstates it for modes that agree more than chance")
    power.add_argument("--n", type=int, action="append", metavar="N", dest="sizes",
                       help="run size for the table (repeatable; default: "
                            f"{', '.join(map(str, DEFAULT_SIZES))})")
    power.add_argument("--alpha", type=float, default=0.05,
                       help="two-sided significance level (default: %(default)s)")
    power.add_argument("--power", type=float, default=0.8, dest="target_power",
                       help="power to reach (default: %(default)s)")
    power.add_argument("--json", action="store_true", help="print the result as JSON")
    power.add_argument("-q", "--quiet", action="store_true", help="(no progress is printed)")
    power.set_defaults(run=run_power)


def _checked(args: argparse.Namespace) -> None:
    shares = (("--effect", args.effect, True), ("--rate", args.rate, False),
              ("--discordance", args.discordance, True), ("--alpha", args.alpha, False),
              ("--power", args.target_power, False))
    for option, value, closed_top in shares:
        if value is None:
            continue
        top_ok = value <= 1.0 if closed_top else value < 1.0
        if not (value > 0.0 and top_ok) or math.isnan(value):
            interval = "(0, 1]" if closed_top else "(0, 1)"
            raise UsageProblem(f"{option} must be a share in {interval}, got {value}")
    if args.stored_run is not None and (args.rate is not None or args.discordance is not None):
        raise UsageProblem("a stored run gives the discordance and the baseline rate: give "
                           "RUN, or --rate and --discordance, not both")
    if args.stored_run is None and args.rate is None and args.discordance is None:
        raise UsageProblem("give RUN (a stored run), --rate (the baseline accuracy), "
                           "--discordance (the share of questions the arms disagree on), or "
                           "both rates")
    for size in args.sizes or ():
        if size < 1:
            raise UsageProblem(f"--n must be a positive integer, got {size}")


def power_plan(*, effect: float | None, rate: float | None, discordance: float | None,
               sizes: Sequence[int], alpha: float, power: float) -> dict[str, Any]:
    """The questions needed for ``effect`` and the table of detectable effects, as builtins."""
    from pytest_legalbench.stats.power import (
        paired_minimum_detectable_effect,
        paired_questions,
        unpaired_minimum_detectable_effect,
        unpaired_questions,
    )

    assumed = discordance is None and rate is not None
    if discordance is None and rate is not None:
        # Independent arms disagree with probability p1 q2 + p2 q1; with the second rate
        # unknown, the baseline's own rate stands for both: 2 p q.
        discordance = 2.0 * rate * (1.0 - rate)
    plan: dict[str, Any] = {
        "alpha": alpha, "power": power, "effect": effect, "rate": rate,
        "discordance": discordance, "discordance_assumed": assumed,
    }
    if effect is not None:
        needed: dict[str, Any] = {}
        if discordance is not None:
            needed["paired"] = (paired_questions(effect, discordance, alpha=alpha, power=power)
                                if effect <= discordance else None)
        if rate is not None:
            needed["unpaired_per_arm"] = unpaired_questions(effect, rate, alpha=alpha,
                                                            power=power)
            needed["second_rate"] = rate + effect if rate <= 0.5 else rate - effect
        plan["questions_needed"] = needed
    rows = []
    for n in sorted(set(sizes)):
        row: dict[str, Any] = {"n": n}
        if discordance is not None:
            row["paired"] = paired_minimum_detectable_effect(n, discordance, alpha=alpha,
                                                             power=power)
        if rate is not None:
            row["unpaired"] = unpaired_minimum_detectable_effect(n, rate, alpha=alpha,
                                                                 power=power)
        rows.append(row)
    plan["minimum_detectable_effect"] = rows
    return plan


def _points(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.1f}"


def plan_lines(plan: dict[str, Any]) -> list[str]:
    """The plan as lines for a terminal."""
    lines = [(f"Two-sided test at alpha {plan['alpha']:g}, power {plan['power']:g}; "
              f"differences in percentage points of key-fact accuracy.")]
    discordance, rate = plan["discordance"], plan["rate"]
    if discordance is not None:
        how = (" (assumed: arms independent at the baseline rate; give --discordance from a "
               "run for the paired design)" if plan["discordance_assumed"] else "")
        lines.append(f"Paired design: the arms disagree on {100 * discordance:.1f}% of "
                     f"questions{how}.")
    if rate is not None:
        lines.append(f"Unpaired design: baseline accuracy {100 * rate:.1f}%, the other arm "
                     f"moved towards 50%.")
    needed = plan.get("questions_needed")
    if needed is not None:
        lines.append(f"To detect {_points(plan['effect'])} points:")
        if "paired" in needed:
            paired = needed["paired"]
            lines.append("  paired:   " + (f"{paired:,} questions" if paired is not None else
                                           "impossible: the difference exceeds the "
                                           "discordance"))
        if "unpaired_per_arm" in needed:
            unpaired = needed["unpaired_per_arm"]
            ratio = ""
            if needed.get("paired"):
                ratio = f" ({unpaired / needed['paired']:.1f}x the paired)"
            lines.append(f"  unpaired: {unpaired:,} questions per arm "
                         f"({100 * rate:.1f}% vs {100 * needed['second_rate']:.1f}%){ratio}")
    lines.append("Minimum detectable difference (points) at n questions:")
    table = plan["minimum_detectable_effect"]
    columns = [name for name in ("paired", "unpaired") if table and name in table[0]]
    lines.append(f"  {'n':>7}" + "".join(f"  {name:>9}" for name in columns))
    for row in table:
        lines.append(f"  {row['n']:>7,}" + "".join(f"  {_points(row[name]):>9}"
                                                  for name in columns))
    lines.append("  (- : no difference is detectable at that size)")
    return lines


def run_power(args: argparse.Namespace, progress: Progress) -> int:
    """Print the plan for the given rates, or one per comparison of a stored run."""
    _checked(args)
    sizes = args.sizes or DEFAULT_SIZES
    if args.stored_run is not None:
        plans = run_plans(args.stored_run, effect=args.effect, sizes=sizes, alpha=args.alpha,
                          power=args.target_power)
        if args.json:
            print(json.dumps(plans))
        else:
            print("\n\n".join("\n".join([_observed_line(plan), *plan_lines(plan)])
                              for plan in plans))
        return 0
    plan = power_plan(effect=args.effect, rate=args.rate, discordance=args.discordance,
                      sizes=sizes, alpha=args.alpha, power=args.target_power)
    if args.json:
        print(json.dumps(plan))
    else:
        print("\n".join(plan_lines(plan)))
    return 0


def run_plans(path: Path, *, effect: float | None, sizes: Sequence[int], alpha: float,
              power: float) -> list[dict[str, Any]]:
    """One plan per comparison of the run stored at ``path``, from its observed discordance
    on the document-bound questions both arms scored (its statistics, or, for a run stored
    before they were kept, computed from its records)."""
    from pytest_legalbench.results.results_file import ResultsFileError, read_run
    from pytest_legalbench.results.run_statistics import run_statistics

    try:
        run = read_run(path)
    except ResultsFileError as error:
        raise UsageProblem(str(error)) from None
    statistics = run.summary.statistics or run_statistics(run.records, run.header.modes)
    comparisons = statistics.comparisons if statistics is not None else ()
    if not comparisons:
        raise UsageProblem(f"{path}: the run compares no two arms (it needs a mode besides "
                           f"inject)")
    plans = []
    for comparison in comparisons:
        paired = comparison.paired
        found = paired.discordance
        if not found.n:
            continue
        # The second arm is the baseline: inject, or the later of two modes.
        rate = paired.keyfacts.second_rate
        usable = rate if 0.0 < rate < 1.0 else None
        if found.rate > 0.0:
            plan = power_plan(effect=effect, rate=usable, discordance=found.rate, sizes=sizes,
                              alpha=alpha, power=power)
        else:
            # Arms that never disagreed give no paired design to plan from, and an assumed
            # discordance would pass a guess off as the run's.
            plan = power_plan(effect=effect, rate=usable, discordance=None, sizes=sizes,
                              alpha=alpha, power=power) if usable is not None else {
                "alpha": alpha, "power": power, "effect": effect, "rate": None,
                "minimum_detectable_effect": []}
            plan = _unpaired_only(plan)
        plan["observed"] = {"first": paired.first, "second": paired.second, "n": found.n,
                            "first_only": found.first_only, "second_only": found.second_only,
                            "discordance": found.rate, "difference": found.effect,
                            "first_rate": paired.keyfacts.first_rate, "second_rate": rate}
        plans.append(plan)
    if not plans:
        raise UsageProblem(f"{path}: no comparison of the run has a question both arms "
                           f"scored")
    return plans


def _unpaired_only(plan: dict[str, Any]) -> dict[str, Any]:
    """``plan`` without its paired design: the run observed no discordance."""
    rows = [{k: v for k, v in row.items() if k != "paired"}
            for row in plan["minimum_detectable_effect"]]
    needed = plan.get("questions_needed")
    return {**plan, "discordance": 0.0, "discordance_assumed": False,
            "minimum_detectable_effect": rows if any(len(r) > 1 for r in rows) else [],
            **({"questions_needed": {k: v for k, v in needed.items() if k != "paired"}}
               if needed is not None else {})}


def _observed_line(plan: dict[str, Any]) -> str:
    seen = plan["observed"]
    return (f"{seen['first']} vs {seen['second']}: {seen['n']:,} questions both scored, "
            f"{seen['first_only']} right only for the first and {seen['second_only']} only "
            f"for the second (discordance {100 * seen['discordance']:.1f}%), observed "
            f"difference {100 * seen['difference']:+.1f} points; accuracy "
            f"{100 * seen['first_rate']:.1f}% vs {100 * seen['second_rate']:.1f}%"
            + ("" if seen["discordance"] else "\n(the arms never disagreed: the run gives no "
               "paired design to plan from; give --rate and --discordance to plan one)"))
