"""Finding explicit cross-references and deciding which instrument each one points into."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pytest_legalbench.navindex.markers import roman_value

# "Section 2.1(b)(i)", "Sections 2.1 and 2.3", "clause 12.3(b)", "§ 5", "Paragraph 2(a)",
# "Section 6.C" (a lettered subsection written after a dot), "SECTIONS 6.C AND 12,13 OR 17"
# (connectors in capitals, as limitation clauses are often printed), "Article VII",
# "Schedule 2", "Exhibit A", "Annex B-1".
_NUMBER = r"\d{1,4}(?:\.\d{1,4}){0,3}(?:\.[A-Z](?![A-Za-z]))?(?:\([A-Za-z0-9]{1,4}\))*"
_JOIN = r"(?:,|[Aa]nd|AND|[Oo]r|OR|through|THROUGH|to|TO|-|–)"
_NUMBERED = re.compile(
    r"(?P<word>\b(?:Sections?|SECTIONS?|Sec\.|[Cc]lauses?|[Pp]aragraphs?|[Ss]ubsections?|"
    rf"[Ss]ubparagraphs?)|§§?)\s*(?P<first>{_NUMBER})"
    rf"(?P<more>(?:\s*{_JOIN}\s*(?:{_NUMBER}"
    r"|\([A-Za-z0-9]{1,4}\)(?:\([A-Za-z0-9]{1,4}\))*)(?![\w.]\d))*)"
)
_ARTICLE = re.compile(r"\b(?:Articles?|ARTICLES?)\s+(?P<first>[IVXLC]{1,7}|\d{1,3})\b")
_ATTACHMENT = re.compile(
    r"\b(?P<word>Schedule|Exhibit|Annex|Appendix|Attachment|Addendum|SCHEDULE|EXHIBIT|ANNEX|"
    r"APPENDIX)\s+(?P<first>[A-Z]{1,2}(?:-\d{1,2})?|\d{1,2}(?:\.\d{1,2}){0,2}(?:\([a-z0-9]{1,4}\))*)"
    r"(?![\w(]|[.,]\d)"
)
_MORE_ITEM = re.compile(
    r"(\d{1,4}(?:\.\d{1,4}){0,3}(?:\.[A-Z])?)?((?:\([A-Za-z0-9]{1,4}\))*)"
)
# The patterns above open with \b, so the engine gets no literal prefix and tries them at every
# character. Each match starts with one of these literals (the pattern's first word, plurals
# and "Sec." included, as written; the boundary is zero-width), so trying the pattern only
# where its trigger matches finds the same matches. Alternatives led by plain literals give the
# engine a set of first characters to skip ahead by.
_NUMBERED_TRIGGER = re.compile(
    r"Section|SECTION|Sec\.|Clause|clause|Paragraph|paragraph|Subsection|subsection"
    r"|Subparagraph|subparagraph|§"
)
_ARTICLE_TRIGGER = re.compile(r"Article|ARTICLE")
_ATTACHMENT_TRIGGER = re.compile(
    r"Schedule|Exhibit|Annex|Appendix|Attachment|Addendum|SCHEDULE|EXHIBIT|ANNEX|APPENDIX"
)
# What follows a reference: "of the Agreement", "under ERISA", "of the Internal Revenue Code".
_TARGET = re.compile(
    r"\s*(?:of|under)\s+(?P<determiner>(?:this|the|such|that|said)\s+)?"
    r"(?P<name>[A-Z][\w.&'’\-]*(?:\s+(?:of\s+)?[A-Z0-9][\w.&'’\-]*){0,6})"
)
_INSTRUMENT = re.compile(
    r"\b(?:Agreement|Contract|Lease|License|Licence|Indenture|Note|Plan|Letter|Guaranty)\b"
)
_STATUTE = re.compile(
    r"\b(?:Act|Code|ERISA|Regulations?|Rules?|U\.?\s?S\.?\s?C|C\.?\s?F\.?\s?R|Bankruptcy|Statutes?|"
    r"Law|Laws|Directive|Ordinance|Treaty|Convention|Constitution|Securities|Exchange|"
    r"Treasury|IRC|UCC|GAAP|IFRS|Uniform)\b"
)
# "29 C.F.R. §2510.3-101", "15 U.S.C. § 78", "6 Del. C. § 17-502": a code citation.
_CODE_CITATION = re.compile(
    r"(?:\d+\s+)?(?:U\.?\s?S\.?\s?C\.?|C\.?\s?F\.?\s?R\.?|[A-Z][a-z]{1,5}\.\s?C\.|Stat\.)\s*$"
)
# "Exhibit 10.1" or "Exhibit 99.2": an SEC exhibit number, not an attachment of the instrument.
_SEC_EXHIBIT = re.compile(r"^\d{1,3}\.\d{1,3}$")
_CONNECTOR = re.compile(r"^\s*(?:,|and|or|as\s+well\s+as)?\s*(?:,\s*)?(?:in\s+)?$")


@dataclass(frozen=True)
class Reference:
    """One reference as written, with the citation keys it names."""

    written: str
    keys: tuple[str, ...]
    """Canonical keys (``2.1(b)``, ``article:7``, ``exhibit:a``) matching nodes' references."""
    target: str
    """``self``, ``parent`` (the instrument this one amends) or ``external``."""
    target_name: str = ""


@dataclass(frozen=True)
class Instrument:
    """How a document names itself and the instrument it amends."""

    self_names: frozenset[str]
    parent_names: frozenset[str]
    """Names of the amended instrument."""
    has_parent: bool = False
    """Whether the document amends or supplements another instrument of the corpus."""


