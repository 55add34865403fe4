"""Defined terms a text introduces: quoted terms with a defining verb or in a parenthetical."""

from __future__ import annotations

import re

# Defined terms: a quoted term (straight, curly double or curly single quotes) followed by a
# defining verb, or a parenthetical that introduces one, as in Acme Ltd. (the "Supplier").
_DQ = r"[“\"]([^\"“”\n]{1,80})[”\"]"
_SQ = r"‘([^‘’\n]{1,80})’"
_QUOTED = re.compile(rf"{_DQ}|{_SQ}")
_QUOTED_NC = r"(?:[“\"][^\"“”\n]{1,80}[”\"]|‘[^‘’\n]{1,80}’)"
# Quoted terms in a row: "A" or "B", "A," "B," and "C" (commas inside or outside the quotes).
_HEAD = rf"{_QUOTED_NC}(?:\s*(?:[,;]\s*)?(?:(?:and/or|or|and)\s+)?{_QUOTED_NC})*"
_QUALIFIER = (
    r"(?:\s*,?\s+(?:of|with\s+respect\s+to|as\s+to|in\s+respect\s+of|when\s+used|as\s+used"
    r"|for\s+(?:the\s+)?purposes?\s+of)\b[^\"“”.;:\n]{0,80}?)?"
)
_VERB = (
    r"\s*[,:]?\s*(?i:(?:shall\s+)?(?:means?|have\s+the\s+meanings?|has\s+the\s+meaning"
    r"|(?:is|are)\s+defined|refers?\s+to|refer\s+to|includes?|include"
    r"|be\s+deemed\s+to\s+(?:mean|include)))\b"
)
_MEANS_STYLE = re.compile(rf"({_HEAD}){_QUALIFIER}{_VERB}")
_ENUMERATOR = r"(?:(?:Section\s+)?\d+(?:\.\d+)*\.?|\(?[A-Za-z0-9]{1,4}[.)])"
_DEFINITION_HEAD = re.compile(
    rf"\s*(?:{_ENUMERATOR}\s+)?(?:(?i:the)\s+(?:(?i:terms?|words?|phrases?|expressions?)\s+)?)?"
    rf"({_HEAD}){_QUALIFIER}{_VERB}"
)
# An inline definition: a parenthetical whose quoted term follows nothing or a cue word.
_PARENTHETICAL = re.compile(r"\(([^()\"“‘]{0,80})([\"“‘][^()]{0,200})\)")
_PARENTHETICAL_CUE = re.compile(
    r"(?:^|,|\b(?i:as|the|a|an|each|collectively|together|individually|jointly|severally"
    r"|hereinafter|hereafter|herein|called|its|their|respectively|any|such|this|these)\b)"
    r"\s*,?\s*$"
)
_PARENTHETICAL_TAIL = re.compile(r"[\s,.;]*$")
_QUOTE_CHARS = ("\"", "“", "‘")


def _clean_term(raw: str) -> str:
    """Collapse whitespace and drop punctuation placed inside the closing quote."""
    return " ".join(raw.split()).strip(",.;: ")


def _quoted_terms(span: str) -> list[str]:
    """Return the cleaned quoted terms of ``span`` in order."""
    terms = (_clean_term(double or single) for double, single in _QUOTED.findall(span))
    return [term for term in terms if term]


def _parenthetical_definitions(text: str) -> list[tuple[int, str]]:
    """Return (position, term) for each ``(the "X")``-style definition in ``text``."""
    found: list[tuple[int, str]] = []
    for match in _PARENTHETICAL.finditer(text):
        prefix, body = match.group(1), match.group(2)
        if not _PARENTHETICAL_CUE.search(prefix):
            continue
        last_quote = max(body.rfind("\""), body.rfind("”"), body.rfind("’"))
        if last_quote < 0 or not _PARENTHETICAL_TAIL.fullmatch(body[last_quote + 1:]):
            continue
        found.extend((match.start(2), term) for term in _quoted_terms(body))
    return found


def find_inline_definitions(text: str) -> tuple[str, ...]:
    """Return the terms ``text`` defines ("X" means ... / (the "X")), ordered and deduplicated."""
    if not any(quote in text for quote in _QUOTE_CHARS):
        return ()
    found = [
        (match.start(1), term)
        for match in _MEANS_STYLE.finditer(text)
        for term in _quoted_terms(match.group(1))
    ]
    found.extend(_parenthetical_definitions(text))
    found.sort(key=lambda item: item[0])
    return tuple(dict.fromkeys(term for _, term in found))


def definition_head(text: str) -> str | None:
    """Return the term when ``text`` starts with a definition (``"X" means ...``), else None."""
    match = _DEFINITION_HEAD.match(text)
    if match is None:
        return None
    terms = _quoted_terms(match.group(1))
    return terms[0] if terms else None


def defines_term(text: str) -> bool:
    """Whether ``text`` defines at least one term (either style)."""
    if not any(quote in text for quote in _QUOTE_CHARS):
        return False
    if any(_quoted_terms(m.group(1)) for m in _MEANS_STYLE.finditer(text)):
        return True
    return bool(_parenthetical_definitions(text))
