"""How much of a run finished: the items it planned and the items that ended with a record or
a skip, and what a summary's first line says of it."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_legalbench.results.run_header import PARTIAL_NOTE


@dataclass(frozen=True)
class Progress:
    """Items finished of items planned."""

    finished: int
    planned: int
    stopped: str | None = None
    """Why the run stopped early on its own (the cost limit), or None."""

    @property
    def partial(self) -> bool:
        """Whether some planned item never finished, or the run stopped itself."""
        return self.finished < self.planned or self.stopped is not None

    @property
    def label(self) -> str:
        """``partial: N of M items`` (with why it stopped), or ``""`` for a whole run."""
        if not self.partial:
            return ""
        why = f", {self.stopped}" if self.stopped else ""
        return f"{PARTIAL_NOTE}{self.finished} of {self.planned} items{why}"

