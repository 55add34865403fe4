"""Where each of many terms first occurs in a text, in one pass (Aho-Corasick), with exactly
what ``str.find`` would give: one substring search per term costs terms x text, which a long
one-line document with thousands of defined terms turns quadratic."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable


def first_occurrences(terms: Iterable[str], text: str) -> dict[str, int]:
    """Each non-empty term's first index in ``text`` (``text.find(term)``); -1 when absent."""
    wanted = sorted({term for term in terms if term})
    goto: list[dict[str, int]] = [{}]
    ends: list[list[str]] = [[]]
    for term in wanted:
        state = 0
        for char in term:
            nxt = goto[state].get(char)
            if nxt is None:
                goto.append({})
                ends.append([])
                nxt = len(goto) - 1
                goto[state][char] = nxt
            state = nxt
        ends[state].append(term)
    fail = [0] * len(goto)
    queue = deque(goto[0].values())
    while queue:
        state = queue.popleft()
        for char, nxt in goto[state].items():
            queue.append(nxt)
            back = fail[state]
            while back and char not in goto[back]:
                back = fail[back]
            fail[nxt] = goto[back].get(char, 0) if goto[back].get(char, 0) != nxt else 0
            ends[nxt] = ends[nxt] + ends[fail[nxt]]
    found: dict[str, int] = {}
    state = 0
    for at, char in enumerate(text):
        while state and char not in goto[state]:
            state = fail[state]
        state = goto[state].get(char, 0)
        for term in ends[state]:
            if term not in found:
                found[term] = at - len(term) + 1
        if len(found) == len(wanted):
            break
    return {term: found.get(term, -1) for term in wanted}
