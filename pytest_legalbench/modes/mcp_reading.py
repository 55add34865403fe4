"""What the model read through a user's MCP tools, as provisions of the corpus.

A tool result is text (JSON or not). Its pieces of prose are what the model read: a piece is
a string value of at least ``MIN_WORDS`` words of the JSON a text opens with, or a paragraph
of at least as many words of the text around it (a
paragraph that is not found whole is tried line by line, so a header line the server wrote
above a quotation does not hide it). Each piece is located in the corpus as a retriever's
passage is (``ingest.text_location``: whitespace, quote-mark and dash tolerant), in the
document the result names when it names one, else in every document; a piece found becomes a
provision over its span, one not found an unlocated provision (shown to the model, counted in
the payload, outside evidence recall). Shorter strings (ids, titles, scores) are the tools'
bookkeeping, not reading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.text_location import locate
from pytest_legalbench.modes.base import Provision

#: Words a piece of a result needs to count as reading.
MIN_WORDS = 8
#: Pieces one result is read into, at most (the rest of a huge result is one unlocated piece).
MAX_PIECES = 200

#: Names ``(clause, path)`` of the smallest provision holding a span of a document.
Holder = Callable[[str, int, int], tuple[str, str]]

_BLANK_LINE = re.compile(r"\n\s*\n")
_WORD = re.compile(r"\w+")
#: A word a tolerant match leaves as it is (no quote mark or dash in it).
_PLAIN_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> int:
    """The number of words in ``text``."""
    return len(_WORD.findall(text))


def pieces(text: str) -> list[str]:
    """The prose pieces of a result text, in order (see the module's rule)."""
    data, rest = json_prefix(text)
    found = [s for s in _strings(data) if words(s) >= MIN_WORDS]
    found += [p.strip() for p in _BLANK_LINE.split(rest) if words(p) >= MIN_WORDS]
    if len(found) > MAX_PIECES:
        found = [*found[:MAX_PIECES - 1], "\n\n".join(found[MAX_PIECES - 1:])]
    return found


def json_prefix(text: str) -> tuple[object, str]:
    """The JSON object or array ``text`` opens with, and the text after it; (None, text)
    when it opens with neither."""
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return None, text
    try:
        data, end = json.JSONDecoder().raw_decode(stripped)
    except ValueError:
        return None, text
    return data, stripped[end:]


def named_documents(text: str, doc_ids: Sequence[str]) -> list[str]:
    """The corpus documents a result names by doc_id (standing alone, not inside a longer
    id), in corpus order."""
    return [doc_id for doc_id in doc_ids if doc_id and re.search(
        rf"(?<![\w.-]){re.escape(doc_id)}(?![\w-]|\.\w)", text)]


class Locator:
    """Locates a result's pieces in one corpus, keeping each document's spans already read so
    a repeated quotation prefers a new occurrence."""

    def __init__(self, documents: Sequence[Document]) -> None:
        self.documents = tuple(documents)
        self._texts = {d.doc_id: d.text for d in documents}
        self._taken: dict[str, list[tuple[int, int]]] = {}
        self._unlocated = 0

    def provisions(self, text: str, node_of: Holder | None = None) -> tuple[Provision, ...]:
        """The provisions a result text shows: its pieces, located or not."""
        named = named_documents(text, list(self._texts))
        order = named + [d for d in self._texts if d not in named]
        found: list[Provision] = []
        for piece in pieces(text):
            located = self._find(piece, order)
            if located is None and "\n" in piece.strip():
                lines = [line.strip() for line in piece.splitlines() if words(line) >= MIN_WORDS]
                parts = [(line, self._find(line, order)) for line in lines]
                if any(span is not None for _, span in parts):
                    found.extend(self._provision(line, span, named, node_of)
                                 for line, span in parts)
                    continue
            found.append(self._provision(piece, located, named, node_of))
        return tuple(found)

    def _find(self, piece: str, order: Sequence[str]) -> tuple[str, int, int] | None:
        # The documents holding the piece verbatim first (a substring test), then those that
        # hold its longest plain word, the only ones a tolerant match can be in.
        exact = piece.strip()
        word = max(_PLAIN_WORD.findall(piece), key=len, default="")
        candidates = ([d for d in order if exact in self._texts[d]]
                      or [d for d in order if word in self._texts[d]])
        for doc_id in candidates:
            span = locate(piece, self._texts[doc_id], self._taken.get(doc_id, ()), marks=True)
            if span is not None:
                self._taken.setdefault(doc_id, []).append(span)
                return doc_id, span[0], span[1]
        return None

    def _provision(self, piece: str, located: tuple[str, int, int] | None, named: list[str],
                   node_of: Holder | None) -> Provision:
        if located is None:
            self._unlocated += 1
            # A result naming one document is taken to quote it; otherwise no document is
            # claimed for text the harness could not find.
            doc_id = named[0] if len(named) == 1 else ""
            return Provision(doc_id=doc_id, node_id=f"{doc_id or 'mcp'}@unlocated-"
                                                    f"{self._unlocated}",
                             clause="", start=0, end=0, text=piece, unlocated=True)
        doc_id, start, end = located
        clause, path = node_of(doc_id, start, end) if node_of is not None else ("", "")
        return Provision(doc_id=doc_id, node_id=f"{doc_id}@{start}-{end}", clause=clause,
                         start=start, end=end, text=self._texts[doc_id][start:end], path=path)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
