"""The navindex dicts per rung and the full dict; the documents tests build them from."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field, fields, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.navindex.describe import summarise
from pytest_legalbench.navindex.json_forms import readable_json
from pytest_legalbench.navindex.keywords import keywords
from pytest_legalbench.navindex.node import FLAG_NAMES, DocumentIndex, DocumentTags, Flags, Node
from pytest_legalbench.navindex.schema import (
    DEFAULT_RUNG,
    FORMAT_VERSION,
    RUNGS,
    FormatVersionError,
    IndexFormatError,
    Rung,
    node_fields,
)
from pytest_legalbench.navindex.serialise import (
    document_from_files,
    full_document,
    index_document,
    relative_id,
)


@dataclass
class Part:
    """A node to lay out: its own opening text, then its children's texts in order."""

    ref: str
    title: str
    body: str
    children: list[Part] = field(default_factory=list)
    kind: str = "section"
    extra: dict[str, Any] = field(default_factory=dict)


def make_index(doc_id: str, root: Part, **document: Any) -> DocumentIndex:
    """Lay ``root`` out as one source text and return its index in document order."""
    nodes: list[Node] = []

    def place(part: Part, local: str, parent: str | None, start: int) -> tuple[str, str]:
        node_id = f"{doc_id}:{local}"
        slot = len(nodes)
        nodes.append(None)  # type: ignore[arg-type]  # filled once the children are placed
        text, child_ids = part.body, []
        for number, child in enumerate(part.children, 1):
            child_id, child_text = place(child, f"{local}.{number}", node_id, start + len(text))
            child_ids.append(child_id)
            text += child_text
        nodes[slot] = Node(
            node_id=node_id, doc_id=doc_id, kind=part.kind, clause_reference=part.ref,
            title=part.title, start=start, end=start + len(text), text=text, parent=parent,
            children=tuple(child_ids), **part.extra,
        )
        return node_id, text

    place(root, "root", None, 0)
    document.setdefault("title", root.title)
    document.setdefault("sha256", "0" * 64)
    return DocumentIndex(doc_id=doc_id, nodes=tuple(nodes), **document)


def small_agreement() -> DocumentIndex:
    """A short agreement with a definition, a fee clause and a cross-reference."""
    fee_text = ("2.1 Fees. The Buyer shall pay $10,000 within 30 days. "
                + "Late amounts bear interest at the default rate. " * 5 + "Fee clause ends here.")
    fee = Part("2.1", "Fees", fee_text,
               extra={"flags": Flags(has_money=True, has_date=True, has_party=True),
                      "keywords": ("fees", "payment"), "summary": "Buyer pays $10,000.",
                      "cross_references": ("sa:root.1.1",), "uses_definitions": ("sa:root.1.1",),
                      "external_references": ("UCC Article 9",)})
    return make_index("sa", Part("", "Supply Agreement", "SUPPLY AGREEMENT\n", [
        Part("1", "Definitions", "1. Definitions\n", [
            Part("", "Buyer", '"Buyer" means the purchasing party.\n', kind="definition",
                 extra={"flags": Flags(is_definition=True), "defines": ("Buyer",)}),
        ], kind="article"),
        Part("2", "Payment", "2. Payment\n", [fee], kind="article"),
    ], kind="document"), tags=DocumentTags("New York", ("supply", "payment")))


def realistic_agreement(seed: int = 7) -> DocumentIndex:
    """A synthetic credit-style agreement: articles, sections, lettered clauses, definitions."""
    rng = random.Random(seed)
    words = ("the", "Borrower", "shall", "deliver", "to", "the", "Administrative", "Agent",
             "any", "notice", "of", "default", "under", "this", "Agreement", "within", "ten",
             "Business", "Days", "after", "the", "Lender", "requests", "payment", "of", "the",
             "Obligations", "including", "interest", "at", "the", "Applicable", "Rate")

    def prose(count: int) -> str:
        return " ".join(rng.choice(words) for _ in range(count)).capitalize() + ". "

    def described(ref: str, title: str, body: str, kind: str, kids: list[Part]) -> Part:
        flags = Flags(**{name: rng.random() < 0.25 for name in (
            "has_money", "has_date", "has_percentage", "has_condition", "has_party")})
        extra = {"flags": flags, "summary": summarise(body, title=title),
                 "keywords": keywords(body, title=title, limit=4),
                 "cross_references": tuple(f"ca:root.{rng.randint(1, 8)}"
                                           for _ in range(rng.choice((0, 0, 1, 2))))}
        return Part(ref, title, body, kids, kind, extra)

    definitions = [described("", f"Term {n}", f'"Term {n}" means {prose(25)}\n', "definition", [])
                   for n in range(1, 21)]
    articles = [described("1", "Definitions", "ARTICLE 1 DEFINITIONS\n", "article", definitions)]
    for a in range(2, 9):
        sections = []
        for s in range(1, 6):
            clauses = [described(f"({letter})", "", f"({letter}) {prose(40)}\n", "clause", [])
                       for letter in "abc"]
            sections.append(described(f"{a}.{s}", f"Covenant {a}.{s}",
                                      f"Section {a}.{s} {prose(30)}\n", "section", clauses))
        articles.append(described(str(a), f"Article {a}", f"ARTICLE {a}\n", "article", sections))
    return make_index("ca", Part("", "Credit Agreement", "CREDIT AGREEMENT\n", articles,
                                 "document"), tags=DocumentTags("Delaware", ("credit",)))


