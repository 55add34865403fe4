"""What the models of earlier runs wrote, remembered for the next plan: after a run, the cache
keeps each stage's mean output per call (and calls per item, where a run decides them), per
backend and pair of models, in ``output-lengths/``. A plan for the same backend and models
then expects those lengths instead of the assumed ones (``plan_calls.ASSUMED_OUTPUT``).

Output lengths are a property of the models and the backend, not of the questions: an
extractive stand-in answers in about 100 tokens where a model writes 300, so lengths
measured on one backend are never used for another. A later run's stages are pooled with the
same stages of the memory, by calls, over at most ``POOL_WINDOW`` calls; stages it did not call
keep what an earlier run measured.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.files.build_lock import build_lock, lock_file
from pytest_legalbench.files.record_json import (
    RecordError,
    VersionedFile,
    from_builtins,
    to_builtins,
)
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.run.plan_calls import OutputLengths

#: The cache's subfolder holding one memory file per backend and pair of models.
FOLDER = "output-lengths"
MEMORY_LAYOUT = VersionedFile("output-lengths memory", 1)
#: The most calls a remembered mean stands for. A run's calls are pooled with the memory's,
#: the memory weighing at most this many less the run's own: a one-question run moves a
#: 300-question mean by a little, and a model whose habits changed is learnt again within
#: this many calls. A run of more calls replaces the stage outright.
POOL_WINDOW = 1000
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class MemoryKey:
    """Whose output lengths: the backend that answered and the models a run named."""

    backend: str
    answer_model: str
    judge_model: str

    def file_name(self) -> str:
        """The memory's file name: the three names, made safe for a file system."""
        parts = (self.backend, self.answer_model, self.judge_model)
        return "+".join(_UNSAFE.sub("_", part) or "_" for part in parts) + ".json"


@dataclass(frozen=True)
class StageMemory:
    """One stage's outputs as the runs that called it measured them, pooled."""

    mean_output: float
    """Mean output tokens per call."""
    calls: int
    """How many calls the mean stands for: at most 1,000 (``POOL_WINDOW``), unless one run
    made more."""
    run: str
    """The latest run pooled (its report or run folder)."""
    date: str
    """The day that run ended, ``YYYY-MM-DD`` (UTC)."""
    calls_per_item: float | None = None
    """Mean calls per item of the stage's arm (navagent's turns, GANDR's rounds); null where
    the stage served several arms, so no one count per item holds."""
    runs: int = 1
    """How many runs are pooled in the mean."""

    def pooled(self, later: StageMemory) -> StageMemory:
        """This stage with a ``later`` run's measurement pooled in, by calls, the earlier
        ones weighing at most ``POOL_WINDOW`` less the later run's calls."""
        kept = min(self.calls, max(POOL_WINDOW - later.calls, 0))
        if kept == 0:
            return later
        total = kept + later.calls
        per_item = (None if self.calls_per_item is None or later.calls_per_item is None
                    else round((self.calls_per_item * kept + later.calls_per_item
                                * later.calls) / total, 3))
        return StageMemory(round((self.mean_output * kept + later.mean_output * later.calls)
                                 / total, 3), total, later.run, later.date, per_item,
                           self.runs + later.runs)


@dataclass(frozen=True)
class OutputMemory:
    """The remembered stages of one backend and pair of models."""

    backend: str
    """The backend the calls named (``Call.backend``): ``reference``, ``anthropic``, or
    ``messages-api at HOST``."""
    answer_model: str
    """The answering model the runs were configured with."""
    judge_model: str
    """The judge model the runs were configured with."""
    stages: Mapping[str, StageMemory] = field(default_factory=dict)
    """Each stage remembered, by stage name (``navindex.answer``, ``judge.forward``, ...)."""

    def lengths(self, path: Path) -> OutputLengths:
        """These stages as the plan reads them; ``path`` is named as their source."""
        calls = sum(stage.calls for stage in self.stages.values())
        latest = max((stage.date for stage in self.stages.values()), default="?")
        return OutputLengths(
            {name: stage.mean_output for name, stage in self.stages.items()},
            {name: stage.calls_per_item for name, stage in self.stages.items()
             if stage.calls_per_item is not None},
            f"{calls:,} calls of earlier runs on {self.backend} with {self.answer_model} and "
            f"{self.judge_model} (latest {latest}; remembered in {path})")


