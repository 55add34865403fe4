"""The index build's prefilters skip regexes only where they cannot match."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.navindex import outline, references, tags

_TEXT = (
    "Sections 2.1 and 2.3 of the Agreement, clause 12.3(b), § 5 and §§ 7; see Article VII, "
    "ARTICLE 4, Exhibit A, EXHIBIT 10.1, Schedule 2.1(a), Subsection 3(c), xSection 9, "
    "Sec. 4 and subparagraph (ii). NOW, THEREFORE, the parties hereby agree as follows:"
)

#: Each reference pattern with the trigger it is tried behind.
_PREFILTERED = ((references._NUMBERED, references._NUMBERED_TRIGGER),
                (references._ARTICLE, references._ARTICLE_TRIGGER),
                (references._ATTACHMENT, references._ATTACHMENT_TRIGGER))


def test_gate_letters_have_no_partners_outside_ascii() -> None:
    # The lower-case gates rely on this: only i, k and s fold to characters outside ASCII.
    every = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000)
    folding = set(re.findall(r"(?i)[a-z]", every))
    assert {letter for letter in "abcdefghijklmnopqrstuvwxyz"
            if any(re.fullmatch(f"(?i){letter}", f) for f in folding)} == {"i", "k", "s"}
    assert set(tags._FOLDING_TO_ASCII) == folding


def test_reference_prefilter_finds_what_finditer_finds() -> None:
    for pattern, trigger in _PREFILTERED:
        for start in range(len(_TEXT)):
            text = _TEXT[start:]
            expected = [m.span() for m in pattern.finditer(text)]
            assert [m.span() for m in references._matches(pattern, trigger, text)] == expected


def test_operative_words_gate_agrees_with_the_regex() -> None:
    for text in (_TEXT, "Now, therefore", "The parties agree as follows", "hereby agree:",
                 "The Agreement follows", "nothing here", "NOW THEREFORE"):
        assert outline._has_operative_words(text) == bool(outline._OPERATIVE_WORDS.search(text))


def test_jurisdiction_gate_keeps_the_place() -> None:
    text = "This Agreement shall be governed by the laws of the State of New York."
    assert tags.jurisdiction(text) == "New York"
    assert tags.jurisdiction(text.replace("shall", "\u017fhall")) == "New York"


_FRAGMENTS = ("Section", "SECTIONS", "Sec.", "clauses", "Paragraph", "subsection", "§", "§§",
              "Article", "ARTICLES", "Exhibit", "ANNEX", "Schedule", " ", "  ", "x", "2",
              "2.1", "(b)", "(ii)", "VII", "A", "B-1", ",", " and ", " OR ", " through ", ".",
              "-", "of")


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=40))
def test_reference_prefilter_equals_finditer_on_any_text(parts: list[str]) -> None:
    text = "".join(parts)
    for pattern, trigger in _PREFILTERED:
        assert [m.span() for m in references._matches(pattern, trigger, text)] == \
            [m.span() for m in pattern.finditer(text)]
