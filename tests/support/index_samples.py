"""Index samples the navindex tests share: laid-out trees, a small and a realistic agreement,
and a hypothesis strategy of random document indexes."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields
from typing import Any

from hypothesis import strategies as st

from pytest_legalbench.navindex.describe import summarise
from pytest_legalbench.navindex.keywords import keywords
from pytest_legalbench.navindex.node import DocumentIndex, DocumentTags, Flags, Node


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
