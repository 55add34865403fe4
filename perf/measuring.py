"""What every perf script needs to know about where it runs: the checkout, the corpus mirror,
the output folder, how busy the machine was, how much memory a process peaked at, and which
commit was measured."""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path

#: The checkout the scripts belong to.
REPO = Path(__file__).resolve().parents[1]
#: Where the committed measurements live.
OUTPUT = REPO / "perf" / "output"


def corpus_dir() -> Path:
    """The corpus mirror: $LEGALBENCH_CORPUS_DIR, else ../shared/corpus beside the checkout."""
    configured = os.environ.get("LEGALBENCH_CORPUS_DIR")
    return (Path(configured) if configured else REPO.parent / "shared" / "corpus").resolve()


def machine_load() -> str:
    """What ``uptime`` says: how busy the machine was around a measurement."""
    return subprocess.run(["uptime"], capture_output=True, text=True,
                          check=False).stdout.strip()


def peak_rss_mb() -> float:
    """This process's peak resident memory in megabytes."""
    # ru_maxrss is in kilobytes on Linux.
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, 1)


def commit(checkout: Path = REPO) -> str:
    """The checkout's short commit, with ``+changes`` when its package differs from it."""
    head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--",
                            "pytest_legalbench"], capture_output=True, text=True,
                           check=False).stdout.strip()
    return head + ("+changes" if dirty else "")
