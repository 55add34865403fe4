"""Reading a memo the way the backend's roles need it: its labelled blocks and its claims.

Written for the backend from the prompts' own description of the format, not shared with
GANDR's checks: a stand-in for a model that reused them would repeat their mistakes.

A block opens with its label in square brackets at the start of a line (``[RULE]``, any
case, after optional spaces or tabs) and runs to the next label. A claim is one statement:
it ends after a run of ``{cite: ID}`` markers, at the end of a sentence, at a blank line and
where a new line starts a list item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_legalbench.gandr.wire import BLOCK_LABELS
from pytest_legalbench.reference_backend.markers import find_markers, without_markers

_LABELS = frozenset(BLOCK_LABELS)


@dataclass(frozen=True)
class Block:
    """One labelled block of a memo: its label in capitals and its text, stripped."""

    label: str
    text: str


def _labels(text: str) -> list[tuple[int, int, str]]:
    """``(line start, end of label, LABEL)`` for each line that opens with a block label."""
    found = []
    for line in re.finditer(r"^[ \t]*\[(?P<name>[A-Za-z]+)\]", text, re.MULTILINE):
        name = line.group("name").upper()
        if name in _LABELS:
            found.append((line.start(), line.end(), name))
    return found


def split_blocks(text: str) -> tuple[Block, ...]:
    """The labelled blocks of ``text`` in order; whatever precedes the first label is not one."""
    labels = _labels(text)
    ends = [start for start, _, _ in labels[1:]] + [len(text)]
    return tuple(Block(name, text[after:end].strip())
                 for (_, after, name), end in zip(labels, ends))


# --- claims ---------------------------------------------------------------------------------

# Punctuation that may close a sentence or trail a marker run, and what may open a sentence.
_CLOSERS = ")]\"'’”"
_TRAILING = ".,;:!?" + _CLOSERS
_OPENERS = "\"'“‘(["
_STOPS = ".;?!"
# A period after one of these words does not end a sentence, even before a capital. "No" is
# left out: it is also an answer ("No. The Buyer ...") and "No. 2" never splits anyway.
ABBREVIATIONS = frozenset({
    # firms and people
    "inc", "ltd", "co", "corp", "bros", "mr", "mrs", "ms", "messrs", "dr", "prof", "hon", "jr",
    "sr", "st",
    # drafting
    "sec", "secs", "art", "arts", "cl", "para", "paras", "sch", "sched", "ex", "exh", "reg",
    "regs", "ch", "pt", "vol", "fig", "ed", "rev", "ref",
    # Latin and approximations
    "cf", "viz", "vs", "al", "approx", "est",
})
_ITEM = re.compile(r"[ \t]*(?:[-*•+]|[0-9]{1,3}[.)]|\([A-Za-z0-9]{1,4}\))[ \t]")
_BLANK_LINE = re.compile(r"[ \t]*\n")
_BULLET = re.compile(r"(?:[-*•+]|[0-9]{1,3}[.)])[ \t]+")


def _is_abbreviation(stretch: str, period: int) -> bool:
    """Whether the word before the period at ``stretch[period]`` is an abbreviation."""
    start = period
    while start > 0 and not stretch[start - 1].isspace():
        start -= 1
    word = stretch[start:period].lstrip(_OPENERS)
    letters = word.split(".")
    # Initials ("U.S.", "e.g.") and a lone lower-case letter ("v.", "p.") never end one; a
    # lone capital may ("... in Exhibit B. The Buyer ...").
    initials = len(letters) > 1 and all(len(p) == 1 and p.isascii() and p.isalpha()
                                        for p in letters)
    return word.lower() in ABBREVIATIONS or initials or (len(word) == 1 and word.islower())


def _sentence_ends(stretch: str) -> list[int]:
    """Where sentences end in marker-free text: after a stop and any closers, when space and
    then a capital (perhaps behind an opening quote or bracket) follow."""
    ends = []
    for index, char in enumerate(stretch):
        if char not in _STOPS:
            continue
        after = index + 1
        while after < len(stretch) and stretch[after] in _CLOSERS:
            after += 1
        probe = after
        while probe < len(stretch) and stretch[probe].isspace():
            probe += 1
        if probe == after:
            continue
        if probe < len(stretch) and stretch[probe] in _OPENERS:
            probe += 1
        if probe == len(stretch) or not stretch[probe].isupper():
            continue
        if char == "." and _is_abbreviation(stretch, index):
            continue
        ends.append(after)
    return ends


def _line_breaks(stretch: str) -> list[int]:
    """The line breaks of marker-free text that end a claim: before a blank line or a line
    that starts a list item."""
    breaks = []
    for found in re.finditer("\n", stretch):
        if _ITEM.match(stretch, found.end()) or _BLANK_LINE.match(stretch, found.end()):
            breaks.append(found.start())
    return breaks


def _cuts(text: str) -> set[int]:
    """Every position of ``text`` at which one claim ends and the next may begin."""
    markers = find_markers(text)
    cuts: set[int] = set()
    previous = 0
    for index, marker in enumerate(markers):
        stretch = text[previous:marker.start]
        cuts.update(previous + at for at in _sentence_ends(stretch) + _line_breaks(stretch))
        previous = marker.end
        following = markers[index + 1] if index + 1 < len(markers) else None
        gap = text[marker.end:following.start] if following else None
        # Markers apart only by spaces, commas or semicolons form one run that ends a claim
        # once, together with the punctuation right after it.
        if gap is None or not all(char.isspace() or char in ",;" for char in gap):
            end = marker.end
            while end < len(text) and text[end] in _TRAILING:
                end += 1
            cuts.add(end)
    stretch = text[previous:]
    cuts.update(previous + at for at in _sentence_ends(stretch) + _line_breaks(stretch))
    return cuts


def _holds_words(piece: str) -> bool:
    return any(not (char.isspace() or char in _TRAILING) for char in piece)


def claims(text: str) -> tuple[str, ...]:
    """The claims of ``text`` in order, stripped and without a leading ``-``/``1.`` bullet.

    A piece holding only markers and punctuation belongs to the claim before it, so each
    marker lands in exactly one claim; a piece of punctuation alone is no claim.
    """
    pieces: list[str] = []
    # Text between the last kept piece and the next: kept only if a marker joins that piece,
    # so that a claim is always one stretch of the text.
    skipped = ""
    previous = 0
    for cut in sorted(_cuts(text) | {len(text)}):
        piece, previous = text[previous:cut], cut
        marked = bool(find_markers(piece))
        if marked and pieces and not _holds_words(without_markers(piece, "")):
            pieces[-1] += skipped + piece
            skipped = ""
        elif marked or _holds_words(piece):
            pieces.append(piece)
            skipped = ""
        else:
            skipped += piece
    cleaned = (_without_bullet(piece.strip()) for piece in pieces)
    return tuple(claim for claim in cleaned if _holds_words(claim))


def _without_bullet(claim: str) -> str:
    bullet = _BULLET.match(claim)
    return claim[bullet.end():].strip() if bullet else claim
