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

The controller never collects, so items are recognised by their ids, ``<question>-<mode>``,
against the run's modes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from xdist.scheduler import LoadScheduling, LoadScopeScheduling  # type: ignore[import-untyped]


def question_of(nodeid: str, modes: Sequence[str]) -> str | None:
    """The question of a benchmark item's node id (``...[<question>-<mode>]``), None for
    any other test."""
    if not nodeid.endswith("]") or "[" not in nodeid:
        return None
    param = nodeid[nodeid.index("[") + 1:-1]
    # Longest mode first: where one mode's name ends another's ("b" and "a-b"), an item of
    # the longer is not read as the shorter's under a question ending in "-a".
    for mode in sorted(modes, key=len, reverse=True):
        suffix = f"-{mode}"
        if param.endswith(suffix) and len(param) > len(suffix):
            return param[:-len(suffix)]
    return None


class QuestionScopes(LoadScopeScheduling):  # type: ignore[misc]
    """Scope scheduling by question for benchmark items, by ``xdist_group`` or test otherwise."""

    def __init__(self, config: pytest.Config, log: Any, modes: Sequence[str]) -> None:
        super().__init__(config, log)
        self.modes = tuple(modes)

    def _split_scope(self, nodeid: str) -> str:
        if "@" in nodeid:
            return nodeid.rsplit("@", 1)[-1]
        question = question_of(nodeid, self.modes)
        return f"legalbench-question:{question}" if question is not None else nodeid


class QuestionsOrLoad:
    """Question scopes when benchmark items were collected, plain load scheduling otherwise;
    both follow the workers until the first ``schedule``, then only the one chosen."""

    def __init__(self, config: pytest.Config, log: Any, modes: Sequence[str]) -> None:
        self.modes = tuple(modes)
        self._grouped = QuestionScopes(config, log, modes)
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
