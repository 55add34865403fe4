"""An exclusive lock on a cache folder's build, so concurrent processes on one cold cache
wait for one build instead of each repeating it. The lock is advisory (``flock``) and is
released by the kernel when its holder dies, so a killed build never blocks the next."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Callable, Iterator
from pathlib import Path

#: The lock file's name inside the folder whose build it guards.
LOCK_NAME = ".build.lock"


@contextlib.contextmanager
def build_lock(folder: Path, on_wait: Callable[[str], None] | None = None) -> Iterator[bool]:
    """Hold ``folder``'s build lock; yield whether another process held it first (its
    results are then worth looking for again). A folder that cannot hold the lock file is
    built without one: the cache only saves time."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / LOCK_NAME, "a", encoding="utf-8")  # noqa: SIM115
    except OSError:
        yield False
        return
    with handle:
        waited = False
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(f"waiting for another process building {folder}")
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            waited = True
        try:
            yield waited
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
