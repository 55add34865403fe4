"""The run journal: one JSON line per event of a benchmark run, appended and fsync'd the moment
it happens, so an interrupted or killed run keeps every item it finished.

Lines are of three kinds: ``start`` (a run began, with its settings fingerprint), ``plan``
(the items a process collected for that run) and ``item`` (one finished item's record
envelope, or a skip). Every process of a run (each xdist worker) appends to the same file
under an exclusive ``flock``, one ``write`` per line. A process killed mid-write leaves a
torn line; readers skip it and the next writer starts on a fresh line, so one torn line never
hides the records after it.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The journal's file name inside a run folder.
JOURNAL_FILE = "journal.jsonl"
#: Bumped when a line's meaning changes; lines of another version are not read.
JOURNAL_VERSION = 1


class JournalError(ValueError):
    """A journal that cannot be used; the message names the file."""


@dataclass(frozen=True)
class StartEntry:
    """A run began: its token, its fingerprint (parts and digest) and whether it reports."""

    run: str
    fingerprint: Mapping[str, str]
    digest: str
    report: bool


@dataclass(frozen=True)
class ItemEntry:
    """One finished item: its record envelope, or ``None`` when it was skipped."""

    run: str
    item: str
    digest: str
    envelope: Mapping[str, Any] | None
    skip_reason: str | None = None


@dataclass(frozen=True)
class JournalContents:
    """Everything a journal holds, in file order, and how many torn lines were skipped."""

    starts: tuple[StartEntry, ...] = ()
    plans: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Run token to the item ids any of its processes collected."""
    items: tuple[ItemEntry, ...] = ()
    torn: int = 0
    stops: Mapping[str, str] = field(default_factory=dict)
    """Run token to why that run stopped itself early (the cost limit)."""

    def records(self, digest: str) -> dict[str, Mapping[str, Any]]:
        """Item id to the envelope of its latest record written under fingerprint ``digest``."""
        return {e.item: e.envelope for e in self.items
                if e.digest == digest and e.envelope is not None}

    def finished(self, run: str, digest: str) -> frozenset[str]:
        """Items finished for run ``run``: recorded under ``digest`` in any run, or skipped in
        this one."""
        skipped = {e.item for e in self.items if e.run == run and e.envelope is None}
        return frozenset(self.records(digest)) | skipped


def start_line(start: StartEntry) -> dict[str, object]:
    """The JSON object of a start entry."""
    return {"v": JOURNAL_VERSION, "kind": "start", "run": start.run,
            "fingerprint": dict(start.fingerprint), "digest": start.digest,
            "report": start.report}


def plan_line(run: str, items: Sequence[str]) -> dict[str, object]:
    """The JSON object of a plan entry."""
    return {"v": JOURNAL_VERSION, "kind": "plan", "run": run, "items": list(items)}


def stop_line(run: str, reason: str) -> dict[str, object]:
    """The JSON object of a stop entry: the run stopped itself before its plan was done."""
    return {"v": JOURNAL_VERSION, "kind": "stop", "run": run, "reason": reason}


def item_line(entry: ItemEntry) -> dict[str, object]:
    """The JSON object of an item entry."""
    line: dict[str, object] = {"v": JOURNAL_VERSION, "kind": "item", "run": entry.run,
                               "item": entry.item, "digest": entry.digest}
    if entry.envelope is None:
        line["skip"] = entry.skip_reason or ""
    else:
        line["envelope"] = dict(entry.envelope)
    return line


class JournalWriter:
    """Appends lines to one journal file; safe across threads and processes."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, line: Mapping[str, object]) -> None:
        """Write ``line`` as one JSON line and fsync it before returning."""
        data = (json.dumps(line, ensure_ascii=False, allow_nan=False)
                + "\n").encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # A writer killed mid-line: end its torn line so ours stays readable.
                data = b"\n" + data
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)  # closing releases the lock


def read_journal(path: Path) -> JournalContents:
    """Read a journal; torn or foreign lines are counted and skipped, never fatal."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return JournalContents()
    except OSError as error:
        raise JournalError(f"{path}: cannot be read ({error.strerror})") from None
    starts: list[StartEntry] = []
    plans: dict[str, set[str]] = {}
    items: list[ItemEntry] = []
    stops: dict[str, str] = {}
    torn = 0
    for text in raw.split(b"\n"):
        if not text.strip():
            continue
        parsed = _parse(text)
        if parsed is None:
            torn += 1
        elif isinstance(parsed, StartEntry):
            starts.append(parsed)
        elif isinstance(parsed, ItemEntry):
            items.append(parsed)
        elif isinstance(parsed[1], str):
            stops.setdefault(parsed[0], parsed[1])
        else:
            plans.setdefault(parsed[0], set()).update(parsed[1])
    return JournalContents(tuple(starts), {run: frozenset(ids) for run, ids in plans.items()},
                           tuple(items), torn, stops)


def _parse(text: bytes) -> StartEntry | ItemEntry | tuple[str, list[str] | str] | None:
    try:
        line = json.loads(text)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(line, dict) or line.get("v") != JOURNAL_VERSION \
            or not isinstance(line.get("run"), str):
        return None
    kind, run = line.get("kind"), line["run"]
    if kind == "start":
        parts, digest = line.get("fingerprint"), line.get("digest")
        if not isinstance(parts, dict) or not isinstance(digest, str):
            return None
        return StartEntry(run, {str(k): str(v) for k, v in parts.items()}, digest,
                          bool(line.get("report")))
    if kind == "stop":
        reason = line.get("reason")
        return (run, reason) if isinstance(reason, str) else None
    if kind == "plan":
        ids = line.get("items")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return None
        return run, ids
    if kind == "item":
        item, digest, envelope = line.get("item"), line.get("digest"), line.get("envelope")
        if not isinstance(item, str) or not isinstance(digest, str):
            return None
        if isinstance(envelope, dict):
            return ItemEntry(run, item, digest, envelope)
        if isinstance(line.get("skip"), str):
            return ItemEntry(run, item, digest, None, line["skip"])
    return None
