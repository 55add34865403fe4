"""The defined-term graph: which definition nodes a provision's wording depends on."""

from __future__ import annotations

import re
from collections.abc import Mapping


class TermIndex:
    """Finds uses of defined terms (case-sensitive, whole words) in a provision's text."""

    def __init__(self, definitions: Mapping[str, str]) -> None:
        """Index ``definitions``, a map from defined term to the id of the node defining it."""
        self.definitions = dict(definitions)
        terms = sorted(self.definitions, key=lambda term: (-len(term), term))
        # Longest first, so "Applicable Margin" wins over "Applicable" at the same position.
        self._pattern = (
            re.compile(r"(?<![\w])(?:" + "|".join(re.escape(t) for t in terms) + r")(?![\w])")
            if terms else None
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
