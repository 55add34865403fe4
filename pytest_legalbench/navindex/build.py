"""Building the structured index of a set of documents: outline, graphs, flags, descriptors.

Documents are built together because an amendment's references and defined terms resolve
into the document it amends.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.navindex.defined_terms import find_inline_definitions
from pytest_legalbench.navindex.describe import summarise
from pytest_legalbench.navindex.draft import Draft, Outline
from pytest_legalbench.navindex.flags import extract_flags
from pytest_legalbench.navindex.keywords import Rarity, keywords
from pytest_legalbench.navindex.node import DocumentIndex, DocumentTags, Flags, Node
from pytest_legalbench.navindex.outline import build_outline
from pytest_legalbench.navindex.references import (
    Instrument,
    Reference,
    find_references,
    instrument_names,
)
from pytest_legalbench.navindex.tags import jurisdiction, topics
from pytest_legalbench.navindex.terms import TermIndex

#: Bumped whenever a change to the parser or extractors changes what an index holds.
BUILDER_VERSION = "1"


@functools.cache
def builder_fingerprint() -> str:
    """The builder version plus a digest of the index code, so edited code never hits stale
    cache entries (a forgotten version bump cannot serve an old build)."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return f"{BUILDER_VERSION}+{digest.hexdigest()[:16]}"

_INSTRUMENT_TERM = re.compile(
    r"\b(?:Agreement|Amendment|Contract|Lease|License|Licence|Indenture|Letter|Plan|Guaranty)\b"
)
#: How much of a document's opening is read for the names it gives itself and its parties.
_OPENING_CHARS = 6000
#: Parents get keywords and summaries from a bounded prefix, keeping the build linear.
_PARENT_DESCRIBE_CHARS = 1500


@dataclass(frozen=True)
class _Parsed:
    document: Document
    outline: Outline
    keys: dict[str, str]
    """Citation key (``2.1(b)``) to node id, first occurrence outside tables of contents."""
    terms: dict[str, str]
    """Defined term to the id of the node defining it."""
    listed: frozenset[str]
    """Citation keys of attachments the document's contents list names."""
    aliases: tuple[str, ...]
    """Terms the opening defines that name an instrument ("Agreement", "Credit Agreement")."""
    parties: tuple[str, ...]
    """Names a party may go by, for the hasParty flag: the opening's capitalised defined terms
    and the manifest's parties."""
    named: tuple[str, ...]
    """The index's parties: the manifest's, then the names the front matter defines."""
    inline: dict[int, tuple[str, ...]]
    """``find_inline_definitions`` of each leaf's text outside contents, by ``id`` of its
    draft (the outline holds the drafts, so the ids stay theirs), so it is searched once."""


def node_id(doc_id: str, draft: Draft) -> str:
    """Return the corpus-unique id of a draft."""
    return f"{doc_id}:{draft.local_id}"


def build_corpus(
    documents: Sequence[Document], *, progress: Callable[[str], None] | None = None
) -> tuple[DocumentIndex, ...]:
    """Build the index of every document; amendments resolve into the documents they amend."""
    parsed = {}
    for document in documents:
        if progress is not None:
            progress(f"parsing {document.doc_id}")
        parsed[document.doc_id] = _parse(document)
    built = []
    for document in documents:
        if progress is not None:
            progress(f"linking {document.doc_id}")
        parents = [parsed[p] for p in document.amends if p in parsed]
        built.append(_assemble(parsed[document.doc_id], parents))
    return tuple(built)


