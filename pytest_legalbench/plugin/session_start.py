"""A benchmark session's start: its settings resolved from the command line, the environment
and the ini file, checked, and its run opened.

A session starts at configure time when it asked for a benchmark (``benchmark_request``), or
when it first collects benchmark items; until then the plugin reads no setting and opens
nothing. Problems raise ``StartError`` with one line for the user; the caller turns it into a
usage error or a collection error.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.manifest import available_profiles
from pytest_legalbench.ingest.questions import QuestionFileError
from pytest_legalbench.llm.backend import BackendConfigError, resolve_backend
from pytest_legalbench.plugin.benchmark_request import GANDR_DEST, GANDR_INI, MODE_DEST, MODE_INI
from pytest_legalbench.plugin.journal_hooks import (
    JOURNAL_KEY,
    MODES_KEY,
    RELAY_BIND_KEY,
    open_journal,
)
from pytest_legalbench.plugin.options import (
    MCP_SERVER_DEST,
    MCP_SERVER_FLAG,
    MCP_SERVER_INI,
    OPTIONS,
    RETRIEVAL_OPTIONS,
)
from pytest_legalbench.plugin.session_notes import SessionNotes
from pytest_legalbench.plugin.settings import Settings, resolve_settings
from pytest_legalbench.plugin.values import SettingsError
from pytest_legalbench.plugin.xdist_hooks import BenchmarkXdist, share_cores_late
from pytest_legalbench.run.journal import JournalError
from pytest_legalbench.run.preflight import check_report_folder
from pytest_legalbench.run.process_exit import exit_quickly

if TYPE_CHECKING:
    from pytest_legalbench.modes.mcp_servers import McpServer
    from pytest_legalbench.modes.registry import ModeRegistry
    from pytest_legalbench.run.question_source import QuestionSource

SETTINGS_KEY = pytest.StashKey[Settings]()
#: Where the session's questions come from (a generated set is made on the first start).
QUESTIONS_KEY = pytest.StashKey["QuestionSource"]()
#: The session's modes: the built-in ones and those its hooks and installed packages register.
REGISTRY_KEY = pytest.StashKey["ModeRegistry"]()
#: Settings whose value is a folder: relative in an ini file, relative to that file's folder.
_FOLDER_SETTINGS = ("corpus_dir", "cache_dir", "report", "questions", "docs", "embedding_model",
                    "cross_encoder")


class StartError(Exception):
    """A benchmark session that cannot start; the message is one line naming the setting."""


def session_registry(config: pytest.Config) -> ModeRegistry:
    """The modes this session can name: what every ``pytest_legalbench_modes`` hook (this
    plugin's built-in modes first, then each conftest's and plugin's) and every installed
    package registers; built once per process and kept in the stash."""
    if REGISTRY_KEY in config.stash:
        return config.stash[REGISTRY_KEY]
    from pytest_legalbench.modes.registry import ModeRegistry, entry_point_sources, schemes_with

    hooks = config.pluginmanager.hook.pytest_legalbench_modes.get_hookimpls()
    ours = config.pluginmanager.get_plugin("legalbench")
    # Ours first: the built-in names lead every listing; the others keep pytest's order.
    ordered = sorted(hooks, key=lambda impl: impl.plugin is not ours)
    schemes = schemes_with(session_mcp_servers(config))
    try:
        sources = [(_source(impl.plugin_name), impl.function()) for impl in ordered]
        registry = ModeRegistry.registered([*sources, *entry_point_sources()], schemes=schemes)
    except (TypeError, ValueError) as error:
        raise StartError(f"pytest_legalbench_modes: {error}") from None
    except Exception as error:  # noqa: BLE001 - a user's hook may raise anything
        raise StartError(f"pytest_legalbench_modes() raised {type(error).__name__}: "
                         f"{error}") from None
    config.stash[REGISTRY_KEY] = registry
    return registry


def session_mcp_servers(config: pytest.Config) -> dict[str, McpServer]:
    """The MCP servers ``mcp:NAME`` may name: every ``--legalbench-mcp-server``, else the
    lines of the ini key; StartError naming a bad one."""
    from pytest_legalbench.modes.mcp_servers import parse_servers

    given = config.getoption(MCP_SERVER_DEST, None)
    lines = ([(MCP_SERVER_FLAG, text) for text in given] if given
             else [(f"ini key {MCP_SERVER_INI}", text)
                   for text in config.getini(MCP_SERVER_INI) or ()])
    try:
        return parse_servers(lines)
    except ValueError as error:
        raise StartError(str(error)) from None


def _source(plugin_name: str) -> str:
    """A hook's plugin as error messages name it (a conftest by its path)."""
    return "pytest-legalbench" if plugin_name == "legalbench" else plugin_name


def session_settings(config: pytest.Config) -> Settings:
    """Every setting by precedence (flag, environment, ini key, default), checked; the backend
    resolved too, so a missing key fails now rather than at the first model call."""
    options = (*OPTIONS, *RETRIEVAL_OPTIONS)
    cli = {o.name: config.getoption(f"legalbench_{o.name}") for o in options}
    ini = {o.name: config.getini(o.ini) for o in options if o.in_ini}
    for name in _FOLDER_SETTINGS:
        if config.rootpath is not None and cli.get(name) is None and ini.get(name):
            ini[name] = str((config.rootpath / str(ini[name])).resolve())
    modes = config.getoption(MODE_DEST)
    gandr = config.getoption(GANDR_DEST)
    registry = session_registry(config)
    try:
        settings = resolve_settings(
            cli, ini, os.environ, profiles=available_profiles,
            modes=modes or list(config.getini(MODE_INI)),
            modes_from="--mode" if modes else f"ini key {MODE_INI}",
            gandr=gandr or list(config.getini(GANDR_INI)),
            gandr_from="--legalbench-gandr" if gandr else f"ini key {GANDR_INI}",
            registry=registry)
        resolve_backend(settings.backend, os.environ)
    except (SettingsError, BackendConfigError) as error:
        raise StartError(str(error)) from None
    if settings.timeout_s is not None:
        # A user's retriever gets the same time as a model call.
        registry.timeout_s = settings.timeout_s
    if settings.faults is not None and not config.getoption("disable_recording", False):
        raise StartError("--legalbench-faults needs --disable-recording: a recorded fault "
                         "would be replayed in every later run")
    dist = config.getoption("dist", "no")
    if settings.batch and dist not in ("no", "load", "loadgroup"):
        raise StartError(f"--legalbench-batch under xdist needs --dist load or loadgroup (what "
                         f"-n gives), not --dist {dist}: each worker's share of questions is "
                         f"fixed before its batches are sent")
    return settings


def start_benchmark(config: pytest.Config) -> Settings:
    """Resolve the settings, check the report folder and open (or join) the run's journal;
    register the hooks a benchmark run needs. Idempotent: a started session returns its
    settings."""
    if SETTINGS_KEY in config.stash:
        return config.stash[SETTINGS_KEY]
    settings = session_settings(config)
    if settings.report_dir is not None and not hasattr(config, "workerinput"):
        # A report folder that cannot be written is a startup error, not an end-of-run one.
        problem = check_report_folder(settings.report_dir)
        if problem is not None:
            raise StartError(str(problem))
    try:
        questions = session_questions(config, settings)
        journal = open_journal(config, settings, questions)
    except JournalError as error:
        raise StartError(str(error)) from None
    config.stash[SETTINGS_KEY] = settings
    config.stash[MODES_KEY] = tuple(settings.modes)
    planning = settings.plan and not hasattr(config, "workerinput")
    if not planning:
        # A run that only plans writes no journal: it reads the resumed run's, if any.
        config.stash[JOURNAL_KEY] = journal
    exit_quickly()
    # Its schedulers and thread limits are for benchmark runs only.
    config.pluginmanager.register(BenchmarkXdist(settings.modes, batch=settings.batch),
                                  "legalbench-xdist")
    config.pluginmanager.register(SessionNotes(), "legalbench-notes")
    if planning:
        from pytest_legalbench.plugin.plan_hooks import PlanOnly

        # Planned in this process: no workers are started for a run that runs nothing.
        config.option.dist = "no"
        config.pluginmanager.register(PlanOnly(settings, journal.resumed), "legalbench-plan")
    if settings.batch:
        from pytest_legalbench.plugin import batch_hooks

        config.pluginmanager.register(batch_hooks, "legalbench-batch")
        if not hasattr(config, "workerinput"):
            # Workers on other hosts send their batch lines to this address (journal_hooks).
            config.stash[RELAY_BIND_KEY] = settings.journal_relay
    share_cores_late(config)
    return settings


def session_questions(config: pytest.Config, settings: Settings) -> QuestionSource:
    """Where the session's questions come from, found (or generated) once per process;
    StartError when the profile has none or its set cannot be generated."""
    # Imported here: finding a generated set reads the spans stage, which a session that
    # starts no benchmark never needs.
    from pytest_legalbench.run.question_source import question_source

    if QUESTIONS_KEY not in config.stash:
        try:
            config.stash[QUESTIONS_KEY] = question_source(
                settings.profile, settings.questions_dir, corpus_dir=settings.corpus_dir,
                cache_dir=settings.cache_dir)
        except (CorpusError, QuestionFileError) as error:
            raise StartError(f"questions: {error}") from None
    return config.stash[QUESTIONS_KEY]
