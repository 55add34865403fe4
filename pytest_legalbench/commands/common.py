"""What the subcommands share: corpus selection options, progress lines, user-facing errors.

Where files live, the backend, the answering model and every retrieval setting are the
plugin's settings (``plugin.options``), resolved by its own rule (``plugin.settings``): a flag,
then the environment variable, then the default; a bad value names where it came from.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_legalbench.defaults import DEFAULT_PROFILE
from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.document import CorpusError, Document
from pytest_legalbench.ingest.loading import describe_inference
from pytest_legalbench.ingest.questions import Question, load_question, load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.mcp_servers import parse_servers
from pytest_legalbench.modes.registry import (
    ALIASES,
    SCHEMES,
    ModeRegistry,
    builtin_modes,
    default_registry,
)
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.schema import DEFAULT_RUNG, RUNGS
from pytest_legalbench.plugin.options import (
    BACKEND_OPTIONS,
    MCP_SERVER_CLI,
    MCP_SERVER_HELP,
    RETRIEVAL_OPTIONS,
    Option,
    option,
)
from pytest_legalbench.plugin.settings import (
    resolve_answer_model,
    resolve_backend_choice,
    resolve_mode_settings,
    resolve_server_kind,
)
from pytest_legalbench.plugin.values import (
    SettingsError,
    choose,
    resolve_cache_dir,
    resolve_corpus_dir,
    seconds_of,
)


class UsageProblem(ValueError):
    """A command line that cannot run as given."""


class Progress:
    """Progress lines on stderr, numbered, with elapsed time."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.started = time.monotonic()
        self.count = 0

    def __call__(self, message: str) -> None:
        self.count += 1
        if not self.quiet:
            elapsed = time.monotonic() - self.started
            print(f"[{elapsed:6.1f}s] {message}", file=sys.stderr, flush=True)


