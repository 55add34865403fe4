"""Model calls through the Message Batches API (``client.messages.batches``): submit, persist,
wait, collect, retry, resume and cancel.

``BatchClient.run`` takes ``(custom id, params)`` requests and:

1. submits the requests not yet submitted in as few batches as the API's limits allow, calling
   ``on_submitted`` with each batch's id and custom ids as soon as it is created, before any
   wait (the caller writes them to its journal: a run interrupted from then on can be
   collected later instead of paid for again);
2. polls every open batch at ``poll_interval_s``, calling ``on_progress`` with the request
   counts, the time waited and the next poll;
3. streams each ended batch's results, matched by custom id, calling ``on_result`` with every
   final result;
4. resubmits requests that errored with a transient error or expired, in a new batch, up to
   ``max_resubmits`` times (or, with ``fallback``, hands them back for an interactive retry);
5. returns every result: the message as read by the same checks as an interactive reply, or a
   final error, and the usage the ledger records (``BatchResult.to_call``, at batch rates).

Given the submissions a journal kept (``submitted``), ``run`` collects those batches and
submits only what none of them holds: nothing is paid for twice. A batch create that fails
ambiguously (a timeout, a dropped connection, a 5xx) is not repeated, since the batch may
exist: the error says so and names the requests.

``anthropic`` is imported inside ``BatchClient`` only, so importing this module stays cheap.
"""

from __future__ import annotations

import dataclasses
import json
import random as _random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_legalbench.files.record_json import OMIT_EMPTY
from pytest_legalbench.llm.backend import BackendConfigError, ClientConfig
from pytest_legalbench.llm.batch_progress import BatchProgress, BatchState
from pytest_legalbench.llm.batch_requests import (
    CUSTOM_ID,
    MAX_BATCH_BYTES,
    MAX_BATCH_REQUESTS,
    BatchRequest,
    check_unique,
    split_batches,
)
from pytest_legalbench.llm.failures import Failure, classify
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.redaction import redactor_for
from pytest_legalbench.llm.reply_checks import RETRYABLE_BODY_ERRORS, Reply, read_reply

if TYPE_CHECKING:
    from typing import Self

    import anthropic

#: What a batch request came to (the API's result types).
OUTCOMES = ("succeeded", "errored", "expired", "canceled")
#: Statuses of a refused batch create that say the batch was not created: safe to repeat.
_CREATE_RETRY_STATUSES = frozenset({429, 529})
#: Headers of a results file that describe the file, not the server that wrote it.
_FILE_HEADERS = frozenset({"content-type", "content-length", "content-encoding",
                           "transfer-encoding", "connection", "date"})
#: The placeholder key the SDK needs to talk to the reference backend.
_REFERENCE_KEY = "reference"

_T = TypeVar("_T")


class BatchError(RuntimeError):
    """A batch call failed for good (the message says which call, why, and what to do)."""


class BatchWaitExpired(BatchError):
    """``max_wait_s`` passed with batches still processing; they are left running."""

    def __init__(self, open_batches: Sequence[str], waited_s: float) -> None:
        self.open_batches = tuple(open_batches)
        self.waited_s = waited_s
        super().__init__(f"gave up waiting after {waited_s:.0f} s with "
                         f"{len(open_batches)} batch(es) still processing "
                         f"({', '.join(open_batches)}); they keep running and can be "
                         f"collected later from their ids")


@dataclass(frozen=True)
class BatchSettings:
    """How batches are waited on and retried."""

    poll_interval_s: float = 30.0
    max_resubmits: int = 3
    """How often a request that errored transiently or expired is put in a new batch."""
    fallback: bool = False
    """Hand such requests back (``BatchOutcome.fallback``) for an interactive call instead of
    resubmitting them."""
    max_wait_s: float | None = None
    """Stop waiting (``BatchWaitExpired``) after this long; None: until the batches end (the
    API expires a batch after 24 hours)."""
    max_requests: int = MAX_BATCH_REQUESTS
    max_bytes: int = MAX_BATCH_BYTES

    def __post_init__(self) -> None:
        if not self.poll_interval_s > 0:
            raise ValueError(f"poll_interval_s must be positive, got {self.poll_interval_s}")
        if self.max_resubmits < 0:
            raise ValueError(f"max_resubmits must be >= 0, got {self.max_resubmits}")
        if self.max_wait_s is not None and not self.max_wait_s > 0:
            raise ValueError(f"max_wait_s must be positive or None, got {self.max_wait_s}")


