"""``legalbench power``: the numbers it prints come from the stats module, in text and JSON."""

from __future__ import annotations

import json

import pytest

from pytest_legalbench.commands.cli import main
from pytest_legalbench.commands.power import power_plan
from pytest_legalbench.stats.power import (
    paired_minimum_detectable_effect,
    unpaired_minimum_detectable_effect,
)


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
    (["power", "--effect", "0.05"], "give --rate"),
    (["power", "--rate", "1.0"], "--rate must be a share in (0, 1), got 1.0"),
    (["power", "--rate", "0.7", "--effect", "0"], "--effect must be a share in (0, 1]"),
    (["power", "--rate", "0.7", "--n", "0"], "--n must be a positive integer, got 0"),
    (["power", "--rate", "0.7", "--alpha", "nan"], "--alpha must be a share"),
])
def test_bad_options_are_named(argv: list[str], message: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err
