"""The grounding check and its re-score under citation-form normalisation.

Passage ids and answers are made up for the test.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import RecordError, from_builtins, to_builtins
from pytest_legalbench.gandr.citations import (
    BRACKET_FOLDS,
    Citation,
    GroundingReport,
    fold_brackets,
    grounding,
    normalised_grounding,
    strip_prefix,
)

PASSAGES = ("acme-credit:7.1(b)", "acme-credit:4.2", "acme-credit:4.2(a)", "corpus:lease:3")


@pytest.mark.parametrize(("raw", "stripped"), [
    ("corpus:doc:1", "doc:1"),
    ("  CORPUS: doc:1 ", "doc:1"),
    ("doc:1", "doc:1"),
    ("doc:corpus:1", "doc:corpus:1"),
    ("", ""),
])
def test_strip_prefix(raw: str, stripped: str) -> None:
    assert strip_prefix(raw) == stripped


def test_every_marker_resolving_is_grounded() -> None:
    text = "Yes {cite: acme-credit:7.1(b)}. Also {Cite : acme-credit:4.2 }."
    report = grounding(text, PASSAGES)
    assert report.grounded
    assert report.reason == "every citation resolves"
    assert report.citations == (
        Citation("{cite: acme-credit:7.1(b)}", "acme-credit:7.1(b)", "acme-credit:7.1(b)"),
        Citation("{Cite : acme-credit:4.2 }", "acme-credit:4.2", "acme-credit:4.2"),
    )


def test_no_marker_is_not_grounded() -> None:
    report = grounding("The lender may accelerate (see section 7.1(b)).", PASSAGES)
    assert not report.grounded
    assert report.reason == "no {cite: ...} marker"
    assert report.citations == ()


def test_one_fabricated_id_fails_both_checks() -> None:
    text = ("A {cite: acme-credit:7.1(b)}. B {cite: acme-credit:9.9}. C {cite: acme-credit:4.2}."
            " D {cite: made-up:1}. E {cite: acme-credit:4.2(a)}.")
    strict = grounding(text, PASSAGES)
    assert not strict.grounded
    assert strict.unresolved == ("acme-credit:9.9", "made-up:1")
    assert strict.reason == (
        "2 of 5 citations resolve to no retrieved passage: acme-credit:9.9, made-up:1"
    )
    assert not normalised_grounding(text, PASSAGES).grounded


def test_several_ids_in_one_marker_are_each_a_citation() -> None:
    report = grounding("X {cite: acme-credit:4.2; lease:3 ; nope:1}.", PASSAGES)
    assert [c.cited for c in report.citations] == ["acme-credit:4.2", "lease:3", "nope:1"]
    assert [c.resolved for c in report.citations] == [
        "acme-credit:4.2", "corpus:lease:3", None]
    assert report.reason == "1 of 3 citations resolves to no retrieved passage: nope:1"


@pytest.mark.parametrize("text", [
    "X {cite: corpus:acme-credit:4.2}.",  # prefix on the answer's side
    "X {cite: lease:3}.",  # prefix on the passage's side
    "X {cite: CORPUS:lease:3}.",  # both
])
def test_corpus_prefix_is_stripped_on_either_side(text: str) -> None:
    assert grounding(text, PASSAGES).grounded
    assert normalised_grounding(text, PASSAGES).grounded


def test_an_empty_marker_fails() -> None:
    report = grounding("X {cite: }. Y {cite: acme-credit:4.2}.", PASSAGES)
    assert not report.grounded
    assert report.unresolved == ("",)
    assert not normalised_grounding("X {cite: }. Y {cite: acme-credit:4.2}.", PASSAGES).grounded


def test_strict_needs_the_exact_id() -> None:
    assert not grounding("X {cite: acme-credit:4.2(a)(i)}.", PASSAGES).grounded
    assert not grounding("X {cite: [acme-credit:4.2]}.", PASSAGES).grounded


@pytest.mark.parametrize("text", [
    "X ｛cite: acme-credit:4.2｝.",  # fullwidth braces
    "X ｛cite：acme-credit:4.2｝.",  # and a fullwidth colon
    "X 【cite: acme-credit:4.2】.",
    "X 〔cite: acme-credit:4.2〕.",
    "X ⟦cite: acme-credit:4.2⟧.",
    "X （cite: acme-credit:4.2）.",
    "X [cite: acme-credit:4.2].",
    "X (cite: acme-credit:4.2).",
])
def test_other_bracket_forms_fail_strict_but_pass_normalised(text: str) -> None:
    assert not grounding(text, PASSAGES).grounded
    report = normalised_grounding(text, PASSAGES)
    assert report.grounded
    assert [(c.cited, c.resolved) for c in report.citations] == [
        ("acme-credit:4.2", "acme-credit:4.2")]


def test_written_keeps_the_original_brackets() -> None:
    report = normalised_grounding("X ｛cite: acme-credit:4.2｝.", PASSAGES)
    assert report.citations[0].written == "｛cite: acme-credit:4.2｝"


def test_fold_table_maps_pairs_within_one_family() -> None:
    families = {"{": "}", "[": "]", "(": ")"}
    folded_openers = [v for v in BRACKET_FOLDS.values() if v in families]
    assert folded_openers, "the table folds at least some openers"
    assert fold_brackets("【a】〈b〉") == "[a](b)"
    assert len(fold_brackets("｛x｝")) == len("｛x｝")


def test_bracketed_id_without_prefix_counts_only_when_retrieved() -> None:
    assert normalised_grounding("X [acme-credit:4.2].", PASSAGES).grounded
    report = normalised_grounding("X [other-doc:4.2].", PASSAGES)
    assert not report.grounded
    assert report.citations == ()  # unprefixed and unresolved: plain text, not a failure
    assert not grounding("X [acme-credit:4.2].", PASSAGES).grounded


def test_unresolved_canonical_marker_fails_normalised() -> None:
    report = normalised_grounding("X [acme-credit:4.2]. Y {cite: acme-credit:9.9}.", PASSAGES)
    assert not report.grounded
    assert report.unresolved == ("acme-credit:9.9",)


def test_nested_brackets_and_quotes_around_the_id_are_stripped() -> None:
    for text in ("{cite: [acme-credit:4.2]}", '{cite: "acme-credit:4.2"}',
                 "{cite: “corpus:acme-credit:4.2”}", "[{cite: acme-credit:4.2}]"):
        report = normalised_grounding(text, PASSAGES)
        assert report.grounded, text
        assert [c.cited for c in report.citations] == ["acme-credit:4.2"], text


@pytest.mark.parametrize(("cited", "resolved"), [
    ("acme-credit:4.2(a)(i)", "acme-credit:4.2(a)"),  # longest stem wins over 4.2
    ("acme-credit:4.2(b)", "acme-credit:4.2"),
    ("acme-credit:4.2 para 3", "acme-credit:4.2"),
    ("acme-credit:4.2.1", "acme-credit:4.2"),
    ("acme-credit:4.25", None),  # continues with a digit: not a stem
    ("acme-credit:4", None),  # a prefix of a passage id is not a stem of it
])
def test_stem_match(cited: str, resolved: str | None) -> None:
    report = normalised_grounding(f"X {{cite: {cited}}}.", PASSAGES)
    assert [c.resolved for c in report.citations] == [resolved]
    assert report.grounded == (resolved is not None)


def test_label_text_in_brackets_is_ignored() -> None:
    text = ("[CONCLUSION] Yes (a) [RULE] see clause (b)(ii) {cite: acme-credit:7.1(b)}\n"
            "[APPLICATION] [sic] it applies. [CONCLUSION] Yes.")
    report = normalised_grounding(text, PASSAGES)
    assert report.grounded
    assert [c.cited for c in report.citations] == ["acme-credit:7.1(b)"]


def test_normalised_without_any_citation() -> None:
    report = normalised_grounding("[CONCLUSION] Yes (a).", PASSAGES)
    assert not report.grounded
    assert report.reason == "no citation that resolves to a retrieved passage"


def test_a_resolving_group_cannot_hide_a_fabricated_marker() -> None:
    text = "X (acme-credit:4.2 and {cite: invented:1})."
    report = normalised_grounding(text, PASSAGES)
    assert not report.grounded
    assert report.unresolved == ("invented:1",)


def test_odd_input_does_not_crash() -> None:
    for text in ("{{{cite:", "}}])", "{cite: a}}}", "(((cite: acme-credit:4.2", "\x00{cite:\x00}"):
        grounding(text, PASSAGES)
        normalised_grounding(text, PASSAGES)
    assert not grounding("{cite: x}", []).grounded


def test_a_report_is_plain_builtins_and_round_trips() -> None:
    report = grounding("A {cite: acme-credit:4.2}. B {cite: x:1}.", PASSAGES)
    data = to_builtins(report)
    assert data == {
        "grounded": False,
        "citations": [
            {"written": "{cite: acme-credit:4.2}", "cited": "acme-credit:4.2",
             "resolved": "acme-credit:4.2"},
            {"written": "{cite: x:1}", "cited": "x:1", "resolved": None},
        ],
        "unresolved": ["x:1"],
        "reason": "1 of 2 citations resolves to no retrieved passage: x:1",
    }
    assert from_builtins(GroundingReport, data) == report


@pytest.mark.parametrize(("data", "field"), [
    ({"grounded": "maybe", "citations": [], "unresolved": [], "reason": ""}, "grounded"),
    ({"grounded": True, "citations": {}, "unresolved": [], "reason": ""}, "citations"),
    ({"grounded": True, "citations": [], "unresolved": [1], "reason": ""}, "unresolved.0"),
    ({"grounded": True, "citations": [], "unresolved": []}, "reason"),
    ({"grounded": True, "citations": [{"written": "w"}], "unresolved": [], "reason": ""},
     "citations.0.cited"),
    ({"grounded": True, "citations": [{"written": "w", "cited": "c", "resolved": 3}],
      "unresolved": [], "reason": ""}, "citations.0.resolved"),
])
def test_reading_names_the_bad_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(RecordError, match=f"^GroundingReport: {field}: "):
        from_builtins(GroundingReport, data)


IDS = ("doc:1", "doc:1.2(a)", "deal-x:4.2", "corpus:deal-x:9", "sched_a:A-1")
_MARKERS = st.builds(
    lambda ids, spaced, prefixed: "{" + (" cite : " if spaced else "cite:") + "; ".join(
        ("corpus:" if prefixed else "") + i for i in ids) + "}",
    st.lists(st.sampled_from([strip_prefix(i) for i in IDS] + ["doc:7", "deal-x:4"]),
             min_size=1, max_size=3),
    st.booleans(),
    st.booleans(),
)
_FILLER = st.text(alphabet="xyz .,;:\n()[]-", max_size=12)


@given(st.lists(st.one_of(_MARKERS, _FILLER), max_size=12))
def test_strict_grounded_implies_normalised_grounded(pieces: list[str]) -> None:
    text = "".join(pieces)
    if grounding(text, IDS).grounded:
        assert normalised_grounding(text, IDS).grounded


@given(st.lists(st.one_of(_MARKERS, _FILLER), max_size=12))
def test_reports_round_trip(pieces: list[str]) -> None:
    text = "".join(pieces)
    for report in (grounding(text, IDS), normalised_grounding(text, IDS)):
        assert from_builtins(GroundingReport, to_builtins(report)) == report
        assert report.grounded == (bool(report.citations) and not report.unresolved)


@given(st.text(max_size=120))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    grounding(text, IDS)
    normalised_grounding(text, IDS)
