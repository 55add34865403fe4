"""Recording and replaying model calls with vcrpy: one YAML cassette per benchmark item, where
it lives and how a block of calls records to it or replays from it.

How requests are matched and scrubbed is the recorder's (``llm.cassette_recorder``); how a
cassette file is read, checked and written is the persister's (``llm.cassette_persister``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_legalbench.defaults import BACKENDS
from pytest_legalbench.files.file_names import safe_name
from pytest_legalbench.llm.call_sites import call_scope
from pytest_legalbench.llm.cassette_persister import (
    RERECORD_HINT,
    AtomicPersister,
    CassetteError,
)
from pytest_legalbench.llm.cassette_recorder import new_recorder

#: The values of pytest-recording's ``--record-mode``.
RECORD_MODES = ("none", "once", "new_episodes", "all", "rewrite")


class CassetteMissing(CassetteError):
    """Replay needs a cassette that was never recorded, and this backend cannot record it now."""


@dataclass
class CassetteUse:
    """What one ``use_cassette`` block did; ``played`` and ``recorded`` are final after it."""

    path: Path
    recording: bool = False
    played: int = 0
    recorded: int = 0


@dataclass(frozen=True)
class CassettePlan:
    """Where a session's calls are recorded and how: one cassette per (group, name)."""

    root: Path
    backend: str
    record_mode: str
    """pytest-recording's ``--record-mode``; ``none`` replays only."""
    recorder: Any = None
    """The ``vcr.VCR`` to record with (``new_recorder()``, after pytest-recording's
    ``pytest_recording_configure`` hook saw it); None builds a fresh one per cassette."""

    @contextmanager
    def scope(self, group: str, name: str) -> Iterator[CassetteUse]:
        """Record to or replay from the cassette of ``name`` in ``group`` for the block."""
        path = cassette_file(self.root, self.backend, group, name)
        with use_cassette(path, record_mode=self.record_mode, backend=self.backend,
                          recorder=self.recorder) as use:
            yield use


@contextmanager
def recorded(plan: CassettePlan | None, group: str, name: str) -> Iterator[None]:
    """The plan's cassette for ``name`` in ``group`` around the block; no plan, no recording.
    Either way the block is the call scope ``<group>/<name>`` (``llm.call_sites``)."""
    with call_scope(scope_name(group, name)):
        if plan is None:
            yield
            return
        with plan.scope(group, name):
            yield


def scope_name(group: str, name: str) -> str:
    """The call scope of the cassette of ``name`` in ``group``."""
    return f"{group}/{name}"


def cassette_file(root: Path, backend: str, group: str, name: str) -> Path:
    """Return ``root/<backend>/<group>/<name>.yaml`` with group and name made file-name safe."""
    _check_backend(backend)
    if not name:
        raise ValueError("a cassette needs a non-empty name")
    if not group:
        raise ValueError(f"cassette {name!r} needs a non-empty group")
    return root / backend / safe_name(group) / f"{safe_name(name)}.yaml"


def cassette_size(root: Path) -> tuple[int, int]:
    """Return the number of cassette files under ``root`` and their total size in bytes."""
    if not root.is_dir():
        return 0, 0
    # Hidden names are the atomic writer's temporary files, never finished cassettes.
    sizes = [path.stat().st_size for path in root.rglob("*.yaml")
             if path.is_file() and not path.name.startswith(".")]
    return len(sizes), sum(sizes)


@contextmanager
def use_cassette(path: Path, *, record_mode: str, backend: str,
                 recorder: Any = None) -> Iterator[CassetteUse]:
    """Record to or replay from ``path`` every HTTP call the anthropic SDK makes in the block."""
    if record_mode not in RECORD_MODES:
        raise ValueError(f"record mode {record_mode!r} is not one of {', '.join(RECORD_MODES)}")
    _check_backend(backend)
    if path.is_dir():
        raise CassetteError(f"cassette {path} is a folder, not a file: {RERECORD_HINT}")
    fresh = record_mode in ("all", "rewrite")
    vcr_mode = "all" if fresh else record_mode
    if record_mode == "none" and not path.exists():
        if backend != "reference":
            raise CassetteMissing(
                f"no cassette at {path}, and --record-mode=none only replays for backend "
                f"{backend!r}: record it by running with --record-mode=once and "
                "ANTHROPIC_API_KEY set")
        # The reference backend is local and free, so a new item's cassette is recorded on
        # its first run: adding a question is adding a file.
        vcr_mode = "once"
    persister = AtomicPersister(fresh=fresh)
    context = (recorder or new_recorder()).use_cassette(
        str(path), record_mode=vcr_mode, persister=persister,
        # A half-finished block must not leave a partial "once" cassette that later replays
        # miss on, nor replace a good file on "all"; new_episodes keeps whatever it paid for.
        record_on_exception=vcr_mode == "new_episodes")
    use = CassetteUse(path)
    new = 0
    try:
        with context as cassette:
            use.recording = not cassette.write_protected
            loaded = len(cassette)
            try:
                yield use
            finally:
                use.played = cassette.play_count
                new = len(cassette) - loaded
        if use.recording and persister.saved == 0 and (fresh or not path.exists()):
            # A block that sent nothing still leaves its file, so a later replay of an item that
            # makes no calls finds a cassette instead of reporting it missing.
            persister.save_cassette(path, {"requests": [], "responses": []})
    finally:
        use.recorded = new if persister.saved else 0


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r} is not one of {', '.join(BACKENDS)}")


