"""The GANDR session summary from hand-made records, with literal numbers."""

from __future__ import annotations

import pytest

from pytest_legalbench.files.record_json import from_builtins, to_builtins
from pytest_legalbench.gandr.judging import stable_and_correct
from pytest_legalbench.gandr.record import GandrRecord
from pytest_legalbench.gandr.summary import (
    Comparison,
    GandrSummary,
    McNemarTest,
    WilsonRate,
    gandr_lines,
    mcnemar_against,
    summarise_gandr,
)
from pytest_legalbench.llm.pricing import load_price_card
from tests.support.gandr_samples import audit_round, record, repeat


def _records() -> list[GandrRecord]:
    # Four questions. GANDR strict-correct on q1, q2, q3; B2 only on q1 (q4 unscored for B2).
    gandr = [
        record("q1", "gandr", [repeat(0, 5, True, passed=True, trace=(audit_round(
            ["SUPPORTED", "SUPPORTED", "PARTIAL"]),)), repeat(1, 5, True, passed=True)],
            stable=True),
        record("q2", "gandr", [repeat(0, 4, True, passed=True, rounds=2, trace=(
            audit_round(["UNSUPPORTED"]), audit_round(["SUPPORTED", "MISCITED"], 2))),
            repeat(1, 2, True, passed=True)], stable=False, area="leasing"),
        record("q3", "gandr", [repeat(0, 5, True, passed=False, rounds=3),
                               repeat(1, 5, True, passed=True)], stable=None),
        record("q4", "gandr", [repeat(0, 1, False, passed=True),
                               repeat(1, 1, False, passed=True)], stable=False),
    ]
    b2 = [
        record("q1", "gandr:b2", [repeat(0, 5, True), repeat(1, 5, True)], stable=True),
        record("q2", "gandr:b2", [repeat(0, 4, False, normalised=True), repeat(1, 4, False)],
               stable=False, area="leasing"),
        record("q3", "gandr:b2", [repeat(0, 2, True), repeat(1, 2, True)], stable=False),
        record("q4", "gandr:b2", [repeat(0, None, True), repeat(1, None, True)], stable=None),
    ]
    return gandr + b2


def test_accuracy_is_read_from_seed_zero_with_wilson_intervals() -> None:
    summary = summarise_gandr(_records(), load_price_card())
    gandr = summary.system("gandr")
    assert gandr.strict == WilsonRate(k=3, n=4, share=0.75, low=0.3006, high=0.9544)
    assert gandr.lenient.k == 3
    assert gandr.by_area["leasing"] == WilsonRate(k=1, n=1, share=1.0, low=0.2065, high=1.0)
    b2 = summary.system("gandr:b2")
    # q4 has no score: it is counted as unscored, not as wrong.
    assert b2.unscored == 1 and b2.strict.n == 3 and b2.strict.k == 1
    # q2 fails strict on citation form only, so normalisation rescues it.
    assert b2.normalised_strict.k == 2 and b2.lenient.k == 2


def test_stable_correct_counts_decided_items_only() -> None:
    sc = summarise_gandr(_records(), load_price_card()).system("gandr").stable_correct
    assert (sc.rate.k, sc.rate.n, sc.undecided) == (1, 3, 1) and sc.rate.share == 0.3333


def test_rounds_passes_and_the_audit_label_mix_are_reported_for_gandr_only() -> None:
    summary = summarise_gandr(_records(), load_price_card())
    audit = summary.system("gandr").audit
    assert audit is not None
    assert audit.rounds == {"1": 6, "2": 1, "3": 1}
    assert audit.passed.k == 7 and audit.passed.n == 8
    assert audit.audit_labels == {"SUPPORTED": 3, "PARTIAL": 1, "UNSUPPORTED": 1,
                                  "MISCITED": 1}
    assert summary.system("gandr:b2").audit is None


def test_mcnemar_against_b2_uses_items_both_scored() -> None:
    records = _records()
    test = mcnemar_against([r for r in records if r.system == "gandr"],
                           [r for r in records if r.system == "gandr:b2"])
    # Pairs q1..q3 (q4 unscored for B2): q2 and q3 GANDR right, B2 wrong; none the reverse.
    assert test == McNemarTest(pairs=3, b=2, c=0, p=0.5)
    summary = summarise_gandr(records, load_price_card())
    assert [c.system for c in summary.comparisons] == ["gandr"]
    assert summary.comparisons[0].bonferroni == 1
    assert summary.comparisons[0].p_bonferroni == 0.5


def test_bonferroni_multiplies_by_the_comparisons_made_and_caps_at_one() -> None:
    test = McNemarTest(pairs=100, b=38, c=17, p=0.006)
    assert Comparison.of("gandr", test, bonferroni=5).p_bonferroni == 0.03
    assert Comparison.of("gandr", test, bonferroni=500).p_bonferroni == 1.0
    assert Comparison.of("gandr", test, bonferroni=5).test == test


