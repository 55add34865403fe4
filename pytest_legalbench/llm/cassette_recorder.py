"""The vcrpy recorder: requests matched on method, path and a digest of the canonical JSON body,
never on host, port or headers, and only that digest written, so an inject prompt's corpus
prefix never reaches disk; stored headers reduced to a fixed allow-list, so a re-recording of
the same calls is byte-identical on any machine; secrets scrubbed from what is stored.

``vcr`` is imported inside functions, so importing this module stays cheap.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pytest_legalbench.llm.redaction import Redactor

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
# Headers the SDK or a report reads; everything else (keys, user agents, dates, request ids,
# rate-limit counters, cookies) identifies an account or machine, or changes between runs.
# content-encoding survives only when vcrpy could not decode the body, and replay then needs it.
_KEPT_REQUEST_HEADERS = frozenset({"anthropic-beta", "anthropic-version", "content-type"})
_KEPT_RESPONSE_HEADERS = frozenset({"content-encoding", "content-type", "retry-after",
                                    "retry-after-ms", "x-should-retry", "x-legalbench-backend"})
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def body_digest(body: bytes | str | None) -> str | None:
    """Return ``sha256:<hex>`` of the canonical JSON of ``body`` (raw bytes if not JSON)."""
    if not body:
        return None
    return _digest_of(body.encode("utf-8") if isinstance(body, str) else bytes(body))


# vcrpy scrubs a deep copy of the request at every lookup (about four per call), and an
# inject request's body is the whole corpus: parsing and re-serialising it each time was a
# tenth of a second per replayed inject answer. A body is immutable, so its digest is kept.
@functools.lru_cache(maxsize=8)
def _digest_of(raw: bytes) -> str:
    if _DIGEST.fullmatch(raw.decode("ascii", errors="replace")):
        return raw.decode("ascii")  # already a digest: stored requests pass through again
    try:
        canonical = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError):
        canonical = raw
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


#: Redacts key-shaped strings only: for a recorder that was told no key.
_KEY_SHAPES_ONLY = Redactor()


def _scrub_request(request: Any) -> Any:
    """The request as stored and matched: digest body, allow-listed headers, no loopback port."""
    request.body = body_digest(request.body_bytes)
    request.headers = {name.lower(): value for name, value in request.headers.items()
                       if name.lower() in _KEPT_REQUEST_HEADERS}
    parts = urlsplit(request.uri)
    if parts.hostname in _LOOPBACK_HOSTS and parts.port is not None:
        # A local server's port is chosen per run; keeping it would make re-recordings differ.
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        request.uri = urlunsplit(parts._replace(netloc=host))
    return request


def _scrub_response(response: dict[str, Any], redact: Redactor = _KEY_SHAPES_ONLY,
                    ) -> dict[str, Any]:
    """The response as stored: only allow-listed headers, and no secret in the body (a
    server may echo the key in an error)."""
    headers = response.get("headers") or {}
    response["headers"] = {name.lower(): list(values) for name, values in headers.items()
                           if name.lower() in _KEPT_RESPONSE_HEADERS}
    body = response.get("body")
    if isinstance(body, dict) and isinstance(body.get("string"), (str, bytes)):
        raw = body["string"]
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        cleaned = redact(text)
        if cleaned != text:
            body["string"] = cleaned.encode("utf-8") if isinstance(raw, bytes) else cleaned
    return response


def cassette_miss(error: BaseException) -> str | None:
    """What went wrong when ``error`` (or an exception it was raised from) is a replay that
    found no recorded response for a request; None for any other failure."""
    from vcr.errors import CannotOverwriteExistingCassetteException

    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, CannotOverwriteExistingCassetteException):
            path = getattr(getattr(current, "cassette", None), "path", None)
            where = f" in cassette {path}" if path else ""
            return f"no recorded response matches this request (cassette miss){where}"
        current = current.__cause__ or current.__context__
    return None


def _same_body(new: Any, recorded: Any) -> None:
    """vcrpy matcher: the two requests' body digests are equal (raises AssertionError if not)."""
    if body_digest(new.body_bytes) != body_digest(recorded.body_bytes):
        raise AssertionError("the request bodies differ (compared by digest)")


def new_recorder(redact: Redactor | None = None) -> Any:
    """A ``vcr.VCR`` matching on method, path and body digest, scrubbing what it stores
    (``redact`` names the run's key; key-shaped strings go whatever it is)."""
    import vcr

    chosen = redact or _KEY_SHAPES_ONLY
    recorder = vcr.VCR(
        match_on=("method", "path", "body_digest"), decode_compressed_response=True,
        before_record_request=_scrub_request,
        before_record_response=lambda response: _scrub_response(response, chosen))
    recorder.register_matcher("body_digest", _same_body)
    return recorder