def canonical_key(key: str) -> str:
    """Write a numeric citation the way the outline keys it: "2.01(b)" is "2.1(b)", and a
    lettered subsection after a dot, "6.C", is "6(C)"."""
    match = re.match(r"\d+(?:\.\d+)*", key)
    if match is None:
        return key
    number = ".".join(str(int(part)) for part in match.group(0).split("."))
    rest = key[match.end():]
    lettered = re.match(r"\.([A-Z])", rest)
    if lettered is not None:
        rest = f"({lettered.group(1)})" + rest[lettered.end():]
    return number + rest


def _expand(first: str, more: str) -> list[str]:
    keys = [first]
    for item in re.finditer(rf"(?:{_JOIN}|—)\s*([^\s,]+)", more):
        piece = _MORE_ITEM.fullmatch(item.group(1).rstrip(".;:"))
        if piece is None:
            continue
        number, parens = piece.group(1), piece.group(2)
        if number:
            keys.append(number + parens)
        elif parens:
            # "2.1(b)(i) and (ii)": the new groups replace as many trailing groups.
            previous = keys[-1]
            groups = re.findall(r"\([^)]*\)", previous)
            replaced = len(re.findall(r"\([^)]*\)", parens))
            stem = previous[: len(previous) - sum(len(g) for g in groups[-replaced:])] \
                if groups else previous
            keys.append(stem + parens)
    return keys


def classify_target(tail: str, prefix: str, instrument: Instrument) -> tuple[str, str]:
    """Decide whether a reference points into this document, the one it amends, or outside.

    ``tail`` is the text right after the reference, ``prefix`` the text right before it.
    Only a named statute or instrument ("of ERISA", "of the Code", "under the Securities
    Act", "of the Guaranty") sends a reference outside; a bare reference stays inside.
    """
    cited = _CODE_CITATION.search(prefix)
    if cited is not None:
        return "external", cited.group(0).strip()
    match = _TARGET.match(tail)
    if match is None:
        return "self", ""
    name = match.group("name").strip().rstrip(".,;:")
    determiner = (match.group("determiner") or "").strip().lower()
    folded = _fold(name)
    if determiner == "this" or folded in instrument.self_names:
        return "self", name
    if folded in instrument.parent_names:
        return "parent", name
    # In an amendment, "the Agreement" or "the Credit Agreement" is the amended instrument.
    if instrument.has_parent and _INSTRUMENT.search(name) and not _STATUTE.search(name):
        return "parent", name
    return "external", name


def _fold(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip().lower()


def instrument_names(self_names: list[str], parent_names: list[str], *,
                     has_parent: bool = False) -> Instrument:
    """Build the naming context of a document from its own and its parent's aliases."""
    parent = {_fold(n) for n in parent_names}
    own = {_fold(n) for n in self_names}
    # A base document calls itself "the Agreement"; an amendment calls its parent that.
    own |= {"amendment"} if has_parent else {"agreement"}
    return Instrument(frozenset(own), frozenset(parent - own), has_parent)


def _matches(pattern: re.Pattern[str], trigger: re.Pattern[str], text: str
             ) -> Iterator[re.Match[str]]:
    """The matches of ``pattern.finditer(text)``, trying ``pattern`` only where ``trigger``
    matches; every match of ``pattern`` must start where ``trigger`` matches.

    Like ``finditer``: the leftmost match from the end of the previous one, since every
    trigger position in between is tried in order (and ``match`` at a position sees the text
    before it, so boundaries read the same). The patterns never match empty.
    """
    at = 0
    while (hit := trigger.search(text, at)) is not None:
        match = pattern.match(text, hit.start())
        if match is None:
            at = hit.start() + 1
            continue
        yield match
        at = match.end()


def find_references(text: str, instrument: Instrument) -> list[Reference]:
    """Return the explicit references in ``text`` in order of appearance."""
    found: list[tuple[int, int, str, tuple[str, ...]]] = []
    for match in _matches(_NUMBERED, _NUMBERED_TRIGGER, text):
        expanded = _expand(match.group("first"), match.group("more") or "")
        keys = tuple(canonical_key(key) for key in expanded)
        found.append((match.start(), match.end(), match.group(0).strip(), keys))
    for match in _matches(_ARTICLE, _ARTICLE_TRIGGER, text):
        first = match.group("first")
        value = int(first) if first.isdigit() else roman_value(first)
        if value is None:
            continue
        found.append((match.start(), match.end(), match.group(0), (f"article:{value}",)))
    for match in _matches(_ATTACHMENT, _ATTACHMENT_TRIGGER, text):
        word, first = match.group("word").lower(), match.group("first")
        if word == "exhibit" and _SEC_EXHIBIT.match(first):
            continue
        found.append((match.start(), match.end(), match.group(0), (f"{word}:{first.lower()}",)))
    found.sort()
    references: list[Reference] = []
    for start, end, written, keys in found:
        prefix = text[max(0, start - 24):start]
        target, name = classify_target(text[end:end + 120], prefix, instrument)
        references.append(Reference(written, keys, target, name))
    # "Section 4001(a)(15) and Section 4001(a)(3) of ERISA": a chain shares its last target.
    for position in range(len(references) - 2, -1, -1):
        current, following = references[position], references[position + 1]
        gap = text[found[position][1]:found[position + 1][0]]
        if current.target == "self" and not current.target_name and _CONNECTOR.match(gap):
            references[position] = Reference(current.written, current.keys, following.target,
                                              following.target_name)
    return references
