"""pytest entry point: options, ini keys and markers; everything else only in a benchmark
session.

Installed, the plugin registers its options, ini keys and markers and otherwise stays out of
the way, as pytest-recording does: a session becomes a benchmark session when it asks for one
at startup (a legalbench flag or ini key, ``plugin.benchmark_request``) or when it collects
benchmark items. Only then are settings resolved, the backend checked, the run journal opened
and the xdist hooks registered (``plugin.session_start``). The fixtures resolve the settings
when a test asks for one.

Wiring only: the fixtures live in ``plugin.fixtures`` and everything that computes in the
stages. Item records travel as ``user_properties``, so the summary is built the same way
whether the items ran here or on xdist workers.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_legalbench.plugin.benchmark_request import requested_by
from pytest_legalbench.plugin.journal_hooks import JOURNAL_KEY, WORKER_INPUT, late_journal
from pytest_legalbench.plugin.options import (
    MCP_SERVER_DEST,
    MCP_SERVER_FLAG,
    MCP_SERVER_HELP,
    MCP_SERVER_INI,
    MCP_SERVER_INI_HELP,
    OPTIONS,
    RETRIEVAL_OPTIONS,
)
from pytest_legalbench.plugin.preflight_hooks import checked_cases
from pytest_legalbench.plugin.session_start import (
    QUESTIONS_KEY,
    SETTINGS_KEY,
    StartError,
    session_questions,
    session_settings,
    start_benchmark,
)
from pytest_legalbench.plugin.settings import Settings
from pytest_legalbench.run.protocol import (
    ERROR_PROPERTY,
    ITEM_PROPERTY,
    RECORD_PROPERTY,
    unwrap,
)

#: Every finished item's record envelope (``run.protocol``), whichever product ran it.
RECORDS_KEY = pytest.StashKey[list[dict[str, Any]]]()
#: Every item that failed with an error, by node id: its ``legalbench_error`` property.
ERRORS_KEY = pytest.StashKey[dict[str, dict[str, Any]]]()
#: Whether the session was started by collecting benchmark items (no flag or ini key asked).
STARTED_BY_ITEMS_KEY = pytest.StashKey[bool]()
#: The fixture a benchmark test asks for to be parametrised over questions and modes.
CASE_FIXTURE = "legalbench_case"
#: Markers every benchmark item may carry: its question's kind (practice areas are added
#: from the question set, as ``area_<name>``).
KIND_MARKERS = ("lookup", "definition", "crossref", "precedence", "out_of_scope")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_legalbench.plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_legalbench_modes() -> dict[str, object]:
    """The built-in modes, registered through the same hook as a user's."""
    from pytest_legalbench.modes.registry import builtin_modes

    return dict(builtin_modes())


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("legalbench", "legal retrieval benchmarks (pytest-legalbench)")
    group.addoption("--mode", action="append", dest="legalbench_modes", default=None,
                    metavar="MODE",
                    help="mode to benchmark; repeat for several: inject, navembed[:strategy], "
                         "navindex, navagent (judged against inject), gandr, gandr:b1 ... "
                         "gandr:b5 (claim-audited answers and their baselines; gandr:all for "
                         "all six), or a retriever of your own: a name a "
                         "pytest_legalbench_modes() hook or an installed package registers, "
                         "py:MODULE:FACTORY, http://HOST:PORT/PATH, https://..., "
                         "file:PATH.jsonl, mcp:NAME (an MCP server of "
                         "--legalbench-mcp-server). Default: navembed and navindex")
    parser.addini("mode", type="args", default=[],
                  help="modes to benchmark when no --mode is given")
    for option in (*OPTIONS, *RETRIEVAL_OPTIONS):
        if option.switch:
            group.addoption(option.flag, action="store_true", default=None,
                            dest=f"legalbench_{option.name}", help=option.help_text())
        else:
            group.addoption(option.flag, dest=f"legalbench_{option.name}", default=None,
                            metavar=option.metavar or option.ini.upper(),
                            help=option.help_text())
        if option.in_ini and option.switch:
            parser.addini(option.ini, help=option.help, type="bool", default=False)
        elif option.in_ini:
            parser.addini(option.ini, help=option.help, default=None)
    group.addoption("--legalbench-gandr", action="append", dest="legalbench_gandr",
                    default=None, metavar="NAME=VALUE",
                    help="change one GANDR setting (repeat for several), e.g. max_rounds=2, "
                         "top_k=10, generator_temperature=0.2; the names are the fields of "
                         "pytest_legalbench.gandr.settings.GandrSettings")
    parser.addini("legalbench_gandr", type="args", default=[],
                  help="GANDR settings as NAME=VALUE when no --legalbench-gandr is given")
    group.addoption(MCP_SERVER_FLAG, action="append", dest=MCP_SERVER_DEST, default=None,
                    metavar="NAME=SERVER", help=MCP_SERVER_HELP)
    parser.addini(MCP_SERVER_INI, type="linelist", default=[], help=MCP_SERVER_INI_HELP)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    for kind in KIND_MARKERS:
        config.addinivalue_line("markers", f"{kind}: a benchmark question of kind {kind}")
    config.addinivalue_line("markers", "area_<name>: a benchmark question of that practice area")
    if not config.pluginmanager.hasplugin("xdist"):
        # Benchmark items carry xdist's group mark; without xdist (-p no:xdist) nothing else
        # registers it, and an unknown mark warns in every session.
        config.addinivalue_line("markers", "xdist_group(name): items that share a worker")
    # Registered here rather than through pytest_plugins, which would ask pytest to rewrite
    # the asserts of modules this one has imported already (a warning in every session).
    # Both are inert until a test asks for a fixture or a benchmark session starts.
    from pytest_legalbench.plugin import fixtures, journal_hooks

    config.pluginmanager.register(fixtures, "legalbench-fixtures")
    config.pluginmanager.register(journal_hooks, "legalbench-journal")
    config.stash[RECORDS_KEY] = []
    config.stash[ERRORS_KEY] = {}
    config.pluginmanager.register(RecordCollector(config), "legalbench-records")
    # An xdist worker of a controller that started a benchmark session starts one too.
    if WORKER_INPUT in getattr(config, "workerinput", {}) or requested_by(config):
        try:
            start_benchmark(config)
        except StartError as error:
            raise pytest.UsageError(str(error)) from None


