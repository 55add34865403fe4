"""A regex alternation of many literals, factored into a trie: at each position the engine
follows the one branch the text allows instead of trying every literal, and of the literals
that match there the longest is tried first (as in a longest-first alternation)."""

from __future__ import annotations

import re

_Trie = dict[str, "_Trie"]

#: Literals longer than this are listed plainly before the trie (its emission recurses once
#: per character, and such literals are few).
_TRIE_DEPTH = 200


def trie_pattern(literals: set[str]) -> str:
    """An alternation matching any of ``literals``, longest first at each position."""
    long = sorted((x for x in literals if len(x) > _TRIE_DEPTH), key=lambda x: (-len(x), x))
    trie: _Trie = {}
    for literal in literals:
        if len(literal) > _TRIE_DEPTH or not literal:
            continue
        node = trie
        for char in literal:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: _Trie) -> str:
        branches = [re.escape(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        if "" in node:
            # A literal ends here and longer ones go on: the continuation is optional as a whole.
            return "(?:" + "|".join(branches) + ")?"
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    factored = emit(trie)
    if not long:
        return factored
    return "(?:" + "|".join([*map(re.escape, long), *([factored] if factored else [])]) + ")"
