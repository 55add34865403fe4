"""Position-swapped judge verdicts: the combination tables, tallies, rates and the forced test."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.judging.pairing import ARMS, OUTCOMES, Tally, arm_of, combine, tally
from pytest_legalbench.stats.exact import Interval

RAW = ("A", "B", "tie", None)

# Forward puts inject in position A; reverse puts the mode there. Rows: forward verdict,
# columns: reverse verdict in the order of RAW.
DEFAULT_TABLE = {
    "A": ("tie", "inject", "tie", "unscored"),
    "B": ("mode", "tie", "tie", "unscored"),
    "tie": ("tie", "tie", "tie", "unscored"),
    None: ("unscored", "unscored", "unscored", "unscored"),
}
FORCED_TABLE = {
    "A": ("split", "inject", "unscored", "unscored"),
    "B": ("mode", "split", "unscored", "unscored"),
    "tie": ("unscored", "unscored", "unscored", "unscored"),
    None: ("unscored", "unscored", "unscored", "unscored"),
}


def _cases(table: Mapping[str | None, tuple[str, ...]]) -> list[tuple[str | None, str | None, str]]:
    return [
        (forward, reverse, outcome)
        for forward, row in table.items()
        for reverse, outcome in zip(RAW, row, strict=True)
    ]


@pytest.mark.parametrize(("forward", "reverse", "expected"), _cases(DEFAULT_TABLE))
def test_default_protocol_table(forward: str | None, reverse: str | None, expected: str) -> None:
    assert combine(forward, reverse) == expected


@pytest.mark.parametrize(("forward", "reverse", "expected"), _cases(FORCED_TABLE))
def test_forced_protocol_table(forward: str | None, reverse: str | None, expected: str) -> None:
    assert combine(forward, reverse, forced=True) == expected


def test_arm_of_maps_each_direction() -> None:
    assert ARMS == ("inject", "mode")
    assert [arm_of(raw, forward=True) for raw in RAW] == ["inject", "mode", "tie", None]
    assert [arm_of(raw, forward=False) for raw in RAW] == ["mode", "inject", "tie", None]


@pytest.mark.parametrize("raw", ["a", "C", "", "Tie", "inject"])
def test_unknown_raw_verdict_is_rejected(raw: str) -> None:
    with pytest.raises(ValueError, match="forward verdict must be"):
        arm_of(raw, forward=True)
    # Even when the other verdict alone would make the pair unscored.
    with pytest.raises(ValueError, match="reverse verdict must be"):
        combine(None, raw)


def test_literal_tally_rates_and_forced_test() -> None:
    verdicts = ["inject"] * 3 + ["mode"] * 12 + ["tie"] * 5 + ["split"] * 2 + ["unscored"]
    counted = tally(verdicts)
    assert counted == Tally(items=23, inject=3, mode=12, tie=5, split=2, unscored=1)
    assert counted.scored() == 20
    rates = counted.rates()
    assert {name: (r.k, r.n) for name, r in rates.items()} == {
        "tie": (5, 20),
        "inject": (3, 20),
        "mode": (12, 20),
    }
    # Clopper-Pearson 95% bounds, computed independently by bisection on exact binomial tails.
    assert [round(rates["tie"].interval.low, 4), round(rates["tie"].interval.high, 4)] == [
        0.0866,
        0.4910,
    ]
    assert rates["mode"].share == 0.6
    # Mode 12 vs inject 3 of 15 decided: 2 * (1 + 15 + 105 + 455) / 2**15 = 9 / 256.
    assert counted.forced_test() == pytest.approx(0.03515625, rel=1e-9)
    assert to_builtins(counted) == {
        "items": 23,
        "scored": 20,
        "inject": 3,
        "mode": 12,
        "tie": 5,
        "split": 2,
        "unscored": 1,
        "rates": {
            "tie": {"k": 5, "n": 20, "share": 0.25, "low": 0.0866, "high": 0.491},
            "inject": {"k": 3, "n": 20, "share": 0.15, "low": 0.0321, "high": 0.3789},
            "mode": {"k": 12, "n": 20, "share": 0.6, "low": 0.3605, "high": 0.8088},
        },
        "forced_test_p": counted.forced_test(),
    }


def test_empty_tally_has_whole_interval_and_no_test() -> None:
    counted = tally([])
    assert counted == Tally(items=0, inject=0, mode=0, tie=0, split=0, unscored=0)
    assert counted.rates()["tie"].interval == Interval(0.0, 1.0)
    assert counted.forced_test() is None
    assert json.loads(json.dumps(to_builtins(counted)))["forced_test_p"] is None


def test_ties_and_splits_stay_out_of_the_forced_test() -> None:
    only_ties = tally(["tie"] * 4 + ["split"] * 3 + ["unscored"] * 2)
    assert only_ties.forced_test() is None
    balanced = tally(["mode", "inject"] * 3 + ["split"] * 10)
    assert balanced.forced_test() == 1.0


def test_unknown_tally_value_is_rejected_with_its_position() -> None:
    with pytest.raises(ValueError, match="verdict 2 must be one of"):
        tally(["inject", "mode", "win"])


def test_inconsistent_tally_is_rejected() -> None:
    with pytest.raises(ValueError, match="do not add up to items=5"):
        Tally(items=5, inject=1, mode=1, tie=1, split=0, unscored=0)
    with pytest.raises(ValueError, match="Tally.split must be non-negative"):
        Tally(items=0, inject=1, mode=0, tie=0, split=-1, unscored=0)


raw_verdicts = st.sampled_from(RAW)


@given(st.lists(st.tuples(raw_verdicts, raw_verdicts)), st.booleans())
def test_tally_of_combined_pairs_is_consistent(
    pairs: list[tuple[str | None, str | None]], forced: bool
) -> None:
    counted = tally(combine(forward, reverse, forced=forced) for forward, reverse in pairs)
    assert counted.items == len(pairs)
    assert sum(getattr(counted, name) for name in OUTCOMES) == len(pairs)
    # An unreadable verdict never turns into a loss for either arm.
    unreadable = sum(1 for forward, reverse in pairs if forward is None or reverse is None)
    assert counted.unscored >= unreadable
    if forced:
        assert counted.tie == 0
    else:
        assert counted.split == 0
    json.dumps(to_builtins(counted))


@given(raw_verdicts, raw_verdicts, st.booleans())
def test_swapping_answers_swaps_the_winner(
    forward: str | None, reverse: str | None, forced: bool
) -> None:
    # Relabelling A and B in both directions is the same as exchanging the two answers.
    swap = {"A": "B", "B": "A", "tie": "tie", None: None}
    exchange = {"inject": "mode", "mode": "inject"}
    outcome = combine(forward, reverse, forced=forced)
    swapped = combine(swap[forward], swap[reverse], forced=forced)
    assert swapped == exchange.get(outcome, outcome)
