"""The run journal's wiring: the run opened (or, under ``--legalbench-resume``, resumed) when
the benchmark session starts and handed to xdist workers, and the items each collecting
process plans. Journal logic lives in ``run.journal_session``.

A session that never starts a benchmark has no journal, and these hooks do nothing in it.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import TYPE_CHECKING, Any

import pytest

from pytest_legalbench.files.locations import manifests_dir, prompts_dir
from pytest_legalbench.llm.backend import resolve_backend
from pytest_legalbench.plugin.settings import Settings
from pytest_legalbench.run.fingerprint import run_fingerprint
from pytest_legalbench.run.items import Case
from pytest_legalbench.run.journal import JournalError
from pytest_legalbench.run.journal_session import JournalSession, join_run, open_run
from pytest_legalbench.run.protocol import ITEM_PROPERTY, RECORD_PROPERTY
from pytest_legalbench.run.run_folder import run_place

if TYPE_CHECKING:
    from pytest_legalbench.run.journal_relay import JournalRelay
    from pytest_legalbench.run.question_source import QuestionSource

JOURNAL_KEY = pytest.StashKey[JournalSession]()
#: The session's modes, which tell a benchmark item's case id among a remote worker's items.
MODES_KEY = pytest.StashKey[tuple[str, ...]]()
#: The xdist run id a controller that started no benchmark saw its workers get.
RUN_UID_KEY = pytest.StashKey[str]()
#: The ``workerinput`` key an xdist worker finds its run under.
WORKER_INPUT = "legalbench_journal"
#: The ``workerinput`` key a worker on another host finds the resumed run's records under.
RESUMED_INPUT = "legalbench_resumed"
#: Where a batch run's controller listens for remote workers' batch lines (set when the
#: session starts a batch run; the relay itself starts with the first remote worker).
RELAY_BIND_KEY = pytest.StashKey[tuple[str, int]]()
RELAY_KEY = pytest.StashKey["JournalRelay"]()
#: The ``workerinput`` keys a remote worker of a batch run finds the relay under, and the
#: batch lines of the resumed run (to collect instead of submitting again).
RELAY_INPUT = "legalbench_relay"
SUBMITTED_INPUT = "legalbench_submitted"
#: A case id at the end of a benchmark item's node id (``[<id>]``, then xdist's ``@group``).
_NODE_CASE = re.compile(r"\[([^\[\]]+)\](?:@[^\[\]]*)?$")


def open_journal(config: pytest.Config, settings: Settings,
                 questions: QuestionSource) -> JournalSession:
    """The session's run journal: joined on an xdist worker whose controller opened it,
    opened (or resumed) elsewhere; JournalError when it cannot be."""
    workerinput = getattr(config, "workerinput", {})
    given = workerinput.get(WORKER_INPUT)
    if given is not None:
        return join_run(given, workerinput.get(RESUMED_INPUT),
                        workerinput.get(SUBMITTED_INPUT))
    # A worker whose controller started no benchmark (the session asked for none before
    # collecting): every worker opens the same run, named by xdist's id of the test run.
    shared = _shared_run(workerinput.get("testrunuid"))
    place = run_place(report_dir=settings.report_dir, resume_dir=settings.resume_dir,
                      cache_dir=settings.cache_dir, shared_name=shared)
    try:
        return open_run(place, _fingerprint(settings, questions),
                        report=settings.report_dir is not None, run=shared)
    except OSError as error:
        raise JournalError(f"{place.journal}: cannot be read ({error.strerror})") from None


def late_journal(config: pytest.Config, settings: Settings,
                 questions: QuestionSource) -> JournalSession | None:
    """On an xdist controller that started no benchmark while its workers ran benchmark
    items: the run those workers opened, read at the session's end; None elsewhere."""
    shared = _shared_run(config.stash.get(RUN_UID_KEY, None))
    if shared is None:
        return None
    place = run_place(report_dir=None, resume_dir=None, cache_dir=settings.cache_dir,
                      shared_name=shared)
    return open_run(place, _fingerprint(settings, questions), report=False, run=shared)


def _shared_run(testrunuid: object) -> str | None:
    return f"xdist-{testrunuid}"[:18] if isinstance(testrunuid, str) and testrunuid else None


