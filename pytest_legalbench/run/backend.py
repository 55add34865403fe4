"""The backend a run's model calls go to, opened for the run: the reference backend is served
on loopback for exactly as long as it is needed."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator

from pytest_legalbench.llm.backend import ClientConfig


@contextlib.contextmanager
def open_backend(config: ClientConfig, context_window: int) -> Iterator[ClientConfig]:
    """Yield a client configuration; for the reference backend, serve it for the duration."""
    if config.backend != "reference":
        yield config
        return
    from pytest_legalbench.reference_backend import ReferenceBackend

    with ReferenceBackend(context_window=context_window) as backend:
        yield dataclasses.replace(config, base_url=backend.base_url, api_key="reference")
