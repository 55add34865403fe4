"""One process's view of a run's journal: opening (or resuming) it, writing each finished
item, and, at the end, how much of the run finished.

The controlling process opens the run (``open_run``); every process, xdist workers included,
then joins it with the token, fingerprint and folder it was given (``join_run``).
"""

from __future__ import annotations

import fcntl
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pytest_legalbench.files.record_json import NOT_WRITTEN, from_builtins, to_builtins
from pytest_legalbench.llm.batches import Submission
from pytest_legalbench.run.fingerprint import Fingerprint
from pytest_legalbench.run.journal import (
    JOURNAL_FILE,
    BatchEntry,
    ItemEntry,
    JournalContents,
    JournalError,
    JournalWriter,
    PlanEntry,
    StartEntry,
    StopEntry,
    batch_entry,
    journal_line,
    read_journal,
)
from pytest_legalbench.run.progress import Progress
from pytest_legalbench.run.run_folder import RunPlace, set_aside

#: Held while a process begins the run, so exactly one writes its start.
_LOCK_FILE = ".journal.lock"


@dataclass(frozen=True)
class JournalSession:
    """A run's journal as one process writes it. Nothing is written until a process that
    collected benchmark items begins the run (``begin``), so sessions without benchmark items
    leave no run folder behind."""

    folder: Path
    run: str
    """This run's token (a resumed run gets a new one)."""
    fingerprint: Mapping[str, str]
    digest: str
    """The settings fingerprint's digest every record is written under."""
    fresh: bool = True
    """A new run: an earlier journal in its folder is set aside when it begins."""
    report: bool = False
    """Whether the run writes its report into its own folder."""
    local: bool = True
    """Whether this process writes the run's folder; False on an xdist worker on another
    host, where the folder does not exist: its controller journals what it finishes."""
    resumed: Mapping[str, Mapping[str, Any]] = field(default_factory=dict,
                                                      metadata=NOT_WRITTEN)
    """Item id to the record envelope an earlier run under the same settings left (not
    handed to workers: each reads them from the journal)."""
    submitted: tuple[Submission, ...] = field(default=(), metadata=NOT_WRITTEN)
    """The message batches earlier runs under the same settings created: a batch run
    collects them instead of submitting their requests again (read like ``resumed``)."""

    @property
    def journal(self) -> Path:
        """The journal file."""
        return self.folder / JOURNAL_FILE

    def handed_over(self) -> dict[str, object]:
        """Plain builtins for an xdist worker (``join_run`` reads them back there)."""
        found: dict[str, object] = to_builtins(self)
        return found

    def begin(self, items: Sequence[str]) -> None:
        """Note the items this process collected; the first process to begin a run writes its
        start (after setting an earlier journal aside, for a fresh run)."""
        if not self.local:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / _LOCK_FILE, "a", encoding="utf-8") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            if not any(s.run == self.run for s in self._earlier().starts):
                if self.fresh:
                    set_aside(self.journal)
                JournalWriter(self.journal).append(journal_line(StartEntry(
                    self.run, dict(self.fingerprint), self.digest, self.report)))
            JournalWriter(self.journal).append(journal_line(PlanEntry(self.run, tuple(items))))

    def _earlier(self) -> JournalContents:
        """What the journal holds before this process begins; for a fresh run, a journal
        this build cannot read is an earlier run's, set aside like any other."""
        try:
            return read_journal(self.journal)
        except JournalError:
            if not self.fresh:
                raise
            return JournalContents()

    def finished(self, item: str, envelope: Mapping[str, Any]) -> None:
        """Write one finished item's record envelope (fsync'd before returning)."""
        if not self.local:
            return
        JournalWriter(self.journal).append(
            journal_line(ItemEntry(self.run, item, self.digest, envelope)))

    def skipped(self, item: str, reason: str) -> None:
        """Write that an item was skipped (it finished, with no record)."""
        if not self.local:
            return
        JournalWriter(self.journal).append(
            journal_line(ItemEntry(self.run, item, self.digest, None, reason)))

    def batched(self, entry: BatchEntry) -> None:
        """Write that a message batch was created (fsync'd before the run waits on it)."""
        if not self.local:
            return
        JournalWriter(self.journal).append(journal_line(entry))

    def submitted_lines(self) -> list[dict[str, object]]:
        """The journal lines of the batches earlier runs created under this run's settings
        (``submitted``), as plain builtins for a worker on another host."""
        if self.fresh:
            return []
        return [journal_line(entry) for entry in read_journal(self.journal).batches
                if entry.digest == self.digest]

    def batches(self) -> tuple[BatchEntry, ...]:
        """The batches this run created so far."""
        return tuple(entry for entry in read_journal(self.journal).batches
                     if entry.run == self.run)

    def stopped(self, reason: str) -> None:
        """Write that the run stopped itself early (the cost limit), and why."""
        if not self.local:
            return
        JournalWriter(self.journal).append(journal_line(StopEntry(self.run, reason)))

    def progress(self) -> Progress | None:
        """Items finished of the items this run planned; None when it planned none."""
        contents = read_journal(self.journal)
        planned = contents.plans.get(self.run)
        if not planned:
            return None
        done = contents.finished(self.run, self.digest) & planned
        return Progress(len(done), len(planned), contents.stops.get(self.run))


def open_run(place: RunPlace, fingerprint: Fingerprint, *, report: bool,
             run: str | None = None) -> JournalSession:
    """A new run's session, or, resuming, the earlier run's settings checked and its records
    taken; JournalError when they differ. Writes nothing. ``run`` is the run's token when
    several processes open the same run each on their own; None draws a new one."""
    run = run or uuid.uuid4().hex[:12]
    if not place.resumed:
        return JournalSession(place.folder, run, dict(fingerprint.parts), fingerprint.digest,
                              fresh=True, report=report)
    journal = place.journal
    if not journal.is_file():
        raise JournalError(f"--legalbench-resume {place.folder}: no {journal.name} there "
                           f"(give the report folder, or the run folder an interrupted run "
                           f"printed)")
    contents = read_journal(journal)
    if not contents.starts:
        raise JournalError(f"{journal}: holds no run start, so it cannot be resumed")
    last = contents.starts[-1]
    if last.digest != fingerprint.digest:
        changed = "; ".join(fingerprint.differences(last.fingerprint))
        raise JournalError(f"--legalbench-resume {place.folder}: that run used other settings "
                           f"({changed}); resume with the same settings, or start a new run "
                           f"without --legalbench-resume")
    return JournalSession(place.folder, run, dict(fingerprint.parts), fingerprint.digest,
                          fresh=False, report=report or last.report,
                          resumed=contents.records(fingerprint.digest),
                          submitted=contents.submissions(fingerprint.digest))


def join_run(given: Mapping[str, Any],
             resumed: Mapping[str, Mapping[str, Any]] | None = None,
             submitted: Sequence[Mapping[str, Any]] | None = None) -> JournalSession:
    """A worker's session of the run its controller opened (``handed_over``); a worker on
    another host is handed the ``resumed`` records and the ``submitted`` batch lines too,
    having no journal to read them from."""
    session = from_builtins(JournalSession, given, what="the run handed to this worker",
                            error=JournalError)
    if session.fresh:
        return session
    if not session.local:
        return replace(session, resumed=dict(resumed or {}), submitted=tuple(
            batch_entry(line, "a batch line handed to this worker").submission()
            for line in submitted or ()))
    contents = read_journal(session.journal)
    return replace(session, resumed=contents.records(session.digest),
                   submitted=contents.submissions(session.digest))
