"""The Message Batches endpoints of the reference backend: create, retrieve, list, cancel,
delete and the results file (JSON Lines), with the life cycle the API reports.

A batch is ``in_progress`` for the backend's processing delay (longer when a ``batch-late``
fault hits it); the first look at it after that processes every request, in submission order,
through the same answering path as ``POST /v1/messages`` (same responder, same prompt-cache
emulation, same counts), so a batch gets exactly the interactive answers. Only then do the
request counts move from ``processing`` to ``succeeded``, ``errored``, ``canceled`` and
``expired``, as the API's do. A cancelled batch is ``canceling`` until it is next looked at,
then ``ended`` with every request canceled. A batch still unprocessed 24 hours after it was
created ends with every request expired.

Every request is counted when it is submitted and when it is processed
(``BatchStore.submitted``, ``BatchStore.processed``, by the digest of its params), so a test
can show that nothing was submitted twice.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from pytest_legalbench.reference_backend.faults import FaultLog
from pytest_legalbench.reference_backend.wire import WireError, error_body, invalid

#: The collection's path; a batch is ``BATCHES_PATH/{id}``.
BATCHES_PATH = "/v1/messages/batches"
#: The API's limits on one batch.
MAX_REQUESTS = 100_000
#: The pattern the API holds every ``custom_id`` to.
CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: How long after its creation an unfinished batch expires, as in the API.
BATCH_LIFETIME_S = 24 * 3600.0
_LIST_LIMIT = (1, 1000, 20)  # smallest, largest, default page size

#: Answers one Messages request body the way ``POST /v1/messages`` would: (status, JSON body).
Answerer = Callable[[bytes], "tuple[int, dict[str, object]]"]


def wire_bytes(params: Mapping[str, object]) -> bytes:
    """A request's params serialised as the SDK sends a request body (compact, UTF-8)."""
    return json.dumps(params, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def request_key(body: bytes) -> str:
    """The digest a Messages request body is counted under."""
    return hashlib.sha256(body).hexdigest()[:24]


def params_digest(params: Mapping[str, object]) -> str:
    """The digest a batch request is counted under: of its params as the SDK would send
    them to ``POST /v1/messages`` (so a request counts the same either way)."""
    return request_key(wire_bytes(params))


def not_found(batch_id: str) -> WireError:
    """A 404 for a batch id the backend never issued."""
    return WireError(404, "not_found_error", f"no message batch with id {batch_id!r}")


@dataclass
class _Request:
    custom_id: str
    body: bytes
    """The params as the SDK would send them to ``POST /v1/messages``."""
    result: dict[str, object] | None = None


@dataclass
class _Batch:
    batch_id: str
    requests: list[_Request]
    created: float
    """Clock time of creation (the backend's clock, monotonic by default)."""
    created_at: datetime
    """Wall time of creation, for the timestamps the API reports."""
    ends: float
    """Clock time at which processing ends (creation + delay, + the late fault's time)."""
    status: str = "in_progress"
    ended: float | None = None
    cancel_initiated: float | None = None
    counts: Counter[str] = field(default_factory=Counter)


class BatchStore:
    """The batches one backend has accepted, and what each request came to (thread-safe)."""

    def __init__(self, answer: Answerer, clock: Callable[[], float], delay_s: float,
                 faults: FaultLog | None = None) -> None:
        if not delay_s >= 0:
            raise ValueError(f"batch_delay_s must be a number of seconds >= 0, got {delay_s}")
        self._answer = answer
        self._clock = clock
        self.delay_s = delay_s
        self._faults = faults
        self._batches: dict[str, _Batch] = {}
        self._lock = threading.Lock()
        self.submitted: Counter[str] = Counter()
        """Times each request (by ``params_digest``) was submitted in a batch."""
        self.processed: Counter[str] = Counter()
        """Times each request (by ``params_digest``) was answered inside a batch."""
        self.base_url = ""
        """Where the results files are served (set by the server once it has a port)."""

    # ---- endpoints ------------------------------------------------------------------------

    def create(self, body: bytes) -> dict[str, object]:
        """``POST /v1/messages/batches``: accept the requests and start the delay."""
        requests = _read_requests(body)
        with self._lock:
            number = len(self._batches) + 1
            digest = hashlib.sha256(body).hexdigest()[:16]
            batch_id = f"msgbatch_ref{number:06d}_{digest}"
            now = self._clock()
            late = (self._faults.plan.late_s
                    if self._faults is not None and self._faults.next_batch_is_late(body)
                    else 0.0)
            batch = _Batch(batch_id, requests, created=now, created_at=datetime.now(UTC),
                           ends=now + self.delay_s + late)
            batch.counts["processing"] = len(requests)
            self._batches[batch_id] = batch
            for request in requests:
                self.submitted[request_key(request.body)] += 1
            return self._view(batch)

    def retrieve(self, batch_id: str) -> dict[str, object]:
        """``GET /v1/messages/batches/{id}``: the batch as it stands now."""
        with self._lock:
            return self._view(self._advanced(batch_id))

    def cancel(self, batch_id: str) -> dict[str, object]:
        """``POST /v1/messages/batches/{id}/cancel``: a batch still in progress starts
        canceling; one that ended is returned as it is."""
        with self._lock:
            batch = self._advanced(batch_id)
            if batch.status == "in_progress":
                batch.status = "canceling"
                batch.cancel_initiated = self._clock()
            return self._view(batch)

    def delete(self, batch_id: str) -> dict[str, object]:
        """``DELETE /v1/messages/batches/{id}``: only a batch whose processing ended."""
        with self._lock:
            batch = self._advanced(batch_id)
            if batch.status != "ended":
                raise invalid(f"message batch {batch_id} is {batch.status}: cancel it and "
                              f"wait for it to end before deleting it")
            del self._batches[batch_id]
            return {"id": batch_id, "type": "message_batch_deleted"}

    def page(self, query: Mapping[str, str]) -> dict[str, object]:
        """``GET /v1/messages/batches``: newest first, ``limit`` per page, after or before a
        batch id."""
        limit = _limit(query.get("limit"))
        with self._lock:
            ordered = [self._advanced(batch_id) for batch_id in reversed(self._batches)]
            ids = [batch.batch_id for batch in ordered]
            after, before = query.get("after_id"), query.get("before_id")
            if after is not None and before is not None:
                raise invalid("give after_id or before_id, not both")
            if after is not None:
                chosen = ordered[_position(ids, after) + 1:][:limit]
                more = _position(ids, after) + 1 + limit < len(ordered)
            elif before is not None:
                start = max(0, _position(ids, before) - limit)
                chosen = ordered[start:_position(ids, before)]
                more = start > 0
            else:
                chosen, more = ordered[:limit], len(ordered) > limit
            views = [self._view(batch) for batch in chosen]
        return {"data": views, "has_more": more,
                "first_id": views[0]["id"] if views else None,
                "last_id": views[-1]["id"] if views else None}

    def results(self, batch_id: str) -> bytes:
        """``GET /v1/messages/batches/{id}/results``: one JSON line per request, once ended."""
        with self._lock:
            batch = self._advanced(batch_id)
            if batch.status != "ended":
                raise invalid(f"message batch {batch_id} is still {batch.status}: its results "
                              f"can be read once processing has ended")
            lines = [json.dumps({"custom_id": r.custom_id, "result": r.result},
                                ensure_ascii=False, separators=(",", ":"))
                     for r in batch.requests]
        return ("\n".join(lines) + "\n").encode("utf-8")

    # ---- life cycle ---------------------------------------------------------------------

    def _advanced(self, batch_id: str) -> _Batch:
        """The batch, moved on to where the clock says it is (processing it when due)."""
        batch = self._batches.get(batch_id)
        if batch is None:
            raise not_found(batch_id)
        now = self._clock()
        if batch.status == "canceling":
            self._end(batch, "canceled", now)
        elif batch.status == "in_progress" and now >= batch.ends:
            if batch.ends - batch.created >= BATCH_LIFETIME_S:
                self._end(batch, "expired", batch.created + BATCH_LIFETIME_S)
            else:
                self._process(batch)
        return batch

    def _process(self, batch: _Batch) -> None:
        for request in batch.requests:
            request.result = self._result(request)
            batch.counts[str(request.result["type"])] += 1
        batch.counts["processing"] = 0
        batch.status = "ended"
        batch.ended = batch.ends

    def _result(self, request: _Request) -> dict[str, object]:
        # A fault replaces the answer before it is made, as for interactive faults, so the
        # emulated prompt cache never sees a request whose answer the client did not get.
        fault = self._faults.next_batch_fault(request.body) if self._faults else None
        if fault == "batch-expired":
            return {"type": "expired"}
        if fault == "batch-errored":
            return {"type": "errored",
                    "error": error_body("api_error", f"injected fault ({fault})")}
        self.processed[request_key(request.body)] += 1
        status, payload = self._answer(request.body)
        if status == 200:
            return {"type": "succeeded", "message": payload}
        return {"type": "errored", "error": payload}

    def _end(self, batch: _Batch, outcome: str, when: float) -> None:
        for request in batch.requests:
            request.result = {"type": outcome}
        batch.counts = Counter({outcome: len(batch.requests)})
        batch.status = "ended"
        batch.ended = when

    def _view(self, batch: _Batch) -> dict[str, object]:
        """The batch as the API's ``message_batch`` object."""

        def stamp(when: float | None) -> str | None:
            if when is None:
                return None
            moment = batch.created_at + timedelta(seconds=when - batch.created)
            return moment.isoformat().replace("+00:00", "Z")

        counts = {name: batch.counts[name]
                  for name in ("processing", "succeeded", "errored", "canceled", "expired")}
        return {
            "id": batch.batch_id, "type": "message_batch",
            "processing_status": batch.status, "request_counts": counts,
            "created_at": stamp(batch.created),
            "expires_at": stamp(batch.created + BATCH_LIFETIME_S),
            "ended_at": stamp(batch.ended), "archived_at": None,
            "cancel_initiated_at": stamp(batch.cancel_initiated),
            "results_url": (f"{self.base_url}{BATCHES_PATH}/{batch.batch_id}/results"
                            if batch.status == "ended" else None),
        }


def _read_requests(body: bytes) -> list[_Request]:
    """The requests of a create body, checked as the API checks them before accepting it."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise invalid(f"request body is not valid JSON: {error}") from None
    requests = data.get("requests") if isinstance(data, dict) else None
    if not isinstance(requests, list) or not requests:
        raise invalid("requests: field required (a non-empty list of {custom_id, params})")
    if len(requests) > MAX_REQUESTS:
        raise invalid(f"requests: {len(requests)} requests, more than the {MAX_REQUESTS} a "
                      f"batch may hold")
    found: list[_Request] = []
    seen: set[str] = set()
    for number, entry in enumerate(requests):
        where = f"requests.{number}"
        if not isinstance(entry, dict):
            raise invalid(f"{where}: expected an object with custom_id and params")
        custom_id, params = entry.get("custom_id"), entry.get("params")
        if not isinstance(custom_id, str) or not CUSTOM_ID.fullmatch(custom_id):
            raise invalid(f"{where}.custom_id: {custom_id!r} does not match "
                          f"^[a-zA-Z0-9_-]{{1,64}}$")
        if custom_id in seen:
            raise invalid(f"{where}.custom_id: {custom_id!r} is used by another request of "
                          f"this batch")
        seen.add(custom_id)
        if not isinstance(params, dict):
            raise invalid(f"{where}.params: field required (the Messages API parameters)")
        if params.get("stream"):
            raise invalid(f"{where}.params.stream: a batch request cannot stream")
        found.append(_Request(custom_id, wire_bytes(params)))
    return found


def _limit(raw: str | None) -> int:
    smallest, largest, default = _LIST_LIMIT
    if raw is None:
        return default
    try:
        limit = int(raw)
    except ValueError:
        raise invalid(f"limit: {raw!r} is not an integer") from None
    if not smallest <= limit <= largest:
        raise invalid(f"limit: must be between {smallest} and {largest}, got {limit}")
    return limit


def _position(ids: list[str], batch_id: str) -> int:
    try:
        return ids.index(batch_id)
    except ValueError:
        raise not_found(batch_id) from None