def _rate(k: int, n: int, share: float | None, low: float, high: float) -> dict[str, object]:
    return {"k": k, "n": n, "share": share, "low": low, "high": high}


def test_the_stored_form_of_a_summary_is_pinned() -> None:
    # gandr-results.json stores this dict: its keys, order, rounding and types are the layout.
    summary = to_builtins(summarise_gandr(_records(), load_price_card()))
    three_of_four = _rate(3, 4, 0.75, 0.3006, 0.9544)
    expected_gandr = {
        "system": "gandr", "items": 4, "unscored": 0,
        "strict": three_of_four, "lenient": three_of_four, "normalised_strict": three_of_four,
        "grounded": three_of_four, "normalised_grounded": three_of_four,
        "by_area": {"finance": _rate(2, 3, 0.6667, 0.2077, 0.9385),
                    "leasing": _rate(1, 1, 1.0, 0.2065, 1.0)},
        "stable_correct": {"k": 1, "n": 3, "share": 0.3333, "low": 0.0615, "high": 0.7923,
                           "repeats": 2, "undecided": 1},
        "calls": 12, "cost_usd": "$0.0054",
        "rounds": {"1": 6, "2": 1, "3": 1},
        "passed": _rate(7, 8, 0.875, 0.5291, 0.9776),
        "audit_labels": {"SUPPORTED": 3, "PARTIAL": 1, "UNSUPPORTED": 1, "MISCITED": 1},
    }
    assert list(summary) == ["systems", "mcnemar_vs_b2"]
    systems = summary["systems"]
    assert isinstance(systems, dict) and list(systems) == ["gandr", "gandr:b2"]
    assert systems["gandr"] == expected_gandr
    # Equal dicts may differ in order (and 1 == 1.0): repr pins both.
    assert repr(systems["gandr"]) == repr(expected_gandr)
    assert "rounds" not in systems["gandr:b2"] and systems["gandr:b2"]["unscored"] == 1
    assert summary["mcnemar_vs_b2"] == {"gandr": {"pairs": 3, "b": 2, "c": 0, "p": 0.5,
                                                  "bonferroni": 1, "p_bonferroni": 0.5}}


def test_an_empty_summary_stores_no_systems_and_no_tests() -> None:
    assert to_builtins(GandrSummary.empty()) == {"systems": {}}
    assert summarise_gandr([], load_price_card()) == GandrSummary.empty()
    assert gandr_lines(GandrSummary.empty()) == [
        "GANDR systems (accuracy on each item's seed-0 answer, 95% Wilson intervals):"]
    with pytest.raises(KeyError):
        GandrSummary.empty().system("gandr")


def test_lines_name_every_figure() -> None:
    lines = "\n".join(gandr_lines(summarise_gandr(_records(), load_price_card())))
    assert "strict 3/4 75.0% [30.1%, 95.4%]" in lines
    assert "Stable & Correct@2: 1/3 33.3%" in lines and "(1 undecided)" in lines
    assert "audit labels: SUPPORTED 3, PARTIAL 1, UNSUPPORTED 1, MISCITED 1" in lines
    assert "gandr: b=2 c=0 p=0.5" in lines


@pytest.mark.parametrize(("strict", "equivalent", "expected"), [
    ([True, True], [True], True),
    ([True, True], [False], False),
    ([True, False], [None], False),
    ([True, True], [None], None),
    ([True, None], [True], None),
    ([None, False], [True], False),
    ([], [], None),
])
def test_stable_and_correct(strict: list[bool | None], equivalent: list[bool | None],
                            expected: bool | None) -> None:
    assert stable_and_correct(strict, equivalent) is expected


def test_records_round_trip_through_plain_builtins() -> None:
    import json

    for item in _records():
        assert from_builtins(GandrRecord, json.loads(json.dumps(to_builtins(item)))) == item


def test_mcnemar_reproduces_the_studys_head_to_head_figure() -> None:
    # 38 items only the system gets right, 17 only B2, 45 both: p = 0.006, and 0.03 after a
    # Bonferroni correction over five comparisons.
    outcomes = [(True, False)] * 38 + [(False, True)] * 17 + [(True, True)] * 45
    mine = [record(f"q{i}", "gandr", [repeat(0, 5 if a else 1, True)])
            for i, (a, _) in enumerate(outcomes)]
    theirs = [record(f"q{i}", "gandr:b2", [repeat(0, 5 if b else 1, True)])
              for i, (_, b) in enumerate(outcomes)]
    test = mcnemar_against(mine, theirs)
    assert (test.pairs, test.b, test.c) == (100, 38, 17)
    assert round(test.p, 3) == 0.006
    assert round(Comparison.of("gandr", test, bonferroni=5).p_bonferroni, 2) == 0.03
