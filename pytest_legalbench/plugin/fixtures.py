"""Fixtures: settings, the corpus and its index, and the benchmark (one item runner per
product), built once per session (per xdist worker), and the per-item fixture that runs a
benchmark item.

The index build, the item runners and what they pull in (the parser, the modes, the
reference backend, the vector record) are imported inside the fixtures that build them, so
``pytest --help`` and sessions that never ask for them do not pay for them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_legalbench.gandr.settings import with_overrides
from pytest_legalbench.ingest.document import CorpusError, Document
from pytest_legalbench.llm.backend import configured_backend
from pytest_legalbench.llm.cassette_persister import CassetteError
from pytest_legalbench.llm.cassette_recorder import cassette_miss, new_recorder
from pytest_legalbench.llm.cassettes import CassettePlan
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.cost_guard import (
    CostGuard,
    CostLimitReached,
    PlanOverLimit,
    SpendMeter,
)
from pytest_legalbench.llm.failures import ModelCallError
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.llm.redaction import redactor_for
from pytest_legalbench.modes.base import ModeUnavailable
from pytest_legalbench.modes.retriever_failures import RetrieverFailed
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.plugin.journal_hooks import JOURNAL_KEY
from pytest_legalbench.plugin.preflight_hooks import session_documents
from pytest_legalbench.plugin.session_start import StartError, session_registry, start_benchmark
from pytest_legalbench.plugin.settings import Settings
from pytest_legalbench.run.items import Case, InvalidQuestion
from pytest_legalbench.run.protocol import (
    ERROR_PROPERTY,
    ITEM_PROPERTY,
    RECORD_PROPERTY,
    Record,
    envelope,
)

if TYPE_CHECKING:
    from pytest_legalbench.run.benchmark import Benchmark


@pytest.fixture(scope="session")
def legalbench_settings(pytestconfig: pytest.Config) -> Settings:
    """The resolved pytest-legalbench settings of this session (resolved now, when no flag,
    ini key or benchmark item asked for them before)."""
    try:
        return start_benchmark(pytestconfig)
    except StartError as error:
        problem = f"legalbench settings: {error}"
    pytest.fail(problem, pytrace=False)


@pytest.fixture(scope="session")
def legalbench_documents(pytestconfig: pytest.Config,
                         legalbench_settings: Settings) -> tuple[Document, ...]:
    """The documents of the selected profile, read from the corpus folder (or those of the
    ``--legalbench-docs`` folder)."""
    try:
        return session_documents(pytestconfig, legalbench_settings)
    except CorpusError as error:
        problem = f"legalbench corpus: {error}"
    # Failed outside the handler: inside it, pytest would print the CorpusError again.
    pytest.fail(problem, pytrace=False)


@pytest.fixture(scope="session")
def legalbench_index(legalbench_settings: Settings,
                     legalbench_documents: tuple[Document, ...]) -> tuple[DocumentIndex, ...]:
    """The structured index of every document of the profile, from the cache when built before."""
    from pytest_legalbench.navindex.corpus import build_indexes

    return build_indexes(legalbench_documents, cache_dir=legalbench_settings.cache_dir)


@pytest.fixture(scope="session")
def legalbench_runner(request: pytest.FixtureRequest, pytestconfig: pytest.Config,
                      legalbench_settings: Settings,
                      legalbench_documents: tuple[Document, ...],
                      legalbench_index: tuple[DocumentIndex, ...], record_mode: str,
                      disable_recording: bool) -> Iterator[Benchmark]:
    """The session's benchmark: one item runner per product over the corpus, one client and
    (offline) the reference server, closed even when items fail. Cassettes follow
    pytest-recording's ``--record-mode`` and ``--disable-recording``. In a batch run the
    calls of every item this process runs go through batches first
    (``plugin.batch_hooks``), and the items are served from their answers."""
    from pytest_legalbench.run.backend import open_backend
    from pytest_legalbench.run.benchmark import Benchmark
    from pytest_legalbench.run.blas_threads import one_blas_thread
    from pytest_legalbench.run.gandr import GandrItems, GandrItemSettings
    from pytest_legalbench.run.qa import QaRunner, QaSettings
    from pytest_legalbench.vectors.vector_record import VECTOR_RECORD_FOLDER

    one_blas_thread()
    settings = legalbench_settings
    config = configured_backend(settings.backend, os.environ, base_url=settings.base_url,
                                timeout_s=settings.timeout_s)
    retrieval = settings.mode_settings
    plan = None
    if not disable_recording:
        recorder = new_recorder(redactor_for(config.api_key))
        # A conftest's pytest_recording_configure (custom matchers, persisters) sees ours too.
        pytestconfig.hook.pytest_recording_configure(config=pytestconfig, vcr=recorder)
        plan = CassettePlan(root=pytestconfig.rootpath / "cassettes", backend=config.backend,
                            record_mode=record_mode, recorder=recorder)
    faults = None
    if settings.faults is not None:
        from pytest_legalbench.reference_backend.faults import parse_faults

        faults = parse_faults(settings.faults)

    def benchmark(client: ModelClient, cassettes: CassettePlan | None) -> Benchmark:
        return Benchmark([
            QaRunner(legalbench_documents, legalbench_index, client,
                     QaSettings(answer_model=settings.answer_model,
                                judge_model=settings.judge_model, judge=settings.judge,
                                mode_settings=retrieval),
                     cassettes=cassettes, cache_dir=settings.cache_dir,
                     vector_record=pytestconfig.rootpath / "cassettes" / VECTOR_RECORD_FOLDER,
                     registry=session_registry(pytestconfig)),
            GandrItems(legalbench_index, client,
                       GandrItemSettings(answer_model=settings.answer_model,
                                         judge_model=settings.judge_model,
                                         repeats=settings.repeats,
                                         gandr=with_overrides(settings.gandr),
                                         cross_encoder=retrieval.cross_encoder),
                       cassettes=cassettes)], client)

    if settings.max_cost is not None and (disable_recording or record_mode != "none"):
        from pytest_legalbench.plugin.plan_hooks import check_plan

        # Before the first call: a run whose plan is over its limit makes none.
        check_plan(request, settings, legalbench_documents, legalbench_index)
    guard = _cost_guard(pytestconfig, settings)
    with open_backend(config, retrieval.context_window, settings.server_kind,
                      faults) as live, \
            ModelClient(live, Ledger(), local_failure=cassette_miss, guard=guard) as client:
        if settings.batch:
            from pytest_legalbench.plugin.batch_hooks import run_first_pass

            client.replies = run_first_pass(
                request, settings, live, lambda collector: benchmark(collector, None), guard,
                record_mode=record_mode, recording=not disable_recording,
                local_failure=cassette_miss, client=client)
        yield benchmark(client, plan)


def _cost_guard(config: pytest.Config, settings: Settings) -> CostGuard | None:
    """The run's spending limit, shared by its processes through the run folder."""
    if settings.max_cost is None:
        return None
    journal = config.stash.get(JOURNAL_KEY, None)
    meter = SpendMeter(journal.folder / f".spend-{journal.run}" if journal else None)
    return CostGuard(settings.max_cost, load_price_card(), meter)