@dataclass(frozen=True)
class Submission:
    """One created batch: what a journal keeps to collect it without submitting again.
    Written and read through ``files.record_json``."""

    batch_id: str = field(metadata={"min_length": 1})
    custom_ids: tuple[str, ...]
    attempt: int = field(default=1, metadata={"ge": 1})
    """1 when these requests were first submitted, 2 for their first resubmission, ..."""
    digests: Mapping[str, str] = field(default_factory=dict, metadata=OMIT_EMPTY)
    """Custom id to the digest of the request submitted under it (``BatchRequest.digest``),
    so a resume whose request changed under the same custom id submits it again instead of
    collecting an answer to another prompt."""

    def __post_init__(self) -> None:
        bad = [cid for cid in self.custom_ids if not CUSTOM_ID.fullmatch(cid)]
        if bad:
            raise ValueError(f"batch submission {self.batch_id}: {bad[0]!r} is not a custom "
                             f"id (^[a-zA-Z0-9_-]{{1,64}}$)")


@dataclass(frozen=True)
class BatchResult:
    """What one request came to, after any resubmissions."""

    custom_id: str
    outcome: str
    """``succeeded``, ``errored``, ``expired`` or ``canceled`` (``OUTCOMES``)."""
    batch_id: str
    """The batch that gave this result."""
    attempts: int
    """The batches the request was submitted in."""
    reply: Reply | None = None
    """The message, checked as an interactive reply is (content, model, usage); None unless
    the request succeeded."""
    message: Any = None
    """The SDK's ``Message`` as the results file gave it (what ``POST /v1/messages`` would
    have answered); None unless it succeeded."""
    raw_message: Mapping[str, Any] | None = None
    """The same message as the JSON object the results file holds, its keys in the server's
    order (``message_json`` writes it as an interactive answer's body); None unless it
    succeeded."""
    headers: tuple[tuple[str, str], ...] = ()
    """The headers of the results file that describe the server rather than the file (its
    type, length and encoding left out)."""
    error: str | None = None
    """Why the request has no message: the API's error, expiry or cancellation."""
    error_type: str | None = None
    """The API's error type (``invalid_request_error``, ``api_error``, ...) when it errored."""
    retried: tuple[str, ...] = ()
    """The failures resubmitted in this process before this result (``batch errored:
    api_error``, ``batch expired``)."""
    latency_s: float = 0.0
    """Seconds from the batch's creation to the end of its processing, as the API reports."""

    @property
    def succeeded(self) -> bool:
        """Whether the request has a message."""
        return self.reply is not None

    def message_json(self) -> bytes:
        """The message as the body of an interactive answer: JSON as Python writes it by
        default (the reference backend's layout), UTF-8."""
        if self.raw_message is None:
            raise ValueError(f"request {self.custom_id} {self.outcome}: it has no message")
        return json.dumps(self.raw_message, ensure_ascii=False).encode("utf-8")

    @property
    def retryable(self) -> bool:
        """Whether another submission may succeed (a transient error or an expiry)."""
        return self.outcome == "expired" or (self.outcome == "errored"
                                              and self.error_type in RETRYABLE_BODY_ERRORS)

    @property
    def usage(self) -> Usage:
        """The tokens the request was billed for (none unless it succeeded)."""
        return self.reply.usage if self.reply is not None else Usage()

    def to_call(self, stage: str, *, backend: str, question_id: str | None = None,
                valid: bool = True, raw_output: str | None = None) -> Call:
        """The ledger entry of this result: a batch call, priced at the card's batch rates."""
        if self.reply is None:
            raise ValueError(f"request {self.custom_id} {self.outcome}: there is no call to "
                             f"record ({self.error})")
        return Call(stage=stage, model=self.reply.model, usage=self.reply.usage,
                    latency_s=self.latency_s, backend=backend, question_id=question_id,
                    valid=valid, unreported=self.reply.unreported, raw_output=raw_output,
                    retries=self.retried, batch=True)


@dataclass(frozen=True)
class BatchOutcome:
    """Every result of a ``run``, the batches it used, and what it handed back."""

    results: Mapping[str, BatchResult]
    submissions: tuple[Submission, ...]
    """Every batch the results came from or were submitted to, in order."""
    fallback: tuple[str, ...] = ()
    """Custom ids handed back for an interactive call (``BatchSettings.fallback``)."""
    changed: tuple[str, ...] = ()
    """Custom ids a journaled batch held with another request than the one asked now (its
    digest differs): submitted again rather than collected."""

    @property
    def failed(self) -> tuple[BatchResult, ...]:
        """Results without a message that were not handed back."""
        handed = set(self.fallback)
        return tuple(r for r in self.results.values()
                     if not r.succeeded and r.custom_id not in handed)


