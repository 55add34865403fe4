"""The CREAC memo parser: block splitting, the structural protocol check and claim splitting.

Every memo here is written for the test; none comes from the corpus.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.gandr.creac import (
    BLOCK_LABELS,
    Block,
    ProtocolReport,
    claims,
    protocol_check,
    split_blocks,
)

GOOD_MEMO = """\
[CONCLUSION]
The lender may accelerate the loan.
[RULE]
Section 8.2 lets the lender accelerate after an Event of Default {cite: harbor-credit:8.2}.
[EXPLANATION]
An Event of Default includes a missed payment {cite: harbor-credit:8.1(a)}.
[APPLICATION]
The borrower missed the March payment {cite: harbor-credit:8.1(a)}.
[CONCLUSION]
The lender may accelerate the loan.
"""


NO_LABELS = ("no block labels found "
             "(expected [CONCLUSION] [RULE] [EXPLANATION] [APPLICATION] [CONCLUSION])")
ABBREVIATED = ("Under Sec. 4 and Art. IV, e.g. Schedule B, the U.S. Borrower pays 1.5% per "
               "No. 2 under 4.2(a) {cite: x:4.2(a)}.")


def _memo(*pairs: tuple[str, str]) -> str:
    return "\n".join(f"[{label}] {text}" for label, text in pairs)


def test_a_well_formed_memo_passes() -> None:
    report = protocol_check(GOOD_MEMO)
    assert report == ProtocolReport(True, (), BLOCK_LABELS)


def test_split_blocks_keeps_text_after_the_label_and_drops_the_preamble() -> None:
    text = "Some preamble.\n[conclusion] Yes.\n  [Rule]   Clause 3 applies.\nmore rule\n"
    assert split_blocks(text) == (
        Block("CONCLUSION", "Yes."),
        Block("RULE", "Clause 3 applies.\nmore rule"),
    )


@pytest.mark.parametrize("written", [
    "**[RULE]**", "*[RULE]*", "__[RULE]__", "## [RULE]", "### **[RULE]**", "   [rule]",
])
def test_decorated_labels_are_recognised(written: str) -> None:
    blocks = split_blocks(f"{written} The rule text.")
    assert blocks == (Block("RULE", "The rule text."),)


def test_a_label_mid_line_is_text_not_a_block() -> None:
    blocks = split_blocks("[RULE] See the [CONCLUSION] above.")
    assert blocks == (Block("RULE", "See the [CONCLUSION] above."),)


def test_markdown_memo_passes() -> None:
    memo = GOOD_MEMO
    for label in ("RULE", "EXPLANATION", "APPLICATION"):
        memo = memo.replace(f"[{label}]", f"**[{label}]**")
    memo = memo.replace("[CONCLUSION]", "## [Conclusion]")
    assert protocol_check(memo).passed


def test_preamble_is_not_a_failure() -> None:
    report = protocol_check("Here is the memo you asked for.\n\n" + GOOD_MEMO)
    assert report.passed and report.problems == ()


@pytest.mark.parametrize(("text", "problems"), [
    ("", ("the answer is empty",)),
    ("   \n\t", ("the answer is empty",)),
    ("Just prose, no labels.", (NO_LABELS,)),
    (_memo(("CONCLUSION", "a"), ("RULE", "b"), ("EXPLANATION", "c"), ("APPLICATION", "d")),
     ("the closing [CONCLUSION] block is missing",)),
    (_memo(("RULE", "b"), ("EXPLANATION", "c"), ("APPLICATION", "d"), ("CONCLUSION", "e")),
     ("the opening [CONCLUSION] block is missing",)),
    (_memo(("CONCLUSION", "a"), ("EXPLANATION", "c"), ("APPLICATION", "d"), ("CONCLUSION", "e")),
     ("[RULE] block is missing",)),
    (_memo(("RULE", "b"), ("CONCLUSION", "a"), ("EXPLANATION", "c"), ("APPLICATION", "d"),
           ("CONCLUSION", "e")),
     ("[RULE] appears before the opening [CONCLUSION]",)),
    (_memo(("CONCLUSION", "a"), ("EXPLANATION", "c"), ("RULE", "b"), ("APPLICATION", "d"),
           ("CONCLUSION", "e")),
     ("[EXPLANATION] appears before [RULE]",)),
    (_memo(("CONCLUSION", "a"), ("RULE", "b"), ("EXPLANATION", "c"), ("CONCLUSION", "e"),
           ("APPLICATION", "d")),
     ("the closing [CONCLUSION] appears before [APPLICATION]",)),
    (_memo(("CONCLUSION", "a"), ("RULE", "b"), ("RULE", "b2"), ("EXPLANATION", "c"),
           ("APPLICATION", "d"), ("CONCLUSION", "e")),
     ("[RULE] appears 2 times, expected 1",)),
    (_memo(("CONCLUSION", "a"), ("RULE", "b"), ("EXPLANATION", "c"), ("APPLICATION", "d"),
           ("CONCLUSION", "e"), ("CONCLUSION", "f")),
     ("[CONCLUSION] appears 3 times, expected 2",)),
    (_memo(("CONCLUSION", " {cite: doc:1} "), ("RULE", "b"), ("EXPLANATION", "c"),
           ("APPLICATION", "d"), ("CONCLUSION", "e")),
     ("the opening [CONCLUSION] block is empty",)),
    (_memo(("CONCLUSION", "a"), ("RULE", "b"), ("EXPLANATION", "c"), ("APPLICATION", "d"),
           ("CONCLUSION", "")),
     ("the closing [CONCLUSION] block is empty",)),
])
def test_each_failure_is_named(text: str, problems: tuple[str, ...]) -> None:
    report = protocol_check(text)
    assert not report.passed
    assert report.problems == problems


def test_empty_rule_block_is_not_a_protocol_failure() -> None:
    # Only the two conclusions must say something; the spec checks nothing else for content.
    text = _memo(("CONCLUSION", "a"), ("RULE", ""), ("EXPLANATION", "c"), ("APPLICATION", "d"),
                 ("CONCLUSION", "e"))
    assert protocol_check(text).passed


def test_a_report_is_written_as_plain_builtins() -> None:
    report = protocol_check(_memo(("CONCLUSION", "a"), ("RULE", "b")))
    data = to_builtins(report)
    assert data == {
        "passed": False,
        "problems": list(report.problems),
        "labels": ["CONCLUSION", "RULE"],
    }
    assert isinstance(data["problems"], list) and isinstance(data["labels"], list)


@pytest.mark.parametrize(("text", "expected"), [
    ("The fee is due monthly {cite: deal:3.1}. The cap is 5% {cite: deal:3.2}.",
     ("The fee is due monthly {cite: deal:3.1}.", "The cap is 5% {cite: deal:3.2}.")),
    # A claim ends at the marker group even without a full stop.
    ("Notice is required {cite: deal:9} and it must be written {cite: deal:9.1}",
     ("Notice is required {cite: deal:9}", "and it must be written {cite: deal:9.1}")),
    # Consecutive markers form one group; the punctuation after it stays with the claim.
    ("Both parties sign {cite: a:1}{cite: a:2}, {cite: a:3}; then it binds {cite: a:4}.",
     ("Both parties sign {cite: a:1}{cite: a:2}, {cite: a:3};", "then it binds {cite: a:4}.")),
    # Sentence ends without markers.
    ("The term is two years. It renews once! Does it lapse? No; It does not.",
     ("The term is two years.", "It renews once!", "Does it lapse?", "No;", "It does not.")),
    # No split on abbreviations, decimals and clause numbers.
    (ABBREVIATED, (ABBREVIATED,)),
    ("See Smith v. Jones, i.e. The Leading Case. It governs.",
     ("See Smith v. Jones, i.e. The Leading Case.", "It governs.")),
    # A semicolon before a lower-case word does not end a claim.
    ("The seller warrants title; and the buyer pays {cite: s:2}.",
     ("The seller warrants title; and the buyer pays {cite: s:2}.",)),
    # List items and blank lines end claims; bullets are dropped.
    ("Conditions:\n- first, notice\n- second, cure {cite: d:1}\n1. third\n(a) fourth\n\nfifth",
     ("Conditions:", "first, notice", "second, cure {cite: d:1}", "third", "(a) fourth",
      "fifth")),
    # A piece holding only markers joins the claim before it.
    ("The fee is fixed {cite: f:1}. {cite: f:2}. Next claim {cite: f:3}.",
     ("The fee is fixed {cite: f:1}. {cite: f:2}.", "Next claim {cite: f:3}.")),
    # A marker after a full stop belongs to the sentence before it.
    ("The fee is fixed. {cite: f:1} Next claim {cite: f:2}.",
     ("The fee is fixed. {cite: f:1}", "Next claim {cite: f:2}.")),
    # Text inside a marker never splits, even with sentence punctuation.
    ("It applies {cite: doc:1. The; End}. Then more.",
     ("It applies {cite: doc:1. The; End}.", "Then more.")),
    ("   \n  ", ()),
])
def test_claims_literal_splits(text: str, expected: tuple[str, ...]) -> None:
    assert claims(text) == expected


_BLOCK_TEXT = st.text(
    alphabet=st.characters(exclude_characters="[]{}", exclude_categories=["Cs"]),
    max_size=60,
).filter(lambda t: t.strip() != "")


@given(st.lists(_BLOCK_TEXT, min_size=5, max_size=5))
def test_five_non_empty_blocks_always_pass(texts: list[str]) -> None:
    memo = "\n".join(f"[{label}]\n{text}" for label, text in zip(BLOCK_LABELS, texts))
    report = protocol_check(memo)
    assert report.passed, report.problems
    assert report.labels == BLOCK_LABELS


@given(st.text(alphabet=st.sampled_from(list("[]{}#*_ \n:;.abcRULEONCITXPLA")), max_size=200))
def test_protocol_check_never_raises_and_explains_every_failure(text: str) -> None:
    report = protocol_check(text)
    assert report.passed == (not report.problems)
    if report.passed:
        assert report.labels == BLOCK_LABELS


@given(st.text(max_size=200))
def test_protocol_check_on_arbitrary_unicode(text: str) -> None:
    assert isinstance(protocol_check(text), ProtocolReport)


_MARKER = re.compile(r"\{\s*cite\s*:[^{}]*\}", re.IGNORECASE)
_PIECE = st.one_of(
    st.sampled_from([
        "{cite: doc:4.2}", "{cite: doc:1.1(a)}", "{ CITE : x:9; y:2 }", "{cite: a. B}",
        ". ", "; ", "? ", "! ", ", ", "\n", "\n\n", "\n- ", "\n1. ", " e.g. ", " U.S. ",
        " Sec. 4", " The", " the", " 1.5", " 4.2(a)", "{", "}", "(", ")",
    ]),
    st.text(alphabet="abcXYZ .;\n-", max_size=8),
)


@given(st.lists(_PIECE, max_size=30))
def test_claims_keep_every_marker_exactly_once(pieces: list[str]) -> None:
    text = "".join(pieces)
    found = claims(text)
    expected = Counter(_MARKER.findall(text))
    got = Counter(marker for claim in found for marker in _MARKER.findall(claim))
    assert got == expected
    assert all(claim == claim.strip() and claim for claim in found)
