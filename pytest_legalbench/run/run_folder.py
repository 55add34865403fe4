"""Where a run keeps its journal: the report folder when one is asked for, the folder being
resumed, else a fresh folder under the cache's ``runs/``."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pytest_legalbench.run.journal import JOURNAL_FILE

#: The cache's subfolder holding the run folders of runs without a report folder.
RUNS_FOLDER = "runs"
#: The report folder's subfolder a partial run reports into when a whole report is there.
PARTIAL_FOLDER = "partial"
#: Files that make a ``partial/`` folder a partial report (and so ours to remove).
_REPORT_FILES = ("results.json", "gandr-results.json")


@dataclass(frozen=True)
class RunPlace:
    """A run's folder (its journal lives there) and whether it continues an earlier run."""

    folder: Path
    resumed: bool

    @property
    def journal(self) -> Path:
        """The journal file."""
        return self.folder / JOURNAL_FILE


def run_place(*, report_dir: Path | None, resume_dir: Path | None, cache_dir: Path,
              now: datetime | None = None, shared_name: str | None = None) -> RunPlace:
    """The folder of a new run, or of the run being resumed. ``shared_name`` names a new
    run's cache folder where processes that cannot talk to each other must find the same
    one (the xdist workers of a run no process opened at startup)."""
    if resume_dir is not None:
        return RunPlace(resume_dir, True)
    if report_dir is not None:
        return RunPlace(report_dir, False)
    if shared_name is not None:
        return RunPlace(cache_dir / RUNS_FOLDER / shared_name, False)
    moment = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S")
    return RunPlace(cache_dir / RUNS_FOLDER / f"{moment}-{os.getpid()}", False)


def set_aside(journal: Path) -> Path | None:
    """Move an earlier run's journal out of a fresh run's way (``journal.1.jsonl``, ...);
    return where it went, None when there was none."""
    if not journal.exists():
        return None
    number = 1
    while (target := journal.with_name(f"journal.{number}.jsonl")).exists():
        number += 1
    journal.rename(target)
    return target


def remove_superseded_partial(folder: Path) -> Path | None:
    """Remove the ``partial/`` report an interrupted run left in ``folder``, once the run it
    belongs to has been resumed to the end; return it, None when there was none."""
    partial = folder / PARTIAL_FOLDER
    # Only a folder holding a report is ours: anything else under that name is left alone.
    if not any((partial / name).is_file() for name in _REPORT_FILES):
        return None
    shutil.rmtree(partial)
    return partial