def _parse(document: Document) -> _Parsed:
    outline = build_outline(document.text)
    keys: dict[str, str] = {}
    terms: dict[str, str] = {}
    for draft in outline.drafts:
        if draft.is_toc_entry or draft.kind == "lead_in":
            continue
        if draft.full_reference:
            keys.setdefault(draft.full_reference, node_id(document.doc_id, draft))
        for term in draft.defines:
            terms.setdefault(term, node_id(document.doc_id, draft))
    inline: dict[str, str] = {}
    opening: list[str] = []
    named: list[str] = []
    found_in: dict[int, tuple[str, ...]] = {}
    for draft in outline.drafts:
        if draft.children or draft.is_toc_entry:
            continue
        text = document.text[draft.start:draft.end]
        found = found_in[id(draft)] = find_inline_definitions(text)
        for term in found:
            inline.setdefault(term, node_id(document.doc_id, draft))
        if draft.start < _OPENING_CHARS:
            opening.extend(found)
        if draft.kind == "front_matter":
            # The opening paragraph names the parties: 'Ingram Micro Inc. ("Distributor")'.
            named.extend(t for t in found if not _INSTRUMENT_TERM.search(t) and t[:1].isupper())
    for term, owner in inline.items():
        terms.setdefault(term, owner)
    aliases = tuple(t for t in opening if _INSTRUMENT_TERM.search(t))
    parties = tuple(t for t in opening if not _INSTRUMENT_TERM.search(t) and t[:1].isupper())
    listed = frozenset(d.full_reference for d in outline.drafts
                       if d.is_toc_entry and ":" in d.full_reference)
    return _Parsed(document, outline, keys, terms, listed, aliases, parties + document.parties,
                   tuple(dict.fromkeys((*document.parties, *named))), found_in)


def _assemble(own: _Parsed, parents: list[_Parsed]) -> DocumentIndex:
    document = own.document
    doc_id = document.doc_id
    parent_aliases = [a for p in parents for a in p.aliases] + list(own.aliases)
    instrument = instrument_names(
        [a for a in own.aliases if not parents or "Amendment" in a] + [document.title],
        [a for a in parent_aliases if "Amendment" not in a] if parents else [],
        has_parent=bool(parents) or bool(document.amends),
    )
    definitions = {term: owner for p in parents for term, owner in p.terms.items()}
    definitions.update(own.terms)
    term_index = TermIndex(definitions)
    drafts = own.outline.drafts
    ids = {id(d): node_id(doc_id, d) for d in drafts}
    leaves: dict[str, Node] = {}
    # Keywords weigh a word by how few of the document's clauses use it (``Rarity``).
    rarity = Rarity.of(document.text[d.start:d.end] for d in drafts
                       if not d.children and not d.is_toc_entry)
    for draft in drafts:
        if draft.children:
            continue
        leaves[ids[id(draft)]] = _leaf(draft, document, own, parents, instrument, term_index,
                                       ids, rarity)
    nodes = [leaves.get(ids[id(d)]) or _parent(d, document, leaves, ids) for d in drafts]
    # Parents are finished bottom-up so their flags and keywords can draw on the children.
    finished: dict[str, Node] = {}
    for node in reversed(nodes):
        if node.children:
            node = _finish_parent(node, finished, document.text, rarity)
        finished[node.node_id] = node
    ordered = tuple(finished[ids[id(d)]] for d in drafts)
    tags = DocumentTags(jurisdiction(document.text),
                        topics(document.text, title=document.title))
    return DocumentIndex(doc_id=doc_id, title=document.title, sha256=document.sha256,
                         nodes=ordered, tags=tags, role=document.role, amends=document.amends,
                         parties=own.named)