@dataclass
class _Open:
    """A batch being waited on: its submission and the custom ids still expected from it."""

    submission: Submission
    wanted: set[str]
    state: BatchState | None = None
    delivered: set[str] = field(default_factory=set)


class BatchClient:
    """Sends requests through the Message Batches API of the configured backend."""

    def __init__(self, config: ClientConfig, settings: BatchSettings | None = None, *,
                 on_submitted: Callable[[Submission], None] | None = None,
                 on_progress: Callable[[BatchProgress], None] | None = None,
                 on_result: Callable[[BatchResult], None] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic,
                 random: Callable[[], float] = _random.random) -> None:
        if config.backend == "reference" and not config.base_url:
            raise BackendConfigError("the reference backend needs the base_url of a running "
                                     "ReferenceBackend")
        if config.backend == "anthropic" and not config.api_key:
            raise BackendConfigError("backend 'anthropic' needs an API key (ANTHROPIC_API_KEY)")
        self.config = config
        self.settings = settings or BatchSettings()
        self._on_submitted = on_submitted or (lambda _: None)
        self._on_progress = on_progress or (lambda _: None)
        self._on_result = on_result or (lambda _: None)
        self._sleep, self._clock, self._random = sleep, clock, random
        self._redact = redactor_for(None if config.api_key == _REFERENCE_KEY
                                    else config.api_key)
        self._lock = threading.Lock()
        self._sdk_client: anthropic.Anthropic | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the SDK's connection pool, if one was opened."""
        with self._lock:
            sdk, self._sdk_client = self._sdk_client, None
        if sdk is not None:
            sdk.close()

    # ---- the whole cycle ----------------------------------------------------------------

    def run(self, requests: Sequence[BatchRequest],
            submitted: Iterable[Submission] = ()) -> BatchOutcome:
        """Get a result for every request: collect the ``submitted`` batches that hold them,
        submit the rest, wait, resubmit transient failures, and return every result."""
        check_unique(requests)
        by_id = {request.custom_id: request for request in requests}
        # The latest submission holding a request is the one whose result counts: an earlier
        # one gave a failure that was resubmitted.
        latest: dict[str, Submission] = {}
        history: list[Submission] = []
        changed: set[str] = set()
        for submission in submitted:
            history.append(submission)
            for cid in submission.custom_ids:
                if cid not in by_id:
                    continue
                held = submission.digests.get(cid)
                if held is not None and held != by_id[cid].digest:
                    # Another prompt under the same id: its answer is not this request's.
                    changed.add(cid)
                    latest.pop(cid, None)
                    continue
                changed.discard(cid)
                latest[cid] = submission
        opened = [_Open(s, {cid for cid in s.custom_ids if latest.get(cid) is s})
                  for s in history]
        waiting = [entry for entry in opened if entry.wanted]
        fresh = [request for request in requests if request.custom_id not in latest]
        results: dict[str, BatchResult] = {}
        retried: dict[str, list[str]] = {}
        fallback: list[str] = []
        waiting += self._submit(fresh, 1, history)
        started = self._clock()
        while waiting:
            ended = self._wait(waiting, started)
            again: dict[int, list[BatchRequest]] = {}
            for entry in ended:
                waiting.remove(entry)
                for result in self._collect(entry, by_id, retried):
                    attempt = entry.submission.attempt
                    if result.retryable and self.settings.fallback:
                        fallback.append(result.custom_id)
                    elif result.retryable and attempt <= self.settings.max_resubmits:
                        retried.setdefault(result.custom_id, []).append(_label(result))
                        again.setdefault(attempt + 1, []).append(by_id[result.custom_id])
                        continue
                    results[result.custom_id] = result
                    self._on_result(result)
            for attempt, batch in sorted(again.items()):
                waiting += self._submit(batch, attempt, history)
        return BatchOutcome(results={r.custom_id: results[r.custom_id] for r in requests
                                     if r.custom_id in results},
                            submissions=tuple(history), fallback=tuple(fallback),
                            changed=tuple(sorted(changed)))

    # ---- steps ----------------------------------------------------------------------------

    def _submit(self, requests: Sequence[BatchRequest], attempt: int,
                history: list[Submission]) -> list[_Open]:
        """Create the batches of ``requests``; each is persisted before the next is made."""
        opened: list[_Open] = []
        for batch in split_batches(requests, max_requests=self.settings.max_requests,
                                   max_bytes=self.settings.max_bytes):
            created = self._create(batch)
            submission = Submission(str(created.id), tuple(r.custom_id for r in batch), attempt,
                                    {r.custom_id: r.digest for r in batch})
            self._on_submitted(submission)
            history.append(submission)
            opened.append(_Open(submission, set(submission.custom_ids),
                                BatchState.from_api(created)))
        return opened

    def _create(self, batch: Sequence[BatchRequest]) -> Any:
        ids = [request.custom_id for request in batch]
        named = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        # Any: the SDK's TypedDict params cannot be built from our plain dicts without casts.
        body: Any = [request.to_param() for request in batch]
        try:
            return self._call("create", lambda sdk: sdk.messages.batches.create(requests=body),
                              repeatable=lambda failure: failure.status in _CREATE_RETRY_STATUSES)
        except BatchError as error:
            raise BatchError(f"{error}; requests {named} were not collected: if the batch was "
                             f"created after all, list the workspace's batches before "
                             f"submitting them again") from None

    def _wait(self, waiting: list[_Open], started: float) -> list[_Open]:
        """Poll until at least one batch of ``waiting`` has ended; return those that have.
        Progress is reported before each wait and when every batch has ended."""
        while True:
            for entry in waiting:
                if entry.state is None or not entry.state.ended:
                    entry.state = self.state(entry.submission.batch_id)
            ended = [entry for entry in waiting if entry.state is not None
                     and entry.state.ended]
            waited = self._clock() - started
            states = tuple(entry.state for entry in waiting if entry.state is not None)
            if ended:
                if len(ended) == len(waiting):
                    self._on_progress(BatchProgress(states, waited, None))
                return ended
            limit = self.settings.max_wait_s
            if limit is not None and waited + self.settings.poll_interval_s > limit:
                self._on_progress(BatchProgress(states, waited, None))
                raise BatchWaitExpired([entry.submission.batch_id for entry in waiting], waited)
            self._on_progress(BatchProgress(states, waited, self.settings.poll_interval_s))
            self._sleep(self.settings.poll_interval_s)

    def _collect(self, entry: _Open, by_id: Mapping[str, BatchRequest],
                 retried: Mapping[str, list[str]]) -> list[BatchResult]:
        """The results of an ended batch for the custom ids still expected from it; an id
        the results file lacks counts as a transient error."""
        submission = entry.submission
        latency = _latency(entry.state)
        found: dict[str, BatchResult] = {}

        headers: list[tuple[str, str]] = []

        def read(sdk: anthropic.Anthropic) -> None:
            from anthropic.types.messages import MessageBatchIndividualResponse

            # Read raw: each message is kept as the server wrote it (its keys in order), for
            # a run that serves it as the interactive answer its cassette records.
            raw = sdk.messages.batches.with_raw_response.results(submission.batch_id)
            headers[:] = [(name, value) for name, value in raw.headers.items()
                          if name.lower() not in _FILE_HEADERS]
            for text in raw.http_response.iter_lines():
                if not text.strip():
                    continue
                data = json.loads(text)
                line = MessageBatchIndividualResponse.construct(**data)
                cid = line.custom_id
                if cid in entry.wanted and cid in by_id and cid not in found:
                    result = _result(line.result, cid, submission, latency,
                                     tuple(retried.get(cid, ())))
                    if result.succeeded:
                        result = dataclasses.replace(
                            result, raw_message=data["result"]["message"],
                            headers=tuple(headers))
                    found[cid] = result

        # A results download cut short is read again whole: it is idempotent, and ids
        # already read are kept.
        self._call("results", read, repeatable=lambda failure: failure.retryable)
        missing = sorted(entry.wanted - set(found))
        for cid in missing:
            found[cid] = BatchResult(cid, "errored", submission.batch_id, submission.attempt,
                                     error="missing from the batch's results",
                                     error_type="api_error",
                                     retried=tuple(retried.get(cid, ())), latency_s=latency)
        return [found[cid] for cid in submission.custom_ids if cid in found]

    # ---- single calls -------------------------------------------------------------------

    def state(self, batch_id: str) -> BatchState:
        """The batch as the API reports it now."""
        return BatchState.from_api(self._call(
            "retrieve", lambda sdk: sdk.messages.batches.retrieve(batch_id),
            repeatable=lambda failure: failure.retryable))

    def states(self, batch_ids: Iterable[str]) -> list[BatchState]:
        """Each batch as the API reports it now (``legalbench batches``)."""
        return [self.state(batch_id) for batch_id in batch_ids]

    def cancel(self, batch_ids: Iterable[str]) -> list[BatchState]:
        """Cancel every batch still in progress; ended ones are reported as they are."""
        return [self._cancel_one(batch_id) for batch_id in batch_ids]

    def _cancel_one(self, batch_id: str) -> BatchState:
        state = self.state(batch_id)
        if state.status != "in_progress":
            return state
        return BatchState.from_api(self._call(
            "cancel", lambda sdk: sdk.messages.batches.cancel(batch_id),
            repeatable=lambda failure: failure.retryable))

    def _sdk(self) -> anthropic.Anthropic:
        with self._lock:
            if self._sdk_client is None:
                import anthropic

                self._sdk_client = anthropic.Anthropic(
                    api_key=self.config.api_key or _REFERENCE_KEY, base_url=self.config.base_url,
                    timeout=self.config.timeout_s, max_retries=0)
            return self._sdk_client

    def _call(self, what: str, request: Callable[[anthropic.Anthropic], _T], *,
              repeatable: Callable[[Failure], bool]) -> _T:
        """Run one Batches API call under the client's retry bounds; ``repeatable`` says
        which failures may be sent again."""
        policy = self.config.retry_policy
        sdk = self._sdk()
        spent = 0.0
        for attempt in range(1, policy.max_attempts + 1):
            began = self._clock()
            try:
                return request(sdk)
            except Exception as exc:
                failure = classify(exc, self.config.timeout_s)
                if failure is None:
                    raise
                spent += self._clock() - began
                delay = policy.delay(attempt - 1, self._random(), failure.retry_after)
                reason = (policy.give_up(attempt, spent + delay, failure.message)
                          if repeatable(failure) else failure.message)
                if reason is not None:
                    status = f"HTTP {failure.status}" if failure.status else "no HTTP status"
                    hint = (" (this server does not serve the Message Batches API)"
                            if failure.status in (404, 405) else "")
                    raise BatchError(f"message batch {what} failed ({status}){hint}: "
                                     f"{self._redact(reason)}") from None
            self._sleep(delay)
            spent += delay
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover


