"""Fetching a document from its public source, checksum-verified, with a proper User-Agent."""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from pytest_legalbench import __version__
from pytest_legalbench.files.atomic_write import write_bytes_atomic
from pytest_legalbench.ingest.document import CorpusError

USER_AGENT_ENV = "LEGALBENCH_USER_AGENT"

# SEC EDGAR refuses clients that do not name themselves and a contact; the default says how
# to supply one.
DEFAULT_USER_AGENT = f"pytest-legalbench/{__version__} (+contact: set {USER_AGENT_ENV})"

#: How many times one download is tried before giving up.
ATTEMPTS = 3

#: Seconds before the first retry; each later retry waits twice as long.
BACKOFF_S = 2.0

# A server's Retry-After is honoured up to this many seconds.
_MAX_RETRY_AFTER_S = 60.0

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


class _Transient(Exception):
    """A failure worth another attempt; the message says what happened."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def resolve_user_agent(explicit: str | None = None) -> str:
    """Return the User-Agent to send: explicit value, then $LEGALBENCH_USER_AGENT, then default."""
    return explicit or os.environ.get(USER_AGENT_ENV) or DEFAULT_USER_AGENT


def fetch_document(
    url: str,
    dest: Path,
    *,
    sha256: str,
    user_agent: str | None = None,
    timeout: float = 60.0,
    opener: urllib.request.OpenerDirector | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Path:
    """Download ``url`` to ``dest`` if its bytes match ``sha256``; return ``dest``."""
    expected = sha256.strip().lower()
    if not _SHA256_HEX.fullmatch(expected):
        raise CorpusError(f"{url}: expected checksum {sha256!r} is not a sha256 hex digest")
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise CorpusError(f"{url}: only http and https URLs can be downloaded")
    agent = resolve_user_agent(user_agent)
    data = _get_with_retries(url, agent, timeout, opener or urllib.request.build_opener(), sleep)
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise CorpusError(
            f"{url}: checksum mismatch: expected sha256 {expected}, got {actual}; "
            f"nothing written to {dest}"
        )
    try:
        write_bytes_atomic(dest, data)
    except OSError as exc:
        raise CorpusError(f"{url}: cannot write {dest}: {exc.strerror or exc}") from None
    return dest


def _get_with_retries(
    url: str,
    agent: str,
    timeout: float,
    opener: urllib.request.OpenerDirector,
    sleep: Callable[[float], None],
) -> bytes:
    """GET ``url``, retrying 429, 5xx and timeouts with exponential backoff."""
    failures: list[str] = []
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return _get_once(url, agent, timeout, opener)
        except _Transient as exc:
            failures.append(str(exc))
            if attempt == ATTEMPTS:
                break
            delay = BACKOFF_S * 2 ** (attempt - 1)
            if exc.retry_after is not None:
                delay = max(delay, min(exc.retry_after, _MAX_RETRY_AFTER_S))
            sleep(delay)
    raise CorpusError(f"{url}: download failed after {ATTEMPTS} attempts: " + "; ".join(failures))


def _get_once(url: str, agent: str, timeout: float, opener: urllib.request.OpenerDirector) -> bytes:
    """One GET; raises _Transient for failures worth retrying, CorpusError for the rest."""
    request = urllib.request.Request(url, headers={"User-Agent": agent})
    try:
        with opener.open(request, timeout=timeout) as response:
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as exc:
        status = f"HTTP {exc.code} {exc.reason}".rstrip()
        if exc.code == 429 or exc.code >= 500:
            header = exc.headers.get("Retry-After") if exc.headers else None
            raise _Transient(status, _retry_after(header)) from None
        raise CorpusError(f"{url}: {status}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise _Transient(f"timed out after {timeout:g}s") from None
        raise CorpusError(f"{url}: cannot connect: {exc.reason}") from None
    except TimeoutError:
        raise _Transient(f"timed out after {timeout:g}s") from None
    except (OSError, http.client.HTTPException) as exc:
        raise CorpusError(f"{url}: download broke off: {exc!r}") from None


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header given in seconds; dates and junk are ignored."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