def _leaf(draft: Draft, document: Document, own: _Parsed, parents: list[_Parsed],
          instrument: Instrument, term_index: TermIndex, ids: dict[int, str],
          rarity: Rarity) -> Node:
    text = document.text[draft.start:draft.end]
    this_id = ids[id(draft)]
    resolved: list[str] = []
    external: list[str] = []
    unresolved: list[str] = []
    unfiled: list[str] = []
    if not draft.is_toc_entry:
        for reference in find_references(text, instrument):
            # An amendment whose base is not in the corpus names an outside instrument.
            if reference.target == "external" or (reference.target == "parent" and not parents):
                external.append(_external_phrase(reference))
                continue
            targets = _resolve(reference, own, parents)
            if targets is None:
                listed = own.listed.union(*(p.listed for p in parents))
                bucket = unfiled if any(k in listed for k in reference.keys) else unresolved
                bucket.append(reference.written)
                continue
            resolved.extend(t for t in targets if t != this_id)
    inline = own.inline.get(id(draft))
    if inline is None:
        inline = find_inline_definitions(text)
    defines = tuple(dict.fromkeys(draft.defines + list(inline)))
    uses = () if draft.is_toc_entry else term_index.uses(text, exclude=(this_id,))
    flags = extract_flags(text, defines=bool(defines), is_toc_entry=draft.is_toc_entry,
                          parties=own.parties)
    return Node(
        node_id=this_id, doc_id=document.doc_id, kind=draft.kind,
        clause_reference=draft.label, title=draft.title, start=draft.start, end=draft.end,
        text=text, parent=ids[id(draft.parent)] if draft.parent is not None else None,
        full_reference=draft.full_reference,
        cross_references=tuple(dict.fromkeys(resolved)),
        # Each list holds distinct entries: the statistics count links, not mentions.
        external_references=tuple(dict.fromkeys(external)),
        unresolved_references=tuple(dict.fromkeys(unresolved)),
        unfiled_references=tuple(dict.fromkeys(unfiled)),
        defines=defines, uses_definitions=uses, flags=flags,
        keywords=() if draft.is_toc_entry else keywords(text, title=draft.title,
                                                        defines=inline, rarity=rarity),
        summary="" if draft.is_toc_entry else summarise(text, title=draft.title),
    )


def _external_phrase(reference: Reference) -> str:
    name = reference.target_name
    if re.search(r"C\.|Stat\.", name) and not name.startswith(("the", "The")):
        return f"{name} {reference.written}"
    return f"{reference.written} of {name}"


def _resolve(reference: Reference, own: _Parsed, parents: list[_Parsed]) -> list[str] | None:
    """Map a reference's keys to node ids, or None when no key resolves."""
    if reference.target == "parent":
        tables = [p.keys for p in parents]
    elif not reference.target_name:
        # A bare "Section 2" in an amendment names the amended instrument's section: an
        # amendment cites what it changes, and says "of this Amendment" for its own clauses.
        tables = [p.keys for p in parents] + [own.keys]
    else:
        tables = [own.keys] + [p.keys for p in parents]
    found: list[str] = []
    for key in reference.keys:
        for table in tables:
            target = _lookup(table, key)
            if target is not None:
                found.append(target)
                break
    return found or None


def _lookup(table: dict[str, str], key: str) -> str | None:
    """Find ``key``, falling back to the nearest enclosing sub-clause that was parsed.

    "Section 3" in a document whose sections are 3.1, 3.2, ... means Article 3.
    """
    while True:
        if key in table:
            return table[key]
        if key.isdigit() and f"article:{key}" in table:
            return table[f"article:{key}"]
        cut = key.rfind("(")
        if cut <= 0 or ":" in key:
            return None
        key = key[:cut]


def _parent(draft: Draft, document: Document, leaves: dict[str, Node],
            ids: dict[int, str]) -> Node:
    return Node(
        node_id=ids[id(draft)], doc_id=document.doc_id, kind=draft.kind,
        clause_reference=draft.label, title=document.title if draft.parent is None else draft.title,
        start=draft.start, end=draft.end, text=document.text[draft.start:draft.end],
        parent=ids[id(draft.parent)] if draft.parent is not None else None,
        children=tuple(ids[id(child)] for child in draft.children),
        full_reference=draft.full_reference, defines=tuple(draft.defines),
    )


def _finish_parent(node: Node, finished: dict[str, Node], text: str, rarity: Rarity) -> Node:
    children = [finished[c] for c in node.children]
    # A parent carries what its children carry, except the contents mark: a document holding a
    # table of contents is not itself a contents entry. Only the contents block is.
    merged = replace(Flags(*(any(getattr(c.flags, f) for c in children)
                             for f in Flags.__dataclass_fields__)),
                     is_toc_entry=node.kind == "toc")
    prefix = node.text[:_PARENT_DESCRIBE_CHARS]
    return replace(node, flags=merged,
                   keywords=keywords(prefix, title=node.title, rarity=rarity),
                   summary=summarise(prefix, title=node.title))
