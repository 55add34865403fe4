"""The backend a run's model calls go to, opened for the run: the reference backend is served
on loopback for exactly as long as it is needed; any other server is identified once
(``llm.server_identity``), so the client applies that kind's capability rules."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_legalbench.llm.backend import ClientConfig
from pytest_legalbench.llm.client import REFERENCE_API_KEY

if TYPE_CHECKING:
    from pytest_legalbench.reference_backend.faults import FaultPlan


@contextlib.contextmanager
def open_backend(config: ClientConfig, context_window: int,
                 server_kind: str | None = None,
                 faults: FaultPlan | None = None) -> Iterator[ClientConfig]:
    """Yield a client configuration; for the reference backend, serve it for the duration
    (injecting ``faults``, if given); for a live one, with the server it names identified
    (``server_kind`` or by asking)."""
    if config.backend != "reference":
        from pytest_legalbench.llm.server_identity import resolve_identity

        identity = resolve_identity(config.base_url, server_kind, api_key=config.api_key)
        yield dataclasses.replace(config, server=identity)
        return
    from pytest_legalbench.reference_backend import ReferenceBackend

    with ReferenceBackend(context_window=context_window, faults=faults) as backend:
        served = dataclasses.replace(config, base_url=backend.base_url, api_key=REFERENCE_API_KEY)
        if faults is not None and any(kind == "timeout" for kind, _ in faults.rates):
            # The client must give up before a stalled answer would arrive.
            served = dataclasses.replace(served, timeout_s=faults.client_timeout_s)
        yield served
