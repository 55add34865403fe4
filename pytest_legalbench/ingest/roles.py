"""Inferring roles and amendment links for documents that come without a manifest."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.titles import (
    INSTRUMENT,
    OPENING_CHARS,
    PARTY_CLAUSE,
    SMALL_WORDS,
    caseless,
    collapse_spaces,
    heading_lines,
    word_set,
)

#: Roles that attach to another document and so are linked to one when a manifest does not.
ATTACHED_ROLES = ("amendment", "side_letter", "schedule", "ancillary")

#: Roles a document must have to be the target of such a link.
TARGET_ROLES = ("base", "conformed")

_CONFORMED_MARK = caseless(r"\bconformed\b|\bas\s+amended\s+(?:through|to)\b")
_RESTATED_MARK = caseless(r"\bamended\s+and\s+restated\b|\brestate(?:d|ment)\b")
_HEAD_SPLIT = caseless(
    r"\s+(?:to|of|under|relating\s+to|regarding)\s+(?:the\s+|that\s+certain\s+)?"
)
_HEAD_RULES = (
    ("side_letter", caseless(r"\bside\s+letter\b")),
    ("amendment", caseless(r"\b(?:amendments?|amending|addendum|supplement(?:al)?)\b")),
    ("side_letter", caseless(r"\bletter\s+agreement\b")),
    ("schedule", caseless(r"^(?:disclosure\s+)?(?:schedules?|exhibit|annex|appendix|"
                          r"attachment|rider)\b|\bdisclosure\s+schedules?\b")),
    ("ancillary", caseless(r"^(?:joinder|consent|waiver|acknowledge?ment|notice|certificate|"
                           r"estoppel)\b")),
)
# Roles a title rule may only give when the document names an agreement it belongs to:
# a letter agreement or a consent on its own is an instrument in its own right.
_NEEDS_REFERENCE = frozenset({"side_letter", "ancillary"})
_THIS_AMENDMENT = caseless(r"\bthis\s+(?:[\w#.]+\s+){0,3}?amendment\b")
_TEXT_CONFORMED = caseless(r"^\s*conformed\s+copy\b|\bconformed\s+through\b|"
                           r"\bas\s+amended\s+through\b", re.MULTILINE)
_LETTER = caseless(r"^\s*dear\b", re.MULTILINE)
# A name of an agreement: capitalised words ending in an instrument noun, after words that
# introduce the agreement a document amends or belongs to.
_REFERENCE = re.compile(
    r"(?i:reference\s+is\s+(?:hereby\s+)?made\s+to|amend(?:s|ing|ed)?|modif(?:y|ies|ying)|"
    r"supplement(?:s|ing)?|entered\s+into|\bre:|\bto|\bunder|\bof)\s+"
    r"(?i:(?:that|the|a|an|said|their|its)\s+)?(?i:certain\s+)?(?i:(?:fully\s+)?executed\s+)?"
    r"((?:(?!(?i:this|the)\b)[A-Z][\w&'’-]*\s+(?:(?:and|of|for|&)\s+)?){1,8}"
    r"(?i:agreement|contract|lease|licen[cs]e|indenture|plan|note|deed|charter))\b"
)
_LEADING_ARTICLE = caseless(r"^(?:the|that\s+certain)\s+")
_GENERIC_WORDS = SMALL_WORDS | word_set(
    "this that certain no number dated agreement agreements contract amendment amended "
    "restated conformed"
)
# Capitalised words too common in contracts to show that two documents share a party.
_COMMON_CAPITALISED = _GENERIC_WORDS | word_set(
    "inc incorporated corp corporation company llc ltd limited plc party parties effective date "
    "whereas now therefore section article exhibit schedule annex recitals state delaware new "
    "york california united states america january february march april may june july august "
    "september october november december first second third fourth fifth agent lender lenders "
    "borrower licensee licensor distributor customer supplier seller buyer purchaser vendor "
    "securities exchange commission act rule confidential treatment terms products services"
)
_STEM_CHARS = 6
_RARE_MIN_DOCS = 5
_RARE_SHARE = 0.02
# One shared rare name happens by chance between unrelated contracts; two rarely do.
_MIN_SHARED_NAMES = 2


@dataclass(frozen=True)
class RoleGuess:
    """An inferred role, the agreement the document refers to, and why."""

    role: str
    amends_title: str | None
    reason: str


@dataclass(frozen=True)
class LinkChoice:
    """The document an attached document was linked to (or None) and why."""

    target: str | None
    reason: str


def _clean_reference(name: str) -> str | None:
    name = PARTY_CLAUSE.sub("", collapse_spaces(name)).strip(" ,;:()")
    name = _LEADING_ARTICLE.sub("", name)
    return name if INSTRUMENT.search(name) and _stems(name) else None


def referenced_agreement(text: str) -> str | None:
    """Return the name of the agreement the opening of ``text`` refers to, if it names one."""
    for match in _REFERENCE.finditer(collapse_spaces(text[:OPENING_CHARS])):
        name = _clean_reference(match.group(1))
        if name is not None:
            return name
    return None


def _split_title(title: str) -> tuple[str, str]:
    """Split "Second Amendment to the Credit Agreement" into head and referenced name."""
    match = _HEAD_SPLIT.search(title)
    if match is None:
        return title, ""
    return title[: match.start()], title[match.end():]


def infer_role(title: str, text: str) -> RoleGuess:
    """Infer a document's role from its title, then from the opening of its text."""
    title = collapse_spaces(title)
    opening = text[:OPENING_CHARS]
    if _CONFORMED_MARK.search(title):
        return RoleGuess("conformed", None, f'title "{title}" marks a conformed text')
    head, rest = _split_title(title)
    if _RESTATED_MARK.search(head):
        return RoleGuess("conformed", None, f'title "{title}" marks a restated agreement')
    reference = (_clean_reference(rest) if rest else None) or referenced_agreement(opening)
    for role, pattern in _HEAD_RULES:
        if pattern.search(head) and (role not in _NEEDS_REFERENCE or reference):
            return RoleGuess(role, reference, f'title "{title}"')
    if _THIS_AMENDMENT.search(opening):
        return RoleGuess("amendment", reference, 'opening text says "this amendment"')
    if _TEXT_CONFORMED.search(opening):
        return RoleGuess("conformed", None, "opening text marks a conformed copy")
    if _LETTER.search(opening) and reference:
        return RoleGuess("side_letter", reference, f'a letter about "{reference}"')
    return RoleGuess("base", None,
                     f'title "{title}" and opening name no amendment, schedule or side letter')


