"""Parts of a leaf over the unit cap: they fit, cover the leaf in order, and cite as the leaf."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.defaults import MAX_UNIT_TOKENS
from pytest_legalbench.modes.unit_parts import MAX_PART_CHARS, part_of, part_spans, split_leaf
from pytest_legalbench.modes.units import (
    UnitContext,
    is_unit,
    retrieval_nodes,
    unit_nodes,
)
from pytest_legalbench.navindex.node import Flags, Node
from pytest_legalbench.tokens import estimate_tokens
from tests.support.index_samples import Part, make_index

_WORD = st.text(alphabet="abcdefghij", min_size=1, max_size=12)
_GAP = st.sampled_from([" ", " ", " ", "  ", "\n", "\n\n", ". ", ".\n\n", "; ", "\t"])


@st.composite
def _texts(draw: st.DrawFn) -> str:
    words = draw(st.lists(_WORD, min_size=1, max_size=400))
    gaps = draw(st.lists(_GAP, min_size=len(words), max_size=len(words)))
    lead = draw(st.sampled_from(["", " ", "\n"]))
    return lead + "".join(w + g for w, g in zip(words, gaps))


def _visible(text: str) -> str:
    return re.sub(r"\s+", "", text)


@settings(max_examples=300, deadline=None)
@given(_texts(), st.integers(min_value=1, max_value=300))
def test_parts_fit_cover_the_text_in_order_and_trim_blanks(text: str, limit: int) -> None:
    spans = part_spans(text, limit)
    assert all(0 <= a < b <= len(text) and b - a <= limit for a, b in spans)
    assert all(b <= c for (_, b), (c, _) in itertools.pairwise(spans))
    assert "".join(_visible(text[a:b]) for a, b in spans) == _visible(text)
    assert all(not text[a].isspace() and not text[b - 1].isspace() for a, b in spans)


@given(st.text(alphabet="xyz", min_size=1, max_size=500), st.integers(min_value=1, max_value=60))
def test_a_run_without_breaks_is_cut_at_the_limit(text: str, limit: int) -> None:
    spans = part_spans(text, limit)
    assert [text[a:b] for a, b in spans] == [text[i:i + limit]
                                            for i in range(0, len(text), limit)]


def test_paragraph_breaks_come_before_sentences_and_spaces() -> None:
    first = "The first paragraph says one thing. It goes on a little."
    second = "The second paragraph. It says another thing at some length too."
    text = f"{first}\n\n{second}"
    assert [text[a:b] for a, b in part_spans(text, 80)] == [first, second]


def test_sentences_come_before_spaces() -> None:
    text = "Alpha beta gamma delta. Epsilon zeta eta theta iota kappa; lambda mu nu xi omicron."
    assert [text[a:b] for a, b in part_spans(text, 50)] == [
        "Alpha beta gamma delta.", "Epsilon zeta eta theta iota kappa;",
        "lambda mu nu xi omicron."]
    # A sentence longer than the limit is cut at a space, about halfway.
    text = "Alpha beta gamma delta epsilon. Zeta eta theta iota kappa lambda mu nu xi omicron."
    assert [text[a:b] for a, b in part_spans(text, 45)] == [
        "Alpha beta gamma delta epsilon.", "Zeta eta theta iota kappa",
        "lambda mu nu xi omicron."]


def test_parts_are_about_even() -> None:
    text = "\n\n".join(f"Paragraph {i} holds a sentence of some length." for i in range(40))
    sizes = [b - a for a, b in part_spans(text, 600)]
    assert len(sizes) == 4
    assert max(sizes) - min(sizes) < 120


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one character"):
        part_spans("text", 0)


def _leaf(text: str, start: int = 100) -> Node:
    return Node(node_id="doc:7.1", doc_id="doc", kind="section", clause_reference="7.1",
                title="Indemnity", start=start, end=start + len(text), text=text,
                parent="doc:art-7", full_reference="7.1", cross_references=("doc:9.2",),
                defines=("Losses",), uses_definitions=("doc:def-claim",),
                flags=Flags(has_money=True), keywords=("indemnify",), summary="who pays")


def test_a_part_is_citable_as_its_leaf() -> None:
    body = "\n\n".join("The Seller shall indemnify the Buyer against every loss. " * 9
                       for _ in range(12))
    leaf, parts = split_leaf(_leaf(body))
    assert len(parts) >= 2 and leaf.children == tuple(p.node_id for p in parts)
    assert [p.node_id for p in parts] == [f"doc:7.1~p{n}" for n in range(1, len(parts) + 1)]
    for number, part in enumerate(parts, 1):
        assert part_of(part.node_id) == ("doc:7.1", number)
        assert part.parent == "doc:7.1" and part.is_leaf
        assert (part.clause_reference, part.title, part.full_reference) == ("7.1", "Indemnity",
                                                                            "7.1")
        assert part.cross_references == leaf.cross_references and part.defines == ("Losses",)
        assert leaf.start <= part.start < part.end <= leaf.end
        assert part.text == body[part.start - leaf.start:part.end - leaf.start]
        assert estimate_tokens(part.text) <= MAX_UNIT_TOKENS
    assert leaf.text == body and leaf.node_id == "doc:7.1"


def test_a_leaf_that_fits_is_left_alone() -> None:
    leaf = _leaf("A short clause.")
    assert split_leaf(leaf) == (leaf, ())
    assert part_of("doc:7.1") is None and part_of("doc:7.1~p0") is None


def test_units_of_a_document_with_an_oversized_leaf() -> None:
    long_body = "The Licensee shall pay the royalty each quarter. " * 300  # ~3,700 tokens
    index = make_index("doc", Part("", "Licence", "LICENCE\n", [
        Part("1", "Grant", "1 Grant. The Licensor grants a licence.\n"),
        Part("2", "Royalty", long_body, kind="clause"),
        Part("3", "Signatures", "IN WITNESS WHEREOF " + "signed " * 2000, kind="signature"),
    ], kind="document"))
    nodes = retrieval_nodes(index)
    units = unit_nodes(index)
    assert all(estimate_tokens(u.text) <= MAX_UNIT_TOKENS for u in units)
    assert [u.node_id for u in units][:1] == ["doc:root.1"]
    parts = [u for u in units if part_of(u.node_id)]
    assert len(parts) == 4 and all(p.parent == "doc:root.2" for p in parts)
    assert "".join(p.text for p in parts).replace(" ", "") == long_body.replace(" ", "")
    leaf = next(n for n in nodes if n.node_id == "doc:root.2")
    assert not is_unit(leaf) and leaf.children == tuple(p.node_id for p in parts)
    # The signature block is never a unit and is not split.
    assert not any(n.node_id.startswith("doc:root.3~") for n in nodes)
    context = UnitContext([index])
    assert context.units["doc"] == units
    assert context.line(parts[1]) == "Licence > 2 Royalty (part 2 of 4)"
    assert context.line(leaf) == "Licence > 2 Royalty"
    assert MAX_PART_CHARS == MAX_UNIT_TOKENS * 4
