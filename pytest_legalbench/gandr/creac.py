"""The CREAC memo: its labelled blocks, the structural ``protocol_check`` and the split of a
block into atomic claims (SPEC §11). Regular expressions only, no model call."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from pytest_legalbench.gandr.wire import BLOCK_LABELS, CITE_MARKER

# A label opens a line (after optional indentation and markdown heading hashes) and may be
# wrapped in emphasis: ``**[RULE]**``, ``## _[APPLICATION]_``.
_LABEL = re.compile(
    r"^[ \t]*(?:\#{1,6}[ \t]*)?(?P<em>\*{1,3}|_{1,3})?"
    rf"\[(?P<label>{'|'.join(dict.fromkeys(BLOCK_LABELS))})\](?P=em)?",
    re.IGNORECASE | re.MULTILINE,
)

# Where each block belongs in BLOCK_LABELS; the two conclusions are told apart by position.
_OPENING, _CLOSING = 0, 4
_RANK = {"RULE": 1, "EXPLANATION": 2, "APPLICATION": 3}


@dataclass(frozen=True)
class Block:
    """One labelled block: its upper-case label and its stripped text."""

    label: str
    text: str


@dataclass(frozen=True)
class ProtocolReport:
    """The structural verdict on a memo: pass or fail, why, and the labels found in order."""

    passed: bool
    problems: tuple[str, ...]
    labels: tuple[str, ...]


def split_blocks(text: str) -> tuple[Block, ...]:
    """The labelled blocks of ``text`` in order; text before the first label is dropped."""
    found = list(_LABEL.finditer(text))
    ends = [match.start() for match in found[1:]] + [len(text)]
    return tuple(
        Block(match.group("label").upper(), text[match.end():end].strip())
        for match, end in zip(found, ends)
    )


def _name(rank: int) -> str:
    if rank == _OPENING:
        return "the opening [CONCLUSION]"
    if rank == _CLOSING:
        return "the closing [CONCLUSION]"
    return f"[{BLOCK_LABELS[rank]}]"


def _placed(labels: tuple[str, ...]) -> list[tuple[int, int]]:
    """``(rank, index)`` of each block that takes a place in the schema, in written order.

    Of several conclusions the first is the opening one and the last the closing one; a lone
    conclusion is the opening one only when no other label precedes it. Repeats of the other
    labels after their first occurrence take no place (they are reported as repeats).
    """
    conclusions = [i for i, label in enumerate(labels) if label == "CONCLUSION"]
    placed: list[tuple[int, int]] = []
    seen: set[str] = set()
    for index, label in enumerate(labels):
        if label != "CONCLUSION":
            if label not in seen:
                placed.append((_RANK[label], index))
            seen.add(label)
        elif len(conclusions) == 1:
            placed.append((_OPENING if index == 0 else _CLOSING, index))
        elif index == conclusions[0]:
            placed.append((_OPENING, index))
        elif index == conclusions[-1]:
            placed.append((_CLOSING, index))
    return placed


def _count_problems(labels: tuple[str, ...], placed: list[tuple[int, int]]) -> list[str]:
    problems: list[str] = []
    ranks = {rank for rank, _ in placed}
    for rank in range(len(BLOCK_LABELS)):
        if rank not in ranks:
            problems.append(f"{_name(rank)} block is missing")
    for label in dict.fromkeys(labels):
        expected = BLOCK_LABELS.count(label)
        written = labels.count(label)
        if written > expected:
            problems.append(f"[{label}] appears {written} times, expected {expected}")
    return problems


def _empty_conclusions(blocks: tuple[Block, ...], placed: list[tuple[int, int]]) -> list[str]:
    problems = []
    for rank, index in placed:
        if rank in (_OPENING, _CLOSING):
            substance = CITE_MARKER.sub("", blocks[index].text)
            if not substance.strip():
                problems.append(f"{_name(rank)} block is empty")
    return problems


def protocol_check(text: str) -> ProtocolReport:
    """Check the five-block structure; each problem found names the block at fault.

    Passes iff the labels are exactly ``BLOCK_LABELS`` in order and both conclusions still hold
    text once cite markers and whitespace are removed. Text before the first label is allowed.
    """
    if not text.strip():
        return ProtocolReport(False, ("the answer is empty",), ())
    blocks = split_blocks(text)
    labels = tuple(block.label for block in blocks)
    if not blocks:
        expected = " ".join(f"[{label}]" for label in BLOCK_LABELS)
        return ProtocolReport(False, (f"no block labels found (expected {expected})",), ())
    placed = _placed(labels)
    problems = _count_problems(labels, placed)
    problems.extend(
        f"{_name(first)} appears before {_name(second)}"
        for (first, _), (second, _) in pairwise(placed)
        if first > second
    )
    problems.extend(_empty_conclusions(blocks, placed))
    if labels != BLOCK_LABELS and not problems:
        problems.append("the blocks are not in the order " + " ".join(
            f"[{label}]" for label in BLOCK_LABELS))
    return ProtocolReport(not problems, tuple(problems), labels)


# --- atomic claims -------------------------------------------------------------------------

_BETWEEN_MARKERS = re.compile(r"[\s,;]*")
_AFTER_MARKERS = re.compile(r"[.,;:!?)\]\"'’”]*")
_SENTENCE_END = re.compile(r"[.;?!][)\]\"'’”]*(?=\s)")
_ITEM_START = r"(?:[-*•+]|\d{1,3}[.)]|\([A-Za-z0-9]{1,4}\))[ \t]"
_NEXT_STARTS_SENTENCE = re.compile(r"\s+[\"'“‘(\[]?[^\W\d_]")
_BREAK = re.compile(rf"\n(?=[ \t]*{_ITEM_START})|\n[ \t]*\n")
_LEADING_BULLET = re.compile(r"^(?:[-*•+]|\d{1,3}[.)])[ \t]+")
_INITIALISM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_SEPARATORS = re.compile(r"[\s.,;:!?)\]\"'’”]*")

#: Words that, ending in a period, do not end a sentence even before a capital ("Art. IV",
#: "Mr. Smith"). "No." is absent on purpose: it is also the answer word, and "No. 2" is never
#: split anyway because a digit follows.
ABBREVIATIONS = frozenset({
    "sec", "secs", "art", "arts", "cl", "cls", "para", "paras", "sch", "sched", "ex", "exh",
    "ch", "pt", "pts", "subsec", "reg", "regs", "mr", "mrs", "ms", "messrs", "dr", "prof",
    "hon", "st", "inc", "ltd", "co", "corp", "bros", "jr", "sr", "cf", "viz", "vs", "al",
    "approx", "fig", "vol", "ed", "rev", "ref", "dept", "est", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
})


def _is_abbreviation(text: str, period: int) -> bool:
    """Whether the word ending at ``text[period] == '.'`` is an abbreviation, not a sentence."""
    start = period
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    word = text[start:period].lstrip("(\"'“‘[")
    if word.lower() in ABBREVIATIONS or _INITIALISM.fullmatch(word):
        return True
    # A lone lower-case letter is "v." or "p."; a lone capital ("Exhibit B.") may end one.
    return len(word) == 1 and word.islower()


def _sentence_ends(masked: str) -> list[int]:
    ends = []
    for match in _SENTENCE_END.finditer(masked):
        rest = masked[match.end():]
        if not _starts_capital(rest):
            continue
        if masked[match.start()] == "." and _is_abbreviation(masked, match.start()):
            continue
        ends.append(match.end())
    return ends


def _starts_capital(rest: str) -> bool:
    found = _NEXT_STARTS_SENTENCE.match(rest)
    return found is not None and found.group(0)[-1].isupper()


def _group_end(text: str, markers: list[tuple[int, int]], index: int) -> int:
    """Where the marker group holding ``markers[index]`` ends, with the punctuation after it."""
    end = markers[index][1]
    for start, next_end in markers[index + 1:]:
        if not _BETWEEN_MARKERS.fullmatch(text, end, start):
            break
        end = next_end
    trailing = _AFTER_MARKERS.match(text, end)
    return trailing.end() if trailing else end


def claims(block_text: str) -> tuple[str, ...]:
    """Split a block into atomic claims.

    A claim ends (1) after a group of one or more ``{cite: ...}`` markers separated only by
    whitespace, commas or semicolons, together with the punctuation right after the group;
    (2) after ``.``, ``;``, ``?`` or ``!`` (and any closing quote or bracket) when whitespace
    and then a capital letter (optionally behind an opening quote or bracket) or a list item
    follow, except after an abbreviation (``e.g.``, ``U.S.``, ``Art.``, a lone lower-case
    letter; see ``ABBREVIATIONS``); digits after a period never split, so "Sec. 4", "No. 2",
    "1.5" and "4.2(a)" stay whole; (3) at a line break that starts a list item (``-``, ``*``,
    ``•``, ``+``, ``1.``, ``1)``, ``(a)``); (4) at a blank line. Nothing inside a marker is a
    boundary. Claims are stripped, lose a leading ``-``/``*``/``•``/``+``/``1.``/``1)`` bullet,
    and empty ones are dropped; a piece holding only markers and punctuation joins the claim
    before it, so every marker stays in exactly one claim.
    """
    markers = [(m.start(), m.end()) for m in CITE_MARKER.finditer(block_text)]
    masked = list(block_text)
    for start, end in markers:
        masked[start:end] = "x" * (end - start)
    plain = "".join(masked)
    cuts = {_group_end(block_text, markers, i) for i in range(len(markers))}
    cuts.update(_sentence_ends(plain))
    cuts.update(m.start() for m in _BREAK.finditer(plain))
    cuts = {c for c in cuts if not any(start < c < end for start, end in markers)}
    pieces: list[str] = []
    previous = 0
    for cut in sorted(cuts | {len(block_text)}):
        piece = block_text[previous:cut]
        previous = cut
        only_markers = not _SEPARATORS.fullmatch(piece) and _SEPARATORS.fullmatch(
            CITE_MARKER.sub("", piece)
        )
        if only_markers and pieces:
            pieces[-1] += piece
        else:
            pieces.append(piece)
    stripped = (_LEADING_BULLET.sub("", piece.strip()).strip() for piece in pieces)
    return tuple(claim for claim in stripped if claim)
