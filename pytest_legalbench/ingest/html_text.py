"""Plain text from EDGAR-style HTML: one block per line, table rows as ``cell | cell``.

Filers lay out numbered paragraphs with inline styles rather than with markup: the number in
an ``inline-block`` box of fixed width and the heading after it (``<font style="display:
inline-block;width:36pt">2.</font><b>Payments.</b>``), or a ``<div style="display:inline">``
inside a flex row. The style is read as far as that layout needs: a block tag displayed
``inline`` does not break the line, and an element displayed as a box
(``inline-block``, ``inline-flex``, floated, given a width or a side margin) is set apart by a
space. ``display:none`` is not read as hidden: an unclosed ``<p>`` so styled would hide the
rest of a document, and filings use it for empty spacers.

Struck-through text (``<strike>``, ``<s>``, ``<del>`` or a ``line-through`` style) is left out:
a credit agreement filed conformed to its latest amendment is often a blackline, and its struck
words are the ones the amendment deleted, so keeping them would run the old terms into the new
("October 6, 20242025").

Some filings are page images, each carrying its text as an invisible layer (white, one point
high) in which every printed line break is written as two or more spaces. That text is read
with those runs as line breaks, so its headings and numbered paragraphs open lines as they do
on the printed page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

#: Elements that start and end a block of text.
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd",
        "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "legend",
        "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "ul",
    }
)  # fmt: skip

#: Elements whose content is never document text.
_HIDDEN_TAGS = frozenset({"head", "script", "style", "template", "title", "xml"})

#: Hidden elements an unclosed ``<head>`` may leave open; ``<body>`` ends them.
_HEAD_TAGS = frozenset({"head", "title"})

_CELL_TAGS = frozenset({"td", "th"})

#: Elements that mark their text as struck out: in a filing marked to show changes, deleted.
_STRUCK_TAGS = frozenset({"del", "s", "strike"})
#: Elements that open a block of their own, so that an unclosed strike ends with its block.
_ENCLOSING_TAGS = _BLOCK_TAGS | _CELL_TAGS | {"table", "tr"}

# Python's \s covers every character str.isspace() accepts (U+00A0, U+2007, U+202F among
# them); zero-width spaces, word joiners and byte-order marks are invisible glue, read as space.
_SPACE_RUN = re.compile(r"[\s\u200b\u2060\ufeff]+")
#: The ``display`` of an inline style.
_DISPLAY = re.compile(r"(?:^|;)\s*display\s*:\s*([a-z-]+)", re.IGNORECASE)
#: Inline layout that sets an element's text apart from its neighbours on the same line.
_BOXED = re.compile(
    r"(?:^|;)\s*(?:float\s*:\s*(?:left|right)|(?:min-)?width\s*:\s*[0-9.]*[1-9]"
    r"|(?:margin|padding)-(?:left|right)\s*:\s*[0-9.]*[1-9])", re.IGNORECASE)
#: Elements that never have an end tag.
_VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                        "meta", "param", "source", "track", "wbr"})
_BLANK_LINE = re.compile(r"\n[^\S\n]*\n")
#: An invisible text layer's style: a font of at most two points (or pixels) in white.
_LAYER_SIZE = re.compile(
    r"(?:^|;)\s*font-size\s*:\s*(?:0?\.\d+|[01](?:\.\d+)?|2(?:\.0+)?)(?:pt|px)\b", re.IGNORECASE)
_LAYER_COLOUR = re.compile(r"(?:^|;)\s*color\s*:\s*(?:white|#fff(?:fff)?)\s*(?:;|$)",
                           re.IGNORECASE)
#: How a text layer writes a line break.
_LAYER_BREAK = re.compile(r"[ \t\u00a0]{2,}")
#: An inline style that strikes its text through.
_LINE_THROUGH = re.compile(r"(?:^|;)\s*text-decoration(?:-line)?\s*:[^;]*\bline-through\b",
                           re.IGNORECASE)


@dataclass
class _Sink:
    """Text collected for the document or one table cell: finished blocks plus an open one."""

    blocks: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    pending_pre: bool = False

    def add(self, text: str, preformatted: bool) -> None:
        self.pending.append(text)
        self.pending_pre = self.pending_pre or preformatted

    def flush(self) -> None:
        """Close the open block, if it holds any text."""
        raw = "".join(self.pending)
        preformatted = self.pending_pre
        self.pending = []
        self.pending_pre = False
        if preformatted:
            self.blocks.extend(_preformatted_blocks(raw))
            return
        text = _SPACE_RUN.sub(" ", raw).strip()
        if text:
            self.blocks.append(text)


@dataclass
class _Table:
    """An open table: where its rows go, and the row and cell being filled."""

    parent: _Sink
    row: list[_Sink] | None = None
    cell: _Sink | None = None

    def close_cell(self) -> None:
        if self.cell is not None:
            self.cell.flush()
            self.cell = None

    def close_row(self) -> None:
        self.close_cell()
        if self.row is not None:
            _emit_row(self.row, self.parent)
            self.row = None


def _preformatted_blocks(raw: str) -> list[str]:
    """Split ``<pre>`` text at blank lines, keeping its line breaks and inner spacing."""
    raw = raw.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")
    blocks = []
    for chunk in _BLANK_LINE.split(raw):
        lines = [line.strip() for line in chunk.split("\n")]
        kept = "\n".join(line for line in lines if line)
        if kept:
            blocks.append(kept)
    return blocks


def _emit_row(cells: list[_Sink], parent: _Sink) -> None:
    """Write a table row into ``parent``: one line, or the blocks of its only filled cell."""
    filled = [cell.blocks for cell in cells if cell.blocks]
    if not filled:
        return
    parent.flush()
    if len(filled) == 1:
        # A row with a single filled cell is layout, not data: keep that cell's blocks, so a
        # document wrapped in a one-cell table keeps its paragraphs.
        parent.blocks.extend(filled[0])
        return
    texts = (_SPACE_RUN.sub(" ", " ".join(blocks)) for blocks in filled)
    parent.blocks.append(" | ".join(texts))


class _TextCollector(HTMLParser):
    """Feeds on HTML and keeps the visible text, block by block."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Sink()
        self._tables: list[_Table] = []
        self._hidden: dict[str, int] = {}
        self._pre_depth = 0
        self._layer_depth = 0
        # Per tag name, for each open element: whether its style asks for a space at its end,
        # whether it is a block tag displayed inline (its end breaks no line either), whether
        # it opens an invisible text layer, and the key of the strike it opens (or None).
        self._open: dict[str, list[tuple[bool, bool, bool, int | None]]] = {}
        # Open strikes, by key: the number of enclosing blocks open when each began, and
        # whether an inline element opened it. A strike ends at its end tag; left unclosed, an
        # inline one ends where the next block begins or its own block ends, a block one with
        # the block around it, so a missing </strike> cannot hide the rest of a document.
        self._struck: dict[int, tuple[int, bool]] = {}
        self._struck_keys = 0
        self._enclosing_depth = 0

    def _sink(self) -> _Sink:
        if not self._tables:
            return self.root
        table = self._tables[-1]
        return table.cell if table.cell is not None else table.parent

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            # Browsers end an unclosed head at <body>; without this, its text would vanish.
            for name in _HEAD_TAGS:
                self._hidden.pop(name, None)
        if tag in _HIDDEN_TAGS:
            self._hidden[tag] = self._hidden.get(tag, 0) + 1
            return
        display, boxed = _layout(attrs)
        # Only plain inline display joins a block tag to its line: an inline-block paragraph
        # of full width still sits on a line of its own.
        inline = display == "inline" and tag in _BLOCK_TAGS and tag not in _VOID_TAGS
        if tag not in _VOID_TAGS:
            layer = _is_text_layer(attrs)
            self._layer_depth += layer
            encloses = tag in _ENCLOSING_TAGS and not inline
            if encloses:
                self._enclosing_depth += 1
                # An inline strike holds inline text: a block starting ends an unclosed one
                # (and an inline strike wrapped around whole blocks keeps their text).
                self._struck = {key: began for key, began in self._struck.items()
                                if not began[1]}
            strike = None
            if tag in _STRUCK_TAGS or _LINE_THROUGH.search(_style(attrs)):
                self._struck_keys += 1
                strike = self._struck_keys
                self._struck[strike] = (self._enclosing_depth, not encloses)
            self._open.setdefault(tag, []).append((boxed, inline, layer, strike))
        if boxed:
            self._sink().add(" ", False)
        if inline:
            return
        if tag == "table":
            self._sink().flush()
            self._tables.append(_Table(parent=self._sink()))
        elif tag == "tr":
            self._start_row()
        elif tag in _CELL_TAGS:
            self._start_cell()
        elif tag in _BLOCK_TAGS:
            self._sink().flush()
            if tag == "pre":
                self._pre_depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_TAGS:
            if self._hidden.get(tag, 0) > 0:
                self._hidden[tag] -= 1
            return
        opened = self._open.get(tag)
        matched = bool(opened)
        boxed, inline, layer, strike = opened.pop() if opened else (False, False, False, None)
        self._layer_depth -= layer
        if strike is not None:
            self._struck.pop(strike, None)
        if matched and tag in _ENCLOSING_TAGS and not inline:
            self._enclosing_depth = max(0, self._enclosing_depth - 1)
            self._struck = {key: began for key, began in self._struck.items()
                            if began[0] <= self._enclosing_depth and not began[1]}
        if boxed:
            self._sink().add(" ", False)
        if inline:
            return
        if tag == "table":
            if self._tables:
                table = self._tables.pop()
                table.close_row()
        elif tag == "tr":
            if self._tables:
                self._tables[-1].close_row()
        elif tag in _CELL_TAGS:
            if self._tables:
                self._tables[-1].close_cell()
        elif tag in _BLOCK_TAGS:
            self._sink().flush()
            if tag == "pre" and self._pre_depth > 0:
                self._pre_depth -= 1

    def handle_data(self, data: str) -> None:
        if any(self._hidden.values()) or self._struck:
            # Struck-through text is what a marked copy deletes; the text in force omits it.
            return
        if self._layer_depth > 0:
            # Kept as preformatted lines: the layer's own line breaks, the source's are spaces.
            self._sink().add(_LAYER_BREAK.sub("\n", data.replace("\n", " ")), True)
            return
        self._sink().add(data, self._pre_depth > 0)

    def _start_row(self) -> None:
        if not self._tables:
            self._sink().flush()
            return
        table = self._tables[-1]
        table.close_row()
        table.row = []

    def _start_cell(self) -> None:
        if not self._tables:
            self._sink().flush()
            return
        table = self._tables[-1]
        table.close_cell()
        if table.row is None:
            table.row = []
        table.cell = _Sink()
        table.row.append(table.cell)

    def finish(self) -> str:
        """Close whatever the markup left open and return the text."""
        self.close()
        while self._tables:
            self._tables.pop().close_row()
        self.root.flush()
        return "\n\n".join(self.root.blocks)


