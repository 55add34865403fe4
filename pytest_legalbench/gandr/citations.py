"""Whether an answer's citations point at retrieved passages: the strict check and its re-score
under citation-form normalisation (SPEC §11).

The canonical marker is ``{cite: <id>}``: whitespace is tolerated inside the braces and around
the colon, ``cite`` is case-insensitive, and one marker may carry several ids separated by ``;``,
each counted as its own citation. Ids are compared after ``strip_prefix`` on both sides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pytest_legalbench.gandr.wire import CITE_MARKER, CORPUS_PREFIX

#: Non-ASCII brackets folded before the normalised re-score. Each family keeps its shape where
#: it has one: curly forms -> ``{}``, round and angle forms -> ``()``, square, lenticular,
#: tortoise-shell, corner, double-angle and white square forms -> ``[]``. An opener and its
#: closer always land in the same ASCII family, so folding never unbalances a pair. Fullwidth
#: colon and semicolon are folded too: they belong to the marker syntax.
BRACKET_FOLDS: dict[str, str] = {
    # curly
    "\uff5b": "{", "\uff5d": "}", "\ufe5b": "{", "\ufe5c": "}", "\ufe37": "{", "\ufe38": "}",
    "\u2983": "{", "\u2984": "}", "\u2774": "{", "\u2775": "}",
    # round and angle
    "\uff08": "(", "\uff09": ")", "\ufe59": "(", "\ufe5a": ")", "\ufe35": "(", "\ufe36": ")",
    "\uff5f": "(", "\uff60": ")", "\u2985": "(", "\u2986": ")", "\u2768": "(", "\u2769": ")",
    "\u276a": "(", "\u276b": ")", "\u3008": "(", "\u3009": ")", "\u2329": "(", "\u232a": ")",
    "\u27e8": "(", "\u27e9": ")", "\ufe3f": "(", "\ufe40": ")", "\u276c": "(", "\u276d": ")",
    # square and its CJK relatives
    "\uff3b": "[", "\uff3d": "]", "\u3010": "[", "\u3011": "]", "\u3014": "[", "\u3015": "]",
    "\u3016": "[", "\u3017": "]", "\u3018": "[", "\u3019": "]", "\u301a": "[", "\u301b": "]",
    "\u300c": "[", "\u300d": "]", "\u300e": "[", "\u300f": "]", "\u300a": "[", "\u300b": "]",
    "\u27e6": "[", "\u27e7": "]", "\u2045": "[", "\u2046": "]", "\u2772": "[", "\u2773": "]",
    "\ufe5d": "[", "\ufe5e": "]", "\ufe39": "[", "\ufe3a": "]", "\ufe3b": "[", "\ufe3c": "]",
    "\ufe3d": "[", "\ufe3e": "]", "\ufe41": "[", "\ufe42": "]", "\ufe43": "[", "\ufe44": "]",
    "\ufe17": "[", "\ufe18": "]", "\u2997": "[", "\u2998": "]",
    # marker punctuation
    "\uff1a": ":", "\uff1b": ";",
}
_FOLD_TABLE = str.maketrans(BRACKET_FOLDS)

#: Quote characters stripped from around an id in the normalised re-score.
QUOTES = "\"'`\u201c\u201d\u2018\u2019\u00ab\u00bb\u2039\u203a"

_CLOSE_OF = {"{": "}", "[": "]", "(": ")"}
_OPEN_OF = {close: open_ for open_, close in _CLOSE_OF.items()}
_CORPUS_PREFIX = re.compile(re.escape(CORPUS_PREFIX), re.IGNORECASE)
_CITE_PREFIX = re.compile(r"cite\s*:", re.IGNORECASE)
_NESTED_CITE = re.compile(r"(?<![A-Za-z])cite\s*:", re.IGNORECASE)


def strip_prefix(identifier: str) -> str:
    """Drop surrounding whitespace and one leading ``corpus:`` (any case) from an id."""
    text = identifier.strip()
    if _CORPUS_PREFIX.match(text):
        text = text[len(CORPUS_PREFIX):].strip()
    return text


def fold_brackets(text: str) -> str:
    """Map every bracket in ``BRACKET_FOLDS`` to its ASCII family; lengths are preserved."""
    return text.translate(_FOLD_TABLE)


@dataclass(frozen=True)
class Citation:
    """One cited id: the marker it was written in, the id compared, and the passage it hit."""

    written: str
    cited: str
    resolved: str | None


@dataclass(frozen=True)
class GroundingReport:
    """The verdict of one grounding check, with every citation it counted."""

    grounded: bool
    citations: tuple[Citation, ...]
    unresolved: tuple[str, ...]
    """Distinct cited ids that resolved to nothing, in order of first appearance."""
    reason: str



def _verdict(citations: list[Citation], *, missing: str) -> GroundingReport:
    failed = [c for c in citations if c.resolved is None]
    unresolved = tuple(dict.fromkeys(c.cited for c in failed))
    if failed:
        shown = ", ".join(u or "(empty id)" for u in unresolved)
        noun = "citation" if len(citations) == 1 else "citations"
        verb = "resolves" if len(failed) == 1 else "resolve"
        reason = (
            f"{len(failed)} of {len(citations)} {noun} {verb} to no retrieved passage: {shown}"
        )
    elif citations:
        reason = "every citation resolves"
    else:
        reason = missing
    return GroundingReport(bool(citations) and not failed, tuple(citations), unresolved, reason)


def _split_ids(content: str) -> list[str]:
    """The ``;``-separated ids of one marker; a marker naming none yields one empty id."""
    ids = [strip_prefix(piece) for piece in content.split(";")]
    return [i for i in ids if i] or [""]


def grounding(text: str, passage_ids: Iterable[str]) -> GroundingReport:
    """Strict check: some canonical marker, and every cited id equals a retrieved passage id."""
    table: dict[str, str] = {}
    for passage_id in passage_ids:
        if key := strip_prefix(passage_id):
            table.setdefault(key, passage_id)
    citations = [
        Citation(marker.group(0), cited, table.get(cited))
        for marker in CITE_MARKER.finditer(text)
        for cited in _split_ids(marker.group("ids"))
    ]
    return _verdict(citations, missing="no {cite: ...} marker")


def _matched_groups(text: str) -> list[tuple[int, int]]:
    """Spans ``(start, end)`` of balanced bracket groups, by start (so outer before inner).

    A closer that does not match the innermost open bracket closes the nearest open bracket
    of its family, abandoning those opened after it; a closer with none open is plain text.
    """
    stack: list[tuple[str, int]] = []
    spans: list[tuple[int, int]] = []
    for position, char in enumerate(text):
        if char in _CLOSE_OF:
            stack.append((char, position))
        elif char in _OPEN_OF:
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == _OPEN_OF[char]:
                    spans.append((stack[depth][1], position + 1))
                    del stack[depth:]
                    break
    return sorted(spans)


def _unwrap(text: str) -> str:
    """``text`` less whitespace, quotes and any brackets enclosing the whole of it."""
    while True:
        before = text
        text = text.strip().strip(QUOTES).strip()
        if text and text[0] in _CLOSE_OF and (0, len(text)) in _matched_groups(text):
            text = text[1:-1]
        if text == before:
            return text


def _clean_id(raw: str) -> str:
    """An id as the normalised re-score compares it: unwrapped, ``corpus:`` stripped."""
    while True:
        before = raw
        raw = strip_prefix(_unwrap(raw))
        if raw == before:
            return raw


def _stem_match(cited: str, stems: list[tuple[str, str]]) -> str | None:
    """The passage whose id equals ``cited`` or is its longest stem; ``stems`` is longest first.

    P is a stem of ``cited`` when ``cited`` continues P with a non-alphanumeric character, so
    ``doc:4.2(a)(i)`` and ``doc:4.2 para 3`` reach ``doc:4.2``, while ``doc:4.25`` does not.
    """
    for key, passage_id in stems:
        if cited == key:
            return passage_id
        if cited.startswith(key) and len(cited) > len(key) and not cited[len(key)].isalnum():
            return passage_id
    return None


def normalised_grounding(text: str, passage_ids: Iterable[str]) -> GroundingReport:
    """Re-score stored output with bracket families folded, optional ``cite:`` and stem matches.

    After folding (``BRACKET_FOLDS``), a bracketed group (``{}``, ``[]`` or ``()``) whose
    content, unwrapped of enclosing brackets and quotes, starts with ``cite:`` is a citation
    attempt: each of its ``;``-separated ids (themselves unwrapped) must resolve, or the answer
    fails. A group without the prefix counts as citations only when every one of its ids
    resolves, so label text such as ``[RULE]`` or ``(a)`` is never a failure. A group whose
    content holds a further ``cite:`` is not a unit: its inner groups are judged one by one.
    Groups inside a counted group are not counted again. Grounded iff at least one citation
    resolves and no attempt failed.
    """
    folded = fold_brackets(text)
    table: dict[str, str] = {}
    for passage_id in passage_ids:
        if key := _clean_id(fold_brackets(passage_id)):
            table.setdefault(key, passage_id)
    stems = sorted(table.items(), key=lambda item: len(item[0]), reverse=True)
    citations: list[Citation] = []
    counted_until = 0
    for start, end in _matched_groups(folded):
        if end <= counted_until:
            continue
        content = _unwrap(folded[start + 1:end - 1])
        prefix = _CITE_PREFIX.match(content)
        body = content[prefix.end():] if prefix else content
        if _NESTED_CITE.search(body):
            continue
        pieces = [cited for cited in (_clean_id(p) for p in body.split(";")) if cited]
        found = [Citation(text[start:end], c, _stem_match(c, stems)) for c in pieces]
        if prefix:
            found = found or [Citation(text[start:end], "", None)]
        elif not found or any(c.resolved is None for c in found):
            continue
        citations.extend(found)
        counted_until = end
    return _verdict(
        citations, missing="no citation that resolves to a retrieved passage"
    )
