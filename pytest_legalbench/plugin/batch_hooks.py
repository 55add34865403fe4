"""A batch run's wiring (``--legalbench-batch``): the first pass over the items this process
will run, made before the first of them; its progress on the terminal; what it did, and how
the items' real run used it, in the summary. The phases themselves are
``run.batch_phases``'s.

Which items a process runs: all of the session's under ``-n 0``; under xdist, the worker's
fixed share (``plugin.item_shares``), which the controller's ``QuestionShares`` scheduler
sends it. Items a resumed run already finished are left out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_legalbench.llm.backend import ClientConfig
from pytest_legalbench.llm.batch_cache import batch_cache_ttl
from pytest_legalbench.llm.batch_replies import BatchReplies
from pytest_legalbench.llm.cassettes import cassette_file
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.cost_guard import CostGuard
from pytest_legalbench.plugin.item_shares import shares, worker_number
from pytest_legalbench.plugin.journal_hooks import JOURNAL_KEY, RELAY_INPUT
from pytest_legalbench.plugin.session_notes import add_notes, note_lines
from pytest_legalbench.plugin.settings import Settings
from pytest_legalbench.run.items import Case

if TYPE_CHECKING:
    from pytest_legalbench.run.benchmark import Benchmark
    from pytest_legalbench.run.journal import BatchEntry
    from pytest_legalbench.run.journal_session import JournalSession

#: The summary section of a batch run's notes (``plugin.session_notes``).
SECTION = "batch"
#: The answers this process's items are served from.
REPLIES_KEY = pytest.StashKey[BatchReplies]()
#: Seconds between looks at a batch of the embedded reference backend, whose batches end
#: after its processing delay (1 s by default), and of any other server.
REFERENCE_POLL_S = 0.2
DEFAULT_POLL_S = 30.0


def run_first_pass(request: pytest.FixtureRequest, settings: Settings, live: ClientConfig,
                   make_benchmark: Callable[[ModelClient], Benchmark], guard: CostGuard | None,
                   *, record_mode: str, recording: bool, local_failure: Any,
                   client: ModelClient) -> BatchReplies:
    """Send the calls of this process's items through batches; return the answers the
    items' real run (through ``client``) is served from. Both passes ask for the cache
    lifetime that pays under batches (``llm.batch_cache``)."""
    from pytest_legalbench.llm.batches import BatchError, BatchSettings
    from pytest_legalbench.llm.cost_guard import CostLimitReached
    from pytest_legalbench.llm.ledger import Ledger
    from pytest_legalbench.run.batch_phases import BatchPhases, PhaseItem
    from pytest_legalbench.run.journal import JournalError

    config = request.config
    journal = config.stash.get(JOURNAL_KEY, None)
    cases = process_items(request.session, settings,
                          set(journal.resumed) if journal is not None else set())
    replies = BatchReplies()
    # The embedded reference backend, or one reached by base URL, is the reference server.
    server = live.server.kind if live.server is not None else live.backend
    ttl = batch_cache_ttl(backend=server,
                          sharing=len({case.question.id for case, _ in cases}))
    client.cache_ttl = ttl
    poll = settings.batch_poll_s or (REFERENCE_POLL_S if server == "reference"
                                     else DEFAULT_POLL_S)
    announce = _announcer(config)
    announce(f"first pass over {len(cases)} item(s), a look at the batches every {poll:g} s")
    if ttl is not None:
        announce(f"cached prefixes asked for the {ttl} lifetime (a batch may outlast the "
                 f"5-minute cache between requests that share them)")
    with ModelClient(live, Ledger(), local_failure=local_failure, guard=guard,
                     replies=replies) as collector:
        collector.cache_ttl = ttl
        # The first pass runs its own benchmark (no cassettes): what it learns is which
        # calls the items make; the cassettes record the items' real run.
        benchmark = make_benchmark(collector)
        items = [PhaseItem.of(benchmark, case, group) for case, group in cases]
        phases = BatchPhases(
            replies, live,
            BatchSettings(poll_interval_s=poll, fallback=settings.batch_fallback),
            backend=collector.backend_label,
            submitted=journal.submitted if journal is not None else (),
            journal=_batch_journal(config, journal),
            announce=announce, guard=guard,
            replayable=_replayable(config.rootpath / "cassettes", live.backend, record_mode,
                                   recording),
            run=journal.run if journal is not None else "",
            digest=journal.digest if journal is not None else "")
        stopped: str | None = None
        problem: str | None = None
        try:
            report = phases.run(items)
        except CostLimitReached as error:
            # The run stops as asked: items whose calls a batch answered are served, the
            # next call of any other meets the limit again and stops there.
            if journal is not None:
                journal.stopped(str(error))
            request.session.shouldstop = str(error)
            report = None
            stopped = str(error)
        except (BatchError, JournalError) as error:
            # A journal relay out of reach too: the run must not wait on a batch whose id
            # it could not keep.
            problem = f"legalbench batch: {error}"
            report = None
    if report is None and stopped is None:
        # Failed outside the handler: every item shows the message alone.
        pytest.fail(str(problem), pytrace=False)
    replies.serve()
    lines = report.lines() if report is not None else [f"first pass stopped: {stopped}"]
    for line in lines:
        announce(line)
    add_notes(config, SECTION, lines)
    config.stash[REPLIES_KEY] = replies
    return replies


def _batch_journal(config: pytest.Config,
                   journal: JournalSession | None) -> Callable[[BatchEntry], None]:
    """Where this process writes a batch line before waiting on the batch: the run journal,
    or, on a worker on another host, the controller's relay (``run.journal_relay``)."""
    if journal is None:
        return lambda _: None
    if journal.local:
        return journal.batched
    from pytest_legalbench.run.journal_relay import RelayAddress, relay_writer

    given = getattr(config, "workerinput", {}).get(RELAY_INPUT)
    if not isinstance(given, dict):
        raise pytest.UsageError("legalbench batch: this worker on another host was given no "
                                "journal relay by its controller (a controller of another "
                                "pytest-legalbench version?)")
    return relay_writer(RelayAddress(str(given["host"]), int(given["port"]),
                                     str(given["token"])))


