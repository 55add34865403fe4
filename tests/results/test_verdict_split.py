"""The tie split: ties and wins by the key-fact score of both answers, with literal numbers."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.reported_rate import ReportedRate
from pytest_legalbench.results.summarise import summarise
from pytest_legalbench.results.summary_lines import split_lines, summary_lines
from pytest_legalbench.results.verdict_split import (
    audit_flag,
    keyfact_cell,
    split_verdicts,
)
from tests.support.item_records import FAIL, PASS, qa_record


def _twenty() -> list[ItemRecord]:
    """20 scored items: 17 ties (9 both pass, 5 both fail, 2 inject only, 1 mode only),
    2 inject wins (1 with a failing inject answer), 1 mode win whose answer fails; plus one
    unscored item, which the split leaves out."""
    cells = ([("tie", PASS, PASS)] * 9 + [("tie", FAIL, FAIL)] * 5 + [("tie", PASS, FAIL)] * 2
             + [("tie", FAIL, PASS)] + [("inject", PASS, FAIL), ("inject", FAIL, PASS)]
             + [("mode", PASS, FAIL)] + [("unscored", PASS, PASS)])
    return [qa_record(n, verdict, inject, mode) for n, (verdict, inject, mode) in enumerate(cells)]


def test_the_cells_add_up_to_the_headline_counts() -> None:
    split = split_verdicts(_twenty())
    assert split.scored == 20
    assert (split.tie.both_pass, split.tie.both_fail, split.tie.inject_only,
            split.tie.mode_only) == (9, 5, 2, 1)
    assert split.tie.items == 17 and split.tie.differ == 3
    assert split.failing_winners("inject") == 1 and split.failing_winners("mode") == 1
    assert split.failing_winners("tie") is None


def test_rates_carry_exact_clopper_pearson_intervals() -> None:
    # CP 17/20 -> [0.6211, 0.9679] (SPEC section 8); 0/20 -> [0, 0.1684];
    # 9/20 -> [0.2306, 0.6847]; 1/20 -> [0.0013, 0.2487].
    assert ReportedRate.of(17, 20) == ReportedRate(17, 20, 0.85, 0.6211, 0.9679)
    plain: Any = to_builtins(split_verdicts(_twenty()))
    assert plain["tie"]["both_pass"] == {"k": 9, "n": 20, "share": 0.45, "low": 0.2306,
                                         "high": 0.6847}
    assert plain["tie"]["differ"]["k"] == 3 and "failing_winner" not in plain["tie"]
    assert plain["mode"]["failing_winner"] == {"k": 1, "n": 20, "share": 0.05,
                                               "low": 0.0013, "high": 0.2487}
    assert plain["inject"]["both_pass"]["high"] == 0.1684


def test_cells_and_flags_of_single_records() -> None:
    assert keyfact_cell(qa_record(1, "tie", PASS, None)) == "inject_only"  # no score fails
    assert audit_flag(qa_record(1, "tie", PASS, FAIL)) == "tie, key facts differ"
    assert audit_flag(qa_record(1, "tie", FAIL, FAIL)) == ""
    assert audit_flag(qa_record(1, "inject", FAIL, FAIL)) == "won by an answer failing key facts"
    assert audit_flag(qa_record(1, "inject", PASS, FAIL)) == ""
    assert audit_flag(qa_record(1, "mode", PASS, FAIL)) == "won by an answer failing key facts"
    assert audit_flag(qa_record(1, "unscored", PASS, FAIL)) == ""
    with pytest.raises(ValueError, match="outcome must be one of"):
        split_verdicts([]).cells("split")


def test_the_terminal_lines_print_the_split_beside_the_unchanged_headline() -> None:
    records = _twenty() + [qa_record(30, "tie", PASS, PASS, kind="out_of_scope")]
    summary = summarise(records, load_price_card(), backend="reference", models={"answer": "m"})
    lines = summary_lines(summary)
    bound = next(n for n, line in enumerate(lines) if line.startswith("  document-bound:"))
    assert lines[bound] == ("  document-bound: ties 17/20 85.0% [62.1, 96.8]; inject wins 2/20 "
                            "10.0% [1.2, 31.7]; navembed:hybrid wins 1/20 5.0% [0.1, 24.9]; "
                            "unscored 1")
    assert lines[bound + 1] == (
        "    ties by key facts: both pass 9/20 45.0% [23.1, 68.5]; both fail 5/20 25.0% "
        "[8.7, 49.1]; differ 3/20 15.0% [3.2, 37.9] (the judge and the key facts disagree: "
        "audit)")
    assert lines[bound + 2].startswith("    inject wins by key facts: both pass 0/20 ")
    assert lines[bound + 2].endswith("won by a failing answer 1/20 5.0% [0.1, 24.9] "
                                     "(flagged: audit)")
    assert lines[bound + 3].startswith("    navembed:hybrid wins by key facts: both pass 0/20")
    assert lines[bound + 4].startswith("  out-of-scope: ties 1/1 ")
    assert lines[bound + 5].startswith("    ties by key facts: both pass 1/1 100.0% [2.5, 100.0]")
    assert lines[bound + 6] == "    inject wins by key facts: none"
    entry = summary.mode("navembed:hybrid")
    assert entry.document_bound is not None and entry.document_bound.tie == 17  # headline kept
    assert split_lines(split_verdicts([]), "x") == []
    plain = to_builtins(summary)["modes"]["navembed:hybrid"]
    assert plain["document_bound_split"]["scored"] == 20
    assert plain["controls_split"]["tie"]["both_pass"]["k"] == 1