def area_marker(practice_area: str) -> str:
    """The marker name of a practice area (``area_finance``)."""
    return "area_" + re.sub(r"\W+", "_", practice_area.strip().lower()).strip("_")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if CASE_FIXTURE not in metafunc.fixturenames:
        return
    problem: str | None = None
    starting = SETTINGS_KEY not in metafunc.config.stash
    try:
        # Benchmark items start the session of a run no flag or ini key asked for.
        settings = start_benchmark(metafunc.config)
    except StartError as error:
        problem = f"legalbench settings: {error}"
    else:
        if starting:
            metafunc.config.stash[STARTED_BY_ITEMS_KEY] = True
    if problem is not None:
        # Raised outside the handler: a collection error shows its message alone.
        raise pytest.Collector.CollectError(problem)
    cases, invalid = checked_cases(metafunc.config, settings,
                                   metafunc.config.stash[QUESTIONS_KEY])
    for area in sorted({area_marker(c.question.practice_area) for c in cases}):
        # Practice areas come from the question files, so their markers are registered here.
        metafunc.config.addinivalue_line("markers", f"{area}: a question of that practice area")
    metafunc.parametrize(
        CASE_FIXTURE,
        # xdist_group: a question's items share a worker (plugin.question_scheduling), so
        # inject answers it once there; the mark is for xdists that carry it themselves.
        [*(pytest.param(case, id=case.id,
                        marks=[getattr(pytest.mark, case.question.kind),
                               getattr(pytest.mark, area_marker(case.question.practice_area)),
                               pytest.mark.xdist_group(case.question.id)])
           for case in cases),
         *(pytest.param(bad, id=bad.id) for bad in invalid)])


