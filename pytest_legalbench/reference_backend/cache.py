"""Prompt-cache emulation: which cached prefixes are warm, and the usage that follows.

Like the real API, a prefix read within its lifetime is refreshed, so a cache kept busy stays
warm; a prefix left alone for longer than the TTL has to be written again. A prefix whose last
mark asks for the 1-hour TTL (``"ttl": "1h"``) lives an hour, and its write is reported under
``cache_creation.ephemeral_1h_input_tokens`` as the API reports it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable

from pytest_legalbench.reference_backend.wire import MessagesRequest

#: The lifetime of a prefix cached with the 1-hour TTL.
ONE_HOUR_S = 3600.0


class PromptCache:
    """Cached prefixes by digest, each with the clock time at which it expires."""

    def __init__(self, ttl_s: float, clock: Callable[[], float]) -> None:
        if ttl_s <= 0:
            raise ValueError(f"cache_ttl_s must be positive, got {ttl_s}")
        self._ttl_s = ttl_s
        self._clock = clock
        self._expiry: dict[str, float] = {}
        self._lock = threading.Lock()

    def touch(self, key: str, ttl_s: float | None = None) -> bool:
        """Return True when ``key`` is warm (a read); otherwise store it (a write). It then
        lives ``ttl_s`` (default: the cache's TTL) longer, never less than it had left."""
        with self._lock:
            now = self._clock()
            # Dropping what has expired keeps the table bounded by what one TTL can hold.
            for stale in [k for k, expiry in self._expiry.items() if expiry <= now]:
                del self._expiry[stale]
            hit = key in self._expiry
            lifetime = now + (self._ttl_s if ttl_s is None else ttl_s)
            self._expiry[key] = max(self._expiry.get(key, lifetime), lifetime)
            return hit

    def usage(self, request: MessagesRequest) -> dict[str, object]:
        """Split the request's input tokens into uncached, cache-write and cache-read counts
        (and, for a 1-hour write, the API's ``cache_creation`` breakdown)."""
        prefix = request.cached_prefix
        total = request.input_tokens
        cached = sum(segment.tokens for segment in prefix)
        write = read = 0
        one_hour = bool(prefix) and prefix[-1].one_hour
        if prefix:
            if self.touch(prefix_key(request), ONE_HOUR_S if one_hour else None):
                read = cached
            else:
                write = cached
        found: dict[str, object] = {
            "input_tokens": total - cached,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
        }
        if one_hour and write:
            found["cache_creation"] = {"ephemeral_5m_input_tokens": 0,
                                       "ephemeral_1h_input_tokens": write}
        return found


def prefix_key(request: MessagesRequest) -> str:
    """The digest of the cached prefix; caches are per model, as in the real API."""
    digest = hashlib.sha256(request.model.encode("utf-8"))
    for segment in request.cached_prefix:
        encoded = segment.text.encode("utf-8")
        # Length-prefixed, so moving text across a block boundary changes the key.
        digest.update(len(encoded).to_bytes(8, "big"))
        digest.update(encoded)
    return digest.hexdigest()