def _result(result: Any, cid: str, submission: Submission, latency: float,
            retried: tuple[str, ...]) -> BatchResult:
    """One line of a results file as a ``BatchResult``."""
    kind = getattr(result, "type", None)
    base = BatchResult(cid, "errored", submission.batch_id, submission.attempt,
                       retried=retried, latency_s=latency)
    if kind == "succeeded":
        message = getattr(result, "message", None)
        model = getattr(message, "model", None)
        reply = read_reply(message, model if isinstance(model, str) else "")
        if isinstance(reply, str):
            # Malformed content is refused as an interactive reply is, and not resubmitted:
            # the same request would get the same answer.
            return dataclasses.replace(base, error=reply, error_type="malformed_message")
        return dataclasses.replace(base, outcome="succeeded", reply=reply, message=message)
    if kind == "errored":
        envelope = getattr(result, "error", None)
        inner = getattr(envelope, "error", None)
        error_type, message = getattr(inner, "type", None), getattr(inner, "message", None)
        return dataclasses.replace(
            base, error=message if isinstance(message, str) else repr(envelope)[:200],
            error_type=error_type if isinstance(error_type, str) else "unknown")
    if kind in ("expired", "canceled"):
        return dataclasses.replace(base, outcome=str(kind),
                                   error=f"{kind} before it was processed")
    return dataclasses.replace(base, error=f"unknown result type {kind!r}",
                               error_type="unknown")


def _label(result: BatchResult) -> str:
    """How a resubmitted failure is named in ``retried``."""
    if result.outcome == "errored":
        return f"batch errored: {result.error_type}"
    return f"batch {result.outcome}"


def _latency(state: BatchState | None) -> float:
    """Seconds from creation to the end of processing, from the API's timestamps."""
    if state is None or state.created_at is None or state.ended_at is None:
        return 0.0
    try:
        began = datetime.fromisoformat(state.created_at)
        ended = datetime.fromisoformat(state.ended_at)
    except ValueError:
        return 0.0
    return max(0.0, (ended - began).total_seconds())
