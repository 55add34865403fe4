"""``legalbench power``: the numbers it prints come from the stats module, in text and JSON."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pytest_legalbench.commands.cli import main
from pytest_legalbench.commands.power import power_plan
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.report_files import write_report
from pytest_legalbench.results.summarise import summarise
from pytest_legalbench.stats.power import (
    paired_minimum_detectable_effect,
    unpaired_minimum_detectable_effect,
)
from tests.support.item_records import FAIL, PASS, qa_record


def test_the_notes_example_in_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["power", "--effect", "0.05", "--rate", "0.7", "--discordance", "0.15",
                 "--n", "300", "--n", "30"]) == 0
    out = capsys.readouterr().out
    assert "paired:   469 questions" in out
    assert "unpaired: 1,377 questions per arm (70.0% vs 65.0%) (2.9x the paired)" in out
    # The table is sorted by n, and a size too small to detect anything shows "-".
    assert out.index("     30") < out.index("    300")
    assert "       30          -" in out


def test_json_holds_the_same_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["power", "--effect", "0.05", "--rate", "0.7", "--discordance", "0.15",
                 "--n", "500", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["questions_needed"] == {"paired": 469, "unpaired_per_arm": 1377,
                                        "second_rate": pytest.approx(0.65)}
    (row,) = plan["minimum_detectable_effect"]
    assert row["n"] == 500
    assert row["paired"] == paired_minimum_detectable_effect(500, 0.15)
    assert row["unpaired"] == unpaired_minimum_detectable_effect(500, 0.7)
    assert plan["discordance_assumed"] is False


def test_a_rate_alone_assumes_independent_arms() -> None:
    plan = power_plan(effect=None, rate=0.9, discordance=None, sizes=[300], alpha=0.05,
                      power=0.8)
    assert plan["discordance"] == pytest.approx(0.18)
    assert plan["discordance_assumed"] is True
    assert "questions_needed" not in plan


def test_a_difference_beyond_the_discordance_is_impossible(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["power", "--effect", "0.2", "--discordance", "0.1", "--n", "100"]) == 0
    assert "paired:   impossible: the difference exceeds the discordance" in \
        capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["power", "--effect", "0.05"], "give RUN (a stored run), --rate"),
    (["power", "--rate", "1.0"], "--rate must be a share in (0, 1), got 1.0"),
    (["power", "--rate", "0.7", "--effect", "0"], "--effect must be a share in (0, 1]"),
    (["power", "--rate", "0.7", "--n", "0"], "--n must be a positive integer, got 0"),
    (["power", "--rate", "0.7", "--alpha", "nan"], "--alpha must be a share"),
])
def test_bad_options_are_named(argv: list[str], message: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def _stored_run(folder: Path, records: list[ItemRecord]) -> Path:
    card = load_price_card()
    summary = summarise(records, card, backend="reference", models={"answer": "m"})
    write_report(folder, records=records, summary=summary, backend="reference",
                 models={"answer": "m"}, card=card)
    return folder


def _records() -> list[ItemRecord]:
    """40 questions: the mode right on q01-q20 and q23-q30, inject on q11-q30, so 10 right
    only for the mode and 2 (q21, q22) only for inject: discordance 12/40 = 30%."""
    found = []
    for n in range(1, 41):
        inject = PASS if 10 < n <= 30 else FAIL
        mode = PASS if n <= 20 or 22 < n <= 30 else FAIL
        found.append(dataclasses.replace(qa_record(n, "tie", inject, mode),
                                         transaction_set=f"s{n % 8}", inject_recall=1.0))
    return found


def test_a_stored_run_plans_from_its_observed_discordance(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _stored_run(tmp_path / "run", _records())
    assert main(["power", str(run), "--effect", "0.1", "--n", "100"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        "navembed:hybrid vs inject: 40 questions both scored, 10 right only for the first and 2 "
        "only for the second (discordance 30.0%), observed difference +20.0 points; accuracy "
        "70.0% vs 50.0%")
    # The rest is the plan for the rates the run observed, given by hand.
    assert main(["power", "--effect", "0.1", "--rate", "0.5", "--discordance", "0.3",
                 "--n", "100"]) == 0
    by_hand = capsys.readouterr().out
    assert out.split("\n", 1)[1] == by_hand
    assert "paired:   234 questions" in by_hand
    assert main(["power", str(run / "results.json"), "--n", "100", "--json"]) == 0
    (plan,) = json.loads(capsys.readouterr().out)
    assert plan["observed"] == {"first": "navembed:hybrid", "second": "inject", "n": 40,
                                "first_only": 10, "second_only": 2, "discordance": 0.3,
                                "difference": pytest.approx(0.2), "first_rate": 0.7,
                                "second_rate": 0.5}
    assert plan["minimum_detectable_effect"][0]["paired"] == pytest.approx(
        paired_minimum_detectable_effect(100, 0.3))


def test_a_stored_run_whose_arms_never_disagree_has_no_paired_plan(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [dataclasses.replace(r, keyfacts_mode=r.keyfacts_inject) for r in _records()]
    run = _stored_run(tmp_path / "run", records)
    assert main(["power", str(run), "--n", "100", "--json"]) == 0
    (plan,) = json.loads(capsys.readouterr().out)
    assert plan["discordance"] == 0.0 and plan["discordance_assumed"] is False
    assert set(plan["minimum_detectable_effect"][0]) == {"n", "unpaired"}
    assert main(["power", str(run), "--n", "100"]) == 0
    assert "the arms never disagreed: the run gives no paired design" in capsys.readouterr().out


@pytest.mark.parametrize(("extra", "message"), [
    (["--rate", "0.5"], "give RUN, or --rate and --discordance, not both"),
    (["--discordance", "0.2"], "give RUN, or --rate and --discordance, not both"),
])
def test_a_stored_run_takes_no_rates(tmp_path: Path, extra: list[str], message: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    run = _stored_run(tmp_path / "run", _records())
    assert main(["power", str(run), *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_run_without_two_arms_or_results_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alone = [dataclasses.replace(r, mode="inject", mode_answer=None, keyfacts_mode=None,
                                 mode_calls=(), mode_traits=builtin_traits("inject"))
             for r in _records()]
    run = _stored_run(tmp_path / "inject", alone)
    assert main(["power", str(run)]) == 2
    assert f"{run}: the run compares no two arms" in capsys.readouterr().err
    assert main(["power", str(tmp_path / "missing")]) == 2
    assert "cannot read the results" in capsys.readouterr().err
