"""The run journal: one JSON line per event of a benchmark run, appended and fsync'd the moment
it happens, so an interrupted or killed run keeps every item it finished.

Lines are of five kinds: ``start`` (a run began, with its settings fingerprint), ``plan``
(the items a process collected for that run), ``item`` (one finished item's record envelope,
or a skip), ``stop`` (the run stopped itself early) and ``batch`` (a message batch was
created: its id and, for each of its requests, the item and call it answers, written before
the run waits on it). Each is an entry's JSON layout
(``files.record_json``) with its ``schema_version``. Every process of a run (each xdist
worker) appends to the same file under an exclusive ``flock``, one ``write`` per line. A
process killed mid-write leaves a torn line; readers skip it and the next writer starts on a
fresh line, so one torn line never hides the records after it.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pytest_legalbench.files.record_json import (
    OMIT_NONE,
    VERSION_KEY,
    RecordError,
    VersionedFile,
    from_builtins,
    renamed,
    to_builtins,
)
from pytest_legalbench.llm.batches import Submission
from pytest_legalbench.results.results_file import with_mode_traits

#: The journal's file name inside a run folder.
JOURNAL_FILE = "journal.jsonl"


class JournalError(ValueError):
    """A journal that cannot be used; the message names the file."""


@dataclass(frozen=True)
class StartEntry:
    """A run began: its token, its fingerprint (parts and digest) and whether it reports."""

    run: str
    fingerprint: Mapping[str, str]
    digest: str
    report: bool
    kind: Literal["start"] = "start"


@dataclass(frozen=True)
class PlanEntry:
    """The items one process of a run collected."""

    run: str
    items: tuple[str, ...]
    kind: Literal["plan"] = "plan"


@dataclass(frozen=True)
class StopEntry:
    """The run stopped itself before its plan was done (the cost limit), and why."""

    run: str
    reason: str
    kind: Literal["stop"] = "stop"


@dataclass(frozen=True)
class ItemEntry:
    """One finished item: its record envelope, or ``None`` when it was skipped (then the
    reason is written, as ``skip``)."""

    run: str
    item: str
    digest: str
    envelope: Mapping[str, Any] | None = field(default=None, metadata=OMIT_NONE)
    skip_reason: str | None = field(default=None, metadata=renamed("skip", OMIT_NONE))
    kind: Literal["item"] = "item"

    def __post_init__(self) -> None:
        if (self.envelope is None) == (self.skip_reason is None):
            raise ValueError("an item line holds either a record envelope or a skip reason")


@dataclass(frozen=True)
class BatchCall:
    """One request of a batch: its custom id, the digest of its params, and the call it
    answers (the call scope of the item, the stage, the call's occurrence in its scope)."""

    custom_id: str
    request: str
    """``BatchRequest.digest`` of the params submitted."""
    scope: str
    """The call scope (``<group>/<item or question id>``: ``llm.call_sites``)."""
    stage: str
    occurrence: int
    question_id: str | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True)
class BatchEntry:
    """A message batch the run created, written before the run waited on it: collected on
    resume instead of submitted again."""

    run: str
    digest: str
    """The settings fingerprint's digest the run submitted it under."""
    batch_id: str
    attempt: int
    """1 for a first submission, 2 for the first resubmission of failed requests, ..."""
    backend: str
    """Where the batch lives (``reference``: the embedded backend, gone after its run)."""
    calls: tuple[BatchCall, ...]
    kind: Literal["batch"] = "batch"

    def submission(self) -> Submission:
        """The submission the batch client collects it by."""
        return Submission(self.batch_id, tuple(c.custom_id for c in self.calls), self.attempt,
                          {c.custom_id: c.request for c in self.calls})


#: One line of the journal, told apart by its ``kind``.
JournalEntry = StartEntry | PlanEntry | StopEntry | ItemEntry | BatchEntry


