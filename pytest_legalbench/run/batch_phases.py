"""A batch run's first pass: every call of the items sent through the Message Batches API,
in phases by dependency, before pytest runs the items.

pytest runs items one at a time, and an item's calls depend on one another (a scan before the
answer it routes, both answers before the judge), so the calls cannot all be known up front.
The first pass learns them by running the items against the answers gathered so far
(``llm.batch_replies``): each item runs until it reaches a call no batch has answered
(``CallPending``); the calls every item stopped at make the next phase's batch; once it has
ended, its answers are stored and the items run again, each getting one dependency further.
A phase therefore holds every call whose inputs are known at that point: the scans and
title picks, inject's answer to each question (once per question: the items of a question
share its call scope) and the answers of modes that scan nothing; then the answers that
follow a scan; then both directions of each judge (``independent``); GANDR's drafts, then its
audits and rubrics, then its critics, round by round, its seeded repeats side by side.
navagent's turns each read the previous turn's answer, so it takes one phase per turn: a
batch per navigation turn, with every item's turn of that depth in it.

The items' real run (the second pass) is served from the stored answers, so each item's
record, ledger and cassette come out as an interactive run's would (``ModelClient``).

Before any wait, every batch is written to the run journal with the item and call each of
its requests answers; a resumed run collects those batches instead of submitting their
requests again. Requests that end errored (transiently) or expired are resubmitted up to the
cap, or handed back to be called interactively (``fallback``). An item that meets anything
else in the first pass (a mode that cannot run, a request that failed for good, a cassette
it replays) leaves the first pass and meets it again, or replays, in its real run.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pytest_legalbench.llm.backend import ClientConfig
from pytest_legalbench.llm.batch_progress import BatchProgress
from pytest_legalbench.llm.batch_replies import BatchReplies, StoredReply, site_custom_id
from pytest_legalbench.llm.batch_requests import BatchRequest
from pytest_legalbench.llm.batches import BatchClient, BatchSettings, Submission
from pytest_legalbench.llm.call_sites import CallSite
from pytest_legalbench.llm.cost_guard import CostGuard
from pytest_legalbench.llm.pending_calls import CallPending, PendingRequest
from pytest_legalbench.modes.base import ModeUnavailable
from pytest_legalbench.run.benchmark import Benchmark
from pytest_legalbench.run.items import Case
from pytest_legalbench.run.journal import BatchCall, BatchEntry

#: The most phases a first pass may take: far beyond any item's chain of calls (navagent's
#: turns, GANDR's rounds), so reaching it means an item asks for the same calls forever.
MAX_PHASES = 1000


@dataclass(frozen=True)
class PhaseItem:
    """A unit of the first pass: its id, the question it answers, and what runs it (making
    its calls inside its call scopes, as its real run will)."""

    id: str
    question_id: str
    run: Callable[[], object]

    @classmethod
    def of(cls, benchmark: Benchmark, case: Case, group: str) -> PhaseItem:
        """A benchmark item: ``case`` in the module ``group`` (its cassette group)."""
        return cls(case.id, case.question.id, functools.partial(benchmark.run, case, group))


@dataclass(frozen=True)
class Phase:
    """One phase: its requests by stage, the batches that answered them, and how many of
    them a journaled batch held (a resumed run's)."""

    number: int
    stages: Mapping[str, int]
    batches: tuple[str, ...]
    collected: int = 0
    """Requests an earlier run's batches held: collected, not submitted again."""
    failed: int = 0
    """Requests with no answer after every resubmission."""
    handed_back: int = 0
    """Requests handed back for an interactive call (``fallback``)."""

    @property
    def requests(self) -> int:
        """Requests in the phase."""
        return sum(self.stages.values())

    def line(self) -> str:
        """One line for the terminal."""
        stages = ", ".join(f"{count} {stage}" for stage, count in sorted(self.stages.items()))
        notes = ((self.collected, "collected from the journal's batches"),
                 (self.failed, "failed"),
                 (self.handed_back, "handed back to call interactively"))
        extra = "".join(f"; {count} {what}" for count, what in notes if count)
        return (f"phase {self.number}: {self.requests} request(s) in "
                f"{len(self.batches)} batch(es) ({stages}){extra}")


@dataclass(frozen=True)
class PhaseReport:
    """What the first pass did."""

    phases: tuple[Phase, ...] = ()
    items: int = 0
    """Items the first pass carried to the end of their calls."""
    left: Mapping[str, str] = field(default_factory=dict)
    """Item id to why it left the first pass (its real run meets that again, or replays)."""

    @property
    def requests(self) -> int:
        """Every request of every phase."""
        return sum(phase.requests for phase in self.phases)

    def lines(self) -> list[str]:
        """The report for the terminal."""
        lines = [phase.line() for phase in self.phases]
        lines.append(f"batched: {self.items} item(s), {self.requests} request(s) in "
                     f"{len(self.phases)} phase(s)"
                     + (f"; {len(self.left)} item(s) run without batches" if self.left else ""))
        reasons = Counter(self.left.values())
        lines.extend(f"  {count} item(s): {reason}" for reason, count in sorted(reasons.items()))
        return lines


class BatchPhases:
    """Runs the first pass of a batch run over items whose calls go through a client that
    collects (its ``replies`` is ``replies``, still collecting)."""

    def __init__(self, replies: BatchReplies, config: ClientConfig,
                 settings: BatchSettings, *, backend: str,
                 submitted: Sequence[Submission] = (),
                 journal: Callable[[BatchEntry], None] = lambda _: None,
                 announce: Callable[[str], None] = lambda _: None,
                 replayable: Callable[[str], bool] = lambda _: False,
                 guard: CostGuard | None = None, run: str = "", digest: str = "") -> None:
        self.replies = replies
        self.config = config
        self.settings = settings
        self.backend = backend
        """The ledger's backend label of the calls (``BatchResult.to_call``)."""
        self.submitted = list(submitted)
        self._journal = journal
        self._announce = announce
        self._replayable = replayable
        self._guard = guard
        self._run, self._digest = run, digest
        self._asked: dict[str, PendingRequest] = {}
        self._phase = 0

    def run(self, items: Sequence[PhaseItem]) -> PhaseReport:
        """Carry ``items`` through their calls, one phase per dependency step."""
        waiting = list(items)
        left: dict[str, str] = {}
        phases: list[Phase] = []
        done = 0
        while waiting:
            asked: dict[str, PendingRequest] = {}
            still: list[PhaseItem] = []
            for item in waiting:
                pending = self._try(item, left)
                if pending is None:
                    done += item.id not in left
                    continue
                replays = sorted({r.site.scope for r in pending if self._replayable(r.site.scope)})
                if replays:
                    left[item.id] = "replays a recorded cassette"
                    continue
                for request in pending:
                    asked.setdefault(site_custom_id(request.site, request.stage), request)
                still.append(item)
            if not asked:
                break
            if len(phases) >= MAX_PHASES:
                raise RuntimeError(f"the first pass took {MAX_PHASES} phases and items still "
                                   f"ask for calls ({', '.join(i.id for i in still[:3])})")
            phases.append(self._send(len(phases) + 1, asked))
            waiting = still
        return PhaseReport(tuple(phases), done, left)

    def _try(self, item: PhaseItem, left: dict[str, str]) -> tuple[PendingRequest, ...] | None:
        """The requests ``item`` waits for; None when it ran to its end (or left)."""
        try:
            item.run()
        except CallPending as pending:
            return pending.requests
        except ModeUnavailable as error:
            left[item.id] = f"{error.mode} cannot run: {error.reason}"
        except Exception as error:  # noqa: BLE001 (its real run meets it again and reports it)
            left[item.id] = f"{type(error).__name__}: {str(error).splitlines()[0][:160]}"
        return None

    def _send(self, number: int, asked: Mapping[str, PendingRequest]) -> Phase:
        """Submit (or collect) one phase's requests, wait, and store every answer."""
        requests = [BatchRequest(cid, pending.params) for cid, pending in asked.items()]
        held = {cid for s in self.submitted for cid in s.custom_ids}
        fresh = [r.params for r in requests if r.custom_id not in held]
        if self._guard is not None and fresh:
            self._guard.before_batch(fresh, f"phase {number}'s batch of {len(fresh)} requests")
        self._asked = dict(asked)
        self._phase = number
        stages = Counter(pending.stage for pending in asked.values())
        self._announce(f"phase {number}: {len(requests)} request(s) "
                       f"({', '.join(f'{n} {s}' for s, n in sorted(stages.items()))})")
        with BatchClient(self.config, self.settings, on_submitted=self._submitted,
                         on_progress=self._progress) as client:
            outcome = client.run(requests, submitted=self.submitted)
        handed = set(outcome.fallback)
        failed = 0
        for cid, pending in asked.items():
            if cid in handed:
                self.replies.hand_back(pending.site)
                continue
            result = outcome.results.get(cid)
            if result is None:
                continue
            self.replies.put(pending.site, StoredReply.of(result))
            if result.succeeded:
                if self._guard is not None:
                    self._guard.after(result.to_call(pending.stage, backend=self.backend,
                                                      question_id=pending.question_id))
            else:
                failed += 1
        used = {s.batch_id for s in outcome.submissions if set(s.custom_ids) & set(asked)}
        return Phase(number, dict(stages), tuple(sorted(used)),
                     collected=len([cid for cid in asked if cid in held]),
                     failed=failed, handed_back=len(handed))

    def _submitted(self, submission: Submission) -> None:
        """Journal a batch as soon as it exists: the item and call of each request."""
        self.submitted.append(submission)
        calls = tuple(_call(cid, submission.digests.get(cid, ""), self._asked[cid].site,
                            self._asked[cid]) for cid in submission.custom_ids)
        self._journal(BatchEntry(self._run, self._digest, submission.batch_id,
                                 submission.attempt, self.backend, calls))

    def _progress(self, progress: BatchProgress) -> None:
        self._announce(f"phase {self._phase}: {progress.line()}")


def _call(cid: str, request: str, site: CallSite, pending: PendingRequest) -> BatchCall:
    return BatchCall(cid, request, site.scope, pending.stage, site.occurrence,
                     pending.question_id)
