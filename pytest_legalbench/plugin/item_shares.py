"""Which question a benchmark item belongs to, and which xdist worker runs each question in a
batch run.

A batch run's first pass (``run.batch_phases``) must know every item its process will run
before the first of them starts, while xdist normally hands items out as workers free up.
So a batch run fixes each worker's share up front by one rule both sides apply to the same
collection: the controller's scheduler (``QuestionShares``) sends each worker exactly its
share, and each worker computes the same share from its own collection (every worker
collects the same items, which xdist checks) to know what its first pass covers.

Pure: no pytest or xdist import.
"""

from __future__ import annotations

from collections.abc import Sequence


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


def scope_of(nodeid: str, modes: Sequence[str]) -> str:
    """The scheduling scope of a test: its question's for a benchmark item, else its own
    (or its ``xdist_group``'s, as xdist writes it: ``nodeid@group``)."""
    if "@" in nodeid:
        return nodeid.rsplit("@", 1)[-1]
    question = question_of(nodeid, modes)
    return f"legalbench-question:{question}" if question is not None else nodeid


def shares(nodeids: Sequence[str], modes: Sequence[str], workers: int) -> dict[str, int]:
    """Node id to the worker (0 to ``workers`` - 1) that runs it: scopes in order of first
    appearance, dealt out in turn, so every worker gets whole questions and as many of them
    as the others, give or take one."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    dealt: dict[str, int] = {}
    found: dict[str, int] = {}
    for nodeid in nodeids:
        scope = scope_of(nodeid, modes)
        if scope not in dealt:
            dealt[scope] = len(dealt) % workers
        found[nodeid] = dealt[scope]
    return found


def worker_number(workerid: str) -> int:
    """The number of an xdist worker id (``gw3`` -> 3)."""
    digits = workerid.removeprefix("gw")
    if not digits.isdigit():
        raise ValueError(f"not an xdist worker id: {workerid!r}")
    return int(digits)
