"""Reading a line of a legal instrument by position: runs of blanks, and heading titles.

Everything here takes a position in the line rather than a copy of its rest: a long one-line
document is read at every soft break, and copying the rest each time made indexing quadratic.
"""

from __future__ import annotations

import re

#: Runs read past in a line; each pattern matches the empty string too.
BLANKS = re.compile(r"\s*")
INDENT = re.compile(r"[ \t]*")
INDENT_OR_BAR = re.compile(r"[ \t|]*")
_BARS = re.compile(r"\|*")
BARS_OR_COLONS = re.compile(r"[|:]*")

# A title must look like a heading: mostly capitalised words, not a running sentence.
_SMALL_WORDS = frozenset(
    ["a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "per", "the", "to", "under", "upon", "with", "without", "its", "their", "his", "her", "not", "vs"]
)
_TITLE = re.compile(r"(.{1,100}?)(?:[.:](?:[ \t]|$)|[ \t]+\||[ \t]*[-–—][ \t]|$)")
_CAPS_WORD = r"[A-Z][A-Z0-9&'’\-]*[A-Z0-9]"
_CAPS_HEADING = re.compile(
    rf"({_CAPS_WORD}(?:,?[ \t]+(?:{_CAPS_WORD}|OF|TO|IN|ON|BY|A|&))*)[ \t]+(?=[A-Z][a-z])")


def skip(run: re.Pattern[str], text: str, start: int, end: int | None = None) -> int:
    """Return where the ``run`` (a pattern that matches the empty string) at ``start`` ends."""
    match = run.match(text, start, len(text) if end is None else end)
    assert match is not None  # every run pattern matches the empty string
    return match.end()


def trim_end(text: str, start: int, end: int) -> int:
    """Return the end of ``text[start:end]`` with its trailing whitespace left off."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def has_text(text: str, start: int) -> bool:
    """Whether ``text[start:]`` holds anything but whitespace."""
    return skip(BLANKS, text, start) < len(text)


def char_after(run: re.Pattern[str], text: str, start: int) -> str:
    """The character after the ``run`` at ``start``, or "" at the end."""
    at = skip(run, text, start)
    return text[at:at + 1]


def split_title(text: str, start: int = 0) -> str:
    """Return the heading title that opens ``text[start:]``, or "" when it reads as prose."""
    # The same as stripping blanks, then bars, then blanks off the rest and matching _TITLE.
    begin = skip(BLANKS, text, start)
    end = trim_end(text, begin, len(text))
    begin = skip(BLANKS, text, skip(_BARS, text, begin, end), end)
    if begin >= end:
        return ""
    match = _TITLE.match(text, begin, end)
    title = _title_of(match.group(1)) if match is not None else ""
    if title:
        return title
    # "COSTS Each of the parties ...": a heading in capitals run into its first sentence.
    caps = _CAPS_HEADING.match(text, begin, end)
    return caps.group(1) if caps is not None else ""


_NAME_IN_LOWER_CASE = re.compile(r"[a-z]+[A-Z][A-Za-z0-9]*")


def is_lower_case_name(word: str) -> bool:
    """Whether ``word`` is a name printed with a lower-case first letter ("ctDNA", "eBix",
    "mPhase"): a capital inside it shows it is not a word of prose."""
    return _NAME_IN_LOWER_CASE.fullmatch(word) is not None


def _title_of(matched: str) -> str:
    candidate = matched.strip().rstrip(".:;,").strip()
    if not candidate or not (candidate[0].isupper() or candidate[0] in "[“\"'("
                             or is_lower_case_name(candidate.split()[0])):
        return ""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'’\-]*", candidate)]
    if not words or len(words) > 14:
        return ""
    capitalised = sum(1 for w in words
                      if w[0].isupper() or w.lower() in _SMALL_WORDS or is_lower_case_name(w))
    if capitalised < len(words) * 0.75:
        return ""
    return candidate