def _layout(attrs: list[tuple[str, str | None]]) -> tuple[str, bool]:
    """The ``display`` of an element's inline style ("" when unset) and whether its layout
    sets it apart as a box on its line."""
    style = _style(attrs)
    if not style:
        return "", False
    found = _DISPLAY.findall(style)
    display = found[-1].lower() if found else ""
    return display, display in ("inline-block", "inline-flex", "inline-table") or bool(
        _BOXED.search(style))


def _style(attrs: list[tuple[str, str | None]]) -> str:
    """An element's inline style ("" when it has none)."""
    return next((value for name, value in attrs if name == "style" and value), "")


def _is_text_layer(attrs: list[tuple[str, str | None]]) -> bool:
    """Whether an element's inline style makes its text an invisible layer over an image."""
    style = _style(attrs)
    return bool(_LAYER_SIZE.search(style)) and bool(_LAYER_COLOUR.search(style))


def html_to_text(html: str) -> str:
    """Return the visible text of ``html``: blocks separated by one blank line."""
    source = html.replace("\r\n", "\n").replace("\r", "\n")
    try:
        return _collect(source)
    except AssertionError:
        # The standard parser asserts on some malformed declarations ("<![0"); such a
        # fragment is not markup, so it is read as text instead of failing the document.
        return _collect(source.replace("<!", "&lt;!"))


def _collect(source: str) -> str:
    collector = _TextCollector()
    collector.feed(source)
    return collector.finish()
