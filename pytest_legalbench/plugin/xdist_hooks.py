"""xdist wiring of a benchmark session: workers share the machine's cores, a question's items
share a worker, and a worker's heap is frozen for its exit.

Registered only when a benchmark session starts (``plugin.session_start``): any other session
keeps xdist's own scheduler and the thread pools it would have had. The hooks are xdist's,
marked optional, so they lie idle where pytest-xdist is not installed. The schedulers live in
``plugin.question_scheduling``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pytest

from pytest_legalbench.plugin.journal_hooks import WORKER_INPUT
from pytest_legalbench.run.process_exit import settle_worker

#: Thread-pool sizes numpy's BLAS (and OpenMP code) read when a worker first imports them.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def worker_threads(cpus: int, local_workers: int) -> int:
    """Threads each of ``local_workers`` processes may use on ``cpus`` cores (at least 1)."""
    return max(1, cpus // max(1, local_workers))


def share_cores_late(config: pytest.Config) -> None:
    """On a worker whose controller started no benchmark session (so set no thread sizes):
    the same even share, set in this worker's own environment when its session starts, which
    is before it loads numpy or torch."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None or WORKER_INPUT in workerinput:
        return
    threads = worker_threads(len(os.sched_getaffinity(0)), int(workerinput.get("workercount", 1)))
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, str(threads))


class BenchmarkXdist:
    """The xdist hooks of a benchmark session over ``modes`` (registered when it starts)."""

    def __init__(self, modes: Sequence[str], *, batch: bool = False) -> None:
        self.modes = tuple(modes)
        self.batch = batch
        """A batch run: each worker's share of questions is fixed up front."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_setupnodes(self, config: pytest.Config, specs: Sequence[Any]) -> None:
        # Each BLAS pool sizes itself to the whole machine, and its threads spin while they
        # wait: two workers on two cores measured 26 s for a replay that took 22 s with one
        # thread each. Local workers get an even share, unless the user set the variable.
        local = [spec for spec in specs if getattr(spec, "popen", False)]
        threads = worker_threads(len(os.sched_getaffinity(0)), len(local))
        for spec in local:
            for name in THREAD_VARIABLES:
                if name not in os.environ:
                    spec.env.setdefault(name, str(threads))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # workerinput marks a pytest-xdist worker, whose process ends with this session.
        if hasattr(session.config, "workerinput"):
            settle_worker()

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        dist = config.getvalue("dist")
        if dist not in ("load", "loadgroup"):
            return None
        # Imported here: the schedulers subclass xdist's, which may not be installed.
        from pytest_legalbench.plugin.question_scheduling import (
            QuestionScopes,
            QuestionShares,
            QuestionsOrLoad,
        )

        if dist == "loadgroup":
            return (QuestionShares if self.batch else QuestionScopes)(config, log, self.modes)
        return QuestionsOrLoad(config, log, self.modes, batch=self.batch)
