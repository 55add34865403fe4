"""Each answer classed by its key facts and evidence recall: right, retrieval miss, reading
miss or unscored; a control declined or not; counted per arm."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_legalbench.results.error_attribution import (
    CLASSES,
    ErrorCounts,
    attribute,
    count_classes,
)
from tests.support.item_records import FAIL, PASS, qa_record


@pytest.mark.parametrize(("correct", "recall", "control", "expected"), [
    (True, 1.0, False, "right"),
    (True, 0.0, False, "right"),  # right without the evidence is still right
    (False, 0.5, False, "retrieval_miss"),
    (False, 0.0, False, "retrieval_miss"),
    (False, 1.0, False, "reading_miss"),
    (False, None, False, "unscored"),  # failing, with no evidence to tell why
    (None, 1.0, False, "unscored"),
    (True, None, True, "declined"),
    (False, None, True, "not_declined"),
    (None, None, True, "unscored"),
])
def test_the_class_of_each_outcome(correct: bool | None, recall: float | None, control: bool,
                                   expected: str) -> None:
    assert attribute(correct, recall, control=control) == expected


def test_counts_per_class_and_their_line() -> None:
    counts = count_classes(["right", "reading_miss", "right", "declined", "retrieval_miss"])
    assert counts == ErrorCounts(right=2, retrieval_miss=1, reading_miss=1, declined=1)
    assert counts.text() == ("right 2, retrieval miss 1, reading miss 1, unscored 0; "
                             "controls: declined 1, not declined 0")
    assert count_classes(["unscored"]).text() == ("right 0, retrieval miss 0, reading miss 0, "
                                                  "unscored 1")
    assert tuple(f.name for f in dataclasses.fields(ErrorCounts)) == CLASSES
    with pytest.raises(ValueError, match="unknown error class 'wrong'"):
        count_classes(["wrong"])


def test_a_record_classes_its_mode_and_inject_on_their_own_recall() -> None:
    record = dataclasses.replace(qa_record(1, "tie", PASS, FAIL), evidence_recall=0.5,
                                 inject_recall=1.0)
    assert (record.error_class, record.inject_error_class) == ("retrieval_miss", "right")
    failing_inject = dataclasses.replace(record, keyfacts_inject=FAIL)
    assert failing_inject.inject_error_class == "reading_miss"
    # An inject-only record's mode arm is inject: its answer and its recall.
    alone = dataclasses.replace(record, mode="inject", mode_answer=None, keyfacts_mode=None,
                                evidence_recall=1.0)
    assert alone.error_class == "reading_miss" or alone.keyfacts_inject.correct
    assert alone.error_class == "right"
    control = dataclasses.replace(qa_record(2, "tie", PASS, FAIL, kind="out_of_scope"),
                                  evidence_recall=None)
    assert (control.error_class, control.inject_error_class) == ("not_declined", "declined")
