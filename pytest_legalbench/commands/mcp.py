"""``legalbench mcp``: the index tools and documents of a corpus as an MCP server (stdio, or
streamable HTTP on loopback)."""

from __future__ import annotations

import argparse
from typing import Any

from pytest_legalbench.commands.common import (
    Progress,
    add_selectors,
    add_setting,
    indexes_of,
    load_selection,
    mode_settings,
    working_cache,
)
from pytest_legalbench.plugin.options import option

#: The HTTP port unless ``--port`` says otherwise.
DEFAULT_PORT = 8765
#: The retrieval setting a user may change for the server's search.
_SEARCH_SETTINGS = ("embedding_model",)


def register(commands: Any) -> None:
    """Add the ``mcp`` subcommand."""
    parser = commands.add_parser(
        "mcp", help="serve the corpus's index tools and documents over MCP (stdio by default)")
    add_selectors(parser)
    parser.add_argument("--http", action="store_true",
                        help="serve streamable HTTP on 127.0.0.1 instead of stdio")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help="HTTP port with --http (default: %(default)s)")
    group = parser.add_argument_group("search settings")
    for name in _SEARCH_SETTINGS:
        add_setting(group, option(name))
    parser.set_defaults(run=run_mcp)


def run_mcp(args: argparse.Namespace, progress: Progress) -> int:
    """Index the selected documents and serve them until the client disconnects."""
    from pytest_legalbench.commands.mcp_server import build_server, serve
    from pytest_legalbench.modes.base import Corpus
    from pytest_legalbench.modes.index_tools.search import default_searcher
    from pytest_legalbench.modes.index_tools.toolbox import IndexTools

    _, documents = load_selection(args, progress)
    indexes = indexes_of(args, documents, progress)
    corpus = Corpus(documents, indexes, working_cache(args), progress)
    tools = IndexTools(corpus, default_searcher(corpus, mode_settings(args)))
    server = build_server(tools, documents, indexes, rung=args.rung,
                          port=args.port if args.http else None)
    where = f"http://127.0.0.1:{args.port}/mcp" if args.http else "stdio"
    progress(f"serving {len(indexes)} documents over MCP ({where})")
    serve(server, http=args.http, port=args.port)
    return 0