def process_items(session: pytest.Session, settings: Settings,
                  finished: set[str]) -> list[tuple[Case, str]]:
    """The benchmark items this process runs (each case and its module, the cassette
    group), in order, less those already ``finished``."""
    workerinput = getattr(session.config, "workerinput", None)
    dealt: dict[str, int] | None = None
    mine = 0
    if workerinput is not None:
        dealt = shares([item.nodeid for item in session.items], settings.modes,
                       int(workerinput.get("workercount", 1)))
        mine = worker_number(str(workerinput.get("workerid", "gw0")))
    found = []
    for item in session.items:
        case = _case_of(item)
        if case is None or case.id in finished:
            continue
        if dealt is not None and dealt[item.nodeid] != mine:
            continue
        found.append((case, Path(str(item.path)).stem))
    return found


def _case_of(item: pytest.Item) -> Case | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    return next((param for param in callspec.params.values() if isinstance(param, Case)),
                None)


def _replayable(root: Path, backend: str, record_mode: str,
                recording: bool) -> Callable[[str], bool]:
    """Whether the calls of a call scope replay from a cassette instead of reaching the
    server: never without recording or when re-recording; with a recorded cassette
    otherwise; always when nothing may be recorded (``none`` for a live backend)."""
    if not recording or record_mode in ("all", "rewrite"):
        return lambda scope: False
    if record_mode == "none" and backend != "reference":
        return lambda scope: True

    def replays(scope: str) -> bool:
        group, _, name = scope.partition("/")
        return cassette_file(root, backend, group, name).exists()
    return replays


def _announcer(config: pytest.Config) -> Callable[[str], None]:
    """Where progress lines go: this process's terminal, past pytest's output capture (the
    first pass runs inside an item's setup, whose output is otherwise held back)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")

    def announce(line: str) -> None:
        if reporter is None:
            return
        if capture is None:
            reporter.write_line(f"legalbench batch: {line}")
            return
        with capture.global_and_fixture_disabled():
            reporter.write_line(f"legalbench batch: {line}")
    return announce


def usage_lines(config: pytest.Config) -> list[str]:
    """How the items' real run used the stored answers (after it ran)."""
    replies = config.stash.get(REPLIES_KEY, None)
    if replies is None:
        return []
    use = replies.report()
    line = f"served {use.served} call(s) from stored answers ({use.batch_answers} from batches)"
    if use.interactive:
        made = ", ".join(f"{count} {stage}" for stage, count in sorted(use.interactive.items()))
        line += f"; sent interactively, no batch held them: {made}"
    if use.unused:
        line += f"; {use.unused} answer(s) no call asked for"
    return [line]


def report_lines(config: pytest.Config) -> list[str]:
    """The batch section of the summary: this process's lines, or each worker's."""
    return [f"legalbench batch: {line}" for line in note_lines(config, SECTION)]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Note how the items' real run used the batch answers (before a worker hands over its
    notes)."""
    add_notes(session.config, SECTION, usage_lines(session.config))


def left_running(journal: JournalSession) -> list[str]:
    """What an interrupted batch run says of the batches it created: they keep running,
    and the resume collects them."""
    batches = journal.batches()
    if not batches:
        return []
    if all(entry.backend == "reference" for entry in batches):
        return [(f"{len(batches)} batch(es) were created on the embedded reference backend, "
                f"which ended with this run: the resume submits their requests again")]
    return [(f"{len(batches)} batch(es) created by this run keep running on the server: "
            f"--legalbench-resume {journal.folder} collects them instead of paying again "
            f"(legalbench batches {journal.folder} lists them, --cancel cancels them)")]