class RecordCollector:
    """Collects item records from test reports, wherever the items ran (xdist sends the
    reports of its workers here with their ``user_properties`` intact)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == ERROR_PROPERTY and report.failed and isinstance(value, dict):
                # The fixture that fails the item runs in its setup: one per item.
                self.config.stash[ERRORS_KEY].setdefault(report.nodeid, value)
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == RECORD_PROPERTY and isinstance(value, dict):
                self.config.stash[RECORDS_KEY].append(value)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when != "call":
        # Acts only on a report carrying a record, which only a benchmark item's has.
        return _without_record(report, item.config)
    settings = item.config.stash.get(SETTINGS_KEY, None)
    if not report.passed or settings is None or not settings.fail_on_loss:
        return report
    for name, value in item.user_properties:
        found = unwrap(value) if name == RECORD_PROPERTY else None
        if found is not None and found[0] == "qa" and found[1].get("verdict") == "inject":
            record = found[1]
            report.outcome = "failed"
            report.longrepr = (f"{record['mode']} lost to inject on {record['question_id']} "
                               f"(--legalbench-fail-on-loss)")
    return report


def _without_record(report: pytest.TestReport, config: pytest.Config) -> pytest.TestReport:
    """The setup or teardown report without the item's record, which the call report carries:
    xdist sends every report of a worker to the controller, record and all. junitxml writes
    properties from the teardown report, so there it stays when --junitxml is given."""
    if report.when == "teardown" and getattr(config.option, "xmlpath", None):
        return report
    carried = (RECORD_PROPERTY, ITEM_PROPERTY)
    if any(name in carried for name, _ in report.user_properties):
        # A new list: the item's own (which the call report shares) keeps the record.
        report.user_properties = [(name, value) for name, value in report.user_properties
                                  if name not in carried]
    return report


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    settings = config.stash.get(SETTINGS_KEY, None)
    return None if settings is None else _settings_lines(config, settings)


def pytest_report_collectionfinish(config: pytest.Config) -> list[str] | None:
    # A session started by its benchmark items had no settings for pytest's header: its line
    # follows the collection instead (and, like the header, not under -q).
    settings = config.stash.get(SETTINGS_KEY, None)
    if (settings is None or not config.stash.get(STARTED_BY_ITEMS_KEY, False)
            or config.get_verbosity() < 0):
        return None
    return _settings_lines(config, settings)


def _settings_lines(config: pytest.Config, settings: Settings) -> list[str]:
    lines = [_settings_line(settings)]
    source = config.stash.get(QUESTIONS_KEY, None)
    if source is not None:
        size = source.size
        sample = (f", a sample of {min(settings.sample, size):,} of {size:,}"
                  if settings.sample is not None else f" ({size:,})")
        lines.append(f"legalbench: questions {source.label()}{sample}; inject scope "
                     f"{settings.mode_settings.inject_scope}")
    return lines


def _settings_line(settings: Settings) -> str:
    corpus = settings.corpus_dir or "not set"
    if settings.docs_dir is not None:
        return (f"legalbench: documents {settings.docs_dir}, cache {settings.cache_dir}; "
                f"modes {', '.join(settings.modes)}; judge {settings.judge}")
    return (f"legalbench: profile {settings.profile}, corpus {corpus}, cache "
            f"{settings.cache_dir}; modes {', '.join(settings.modes)}; judge {settings.judge}")


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    records = config.stash.get(RECORDS_KEY, [])
    errors = list(config.stash.get(ERRORS_KEY, {}).values())
    settings = config.stash.get(SETTINGS_KEY, None)
    journal = config.stash.get(JOURNAL_KEY, None)
    if settings is not None and settings.plan:
        return  # the plan was the session's output (``plugin.plan_hooks``)
    if settings is None:
        if not records and not errors:
            return
        # xdist workers ran benchmark items no flag or ini key asked for, so this controller
        # started no session: its settings are read now, as the workers read them.
        try:
            settings = session_settings(config)
            questions = session_questions(config, settings)
        except StartError as error:
            terminalreporter.write_line(f"legalbench: no summary: {error}")
            return
        journal = late_journal(config, settings, questions)
    progress = journal.progress() if journal is not None else None
    if not records and not errors and (progress is None or not progress.partial):
        return
    from pytest_legalbench.results.run_header import QuestionSelection
    from pytest_legalbench.run.session_end import SessionEnd, finish_session

    report_dir = settings.report_dir or (journal.folder if journal and journal.report else None)
    source = config.stash.get(QUESTIONS_KEY, None)
    selection = None if source is None else QuestionSelection(
        source.origin, source.digest, source.size, settings.sample)
    end = SessionEnd(report_dir=report_dir, base_url=settings.base_url,
                     answer_model=settings.answer_model, judge_model=settings.judge_model,
                     profile=settings.profile,
                     corpus_dir=settings.corpus_dir, cache_dir=settings.cache_dir,
                     questions_dir=settings.questions_dir, judge=settings.judge,
                     progress=progress, modes=settings.modes, selection=selection)
    lines = (finish_session(records, end, errors) if records or errors
             else ["", f"legalbench: {end.partial}"])
    if settings.max_cost is not None:
        from pytest_legalbench.plugin.plan_hooks import stop_lines

        lines.extend(stop_lines(config))
    if settings.batch:
        from pytest_legalbench.plugin.batch_hooks import report_lines

        lines.extend(report_lines(config))
    if journal is not None and end.partial:
        lines.append(f"run journal: {journal.journal} (run the rest with "
                     f"--legalbench-resume {journal.folder})")
        if settings.batch:
            from pytest_legalbench.plugin.batch_hooks import left_running

            lines.extend(left_running(journal))
    elif journal is not None and not journal.fresh:
        from pytest_legalbench.run.run_folder import remove_superseded_partial

        # The resume finished the run, so the report its interruption left is out of date.
        removed = remove_superseded_partial(journal.folder)
        if removed is not None:
            lines.append(f"removed {removed}: the interrupted run's partial report, which "
                         f"this resumed run completes")
    for line in lines:
        terminalreporter.write_line(line)
