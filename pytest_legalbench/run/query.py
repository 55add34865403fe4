"""``legalbench ask`` and ``retrieve``: a corpus, a backend and a mode, opened once per run."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.llm.backend import configured_backend
from pytest_legalbench.llm.call_types import Completion
from pytest_legalbench.llm.client import ClientConfig, ModelClient
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings, Retrieval
from pytest_legalbench.modes.registry import ModeRegistry, default_registry
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.run.answering import respond
from pytest_legalbench.run.backend import open_backend


@dataclass(frozen=True)
class QuerySession:
    """A mode built on a corpus, with the client and ledger its calls go through."""

    mode: Mode
    client: ModelClient
    ledger: Ledger
    config: ClientConfig


@contextlib.contextmanager
def query_session(documents: Sequence[Document], indexes: Sequence[DocumentIndex], *,
                  mode: str, backend: str | None, base_url: str | None,
                  settings: ModeSettings, cache_dir: os.PathLike[str] | None = None,
                  progress: Callable[[str], None] | None = None,
                  server_kind: str | None = None,
                  timeout_s: float | None = None,
                  vector_record: Path | None = None,
                  registry: ModeRegistry | None = None) -> Iterator[QuerySession]:
    """Open the backend and client, and build ``mode`` once for every question of a run
    (``timeout_s``: seconds a call may take, None for the client's default; ``vector_record``:
    a folder of recorded vectors read after the cache; ``registry``: where ``mode`` is found,
    by default the built-in modes and installed packages')."""
    config = configured_backend(backend, os.environ, base_url=base_url, timeout_s=timeout_s)
    corpus = Corpus(tuple(documents), tuple(indexes),
                    None if cache_dir is None else Path(cache_dir), progress, vector_record)
    ledger = Ledger()
    with open_backend(config, settings.context_window, server_kind) as live, \
            ModelClient(live, ledger) as client:
        modes = registry if registry is not None else default_registry(timeout_s)
        yield QuerySession(modes.build(mode, corpus, settings, client), client, ledger, live)


def ask(session: QuerySession, question: str, model: str) -> tuple[Retrieval, Completion]:
    """Retrieve for ``question`` with the session's mode, then answer from what was retrieved
    (a mode that answers as it navigates brings its own answer)."""
    return respond(session.mode, question, session.client, model)
