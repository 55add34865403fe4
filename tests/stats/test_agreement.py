"""Agreement statistics for the claim audit, checked against numbers worked out by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.stats.agreement import (
    AUDIT_LABELS,
    NEEDS_ATTENTION,
    Detection,
    agreed_subset,
    cohen_kappa,
    detection,
    exact_agreement,
)


def test_textbook_two_by_two_kappa() -> None:
    # 50 items: both yes 20, first yes / second no 5, first no / second yes 10, both no 15.
    # p_o = 35/50 = 0.7. First says yes 25/50, second 30/50.
    # p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, so kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    first = ["yes"] * 25 + ["no"] * 25
    second = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(first, second, labels=("yes", "no")) == pytest.approx(0.4)
    assert exact_agreement(first, second) == pytest.approx(0.7)


def test_four_class_kappa() -> None:
    first = ["SUPPORTED", "SUPPORTED", "SUPPORTED", "PARTIAL", "PARTIAL",
             "UNSUPPORTED", "UNSUPPORTED", "MISCITED", "MISCITED", "SUPPORTED"]
    second = ["SUPPORTED", "SUPPORTED", "PARTIAL", "PARTIAL", "UNSUPPORTED",
              "UNSUPPORTED", "UNSUPPORTED", "MISCITED", "SUPPORTED", "SUPPORTED"]
    # Agreements at 0, 1, 3, 5, 6, 7, 9: p_o = 7/10.
    # Marginals (S, P, U, M): first (4, 2, 2, 2), second (4, 2, 3, 1).
    # p_e = (16 + 4 + 6 + 2) / 100 = 0.28; kappa = (0.7 - 0.28) / 0.72 = 7/12.
    assert cohen_kappa(first, second) == pytest.approx(7 / 12)
    assert exact_agreement(first, second) == pytest.approx(0.7)
    assert agreed_subset(first, second) == [0, 1, 3, 5, 6, 7, 9]


def test_perfect_and_systematically_opposed_agreement() -> None:
    labels = ["SUPPORTED", "MISCITED", "PARTIAL", "SUPPORTED"]
    assert cohen_kappa(labels, labels) == 1.0
    # Every item swapped between two equally used labels: p_o = 0, p_e = 0.5, kappa = -1.
    assert cohen_kappa(["A", "B", "A", "B"], ["B", "A", "B", "A"], labels=("A", "B")) == -1.0
    # Mostly disagreeing: p_o = 1/4; marginals A/B first (2, 2), second (3, 1),
    # p_e = (6 + 2) / 16 = 0.5, kappa = (0.25 - 0.5) / 0.5 = -0.5.
    kappa = cohen_kappa(["A", "B", "A", "B"], ["A", "A", "B", "A"], labels=("A", "B"))
    assert kappa == pytest.approx(-0.5)


def test_undefined_kappa_is_none() -> None:
    assert cohen_kappa([], []) is None
    # Both annotators use one label throughout: chance agreement is 1.
    assert cohen_kappa(["SUPPORTED"] * 3, ["SUPPORTED"] * 3) is None
    assert exact_agreement([], []) is None


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="3 and 2"):
        cohen_kappa(["SUPPORTED"] * 3, ["SUPPORTED"] * 2)
    with pytest.raises(ValueError, match=r"second labelling, item 1: 'WRONG'"):
        cohen_kappa(["SUPPORTED", "PARTIAL"], ["SUPPORTED", "WRONG"])
    with pytest.raises(ValueError, match="1 and 0"):
        exact_agreement(["A"], [])
    with pytest.raises(ValueError, match="2 and 1"):
        agreed_subset(["A", "B"], ["A"])
    with pytest.raises(ValueError, match="tool and gold"):
        detection(["PARTIAL"], [])


def test_detection_counts_and_rates() -> None:
    # 77 flagged and positive, 19 flagged but supported, 11 missed, 24 correctly passed.
    # precision = 77/96 = 0.80208, recall = 77/88 = 0.875, F1 = 154/184 = 0.83696.
    tool = ["PARTIAL"] * 40 + ["MISCITED"] * 37 + ["UNSUPPORTED"] * 19 + ["SUPPORTED"] * 35
    gold = (["UNSUPPORTED"] * 40 + ["PARTIAL"] * 37 + ["SUPPORTED"] * 19
            + ["MISCITED"] * 11 + ["SUPPORTED"] * 24)
    result = detection(tool, gold)
    assert result == Detection(77, 19, 11, 24)
    assert result.precision == pytest.approx(77 / 96)
    assert result.recall == pytest.approx(0.875)
    assert result.f1 == pytest.approx(154 / 184)
    assert to_builtins(result) == {
        "true_positive": 77, "false_positive": 19, "false_negative": 11, "true_negative": 24,
        "precision": 77 / 96, "recall": 0.875, "f1": 154 / 184,
    }


def test_detection_with_another_positive_class() -> None:
    result = detection(["MISCITED", "PARTIAL", "MISCITED"], ["MISCITED", "MISCITED", "SUPPORTED"],
                       positive=frozenset({"MISCITED"}))
    assert result == Detection(true_positive=1, false_positive=1, false_negative=1,
                               true_negative=0)


def test_undefined_rates_are_none() -> None:
    nothing_flagged = Detection(0, 0, 3, 2)
    assert nothing_flagged.precision is None
    assert nothing_flagged.recall == 0.0
    assert nothing_flagged.f1 == 0.0
    no_positives = Detection(0, 0, 0, 5)
    assert (no_positives.precision, no_positives.recall, no_positives.f1) == (None, None, None)
    assert detection([], []) == Detection(0, 0, 0, 0)
    assert "SUPPORTED" not in NEEDS_ATTENTION and NEEDS_ATTENTION < set(AUDIT_LABELS)


_PAIRS = st.lists(st.tuples(st.sampled_from(AUDIT_LABELS), st.sampled_from(AUDIT_LABELS)),
                  max_size=40)


@given(_PAIRS)
def test_kappa_is_symmetric_and_bounded(pairs: list[tuple[str, str]]) -> None:
    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    kappa = cohen_kappa(first, second)
    assert kappa == cohen_kappa(second, first)
    if kappa is not None:
        assert -1.0 <= kappa <= 1.0
    agreement = exact_agreement(first, second)
    if agreement is not None:
        assert math.isclose(agreement, len(agreed_subset(first, second)) / len(first))


@given(st.lists(st.sampled_from(AUDIT_LABELS), min_size=1, max_size=40))
def test_identical_labellings_have_kappa_one(labels: list[str]) -> None:
    kappa = cohen_kappa(labels, list(labels))
    if len(set(labels)) == 1:
        assert kappa is None
    else:
        assert kappa == pytest.approx(1.0)