def add_selectors(parser: argparse.ArgumentParser) -> None:
    """Options choosing the documents: a profile or a folder, and where files live."""
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--profile", help=f"packaged corpus profile (default: {DEFAULT_PROFILE})")
    chosen.add_argument("--docs", type=Path, help="any folder of .txt/.htm/.html documents")
    parser.add_argument("--skip-bad", action="store_true",
                        help="with --docs: index the documents that can be read and name the "
                             "others (default: every unreadable file is named and nothing runs)")
    add_folder_options(parser)
    parser.add_argument("--no-cache", action="store_true", help="build without reading the cache")
    parser.add_argument("--rung", choices=RUNGS, default=DEFAULT_RUNG,
                        help="descriptor rung of the index files and sizes (default: %(default)s)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def add_folder_options(parser: argparse.ArgumentParser) -> None:
    """``--corpus-dir`` and ``--cache-dir``."""
    for name in ("corpus_dir", "cache_dir"):
        add_setting(parser, option(name), type=Path, metavar=name.upper())


def add_backend_options(parser: argparse.ArgumentParser, *, answering: bool = False) -> None:
    """Options for the model backend (and, for a command that answers, the answering model)
    and the retrieval settings every mode shares: the settings of the plugin's
    ``--legalbench-*`` options, with the same environment variables, resolved by the same rule
    (``plugin.settings``)."""
    for chosen in BACKEND_OPTIONS:
        add_setting(parser, chosen)
    if answering:
        add_setting(parser, option("answer_model"))
    group = parser.add_argument_group("retrieval settings")
    for chosen in RETRIEVAL_OPTIONS:
        add_setting(group, chosen)


def add_setting(parser: argparse.ArgumentParser | argparse._ArgumentGroup, chosen: Option,
                **overrides: Any) -> None:
    """Add the command's flag of a setting; its value is read by ``_given``."""
    assert chosen.cli is not None  # a setting the command offers has a command-line flag
    parser.add_argument(chosen.cli, **{"dest": f"setting_{chosen.name}", "metavar": "VALUE",
                                       "help": chosen.help_text(), **overrides})


def _given(args: argparse.Namespace, options: Sequence[Option]) -> dict[str, object | None]:
    """What the command line gave for ``options``."""
    return {o.name: getattr(args, f"setting_{o.name}", None) for o in options}


def corpus_folder(args: argparse.Namespace) -> Path | None:
    """The corpus mirror folder from ``--corpus-dir`` or the environment."""
    chosen = choose([option("corpus_dir")], _given(args, [option("corpus_dir")]), {},
                    os.environ, from_cli=True)
    try:
        return resolve_corpus_dir(chosen["corpus_dir"])
    except SettingsError as error:
        raise UsageProblem(str(error)) from None


def cache_folder(args: argparse.Namespace) -> Path:
    """The cache folder from ``--cache-dir``, the environment or the default."""
    chosen = choose([option("cache_dir")], _given(args, [option("cache_dir")]), {}, os.environ,
                    from_cli=True)["cache_dir"]
    return resolve_cache_dir(None if chosen is None else chosen.text)


def answer_model(args: argparse.Namespace) -> str:
    """The answering model from ``--model`` (where the command has it) or the environment."""
    chosen = choose([option("answer_model")], _given(args, [option("answer_model")]), {},
                    os.environ, from_cli=True)
    return resolve_answer_model(chosen["answer_model"])


def backend_choice(args: argparse.Namespace) -> tuple[str | None, str | None, str | None]:
    """The backend asked for, the base URL and the server kind, from the flags or the
    environment (None: the key decides, the backend's own URL, ask the server)."""
    chosen = choose(BACKEND_OPTIONS, _given(args, BACKEND_OPTIONS), {}, os.environ,
                    from_cli=True)
    base_url = chosen["base_url"]
    try:
        return (resolve_backend_choice(chosen["backend"]),
                None if base_url is None else base_url.text,
                resolve_server_kind(chosen["server_kind"]))
    except SettingsError as error:
        raise UsageProblem(str(error)) from None


def call_timeout(args: argparse.Namespace) -> float | None:
    """Seconds a model call may take, from ``--timeout`` or the environment (None: the
    client's default)."""
    chosen = choose([option("timeout")], _given(args, [option("timeout")]), {}, os.environ,
                    from_cli=True)
    try:
        return seconds_of(chosen["timeout"])
    except SettingsError as error:
        raise UsageProblem(str(error)) from None


def mode_settings(args: argparse.Namespace, **overrides: Any) -> ModeSettings:
    """The retrieval settings of a command line (``overrides`` win, e.g. the ``k`` a span
    benchmark needs); the scans follow the answering model."""
    try:
        settings = resolve_mode_settings(_given(args, RETRIEVAL_OPTIONS), {}, os.environ,
                                         answer_model=answer_model(args), from_cli=True)
        return dataclasses.replace(settings, **overrides) if overrides else settings
    except (SettingsError, ValueError) as error:
        raise UsageProblem(str(error)) from None


def mode_help() -> str:
    """The help text of a ``--mode`` option."""
    aliases = "; ".join(f"{alias} alone means {name}" for alias, name in ALIASES.items())
    return (f"retrieval mode: {', '.join(builtin_modes())} ({aliases}); a retriever of your "
            f"own: {', '.join(s.usage for s in SCHEMES)}, an installed package's mode, or one "
            f"a --conftest file registers")


def add_mode_sources(parser: argparse.ArgumentParser) -> None:
    """``--conftest``: a file whose ``pytest_legalbench_modes()`` registers modes, as a
    conftest does in a pytest session."""
    parser.add_argument("--conftest", type=Path, action="append", metavar="FILE",
                        help="a conftest.py (any Python file) whose pytest_legalbench_modes() "
                             "hook registers modes to name with --mode; repeat for several")
    parser.add_argument(MCP_SERVER_CLI, action="append", metavar="NAME=SERVER",
                        help=MCP_SERVER_HELP)


def mode_registry(args: argparse.Namespace) -> ModeRegistry:
    """The modes a command line can name: the built-in ones, installed packages' and those
    its ``--conftest`` files register; a user's retriever may take ``--timeout``."""
    from pytest_legalbench.commands.conftest_modes import conftest_modes

    try:
        added = [conftest_modes(path) for path in getattr(args, "conftest", None) or ()]
        servers = parse_servers((MCP_SERVER_CLI, text)
                                for text in getattr(args, "mcp_server", None) or ())
        return default_registry(call_timeout(args), added, servers)
    except (TypeError, ValueError) as error:
        raise UsageProblem(str(error)) from None


def resolve_mode(registry: ModeRegistry, spec: str) -> str:
    """The canonical name of ``spec`` in ``registry``; UsageProblem when it names no mode."""
    try:
        return registry.resolve(spec)
    except (TypeError, ValueError) as error:
        raise UsageProblem(str(error)) from None


def load_selection(args: argparse.Namespace,
                   progress: Progress) -> tuple[Selection, tuple[Document, ...]]:
    """Read the selected documents, reporting decoding warnings and inferred roles."""
    selection = Selection(profile=args.profile or (None if args.docs else DEFAULT_PROFILE),
                          docs=args.docs)
    documents = load_documents(selection, corpus_dir=corpus_folder(args),
                               cache_dir=cache_folder(args), progress=progress,
                               skipped=_skipped if getattr(args, "skip_bad", False) else None)
    for warning in (w for d in documents for w in d.warnings):
        print(f"warning: {warning}", file=sys.stderr)
    if selection.docs is not None:
        for line in describe_inference(documents):
            print(f"inferred: {line}", file=sys.stderr)
    return selection, documents


def question_set(args: argparse.Namespace, profile: str | None,
                 documents: Sequence[Document], *, sample: int | None = None,
                 progress: Progress | None = None) -> tuple[Question, ...]:
    """The questions of ``--questions DIR``, else the profile's packaged set, else the set
    generated for it (cuad's, ``run.question_source``), each checked to ask about documents
    of the corpus; with ``sample``, the stratified sample a run with ``--legalbench-sample``
    draws from the same set."""
    from pytest_legalbench.run.question_source import (
        question_source,
        sampled_files,
        sampled_questions,
    )
    from pytest_legalbench.spans.cuad_questions import PROFILE as CUAD_PROFILE

    folder = args.questions
    if folder is None:
        if profile is None:
            raise UsageProblem("a folder of documents has no packaged question set: give "
                               "--questions DIR")
        folder = question_sets_dir() / profile
        if not folder.is_dir() and profile != CUAD_PROFILE:
            raise UsageProblem(f"profile {profile!r} has no packaged question set: give "
                               f"--questions DIR")
    try:
        source = question_source(profile or "", args.questions,
                                 corpus_dir=corpus_folder(args), cache_dir=cache_folder(args),
                                 progress=progress)
    except CorpusError as error:
        raise UsageProblem(str(error)) from None
    files = sampled_files(source, sample)
    # A generated set's sample is drawn from its catalogue: only the sampled files are read.
    questions = (load_question_set(source.folder) if files is None
                 else tuple(sorted((load_question(path) for path in files),
                                   key=lambda q: q.id)))
    if files is None and sample is not None:
        questions = sampled_questions(questions, sample, None if args.docs else profile)
    known = {d.doc_id for d in documents}
    for question in questions:
        missing = [d for d in question.documents if d not in known]
        if missing:
            raise UsageProblem(f"{question.path}: documents not in this corpus: "
                               f"{', '.join(missing)}")
    return questions


def _skipped(problem: str) -> None:
    print(f"skipped: {problem}", file=sys.stderr)


def working_cache(args: argparse.Namespace) -> Path | None:
    """The cache folder to read and fill, or None under ``--no-cache``."""
    return None if args.no_cache else cache_folder(args)


def indexes_of(args: argparse.Namespace, documents: tuple[Document, ...],
               progress: Progress) -> tuple[DocumentIndex, ...]:
    """The documents' indexes, through the cache unless ``--no-cache``."""
    return build_indexes(documents, cache_dir=working_cache(args), progress=progress)


def open_query(args: argparse.Namespace, progress: Progress, mode_spec: str,
               documents: tuple[Document, ...] | None = None,
               indexes: tuple[DocumentIndex, ...] | None = None, **settings: Any) -> Any:
    """A query session (context manager) for one mode over the selected corpus."""
    from pytest_legalbench.run.query import query_session

    registry = mode_registry(args)
    mode = resolve_mode(registry, mode_spec)
    chosen = mode_settings(args, **settings)
    backend, base_url, kind = backend_choice(args)
    if documents is None:
        _, documents = load_selection(args, progress)
    if indexes is None:
        # The whole corpus is sent as it is, so a mode showing it never needs the index.
        indexes = (() if registry.traits(mode).shown == "corpus"
                   else indexes_of(args, documents, progress))
    return query_session(documents, indexes, mode=mode, backend=backend, base_url=base_url,
                         settings=chosen, cache_dir=working_cache(args), progress=progress,
                         server_kind=kind, timeout_s=call_timeout(args), registry=registry)
