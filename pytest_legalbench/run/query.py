"""``legalbench ask`` and ``retrieve``: a corpus, a backend and a mode, opened once per run."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.llm.backend import configured_backend
from pytest_legalbench.llm.batch_replies import BatchReplies
from pytest_legalbench.llm.call_sites import call_scope
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
    build: Callable[[ModelClient], Mode] | None = field(default=None, repr=False)
    """The session's mode built again on another client (a batch first pass's)."""


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

        def build(on: ModelClient) -> Mode:
            return modes.build(mode, corpus, settings, on)

        yield QuerySession(build(client), client, ledger, live, build)


def ask(session: QuerySession, question: str, model: str) -> tuple[Retrieval, Completion]:
    """Retrieve for ``question`` with the session's mode, then answer from what was retrieved
    (a mode that answers as it navigates brings its own answer)."""
    return respond(session.mode, question, session.client, model)


def ask_through_batches(session: QuerySession, question: str, model: str, *,
                        poll_interval_s: float, fallback: bool = False,
                        announce: Callable[[str], None] = lambda _: None,
                        ) -> tuple[Retrieval, Completion]:
    """``ask``, its calls sent through the Message Batches API first, one batch per
    dependency step (a scan, then the answer), as a benchmark's batch run sends them; the
    answer is then made from their results, its ledger at the batch rates."""
    from pytest_legalbench.llm.batches import BatchSettings
    from pytest_legalbench.run.batch_phases import BatchPhases, PhaseItem

    replies = BatchReplies()
    scope = "ask/question"
    with ModelClient(session.config, Ledger(), replies=replies) as collector:
        # Built on a client of its own: the first pass's calls stay out of the session's
        # ledger, and the mode's state is the real run's to build.
        if session.build is None:
            raise ValueError("this query session cannot build its mode again")
        mode = session.build(collector)

        def first() -> object:
            with call_scope(scope):
                return respond(mode, question, collector, model)

        report = BatchPhases(replies, session.config,
                             BatchSettings(poll_interval_s=poll_interval_s, fallback=fallback),
                             backend=collector.backend_label, announce=announce,
                             ).run([PhaseItem("ask", "ask", first)])
    for line in report.lines():
        announce(line)
    replies.serve()
    session.client.replies = replies
    with call_scope(scope):
        return respond(session.mode, question, session.client, model)