def _stems(name: str) -> frozenset[str]:
    # A crude prefix stem lets "Distribution Agreement" match "Distributor Agreement".
    words = re.findall(r"[a-z0-9]+", name.lower())
    return frozenset(w[:_STEM_CHARS] for w in words if w not in _GENERIC_WORDS)


def _party_words(text: str) -> frozenset[str]:
    words = re.findall(r"\b[A-Z][A-Za-z]{2,}\b", text[:OPENING_CHARS])
    return frozenset(w.lower() for w in words) - _COMMON_CAPITALISED


def _folder(document: Document) -> str:
    return str(PurePath(document.path).parent)


def _name_match(reference: str, names: list[str]) -> tuple[float, str]:
    """Return the share of the reference's words a candidate's best name has, and that name."""
    wanted = _stems(reference)
    best = max(names, key=lambda name: len(wanted & _stems(name)))
    return len(wanted & _stems(best)) / max(len(wanted), 1), best


def _choose(document: Document, candidates: Sequence[Document],
            names: dict[str, list[str]], parties: dict[str, frozenset[str]],
            rare: frozenset[str]) -> LinkChoice:
    folder = _folder(document)
    reference = (infer_role(document.title, document.text).amends_title
                 or referenced_agreement(document.text))
    local = [c for c in candidates if _folder(c) == folder]
    if reference is None:
        if len(local) == 1:
            return LinkChoice(local[0].doc_id, "names no agreement; the only base document "
                                               "in its folder")
        return LinkChoice(None, "names no agreement, and its folder has no single base document")
    own_parties = parties[document.doc_id] & rare
    ranked = []
    for candidate in candidates:
        score, matched = _name_match(reference, names[candidate.doc_id])
        shared = len(own_parties & parties[candidate.doc_id])
        if score > 0 and shared >= _MIN_SHARED_NAMES:
            ranked.append(((_folder(candidate) == folder, score, shared), candidate, matched))
    ranked.sort(key=lambda item: item[0], reverse=True)
    if ranked and (len(ranked) == 1 or ranked[0][0] != ranked[1][0]):
        key, target, matched = ranked[0]
        where = "the same folder" if key[0] else "another folder"
        return LinkChoice(target.doc_id, f'refers to "{reference}", matching "{matched}" '
                                         f"in {where}, {key[2]} shared names")
    if ranked:
        tied = ", ".join(item[1].doc_id for item in ranked if item[0] == ranked[0][0])
        return LinkChoice(None, f'refers to "{reference}", which {tied} match equally')
    if len(local) == 1 and _name_match(reference, names[local[0].doc_id])[0] > 0:
        return LinkChoice(local[0].doc_id, f'refers to "{reference}", like the only base '
                                           "document in its folder")
    return LinkChoice(None, f'refers to "{reference}", which no base document matches')


def link_choices(documents: Sequence[Document]) -> dict[str, LinkChoice]:
    """Say, for each attached document, which base document it would be linked to and why.

    A candidate (a base or conformed document) must share a word of the referenced
    agreement's name and two names rare across the documents (parties, products); among those
    the same folder wins, then the closer name, then more shared names. Failing that, the
    only base document in the same folder is taken if its name fits (or nothing is named).
    Existing ``amends`` are not consulted.
    """
    parties = {d.doc_id: _party_words(d.text) for d in documents}
    counts: dict[str, int] = {}
    for words in parties.values():
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    # A name found in many documents (a month, a state, a defined role) links nothing.
    limit = max(_RARE_MIN_DOCS, int(_RARE_SHARE * len(documents)))
    rare = frozenset(word for word, count in counts.items() if count <= limit)
    candidates = [d for d in documents if d.role in TARGET_ROLES]
    names = {d.doc_id: [d.title, *(h for _, h in heading_lines(d.text)[:3])] for d in candidates}
    return {
        d.doc_id: _choose(d, [c for c in candidates if c.doc_id != d.doc_id], names, parties, rare)
        for d in documents if d.role in ATTACHED_ROLES
    }


def link_amendments(documents: Iterable[Document]) -> tuple[Document, ...]:
    """Link each attached document without ``amends`` to its most likely base document."""
    docs = tuple(documents)
    choices = link_choices(docs)
    linked = []
    for document in docs:
        choice = choices.get(document.doc_id)
        if choice is not None and choice.target is not None and not document.amends:
            document = replace(document, amends=(choice.target,))
        linked.append(document)
    return tuple(linked)
