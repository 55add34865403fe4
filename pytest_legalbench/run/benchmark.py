"""A session's benchmark: one item runner per product, each item sent to the one it belongs to."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.run.items import Case
from pytest_legalbench.run.protocol import ItemRunner, Record


class Benchmark:
    """The item runners of a session (QA and GANDR), tried in order."""

    def __init__(self, runners: Sequence[ItemRunner], client: ModelClient | None = None) -> None:
        self.runners = tuple(runners)
        self.client = client
        """The client every runner's calls go through (its ledger holds the session's calls)."""

    def runner_for(self, mode: str) -> ItemRunner:
        """The runner whose product ``mode`` belongs to."""
        for runner in self.runners:
            if runner.handles(mode):
                return runner
        raise ValueError(f"no product runs items of mode {mode!r}")

    def run(self, case: Case, group: str = "benchmark") -> tuple[str, Record]:
        """Run one item; return its product's name and its record."""
        runner = self.runner_for(case.mode)
        return runner.product, runner.run(case, group)
