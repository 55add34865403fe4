"""What the subcommands share: corpus selection options, progress lines, user-facing errors.

Where files live and every retrieval setting are resolved by the plugin's own rule
(``plugin.settings``): a flag, then the environment variable, then the default.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import Any

from pytest_legalbench.defaults import BACKENDS, CACHE_ENV, CORPUS_ENV, DEFAULT_PROFILE
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.loading import describe_inference
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.llm.server_identity import KIND_CHOICES
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.names import DEFAULT_STRATEGY, mode_names, parse_mode
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.schema import DEFAULT_RUNG, RUNGS
from pytest_legalbench.plugin.settings import (
    OPTIONS,
    RETRIEVAL_OPTIONS,
    SettingsError,
    choose,
    resolve_cache_dir,
    resolve_corpus_dir,
    resolve_mode_settings,
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
    parser.add_argument("--corpus-dir", type=Path,
                        help=f"folder holding the profile's documents (default: ${CORPUS_ENV})")
    parser.add_argument("--cache-dir", type=Path,
                        help=f"cache folder (default: ${CACHE_ENV}, else "
                             f"$XDG_CACHE_HOME/pytest-legalbench)")


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    """Options for the model backend and the retrieval settings every mode shares (the same
    settings as the plugin's ``--legalbench-*`` options, with the same environment
    variables)."""
    parser.add_argument("--backend", choices=BACKENDS,
                        help="'reference' (embedded, no key) or 'anthropic'; default: anthropic "
                             "when ANTHROPIC_API_KEY is set, else reference")
    parser.add_argument("--base-url", help="Messages-API server (default: $ANTHROPIC_BASE_URL)")
    parser.add_argument("--server-kind", choices=KIND_CHOICES,
                        help="kind of that server, for its capability rules (default: "
                             "$LEGALBENCH_SERVER_KIND, else asked once: GET /v1/models)")
    group = parser.add_argument_group("retrieval settings")
    for option in RETRIEVAL_OPTIONS:
        assert option.cli is not None  # every retrieval setting has a command-line flag
        env = f" Env: ${option.env}." if option.env else ""
        group.add_argument(option.cli, dest=f"setting_{option.name}", metavar="VALUE",
                           help=f"{option.help}.{env}")


def corpus_folder(args: argparse.Namespace) -> Path | None:
    """The corpus mirror folder from ``--corpus-dir`` or the environment."""
    chosen = choose([o for o in OPTIONS if o.name == "corpus_dir"],
                    {"corpus_dir": getattr(args, "corpus_dir", None)}, {}, os.environ)
    try:
        return resolve_corpus_dir(chosen["corpus_dir"], cli=True)
    except SettingsError as error:
        raise UsageProblem(str(error)) from None


def cache_folder(args: argparse.Namespace) -> Path:
    """The cache folder from ``--cache-dir``, the environment or the default."""
    chosen = choose([o for o in OPTIONS if o.name == "cache_dir"],
                    {"cache_dir": getattr(args, "cache_dir", None)}, {}, os.environ)
    return resolve_cache_dir(chosen["cache_dir"])


def mode_settings(args: argparse.Namespace, **overrides: Any) -> ModeSettings:
    """The retrieval settings of a command line (``overrides`` win, e.g. the ``k`` a span
    benchmark needs)."""
    given = {option.name: getattr(args, f"setting_{option.name}", None)
             for option in RETRIEVAL_OPTIONS}
    try:
        settings = resolve_mode_settings(given, {}, os.environ, from_cli=True)
        return dataclasses.replace(settings, **overrides) if overrides else settings
    except (SettingsError, ValueError) as error:
        raise UsageProblem(str(error)) from None


def mode_help() -> str:
    """The help text of a ``--mode`` option."""
    return (f"retrieval mode: {', '.join(mode_names())}; navembed alone means "
            f"navembed:{DEFAULT_STRATEGY}")


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

    try:
        mode = parse_mode(mode_spec)
    except ValueError as error:
        raise UsageProblem(str(error)) from None
    chosen = mode_settings(args, **settings)
    if documents is None:
        _, documents = load_selection(args, progress)
    if indexes is None:
        # Inject sends whole documents, so it never needs the index built.
        indexes = () if mode == "inject" else indexes_of(args, documents, progress)
    kind = args.server_kind or os.environ.get("LEGALBENCH_SERVER_KIND") or None
    if kind is not None and kind not in KIND_CHOICES:
        raise UsageProblem(f"LEGALBENCH_SERVER_KIND={kind!r} is not one of "
                           f"{', '.join(KIND_CHOICES)}")
    return query_session(documents, indexes, mode=mode, backend=args.backend,
                         base_url=args.base_url, settings=chosen,
                         cache_dir=working_cache(args), progress=progress, server_kind=kind)
