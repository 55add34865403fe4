"""The defined-term graph: which definition nodes a provision's wording depends on."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pytest_legalbench.navindex.trie_pattern import trie_pattern


class TermIndex:
    """Finds uses of defined terms (case-sensitive, whole words) in a provision's text."""

    def __init__(self, definitions: Mapping[str, str]) -> None:
        """Index ``definitions``, a map from defined term to the id of the node defining it."""
        self.definitions = dict(definitions)
        # Longest first, so "Applicable Margin" wins over "Applicable" at the same position;
        # as a trie, so thousands of terms cost a few branches per character, not thousands.
        terms = {term for term in self.definitions if term}
        self._pattern = (
            re.compile(r"(?<![\w])(?:" + trie_pattern(terms) + r")(?![\w])") if terms else None
        )

    def uses(self, text: str, *, exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
        """Return ids of the definitions of terms used in ``text``, in order of first use."""
        if self._pattern is None:
            return ()
        found: dict[str, None] = {}
        for match in self._pattern.finditer(text):
            node_id = self.definitions[match.group(0)]
            if node_id not in exclude:
                found.setdefault(node_id)
        return tuple(found)
