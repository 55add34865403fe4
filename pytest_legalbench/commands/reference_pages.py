"""``legalbench docs-reference``: write the documentation pages generated from the code (the
options, ini keys and environment variables; the command line), or check that the committed
ones are current."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import Progress
from pytest_legalbench.files.atomic_write import write_text_atomic

#: The command that rewrites the pages, as a failing check prints it.
REGENERATE = ".venv/bin/legalbench docs-reference"


def generated_pages(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each generated page's path (relative to the docs folder) and its text, the command-line
    page for ``parser`` (the ``legalbench`` command's)."""
    from pytest_legalbench.commands.cli_page import cli_page
    from pytest_legalbench.commands.options_page import options_page

    return {"reference/options.md": options_page(), "reference/cli.md": cli_page(parser)}


def stale_pages(docs: Path, parser: argparse.ArgumentParser) -> list[str]:
    """The generated pages whose committed text under ``docs`` differs from what is generated."""
    stale = []
    for path, text in generated_pages(parser).items():
        page = docs / path
        if not page.is_file() or page.read_text(encoding="utf-8") != text:
            stale.append(path)
    return stale


def register(commands: Any) -> None:
    """Add the ``docs-reference`` subcommand."""
    parser = commands.add_parser(
        "docs-reference", help="write the documentation's generated reference pages (options, "
                               "ini keys and environment variables; the command line)")
    parser.add_argument("--docs", type=Path, default=Path("docs"),
                        help="the documentation folder (default: %(default)s)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit with status 1 naming each page that is out "
                             "of date")
    parser.add_argument("-q", "--quiet", action="store_true", help="print no progress")
    parser.set_defaults(run=run_docs_reference)


def run_docs_reference(args: argparse.Namespace, progress: Progress) -> int:
    """Write (or check) every generated page."""
    docs: Path = args.docs
    # The whole command's parser, which ``commands.cli`` puts in every namespace.
    parser: argparse.ArgumentParser = args.command_line
    if args.check:
        stale = stale_pages(docs, parser)
        for path in stale:
            print(f"{docs / path} is out of date: run {REGENERATE}", file=sys.stderr)
        return 1 if stale else 0
    for path, text in generated_pages(parser).items():
        page = docs / path
        page.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(page, text)
        progress(f"wrote {page}")
    return 0
