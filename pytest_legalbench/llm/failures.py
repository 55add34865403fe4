"""What a failed model call means: the error a caller sees when it failed for good, and the
classification of an SDK exception for the retry loop (retryable or not, after how long, and
what the ledger calls it).

``anthropic`` is imported inside ``classify`` only, so importing this module never pays for
the SDK.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from pytest_legalbench.llm.reply_checks import ErrorBody
from pytest_legalbench.llm.retries import RETRYABLE_STATUSES, parse_retry_after


class ModelCallError(RuntimeError):
    """A model call failed for good: not retryable, or retries exhausted."""

    def __init__(self, stage: str, question_id: str | None, status: int | None,
                 message: str) -> None:
        self.stage = stage
        self.question_id = question_id
        self.status = status
        self.message = message
        status_text = f"HTTP {status}" if status is not None else "no HTTP status"
        super().__init__(f"model call for stage {stage!r}, question {question_id or '(none)'} "
                         f"failed ({status_text}): {message}")

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt from the fields, so it crosses process boundaries (xdist, multiprocessing).
        return (type(self), (self.stage, self.question_id, self.status, self.message))


@dataclass(frozen=True)
class Failure:
    """One failed attempt as the retry loop sees it."""

    status: int | None
    message: str
    retryable: bool
    retry_after: float | None
    label: str = "error"
    """What the ledger calls a retried failure: ``HTTP 429``, ``timeout``, ``connection``."""


#: Names a failure raised beneath the SDK by a layer of the caller's (a cassette with no
#: recording of the request); None for every other failure.
LocalFailure = Callable[[BaseException], "str | None"]


def classify(exc: Exception, timeout_s: float,
             local_failure: LocalFailure | None = None) -> Failure | None:
    """What an exception from an SDK call means for the retry loop; None: not the SDK's."""
    import anthropic

    if isinstance(exc, ErrorBody):
        return Failure(None, str(exc), exc.retryable, None, f"200 {exc.error_type}")
    if isinstance(exc, anthropic.APIStatusError):
        # A body that is not JSON (a proxy's page) is the message as sent: SDK releases differ
        # in what they put before it ("Error code: 403 - ...", "403 ...").
        text = exc.body if isinstance(exc.body, str) and exc.body.strip() else None
        message = exc.api_message or text or exc.message
        after = parse_retry_after(exc.response.headers, time.time())
        return Failure(exc.status_code, message, exc.status_code in RETRYABLE_STATUSES, after,
                       f"HTTP {exc.status_code}")
    if isinstance(exc, anthropic.APITimeoutError):
        return Failure(None, f"no response within {timeout_s:g} s", True, None, "timeout")
    if isinstance(exc, anthropic.APIConnectionError):
        local = local_failure(exc) if local_failure is not None else None
        if local is not None:
            # Replaying the same request cannot find a different recording: retrying only waits.
            return Failure(None, local, False, None)
        return Failure(None, f"connection failed: {exc.__cause__ or exc.message}", True, None,
                       "connection")
    if isinstance(exc, anthropic.AnthropicError):
        return Failure(None, str(exc) or type(exc).__name__, False, None)
    if isinstance(exc, ValueError):
        # The SDK lets a 2xx body that is not JSON escape as a bare JSONDecodeError.
        return Failure(None, f"unreadable response: {exc}", False, None)
    return None
