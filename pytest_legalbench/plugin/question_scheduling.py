"""xdist schedulers that keep a question's benchmark items on one worker.

Every item of a question pairs its mode with inject's answer to that question, answered once
per process. Spread item by item (xdist's ``load``), each worker answers inject again for
nearly every question: replayed, that repeats the heaviest requests on every worker; live, it
pays for the whole-corpus prompt twice and records it twice. So benchmark items are scheduled
in question groups:

- ``QuestionScopes``: xdist's scope scheduler with a question as the scope of its items; any
  other test is its own scope, or its ``xdist_group``'s when xdist could mark it
  (``nodeid@group``). Used for ``--dist loadgroup``, whose marks pytest 9.2 no longer carries
  to the controller.
- ``QuestionsOrLoad``: for ``--dist load`` (what ``-n`` gives), chooses once the workers have
  collected: question scopes when the collection holds benchmark items, xdist's own load
  scheduling (which hands out tests in larger batches) when it holds none.
- ``QuestionShares``: a batch run's (``--legalbench-batch``): question scopes too, but each
  worker gets its whole share at once, by the rule the worker itself applies to know which
  items its first pass sends through batches (``plugin.item_shares``).

The controller never collects, so items are recognised by their ids, ``<question>-<mode>``,
against the run's modes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from xdist.scheduler import LoadScheduling, LoadScopeScheduling  # type: ignore[import-untyped]

from pytest_legalbench.plugin.item_shares import question_of, scope_of, shares, worker_number

__all__ = ["QuestionScopes", "QuestionShares", "QuestionsOrLoad", "question_of"]


class QuestionScopes(LoadScopeScheduling):  # type: ignore[misc]
    """Scope scheduling by question for benchmark items, by ``xdist_group`` or test otherwise."""

    def __init__(self, config: pytest.Config, log: Any, modes: Sequence[str]) -> None:
        super().__init__(config, log)
        self.modes = tuple(modes)

    def _split_scope(self, nodeid: str) -> str:
        return scope_of(nodeid, self.modes)


class QuestionShares(QuestionScopes):
    """A batch run's scheduling: every worker gets its whole share of questions at once, by
    the rule each worker applies to know what its first pass covers (``item_shares``)."""

    def schedule(self) -> None:
        """Send each worker its share, then shut every worker down after it."""
        if self.collection is not None:  # type: ignore[has-type]
            # A worker that replaces a crashed one takes what that one left (its calls then
            # go to the server one at a time, and the summary counts them).
            for node in self.nodes:
                self._reschedule(node)
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        collection: list[str] = list(next(iter(self.registered_collections.values())))
        self.collection = collection
        dealt = shares(collection, self.modes, self.numnodes)
        for node in self.nodes:
            number = worker_number(node.gateway.id)
            mine = [nodeid for nodeid in collection if dealt[nodeid] == number]
            work: dict[str, dict[str, bool]] = {}
            for nodeid in mine:
                work.setdefault(self._split_scope(nodeid), {})[nodeid] = False
            self.assigned_work[node] = work
            if mine:
                node.send_runtest_some([self.registered_collections[node].index(nodeid)
                                        for nodeid in mine])
            node.shutdown()


class QuestionsOrLoad:
    """Question scopes when benchmark items were collected, plain load scheduling otherwise;
    both follow the workers until the first ``schedule``, then only the one chosen."""

    def __init__(self, config: pytest.Config, log: Any, modes: Sequence[str], *,
                 batch: bool = False) -> None:
        self.modes = tuple(modes)
        self._grouped = (QuestionShares if batch else QuestionScopes)(config, log, modes)
        self._load = LoadScheduling(config, log)
        self._chosen: Any = None

    def _all(self) -> Iterable[Any]:
        return (self._chosen,) if self._chosen is not None else (self._load, self._grouped)

    def add_node(self, node: Any) -> None:
        """A worker joined."""
        for scheduler in self._all():
            scheduler.add_node(node)

    def add_node_collection(self, node: Any, collection: Sequence[str]) -> None:
        """A worker's collected node ids."""
        for scheduler in self._all():
            scheduler.add_node_collection(node, collection)

    def remove_node(self, node: Any) -> str | None:
        """A worker left; the item it was running, if any."""
        results: list[str | None] = [scheduler.remove_node(node) for scheduler in self._all()]
        return results[0]

    def schedule(self) -> None:
        """Choose once (on the first call), then schedule with the chosen scheduler."""
        if self._chosen is None:
            collections = list(self._grouped.registered_collections.values())
            grouped = bool(collections) and any(
                question_of(nodeid, self.modes) is not None for nodeid in collections[0])
            self._chosen = self._grouped if grouped else self._load
        self._chosen.schedule()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)  # never recurse through a half-built instance
        # Everything else (nodes, tests_finished, mark_test_complete, ...) is the chosen
        # scheduler's; before the choice, load scheduling answers the read-only questions.
        return getattr(self._chosen if self._chosen is not None else self._load, name)