def planned_backend(requested: str | None, env: Mapping[str, str],
                    base_url: str | None = None, server_kind: str | None = None) -> str:
    """How the calls of a run with these settings will name their backend (``Call.backend``):
    ``llm.backend.resolve_backend``'s choice, and a third-party server by its host. A server
    at another URL counts as third-party unless ``server_kind`` names another kind: a plan
    asks no server what it is. The backend requested when the rule refuses it: a plan needs
    no key."""
    from pytest_legalbench.llm.backend import BackendConfigError, resolve_backend
    from pytest_legalbench.llm.server_capabilities import THIRD_PARTY_KINDS
    from pytest_legalbench.llm.server_identity import AUTO, host_of, is_claude

    try:
        config = resolve_backend(requested, env)
    except BackendConfigError:
        return requested or "reference"
    url = base_url or config.base_url
    if config.backend != "anthropic" or is_claude(url):
        return config.backend
    if server_kind not in (None, AUTO, *THIRD_PARTY_KINDS):
        return config.backend
    return f"messages-api at {host_of(url)}"


def memory_path(cache_dir: Path, key: MemoryKey) -> Path:
    """Where ``key``'s memory is kept under ``cache_dir``."""
    return cache_dir / FOLDER / key.file_name()


def remember(cache_dir: Path, key: MemoryKey, calls: Iterable[tuple[str, Call]], run: str,
             *, now: datetime | None = None) -> Path | None:
    """Keep the output lengths of a run's ``calls`` (each with the arm it served) for ``key``;
    return the memory file, None when the run made no call. An unreadable earlier memory is
    replaced, not pooled."""
    found = list(calls)
    if not found:
        return None
    measured = OutputLengths.calibrated(found, run)
    counts: dict[str, int] = {}
    for _, call in found:
        counts[call.stage] = counts.get(call.stage, 0) + 1
    date = (now or datetime.now(UTC)).strftime("%Y-%m-%d")
    path = memory_path(cache_dir, key)
    # Read, pooled and replaced under the file's lock, so that of two runs ending at once
    # the second pools with the first instead of overwriting it.
    with build_lock(lock_file(cache_dir, f"{FOLDER}-{key.file_name()}"), str(path)):
        _pool(path, key, measured, counts, run, date)
    return path


def _pool(path: Path, key: MemoryKey, measured: OutputLengths, counts: Mapping[str, int],
          run: str, date: str) -> None:
    """Pool a run's ``measured`` lengths into the memory at ``path`` (held under its lock)."""
    earlier = _read(path)
    stages = dict(earlier.stages) if earlier is not None else {}
    for stage, mean in measured.per_stage.items():
        later = StageMemory(round(mean, 3), counts[stage], run, date,
                            measured.calls_per_item.get(stage))
        stages[stage] = stages[stage].pooled(later) if stage in stages else later
    memory = OutputMemory(key.backend, key.answer_model, key.judge_model,
                          dict(sorted(stages.items())))
    write_text_atomic(path, json.dumps(MEMORY_LAYOUT.stamped(to_builtins(memory)), indent=2)
                      + "\n")


def recall(cache_dir: Path, key: MemoryKey) -> OutputLengths | None:
    """The output lengths remembered for ``key``; None when no run has left any (or the file
    cannot be read: a plan then assumes, as a first plan does)."""
    path = memory_path(cache_dir, key)
    memory = _read(path)
    if memory is None or not memory.stages:
        return None
    return memory.lengths(path)


def _read(path: Path) -> OutputMemory | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return from_builtins(OutputMemory, MEMORY_LAYOUT.current(data, str(path)),
                             what=str(path))
    except (OSError, ValueError, RecordError):
        return None
