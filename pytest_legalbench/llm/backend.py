"""Which backend model calls go to, with which key and URL, and how hard to retry them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from pytest_legalbench.defaults import BACKENDS, DEFAULT_TIMEOUT_S
from pytest_legalbench.llm.retries import RetryPolicy
from pytest_legalbench.llm.server_identity import ServerIdentity


class BackendConfigError(ValueError):
    """The backend cannot be used as configured (no key, no base URL, a bad setting)."""


@dataclass(frozen=True)
class ClientConfig:
    """Where model calls go and how hard to retry them."""

    backend: str = "reference"
    api_key: str | None = None
    base_url: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_attempts: int = 5
    retry_budget_s: float = 300.0
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 30.0
    send_sampling: bool | None = None
    """Send temperatures and seeds (in the request's extra body)? None decides by the server:
    yes for the reference backend and other Messages-API servers (vLLM, LiteLLM), no for
    Claude's own API, which rejects sampling fields from API version 2026-10-21 on."""
    server: ServerIdentity | None = None
    """The server the calls go to, once identified (``llm.server_identity``); None: not
    identified, and no capability rule applies."""

    @property
    def sends_sampling(self) -> bool:
        """Whether requests carry temperature and seed."""
        if self.send_sampling is not None:
            return self.send_sampling
        return takes_sampling(self.backend, self.base_url)

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise BackendConfigError(f"backend {self.backend!r} is not one of "
                                     f"{', '.join(BACKENDS)}")
        for name in ("timeout_s", "retry_budget_s", "backoff_base_s", "backoff_cap_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise BackendConfigError(f"client setting {name} must be a positive number, "
                                         f"got {value!r}")
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int) \
                or self.max_attempts < 1:
            raise BackendConfigError(f"client setting max_attempts must be an integer >= 1, "
                                     f"got {self.max_attempts!r}")

    @property
    def retry_policy(self) -> RetryPolicy:
        """The retry bounds and backoff these settings describe."""
        return RetryPolicy(self.max_attempts, self.retry_budget_s, self.backoff_base_s,
                           self.backoff_cap_s)


def resolve_backend(requested: str | None, env: Mapping[str, str]) -> ClientConfig:
    """Pick the backend: as requested, else Claude when ANTHROPIC_API_KEY is set, else reference."""
    key = env.get("ANTHROPIC_API_KEY") or None
    base_url = env.get("ANTHROPIC_BASE_URL") or None
    backend = requested or ("anthropic" if key else "reference")
    if backend not in BACKENDS:
        raise BackendConfigError(f"unknown backend {backend!r}: choose one of "
                                 f"{', '.join(BACKENDS)}")
    if backend == "reference":
        # The embedded server's own address is filled in by whoever starts it.
        return ClientConfig(backend="reference")
    if not key:
        raise BackendConfigError(
            "backend 'anthropic' was requested but ANTHROPIC_API_KEY is not set: set it (any "
            "non-empty value for a local server that needs no key) or drop the backend option "
            "to use the embedded reference backend")
    return ClientConfig(backend="anthropic", api_key=key, base_url=base_url)


def configured_backend(requested: str | None, env: Mapping[str, str], *,
                       base_url: str | None = None,
                       timeout_s: float | None = None) -> ClientConfig:
    """``resolve_backend``'s choice with what the user set beside it: a base URL (over the
    environment's) and a call timeout (over the default)."""
    config = resolve_backend(requested, env)
    if base_url:
        config = dataclasses.replace(config, base_url=base_url)
    if timeout_s is not None:
        config = dataclasses.replace(config, timeout_s=timeout_s)
    return config


def takes_sampling(backend: str, base_url: str | None) -> bool:
    """Whether the server a backend and base URL name accepts temperature and seed: the
    reference backend and third-party Messages-API servers do, Claude's own API does not."""
    if backend == "reference":
        return True
    return bool(base_url) and "api.anthropic.com" not in str(base_url)