@pytest.fixture
def legalbench_item(request: pytest.FixtureRequest,
                    legalbench_case: Case | InvalidQuestion) -> Record:
    """Run this item (its question under its mode), journal its record and attach it to the
    report; an item a resumed run already finished is taken from the journal instead, and an
    invalid question file (--legalbench-skip-invalid) errors with what is wrong with it."""
    from pytest_legalbench.run.stored_records import record_of

    if isinstance(legalbench_case, InvalidQuestion):
        pytest.fail("invalid question file, not run:\n" + "\n".join(legalbench_case.problems),
                    pytrace=False)
    journal = request.config.stash.get(JOURNAL_KEY, None)
    stored = journal.resumed.get(legalbench_case.id) if journal is not None else None
    if stored is not None:
        product, record = record_of(stored)
        request.node.user_properties.append((RECORD_PROPERTY, envelope(product, record)))
        return record
    # Asked for here, not as a parameter: a resumed run whose items are all journaled
    # builds no corpus, index or model client.
    try:
        runner: Benchmark = request.getfixturevalue("legalbench_runner")
    except PlanOverLimit as error:
        stopped: str | None = str(error).splitlines()[0]
    else:
        stopped = None
    if stopped is not None:
        # Not a failure: the run ends before its first call, as asked; the summary prints
        # the plan it stopped on.
        if journal is not None:
            journal.stopped(stopped)
        request.session.shouldstop = stopped
        pytest.skip(stopped)
    try:
        product, record = runner.run(legalbench_case, group=Path(str(request.path)).stem)
    except ModeUnavailable as error:
        if journal is not None:
            journal.skipped(legalbench_case.id, error.reason)
        pytest.skip(f"{error.mode}: {error.reason}")
    except CostLimitReached as error:
        # Not a failure: the run ends here as asked, its journal and summary kept.
        if journal is not None:
            journal.stopped(str(error))
        request.session.shouldstop = str(error)
        pytest.skip(str(error))
    except RetrieverFailed as error:
        # One line naming the mode, the question and what was wrong; the run goes on.
        problem: str | None = str(error)
    except (CassetteError, ModelCallError) as error:
        problem = f"{legalbench_case.id}: {error}"
    else:
        problem = None
    if problem is not None:
        # Counted in the summary: the failed item travels as a property, as records do.
        request.node.user_properties.append((ERROR_PROPERTY, {
            "item": legalbench_case.id, "mode": legalbench_case.mode,
            "question_id": legalbench_case.question.id, "error": problem}))
        # The message names the retriever, the cassette or the call: failed outside the
        # handler, so pytest prints it once, with no traceback and no chained exception.
        pytest.fail(problem, pytrace=False)
    wrapped = envelope(product, record)
    if journal is not None:
        # Before the report: a run killed after this line keeps the item.
        journal.finished(legalbench_case.id, wrapped)
    # A loss under --legalbench-fail-on-loss fails the call phase (plugin.hooks), so the
    # record still reaches the summary.
    request.node.user_properties.append((RECORD_PROPERTY, wrapped))
    if journal is not None and not journal.local:
        # On another host: the controller journals the item by this id (plugin.journal_hooks).
        request.node.user_properties.append((ITEM_PROPERTY, legalbench_case.id))
    return record
