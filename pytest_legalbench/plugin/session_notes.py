"""Lines a benchmark session's processes leave for its summary: what a batch run's first pass
did, a plan that stopped the run. Each process keeps its own; an xdist worker hands its lines
to the controller when it ends (``workeroutput``), wherever it ran, and the controller prints
them in the summary: a section every process writes alike (a plan of the whole run) once,
any other one per worker.
"""

from __future__ import annotations

from typing import Any

import pytest

#: This process's notes: section name to its lines, in the order they were written.
NOTES_KEY = pytest.StashKey[dict[str, list[str]]]()
#: Where a worker hands its notes to the controller.
WORKER_OUTPUT = "legalbench_notes"


def add_notes(config: pytest.Config, section: str, lines: list[str]) -> None:
    """Keep ``lines`` for the summary under ``section``."""
    config.stash.setdefault(NOTES_KEY, {}).setdefault(section, []).extend(lines)


class SessionNotes:
    """Carries each worker's notes to the controller (registered when a session starts)."""

    def __init__(self) -> None:
        self.workers: list[tuple[str, dict[str, list[str]]]] = []

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        output = getattr(session.config, "workeroutput", None)
        if output is not None:
            output[WORKER_OUTPUT] = session.config.stash.get(NOTES_KEY, {})

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        notes = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT)
        if isinstance(notes, dict) and notes:
            self.workers.append((str(node.gateway.id), notes))


def note_lines(config: pytest.Config, section: str, *, shared: bool = False) -> list[str]:
    """The lines of ``section``: this process's, then each worker's (prefixed ``[gwN]``);
    a ``shared`` section (every process writes the same, as a plan of the whole run) once."""
    lines = list(config.stash.get(NOTES_KEY, {}).get(section, []))
    carrier = config.pluginmanager.get_plugin("legalbench-notes")
    workers = sorted(carrier.workers) if isinstance(carrier, SessionNotes) else []
    found = [(worker, notes.get(section, [])) for worker, notes in workers]
    found = [(worker, section_lines) for worker, section_lines in found if section_lines]
    if shared and found:
        return [*lines, *(line for line in found[0][1] if line not in lines)]
    for worker, section_lines in found:
        lines.extend(f"[{worker}] {line}" for line in section_lines)
    return lines
