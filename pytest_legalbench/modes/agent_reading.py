"""What navagent has read, kept under the payload budget as a hard maximum.

The provisions read are the mode's provisions: measured like every other mode's (evidence
recall, payload). Text already read costs nothing again; a provision holding provisions read
before replaces them and is charged only for what it adds; a read that would pass the budget
is refused whole, never cut to fit.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_legalbench.modes.base import Provision, payload_tokens


class OverBudget(Exception):
    """A read that does not fit what is left of the budget."""

    def __init__(self, needed: int, left: int) -> None:
        super().__init__(f"needs {needed:,} more tokens, {left:,} left")
        self.needed = needed
        self.left = left


def _inside(inner: Provision, outer: Provision) -> bool:
    if inner.unlocated or outer.unlocated:
        # Text that has no span is the same reading only when it is the same text.
        return inner.unlocated and outer.unlocated and inner.text == outer.text
    return (inner.doc_id == outer.doc_id and outer.start <= inner.start
            and inner.end <= outer.end)


class Reading:
    """The provisions read so far, in reading order, and the budget they spend."""

    def __init__(self, budget: int) -> None:
        if budget < 1:
            raise ValueError(f"a reading budget must be at least 1 token, got {budget}")
        self.budget = budget
        self._read: list[Provision] = []

    @property
    def provisions(self) -> tuple[Provision, ...]:
        """What was read, each text once, in the order it was first read."""
        return tuple(self._read)

    @property
    def spent(self) -> int:
        """Tokens of the provisions read."""
        return payload_tokens(self.provisions)

    @property
    def left(self) -> int:
        """Tokens of the budget still unspent."""
        return self.budget - self.spent

    def take(self, shown: Sequence[Provision]) -> int:
        """Add ``shown`` and return what it cost; OverBudget (nothing taken) when it does not
        fit."""
        after = self._with(shown)
        added = payload_tokens(after) - self.spent
        if payload_tokens(after) > self.budget:
            raise OverBudget(added, self.left)
        self._read = list(after)
        return added

    def _with(self, shown: Sequence[Provision]) -> tuple[Provision, ...]:
        found = list(self._read)
        for provision in shown:
            if any(_inside(provision, held) for held in found):
                continue
            # Kept in place of the first provision it holds, so the order stays the reading's.
            held = [i for i, p in enumerate(found) if _inside(p, provision)]
            if held:
                found[held[0]] = provision
                found = [p for i, p in enumerate(found) if i == held[0] or i not in held]
            else:
                found.append(provision)
        return tuple(found)
