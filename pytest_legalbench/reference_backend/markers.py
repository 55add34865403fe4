"""Reading ``{cite: ID}`` markers the way the backend needs them, written for the backend.

A marker is an opening brace, optional whitespace, the word ``cite`` in any case, optional
whitespace, a colon, then its ids up to the closing brace; a brace of either kind before the
close means it was no marker. The ids are separated by ``;`` and each may carry a ``corpus:``
prefix, which is dropped (``gandr.wire`` documents the syntax).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pytest_legalbench.gandr.wire import CITE_CLOSE, CITE_ID_SEPARATOR, CITE_OPEN, CORPUS_PREFIX

_BRACE, _KEYWORD, _COLON = CITE_OPEN[0], CITE_OPEN[1:-1], CITE_OPEN[-1]


@dataclass(frozen=True)
class Marker:
    """One marker found in a text: where it is, and everything written after its colon."""

    start: int
    end: int
    body: str

    @property
    def ids(self) -> tuple[str, ...]:
        """The marker's non-empty ids, in order, with any ``corpus:`` prefix dropped."""
        found = (without_corpus_prefix(piece) for piece in self.body.split(CITE_ID_SEPARATOR))
        return tuple(identifier for identifier in found if identifier)


def without_corpus_prefix(identifier: str) -> str:
    """``identifier`` stripped, less one leading ``corpus:`` (any case)."""
    text = identifier.strip()
    if text[:len(CORPUS_PREFIX)].lower() == CORPUS_PREFIX:
        text = text[len(CORPUS_PREFIX):].strip()
    return text


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _marker_at(text: str, start: int) -> Marker | None:
    """The marker opening at ``text[start]`` (a brace), or None when there is none."""
    position = _skip_space(text, start + 1)
    if text[position:position + len(_KEYWORD)].lower() != _KEYWORD:
        return None
    position = _skip_space(text, position + len(_KEYWORD))
    if text[position:position + 1] != _COLON:
        return None
    for end in range(position + 1, len(text)):
        if text[end] == CITE_CLOSE:
            return Marker(start, end + 1, text[position + 1:end])
        if text[end] == _BRACE:
            return None
    return None


def find_markers(text: str) -> list[Marker]:
    """Every marker of ``text``, left to right, none overlapping another."""
    found: list[Marker] = []
    position = text.find(_BRACE)
    while position != -1:
        marker = _marker_at(text, position)
        if marker is not None:
            found.append(marker)
        position = text.find(_BRACE, marker.end if marker else position + 1)
    return found


def has_marker(text: str) -> bool:
    """Whether ``text`` holds at least one marker."""
    return bool(find_markers(text))


def without_markers(text: str, replacement: str = " ") -> str:
    """``text`` with each marker replaced by ``replacement``."""
    pieces: list[str] = []
    previous = 0
    for marker in find_markers(text):
        pieces.extend((text[previous:marker.start], replacement))
        previous = marker.end
    pieces.append(text[previous:])
    return "".join(pieces)


def cited_ids(text: str) -> list[str]:
    """Every id the markers of ``text`` cite, in order, repeats kept."""
    return [identifier for marker in find_markers(text) for identifier in marker.ids]


def unresolved_ids(text: str, passage_ids: Iterable[str]) -> list[str]:
    """Distinct cited ids that name no passage, in order; "" for a marker naming no id."""
    known = {key for key in map(without_corpus_prefix, passage_ids) if key}
    missing: dict[str, None] = {}
    for marker in find_markers(text):
        for identifier in marker.ids or ("",):
            if identifier not in known:
                missing.setdefault(identifier)
    return list(missing)


def marker_text(ids: Iterable[str]) -> str:
    """The marker citing ``ids``, as the prompts write it: ``{cite: a; b}``."""
    return f"{CITE_OPEN} {f'{CITE_ID_SEPARATOR} '.join(ids)}{CITE_CLOSE}"