def _from_version_2(line: dict[str, Any]) -> dict[str, Any]:
    """Version 2 in version 3's layout: a QA item's record says what its mode showed the
    answering model and how its cost crosses over (``mode_traits``), and is read and written
    again, so it holds what else version 3 added (a question's transaction set, the arms'
    scopes and inject's recall, at their defaults: not measured) and its error classes."""
    envelope = line.get("envelope")
    if (line.get("kind") != "item" or not isinstance(envelope, Mapping)
            or envelope.get("product") != "qa"):
        return line
    # Imported here: the journal is every product's, and only this step reads a QA record.
    from pytest_legalbench.results.item_record import ItemRecord

    record = from_builtins(ItemRecord, with_mode_traits(envelope.get("record")),
                           what="a qa record")
    return {**line, "envelope": {**envelope, "record": to_builtins(record)}}


#: A journal line's layout this build writes (version 3) and the older ones it reads:
#: version 1 differed only in naming its version ``v``; version 2's QA records lacked the
#: fields version 3 added (``mode_traits``, transaction set, scopes, inject's recall).
JOURNAL_LINE = VersionedFile("journal line", 3, {1: lambda line: line, 2: _from_version_2},
                             legacy_key="v")


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
    batches: tuple[BatchEntry, ...] = ()
    """Every batch the journal's runs created, in file order."""

    def submissions(self, digest: str) -> tuple[Submission, ...]:
        """The batches created under fingerprint ``digest``, in order: what a resume
        collects instead of submitting again."""
        return tuple(entry.submission() for entry in self.batches if entry.digest == digest)

    def records(self, digest: str) -> dict[str, Mapping[str, Any]]:
        """Item id to the envelope of its latest record written under fingerprint ``digest``."""
        return {e.item: e.envelope for e in self.items
                if e.digest == digest and e.envelope is not None}

    def finished(self, run: str, digest: str) -> frozenset[str]:
        """Items finished for run ``run``: recorded under ``digest`` in any run, or skipped in
        this one."""
        skipped = {e.item for e in self.items if e.run == run and e.envelope is None}
        return frozenset(self.records(digest)) | skipped


def journal_line(entry: JournalEntry) -> dict[str, object]:
    """The JSON object of a journal entry: its version and kind first."""
    data = to_builtins(entry)
    return JOURNAL_LINE.stamped({"kind": data["kind"], **data})


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
    """Read a journal; torn lines are counted and skipped, never fatal. A line of a version
    this build does not read is a JournalError naming the file, the line and both versions."""
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
    batches: list[BatchEntry] = []
    torn = 0
    for number, text in enumerate(raw.split(b"\n"), start=1):
        if not text.strip():
            continue
        entry = _entry(text, f"{path} line {number}")
        if entry is None:
            torn += 1
        elif isinstance(entry, StartEntry):
            starts.append(entry)
        elif isinstance(entry, ItemEntry):
            items.append(entry)
        elif isinstance(entry, StopEntry):
            stops.setdefault(entry.run, entry.reason)
        elif isinstance(entry, BatchEntry):
            batches.append(entry)
        else:
            plans.setdefault(entry.run, set()).update(entry.items)
    return JournalContents(tuple(starts), {run: frozenset(ids) for run, ids in plans.items()},
                           tuple(items), torn, stops, tuple(batches))


def _entry(text: bytes, where: str) -> JournalEntry | None:
    """The entry of one line; None for a torn one (cut short, or not a journal line)."""
    try:
        line = json.loads(text)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(line, dict) or not {VERSION_KEY, "v"} & set(line):
        return None  # not a journal line at all
    try:
        layout = JOURNAL_LINE.current(line, where)
    except RecordError as error:
        raise JournalError(str(error)) from None
    try:
        entry: JournalEntry = from_builtins(JournalEntry, layout, what=where)  # type: ignore[arg-type]
    except RecordError:
        return None
    return entry


def batch_entry(line: Mapping[str, Any], where: str) -> BatchEntry:
    """The batch entry of a journal line that came from elsewhere (a worker on another host,
    through ``run.journal_relay``); JournalError when it is not one."""
    entry = _entry(json.dumps(line).encode("utf-8"), where)
    if not isinstance(entry, BatchEntry):
        raise JournalError(f"{where}: not a batch line of the run journal")
    return entry