_texts = st.text(max_size=30)
_string_tuples = st.lists(_texts, max_size=3).map(tuple)


@st.composite
def document_indexes(draw: st.DrawFn) -> DocumentIndex:
    """Random trees with random texts, spans, flags, lists and tags."""
    doc_id = draw(st.from_regex(r"[a-z0-9][a-z0-9_-]{0,8}", fullmatch=True))
    count = draw(st.integers(1, 12))
    parents: list[int | None] = [None, *(draw(st.integers(0, i - 1)) for i in range(1, count))]
    # Local ids never hold a colon (the parser's ids never do): that is what keeps the
    # relative ids of the index file unambiguous.
    ids = [f"{doc_id}:{i}{draw(_texts).replace(':', '')}" for i in range(count)]
    # Every list-valued Node field is drawn, including any added after this test was written.
    lists = [f.name for f in fields(Node) if f.type == "tuple[str, ...]" and f.name != "children"]
    nodes = []
    for i in range(count):
        nodes.append(Node(
            node_id=ids[i], doc_id=doc_id, kind=draw(st.sampled_from(("section", "clause"))),
            clause_reference=draw(_texts), title=draw(_texts),
            start=draw(st.integers(0, 500)), end=draw(st.integers(0, 900)),
            text=draw(st.text(max_size=300)),
            parent=None if (up := parents[i]) is None else ids[up],
            children=tuple(ids[j] for j in range(count) if parents[j] == i),
            full_reference=draw(_texts), summary=draw(_texts),
            flags=Flags(*draw(st.lists(st.booleans(), min_size=8, max_size=8))),
            **{name: draw(_string_tuples) for name in lists},
        ))
    tags = DocumentTags(draw(st.none() | _texts), draw(_string_tuples))
    return DocumentIndex(doc_id=doc_id, title=draw(_texts), sha256=draw(_texts),
                         nodes=tuple(nodes), tags=tags, role=draw(_texts),
                         amends=draw(_string_tuples), parties=draw(_string_tuples))


