"""Naming a contract as a lawyer would, from its title, parties and date, and telling apart
contracts whose names would coincide."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import date

from pytest_legalbench.spans.cuad_import import party_name

#: Beyond this many parties a name lists the first few and counts the rest.
MAX_NAMED_PARTIES = 3
#: A party entry this long is a sentence of the preamble, not a name.
_LONGEST_PARTY = 80
# Words a title keeps in lower case unless they open it.
_SMALL_WORDS = frozenset({"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or",
                          "the", "to", "with"})
# Entries of CUAD's parties column that describe the parties instead of naming one.
_NOT_A_NAME = re.compile(r"^(?:each|both|either|the parties|collectively|individually|together|"
                         r"hereinafter|all of|any of)\b|referred to", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


def display_title(title: str) -> str:
    """A title as prose writes it: an all-capitals title in title case, stray brackets gone."""
    text = _SPACES.sub(" ", title).strip().rstrip(" ([{-,;:").strip()
    if not text or text != text.upper():
        return text
    words = []
    for position, word in enumerate(text.split(" ")):
        lowered = word.lower()
        if position and lowered in _SMALL_WORDS:
            words.append(lowered)
        elif any(char.isdigit() for char in word) or "." in word.strip("."):
            # "10-K", "U.S." and "NO.1" keep their spelling.
            words.append(word)
        else:
            words.append("-".join(part[:1].upper() + part[1:].lower() for part in word.split("-")))
    return " ".join(words)


def usable_parties(parties: Sequence[str]) -> tuple[str, ...]:
    """The parties that are names, without their defined short names, each once."""
    kept: dict[str, str] = {}
    for party in parties:
        name = party_name(party)
        if (not any(char.isalpha() for char in name) or name[:1] in "([\"'“‘"
                or len(name) > _LONGEST_PARTY or _NOT_A_NAME.search(name)):
            continue
        kept.setdefault(name.casefold(), name)
    return tuple(kept.values())


def long_date(iso: str | None) -> str | None:
    """An ISO date as "June 21, 1999"; None for None."""
    if iso is None:
        return None
    day = date.fromisoformat(iso)
    return f"{_MONTHS[day.month - 1]} {day.day}, {day.year}"


def listed(names: Sequence[str]) -> str:
    """Names joined as prose: "A", "A and B", "A, B and C", "A, B and 3 other parties"."""
    if len(names) > MAX_NAMED_PARTIES:
        shown = MAX_NAMED_PARTIES - 1
        names = [*names[:shown], f"{len(names) - shown} other parties"]
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def titled(title: str, dated: str | None = None) -> str:
    """"the <Title>" (with "dated <date>" when given); a title opening with "the" keeps it."""
    shown = display_title(title)
    article = "" if shown.casefold().startswith("the ") else "the "
    return f"{article}{shown}" + (f" dated {dated}" if dated else "")


def contract_name(title: str, parties: Sequence[str], dated: str | None = None) -> str:
    """"the <Title> between A and B" (or "of A" with one party), dated when asked."""
    names = usable_parties(parties)
    who = ""
    if len(names) > 1:
        who = f" between {listed(names)}"
    elif names:
        who = f" of {names[0]}"
    return f"{titled(title)}{who}" + (f", dated {dated}" if dated else "")


def distinct_names(keys: Sequence[str], undated: Callable[[str], str | None],
                   dated: Callable[[str], str | None]) -> Mapping[str, str | None]:
    """Name every key so that no two share a name: undated where that is unique, else dated,
    else None (the key cannot be told apart from another by its name)."""

    def unique(names: Mapping[str, str | None]) -> set[str]:
        counts: dict[str, int] = {}
        for name in names.values():
            if name is not None:
                counts[name.casefold()] = counts.get(name.casefold(), 0) + 1
        return {key for key, name in names.items()
                if name is not None and counts[name.casefold()] == 1}

    first = {key: undated(key) for key in keys}
    settled = unique(first)
    # A name unique without its date keeps it; the others are dated and must then be unique
    # among all names, the settled ones included.
    second = {key: (first[key] if key in settled else dated(key)) for key in keys}
    final = settled | unique(second)
    return {key: second[key] if key in final else None for key in keys}
