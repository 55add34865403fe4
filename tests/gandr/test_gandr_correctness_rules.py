"""The correctness judge's special cases: reference kinds, figures, closeness and settling."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.gandr.correctness_rules import (
    ALLOWED_SCORES,
    closeness_score,
    figure,
    reference_kind,
    settle,
)


@pytest.mark.parametrize(("reference", "kind"), [
    ("Yes", "binary"), ("No.", "binary"), ("TRUE", "binary"), (" false! ", "binary"),
    ("yes,", "binary"),
    ("§ 4", "citation"), ("§4", "citation"), ("Section 12.3", "citation"),
    ("Sec. 4", "citation"), ("Rule 23", "citation"), ("Clause 7(b)", "citation"),
    ("Article IV", "citation"), ("Schedule A", "citation"), ("Section 2A.", "citation"),
    ("28 U.S.C. § 1332", "citation"), ("17 C.F.R. § 240.10b-5", "citation"),
    ("Cal. Civ. Code § 1542", "citation"), ("Fed. R. Civ. P. 23(b)(3)", "citation"),
    ("$187,552", "numeric"), ("$187552", "numeric"), ("USD 3,390.50", "numeric"),
    ("25%", "numeric"), ("1,000,000 shares", "numeric"), ("30 days", "numeric"),
    ("1.2 million", "numeric"), ("€ 40", "numeric"), ("2,500 EUR", "numeric"),
    ("12.5 percent", "numeric"), ("2024", "numeric"),
    ("", "open"), ("Yes, because the cap applies.", "open"), ("§§ 1331 and 1332", "open"),
    ("Section 4.2(a) of the Credit Agreement", "open"), ("30-60 days", "open"),
    ("3,39", "open"), ("Rule of reason", "open"), ("The lender may accelerate.", "open"),
    ("1,000,000 shares of common stock", "open"), ("$5%", "open"),
])
def test_reference_kind(reference: str, kind: str) -> None:
    assert reference_kind(reference) == kind


@pytest.mark.parametrize(("text", "value"), [
    ("$3,390", Decimal(3390)),
    ("$187552", Decimal(187552)),
    ("USD 3,390.50", Decimal("3390.50")),
    ("3,390.50 USD.", Decimal("3390.50")),
    ("12.5%", Decimal("12.5")),
    ("12.5 per cent", Decimal("12.5")),
    ("1.2 million", Decimal(1200000)),
    ("$2 billion", Decimal(2000000000)),
    ("4 thousand", Decimal(4000)),
    ("US$ 7", Decimal(7)),
    ("-$5", Decimal(-5)),
    ("−5%", Decimal(-5)),
    (".5", Decimal("0.5")),
    ("30 days", Decimal(30)),
    ("1,000,000 shares", Decimal(1000000)),
    ("  0 ", Decimal(0)),
])
def test_figure_parses(text: str, value: Decimal) -> None:
    assert figure(text) == value


@pytest.mark.parametrize("text", [
    "", "about $3,390", "3,39", "1,0000", "$3,390 and $4", "three", "5 to 6", "USD EUR 5",
    "USD 5 EUR", "1.2.3", "$", "%",
])
def test_figure_refuses(text: str) -> None:
    assert figure(text) is None


@pytest.mark.parametrize(("reference", "candidate", "score"), [
    ("1000", "1000", 5),
    ("1000", "1000.00", 5),  # the same figure written differently is exact
    ("1000", "1010", 4),  # exactly 1% off: the 1% bound is inclusive
    ("1000", "990", 4),
    ("1000", "1010.01", 3),  # just past 1%
    ("1000", "1100", 3),  # exactly 10% off: inclusive
    ("1000", "900", 3),
    ("1000", "1100.01", 2),  # just past 10%
    ("1000", "10000", 2),  # exactly ten times: inclusive
    ("1000", "100", 2),  # exactly a tenth: inclusive
    ("1000", "10000.01", 1),
    ("1000", "99.99", 1),
    ("1000", "-1000", 1),  # other side of zero
    ("1000", "0", 1),
    ("-200", "-202", 4),
    ("-200", "-1000", 2),
    ("0", "0", 5),
    ("0", "0.0001", 1),
])
def test_closeness_score(reference: str, candidate: str, score: int) -> None:
    assert closeness_score(Decimal(reference), Decimal(candidate)) == score


def test_closeness_refuses_non_finite_numbers() -> None:
    with pytest.raises(ValueError, match="candidate must be a finite number"):
        closeness_score(Decimal(1), Decimal("NaN"))
    with pytest.raises(ValueError, match="reference"):
        closeness_score(Decimal("Infinity"), Decimal(1))


def test_allowed_scores() -> None:
    assert ALLOWED_SCORES == {"binary": (1, 5), "citation": (1, 5),
                              "numeric": (1, 2, 3, 4, 5), "open": (1, 2, 3, 4, 5)}


@pytest.mark.parametrize(("kind", "judged", "reference", "candidate", "settled"), [
    # Numeric with a parseable candidate: closeness decides, the judge's number is ignored.
    ("numeric", 1, "$3,390", "$3,390", 5),
    ("numeric", 5, "$3,390", "$3,700", 3),
    ("numeric", None, "$3,390", "3390.0", 5),
    ("numeric", 9, "$3,390", "$3,400", 4),
    # Numeric without a usable figure: the judge's score, if in range.
    ("numeric", 3, "$3,390", None, 3),
    ("numeric", 3, "$3,390", "around three thousand", 3),
    ("numeric", 0, "$3,390", None, None),
    ("numeric", None, "$3,390", None, None),
    # Binary and citation: only 1 or 5; anything else is no score, never rounded.
    ("binary", 5, "Yes", None, 5),
    ("binary", 1, "No.", "0", 1),
    ("binary", 4, "Yes", None, None),
    ("citation", 2, "Rule 23", None, None),
    ("citation", 5, "Rule 23", None, 5),
    ("binary", None, "Yes", None, None),
    # Open: any of 1..5.
    ("open", 3, "The lender may accelerate.", None, 3),
    ("open", 6, "The lender may accelerate.", None, None),
    ("open", -1, "x", None, None),
    ("open", True, "x", None, None),
])
def test_settle(kind: str, judged: int | None, reference: str, candidate: str | None,
                settled: int | None) -> None:
    assert settle(kind, judged, reference=reference, candidate_figure=candidate) == settled


def test_settle_rejects_an_unknown_kind() -> None:
    with pytest.raises(ValueError, match="'essay'"):
        settle("essay", 3, reference="x", candidate_figure=None)


_AMOUNTS = st.decimals(min_value=Decimal("-1e9"), max_value=Decimal("1e9"), places=2,
                       allow_nan=False, allow_infinity=False)


@given(_AMOUNTS, _AMOUNTS)
def test_closeness_is_a_score_and_exact_only_when_equal(reference: Decimal,
                                                        candidate: Decimal) -> None:
    score = closeness_score(reference, candidate)
    assert score in ALLOWED_SCORES["numeric"]
    assert (score == 5) == (reference == candidate)


@given(_AMOUNTS, st.decimals(min_value=Decimal(0), max_value=Decimal(20), places=3))
def test_closeness_never_improves_further_away(reference: Decimal, step: Decimal) -> None:
    near = reference + abs(reference) * step / 100
    far = reference + abs(reference) * step * 2 / 100
    assert closeness_score(reference, near) >= closeness_score(reference, far)


@given(st.text(max_size=60))
def test_kind_and_figure_never_raise(text: str) -> None:
    kind = reference_kind(text)
    assert kind in ALLOWED_SCORES
    assert (figure(text) is not None) <= (kind in ("numeric", "citation", "binary"))


def test_a_run_of_capitals_before_a_section_sign_is_read_in_one_pass() -> None:
    # Sixty capitals would take the old pattern about 2**60 steps to refuse.
    assert reference_kind("A" * 60 + " x § 4") == "open"
    assert reference_kind("Code§ 12") == reference_kind("28 U.S.C. § 1332") == "citation"
