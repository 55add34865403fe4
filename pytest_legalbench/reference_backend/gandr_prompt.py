"""Reading GANDR's prompts: the output format asked for, the passages shown, headed sections.

GANDR's templates lay a user turn out as sections, each a heading line in capitals ending in
a colon ("QUESTION:", "RETRIEVED PASSAGES (cite only these ids):") followed by its body up to
the next heading after a blank line; answers and memos sit between ``---`` fence lines.
Passages are ``<passage id=... clause=...>`` elements. A writing prompt names what it wants
on a line ``Output format: NAME.``; the staged conversation asks for a new format in each
user turn, so the last user turn's line takes precedence over the system prompt's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_legalbench.reference_backend.prompt_parts import elements
from pytest_legalbench.reference_backend.wire import MessagesRequest

_FORMAT_LINE = re.compile(r"^[ \t]*Output format:[ \t]*(?P<name>[A-Za-z][\w-]*)[ \t]*\.?[ \t]*$",
                          re.MULTILINE)
_PASSAGE_ELEMENT = re.compile(r"<passage\b.*?</passage>", re.DOTALL)
# Capitals, spaces and apostrophes, then an optional parenthesised remark, then the colon.
_HEADING = r"[A-Z][A-Z'’ ]*(?:\([^)\n]*\))?:[ \t]*"
_NEXT_HEADING = re.compile(rf"\n[ \t]*\n(?={_HEADING}$)", re.MULTILINE)


@dataclass(frozen=True)
class ShownPassage:
    """A passage as a prompt shows it: the id a citation must use, its clause and its text."""

    passage_id: str
    clause: str
    text: str


def output_format(request: MessagesRequest) -> str | None:
    """The format a writing prompt asks for (lower case); None when it names none."""
    for text in (request.last_user_text, request.system):
        # A format line quoted inside a passage is document text, not an instruction.
        found = _FORMAT_LINE.findall(_PASSAGE_ELEMENT.sub(" ", text))
        if found:
            return str(found[-1]).lower()
    return None


def shown_passages(text: str) -> tuple[ShownPassage, ...]:
    """The ``<passage>`` elements of ``text`` in order, a repeated id kept once (first)."""
    found: dict[str, ShownPassage] = {}
    for attributes, body in elements(text, "passage"):
        passage_id = attributes.get("id", "").strip()
        if passage_id and passage_id not in found:
            found[passage_id] = ShownPassage(passage_id, attributes.get("clause", "").strip(),
                                             body.strip())
    return tuple(found.values())


def conversation_passages(request: MessagesRequest) -> tuple[ShownPassage, ...]:
    """The passages of the latest user turn that shows any (earlier turns of a staged
    conversation carry the passages its later steps work on)."""
    for turn in reversed(request.turns):
        if turn.role == "user":
            found = shown_passages(turn.text)
            if found:
                return found
    return ()


def section(text: str, heading: str) -> str | None:
    """The stripped body under the last ``HEADING:`` line of ``text``; None when absent.

    ``heading`` is matched as written, with any parenthesised remark after it allowed.
    """
    pattern = re.compile(rf"^[ \t]*{re.escape(heading)}(?:[ \t]*\([^)\n]*\))?:[ \t]*\n",
                         re.MULTILINE)
    starts = list(pattern.finditer(text))
    if not starts:
        return None
    body = text[starts[-1].end():]
    ending = _NEXT_HEADING.search(body)
    return (body[:ending.start()] if ending else body).strip()


def fenced(text: str, heading: str) -> str | None:
    """The text between the ``---`` fences under ``HEADING:``; None when absent.

    The closing fence is the first ``---`` line followed by another heading or by the end,
    so a horizontal rule inside the fenced answer does not cut it short.
    """
    pattern = re.compile(
        rf"^[ \t]*{re.escape(heading)}:[ \t]*\n---[ \t]*\n(?P<body>.*?)\n?^---[ \t]*"
        rf"(?=\n[ \t]*\n{_HEADING}$|\s*\Z)", re.MULTILINE | re.DOTALL)
    found = list(pattern.finditer(text))
    return found[-1].group("body").strip() if found else None


def conversation_question(request: MessagesRequest) -> str:
    """The ``QUESTION:`` section of the latest user turn that has one ("" when none does)."""
    for turn in reversed(request.turns):
        if turn.role == "user":
            found = section(turn.text, "QUESTION")
            if found is not None:
                return found
    return ""


def last_assistant_text(request: MessagesRequest) -> str:
    """The text of the last assistant turn ("" when there is none)."""
    said = [turn.text for turn in request.turns if turn.role == "assistant"]
    return said[-1] if said else ""