def nodes_of(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """Flatten an index tree in document order."""
    return [tree, *(node for child in tree["children"] for node in nodes_of(child))]


def test_rungs_add_fields_one_step_at_a_time() -> None:
    assert DEFAULT_RUNG == "D4"
    d1 = set(node_fields("D1"))
    assert d1 == {"nodeId", "clauseReference", "title", "children", "isTocEntry", "textLength",
                  "snippet"}
    d2 = set(node_fields("D2"))
    assert d2 - d1 == (set(FLAG_NAMES) - {"isTocEntry"}) | {
        "crossReferencedIds", "definedTerms"}
    assert set(node_fields("D3")) - d2 == {"keywords", "externalReferences"}
    assert set(node_fields("D4")) - set(node_fields("D3")) == {"summary"}
    # The full defined-term graph is the costliest list; the scan sees it only at D5.
    assert set(node_fields("D5")) - set(node_fields("D4")) == {"fullSummary", "usesDefinitions"}
    with pytest.raises(ValueError, match="D9"):
        node_fields("D9")  # type: ignore[arg-type]


@pytest.mark.parametrize("rung", RUNGS)
def test_index_document_carries_the_rung_fields_and_no_full_text(rung: Rung) -> None:
    index = small_agreement()
    surface = index_document(index, rung, full_summary=lambda node: f"all of {node.title}")
    assert surface["formatVersion"] == FORMAT_VERSION and surface["rung"] == rung
    assert surface["documentTitle"] == "Supply Agreement"
    assert surface["documentTags"] == {"jurisdiction": "New York", "topics": ["supply", "payment"]}
    flat = nodes_of(surface["documentIndex"])
    # Ids of the document's own nodes are written without the document prefix.
    assert [node["nodeId"] for node in flat] == [
        relative_id(node.node_id, index.doc_id) for node in index.nodes]
    assert all(list(node) == list(node_fields(rung)) for node in flat)
    fee = flat[-1]
    assert fee["textLength"] == len(index.nodes[-1].text)
    assert len(fee["snippet"]) <= 160 and fee["snippet"].startswith("2.1 Fees.")
    # The fee text runs past any snippet; the index carries only openings, never its end.
    assert "Fee clause ends here" not in json.dumps(surface)
    if rung >= "D2":
        assert fee["hasMoney"] and not fee["isDefinition"]
        assert fee["crossReferencedIds"] == ["root.1.1"]
        assert flat[2]["definedTerms"] == ["Buyer"]
    if rung >= "D4":
        assert fee["summary"] == "Buyer pays $10,000."
    if rung == "D5":
        assert fee["fullSummary"] == "all of Fees"


def test_d5_default_full_summary_is_a_bounded_string() -> None:
    surface = index_document(small_agreement(), "D5")
    fee = nodes_of(surface["documentIndex"])[-1]
    assert isinstance(fee["fullSummary"], str) and 0 < len(fee["fullSummary"]) <= 600


def test_index_document_rejects_broken_trees() -> None:
    index = small_agreement()
    orphan = replace(index.nodes[-1], node_id="sa:orphan", parent=None)
    with pytest.raises(IndexFormatError, match="sa:orphan"):
        index_document(replace(index, nodes=(*index.nodes, orphan)))
    dangling = replace(index.root, children=(*index.root.children, "sa:ghost"))
    with pytest.raises(IndexFormatError, match="sa:ghost"):
        index_document(replace(index, nodes=(dangling, *index.nodes[1:])))


@pytest.mark.parametrize("rung", RUNGS)
def test_files_rebuild_the_exact_document(rung: Rung) -> None:
    index = small_agreement()
    assert document_from_files(index_document(index, rung), full_document(index)) == index


def test_another_format_version_names_both_versions() -> None:
    index = small_agreement()
    stale = {**full_document(index), "formatVersion": FORMAT_VERSION + 1}
    with pytest.raises(FormatVersionError, match=rf"version {FORMAT_VERSION + 1} found, "
                                                 rf"version {FORMAT_VERSION} expected"):
        document_from_files(index_document(index), stale)


def test_files_of_different_documents_do_not_pair() -> None:
    index = small_agreement()
    other = replace(index, sha256="f" * 64)
    with pytest.raises(IndexFormatError, match="sourceSha256"):
        document_from_files(index_document(index), full_document(other))


@pytest.mark.parametrize("corrupt", [
    lambda full: full["nodes"]["sa:root"].pop("text"),
    lambda full: full["nodes"]["sa:root"].update(start="0"),
    lambda full: full["nodes"]["sa:root"].update(start=True),
    lambda full: full["nodes"]["sa:root"]["flags"].pop("hasMoney"),
    lambda full: full["nodes"]["sa:root"].update(keywords=[1]),
    lambda full: full["nodes"].pop("sa:root"),
])
def test_malformed_full_file_raises_a_format_error(corrupt: Any) -> None:
    index = small_agreement()
    full = json.loads(json.dumps(full_document(index)))
    corrupt(full)
    with pytest.raises(IndexFormatError, match="sa:root|node ids"):
        document_from_files(index_document(index), full)


def test_every_record_field_reaches_the_files() -> None:
    # Node fields are stored generically; document-level fields are written one by one, so a
    # field added to these records must be added to index_document and document_from_files.
    assert [f.name for f in fields(DocumentIndex)] == [
        "doc_id", "title", "sha256", "nodes", "tags", "role", "amends", "parties"]
    assert [f.name for f in fields(DocumentTags)] == ["jurisdiction", "topics"]
    record = full_document(small_agreement())["nodes"]["sa:root"]
    assert len(record) == len(fields(Node)) - 1 and "unresolvedReferences" in record


@settings(max_examples=60, deadline=None)
@given(document_indexes(), st.sampled_from(RUNGS))
def test_files_round_trip_for_random_documents(index: DocumentIndex, rung: Rung) -> None:
    surface = json.loads(readable_json(index_document(index, rung)))
    full = json.loads(readable_json(full_document(index)))
    assert document_from_files(surface, full) == index
