"""The answers a batch run serves its calls from, by call site (``llm.call_sites``).

A batch run passes over its items twice (``run.batch_phases``). In the first pass the model
client is *collecting*: a call whose site holds no answer raises ``CallPending`` with its
request, which goes into the next batch; a site that holds one is answered from it, so the
item gets further each time. In the second pass, the items' real run, every call whose site
holds an answer is served from it through the SDK as if the server had just sent it, so the
ledger, the record and the cassette are those of an interactive call (the ledger marks it a
batch call); a call whose site holds nothing goes to the server interactively and is counted.

An answer is kept as the bytes of the message the batch returned, with the headers its
server sent, so a cassette recorded from it holds what an interactive call would have put
there.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pytest_legalbench.llm.batch_requests import custom_id
from pytest_legalbench.llm.batches import BatchResult
from pytest_legalbench.llm.call_sites import CallSite


def site_custom_id(site: CallSite, stage: str) -> str:
    """The custom id of the batch request made at ``site``: readable (scope, stage,
    occurrence) and unique (it ends with the request's digest, so a changed prompt is a new
    request)."""
    return custom_id(site.scope, stage, str(site.occurrence), site.digest[:12])


@dataclass(frozen=True)
class StoredReply:
    """What answered one call site: a message, or why there is none."""

    custom_id: str
    body: bytes | None
    """The message as the body of an interactive answer; None when the request failed."""
    headers: tuple[tuple[str, str], ...] = ()
    """Headers its server sent with the results (those naming the server)."""
    batch_id: str | None = None
    """The batch that answered; None for an interactive call made in its place
    (``--legalbench-batch-fallback``)."""
    latency_s: float = 0.0
    retried: tuple[str, ...] = ()
    """The batch failures resubmitted before this answer (``batch expired``, ...)."""
    error: str | None = None
    """Why the request has no message (its batch error, expiry or cancellation)."""

    @property
    def batch(self) -> bool:
        """Whether a batch gave this answer (priced at the batch rates)."""
        return self.batch_id is not None

    @classmethod
    def of(cls, result: BatchResult) -> StoredReply:
        """The stored form of a batch result."""
        if not result.succeeded or result.raw_message is None:
            return cls(result.custom_id, None, batch_id=result.batch_id,
                       latency_s=result.latency_s, retried=result.retried,
                       error=f"batch {result.batch_id}: request {result.custom_id} "
                             f"{result.outcome}: {result.error}")
        return cls(result.custom_id, result.message_json(), result.headers, result.batch_id,
                   result.latency_s, result.retried)


#: A site whose batch request failed for a reason another try may not meet, handed back for
#: an interactive call (``--legalbench-batch-fallback``).
INTERACTIVE = "interactive"


class BatchReplies:
    """Answers by call site, and what the calls of the second pass found (thread-safe)."""

    def __init__(self) -> None:
        self.collecting = True
        """The first pass: a site without an answer raises ``CallPending``."""
        self._replies: dict[CallSite, StoredReply | str] = {}
        self._served: Counter[CallSite] = Counter()
        self._interactive: Counter[str] = Counter()
        self._lock = threading.Lock()

    def put(self, site: CallSite, reply: StoredReply) -> None:
        """Keep the answer of ``site``."""
        with self._lock:
            self._replies[site] = reply

    def hand_back(self, site: CallSite) -> None:
        """Mark ``site`` for an interactive call in place of its failed batch request."""
        with self._lock:
            self._replies[site] = INTERACTIVE

    def get(self, site: CallSite) -> StoredReply | str | None:
        """The answer of ``site``, ``INTERACTIVE`` when it is to be called interactively,
        None when it has none."""
        with self._lock:
            return self._replies.get(site)

    def serve(self) -> None:
        """End the first pass: from now on a site without an answer is called
        interactively (and counted)."""
        self.collecting = False

    def served(self, site: CallSite) -> None:
        """Count a call answered from ``site``'s answer in the second pass."""
        with self._lock:
            self._served[site] += 1

    def went_interactive(self, stage: str) -> None:
        """Count a second-pass call no batch answered, by stage."""
        with self._lock:
            self._interactive[stage] += 1

    def report(self) -> BatchUse:
        """What the second pass used of the answers."""
        with self._lock:
            stored = {site: reply for site, reply in self._replies.items()
                      if isinstance(reply, StoredReply)}
            return BatchUse(
                served=sum(self._served.values()),
                unused=sum(1 for site in stored if not self._served[site]),
                interactive=dict(self._interactive),
                batch_answers=sum(1 for reply in stored.values() if reply.batch))

    def sites(self) -> Iterable[CallSite]:
        """Every site that holds an answer or a hand-back."""
        with self._lock:
            return tuple(self._replies)


@dataclass(frozen=True)
class BatchUse:
    """How a batch run's second pass used the answers of its first."""

    served: int
    """Calls answered from a stored answer."""
    unused: int
    """Stored answers no call asked for (a request the first pass made that the second did
    not: none, when the items' code is deterministic)."""
    interactive: Mapping[str, int]
    """Calls no answer was stored for, by stage: made interactively."""
    batch_answers: int
    """Stored answers a batch gave (the others came from interactive fallbacks)."""
