"""``legalbench batches RUN_DIR``: the message batches a run created (its journal keeps each
one's id, and the item and call of each request), where each stands now, and ``--cancel`` to
cancel the ones still running."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import (
    Progress,
    UsageProblem,
    add_setting,
    backend_choice,
    call_timeout,
)
from pytest_legalbench.llm.batch_progress import COUNT_NAMES, BatchState
from pytest_legalbench.plugin.options import BACKEND_OPTIONS

#: What the embedded reference backend's batches came to when their run ended.
GONE = "gone with its run (the embedded reference backend)"


def register(commands: Any) -> None:
    """Add the ``batches`` subcommand."""
    batches = commands.add_parser(
        "batches", help="list the message batches a run created and their state; --cancel "
                        "cancels those still running")
    batches.add_argument("run_dir", type=Path, metavar="RUN_DIR",
                         help="the run's folder: its report folder, or the run folder an "
                              "interrupted run printed (it holds journal.jsonl)")
    batches.add_argument("--cancel", action="store_true",
                         help="cancel every batch of the run still in progress (its requests "
                              "not yet processed are not billed)")
    batches.add_argument("--json", action="store_true",
                         help="print one JSON object per batch (the journal's line and the "
                              "state the server reports)")
    batches.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    for chosen in BACKEND_OPTIONS:
        add_setting(batches, chosen)
    batches.set_defaults(run=run_batches)


@dataclass(frozen=True)
class Listed:
    """One journaled batch and the state the server reports for it (None: not asked)."""

    run: str
    batch_id: str
    attempt: int
    requests: int
    stages: tuple[str, ...]
    backend: str
    state: BatchState | None = None


def run_batches(args: argparse.Namespace, progress: Progress) -> int:
    """List (or cancel) the batches of the run in ``RUN_DIR``."""
    from pytest_legalbench.run.journal import JOURNAL_FILE, JournalError, read_journal

    journal = args.run_dir / JOURNAL_FILE
    if not journal.is_file():
        raise UsageProblem(f"{args.run_dir}: no {JOURNAL_FILE} there (give the report folder, "
                           f"or the run folder an interrupted run printed)")
    try:
        entries = read_journal(journal).batches
    except JournalError as error:
        raise UsageProblem(str(error)) from None
    listed = [Listed(e.run, e.batch_id, e.attempt, len(e.calls),
                     tuple(sorted({c.stage for c in e.calls})), e.backend) for e in entries]
    if not listed:
        print(f"{journal}: this run created no message batch")
        return 0
    live = [entry for entry in listed if entry.backend != "reference"]
    if live:
        states = _states([entry.batch_id for entry in live], args, progress,
                         cancel=args.cancel)
        listed = [Listed(e.run, e.batch_id, e.attempt, e.requests, e.stages, e.backend,
                         states.get(e.batch_id)) for e in listed]
    elif args.cancel:
        print(f"nothing to cancel: every batch was {GONE}")
    if args.json:
        from pytest_legalbench.files.record_json import to_builtins

        for entry in listed:
            print(json.dumps(to_builtins(entry), ensure_ascii=False))
        return 0
    for line in listing_lines(listed):
        print(line)
    return 0


def _states(batch_ids: Sequence[str], args: argparse.Namespace, progress: Progress, *,
            cancel: bool) -> dict[str, BatchState]:
    """Each batch as the server reports it now (after cancelling those in progress)."""
    from pytest_legalbench.llm.backend import configured_backend
    from pytest_legalbench.llm.batches import BatchClient, BatchError

    backend, base_url, _ = backend_choice(args)
    config = configured_backend(backend, os.environ, base_url=base_url,
                                timeout_s=call_timeout(args))
    if config.backend == "reference":
        raise UsageProblem("these batches live on a server, not on the embedded reference "
                           "backend: set ANTHROPIC_API_KEY (and --base-url for a server other "
                           "than Claude's API) to reach it")
    progress(f"{'cancelling' if cancel else 'asking for'} {len(batch_ids)} batch(es)")
    try:
        with BatchClient(config) as client:
            found = client.cancel(batch_ids) if cancel else client.states(batch_ids)
    except BatchError as error:
        raise UsageProblem(str(error)) from None
    return {state.batch_id: state for state in found}


def listing_lines(listed: Sequence[Listed]) -> list[str]:
    """The table of batches: one line each, then the totals."""
    lines = [f"{'batch':<40} {'run':<13} {'try':>3} {'requests':>8}  state"]
    for entry in listed:
        lines.append(f"{entry.batch_id:<40} {entry.run:<13} {entry.attempt:>3} "
                     f"{entry.requests:>8}  {_state_text(entry)}")
        lines.append(f"    {', '.join(entry.stages)}")
    open_count = sum(1 for e in listed if e.state is not None and not e.state.ended)
    lines.append(f"{len(listed)} batch(es), {sum(e.requests for e in listed)} request(s); "
                 f"{open_count} still in progress")
    return lines


def _state_text(entry: Listed) -> str:
    if entry.backend == "reference":
        return GONE
    if entry.state is None:
        return "unknown"
    counts = ", ".join(f"{getattr(entry.state.counts, name)} {name}" for name in COUNT_NAMES
                       if getattr(entry.state.counts, name))
    return f"{entry.state.status} ({counts or 'no requests'})"