def _fingerprint(settings: Settings, questions: QuestionSource) -> Any:
    backend = resolve_backend(settings.backend, os.environ)
    base_url = settings.base_url or backend.base_url
    return run_fingerprint(
        modes=settings.modes,
        models={"answer": settings.answer_model, "judge": settings.judge_model},
        backend=backend.backend + (f" at {base_url}" if base_url else ""),
        judge=settings.judge, retrieval=dataclasses.asdict(settings.mode_settings),
        gandr=settings.gandr, repeats=settings.repeats, prompts=prompts_dir(),
        corpus=settings.docs_dir or manifests_dir() / f"{settings.profile}.yaml",
        questions=questions.folder, questions_digest=questions.digest)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    journal = node.config.stash.get(JOURNAL_KEY, None)
    if journal is not None and not on_this_host(node):
        # The run's folder is on this host only: the worker writes nothing, is handed what
        # the resumed run finished, and this process journals the items it reports.
        node.workerinput[WORKER_INPUT] = {**journal.handed_over(), "local": False}
        node.workerinput[RESUMED_INPUT] = dict(journal.resumed)
        bind = node.config.stash.get(RELAY_BIND_KEY, None)
        if bind is not None:
            # A batch run: the worker sends each batch line here before it waits on the
            # batch, and collects the resumed run's batches instead of submitting them.
            address = _relay(node.config, journal, bind).address
            node.workerinput[RELAY_INPUT] = dataclasses.asdict(address)
            node.workerinput[SUBMITTED_INPUT] = journal.submitted_lines()
    elif journal is not None:
        node.workerinput[WORKER_INPUT] = journal.handed_over()
    else:
        # Kept only to find the run the workers may open themselves (late_journal).
        node.config.stash[RUN_UID_KEY] = str(node.workerinput.get("testrunuid", ""))


def _relay(config: pytest.Config, journal: JournalSession,
           bind: tuple[str, int]) -> JournalRelay:
    """The session's journal relay, started on first use."""
    from pytest_legalbench.run.journal_relay import JournalRelay

    relay = config.stash.get(RELAY_KEY, None)
    if relay is None:
        try:
            relay = JournalRelay(bind, journal.run, journal.batched)
        except OSError as error:
            raise pytest.UsageError(
                f"--legalbench-journal-relay {bind[0]}:{bind[1]}: cannot listen there "
                f"({error.strerror or error})") from None
        relay.start()
        config.stash[RELAY_KEY] = relay
    return relay


def pytest_unconfigure(config: pytest.Config) -> None:
    relay = config.stash.get(RELAY_KEY, None)
    if relay is not None:
        relay.close()
        del config.stash[RELAY_KEY]


def pytest_collection_finish(session: pytest.Session) -> None:
    journal = session.config.stash.get(JOURNAL_KEY, None)
    if journal is None or session.config.option.collectonly:
        return
    # A benchmark item is one parametrised with a Case (``plugin.hooks``).
    ids = [param.id for item in session.items
           if isinstance(item, pytest.Function) and hasattr(item, "callspec")
           for param in item.callspec.params.values() if isinstance(param, Case)]
    if ids:
        journal.begin(ids)


def on_this_host(node: Any) -> bool:
    """Whether an xdist worker runs on this host (a ``popen`` gateway), sharing its files."""
    return bool(getattr(getattr(node, "gateway", None), "spec", None) is None
                or node.gateway.spec.popen)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    journal = node.config.stash.get(JOURNAL_KEY, None)
    if journal is None or on_this_host(node):
        return
    # A worker elsewhere begins nothing: its items are planned here, by their node ids.
    found = (_NODE_CASE.search(nodeid) for nodeid in ids)
    ends = tuple(f"-{mode}" for mode in node.config.stash.get(MODES_KEY, ()))
    journal.begin([match.group(1) for match in found
                   if match is not None and match.group(1).endswith(ends)])


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    node = getattr(report, "node", None)
    if report.when != "call" or node is None or on_this_host(node):
        return
    journal = node.config.stash.get(JOURNAL_KEY, None)
    properties = dict(report.user_properties)
    item, envelope = properties.get(ITEM_PROPERTY), properties.get(RECORD_PROPERTY)
    if journal is not None and isinstance(item, str) and isinstance(envelope, dict):
        # Written as the worker's report arrives: a run interrupted later keeps the item.
        journal.finished(item, envelope)
