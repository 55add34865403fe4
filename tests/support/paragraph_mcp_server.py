"""A small MCP server of the tests' own, standing in for a user's: the paragraphs of a few
documents behind two tools, ``find_passages`` (ranked by the words they share with a query,
each with a short preview) and ``read_passage`` (one paragraph verbatim, by id).

Run as a script: ``python paragraph_mcp_server.py --doc DOC_ID=PATH ... [--http PORT]``,
over stdio by default. It imports only the MCP SDK (either line), so it runs with the SDK's
default environment, as ``mcp:NAME`` starts a server.
"""

import argparse
import importlib
import json
import re
import time
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

_WORD = re.compile(r"[a-z0-9$,.-]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _sdk() -> tuple[int, Any, type[Exception]]:
    try:
        server: Any = importlib.import_module("mcp.server.mcpserver")
        errors: Any = importlib.import_module("mcp.server.mcpserver.exceptions")
        return 2, server.MCPServer, errors.ToolError
    except ImportError:
        server = importlib.import_module("mcp.server.fastmcp")
        errors = importlib.import_module("mcp.server.fastmcp.exceptions")
        return 1, server.FastMCP, errors.ToolError


def build(documents: dict[str, str], port: int | None, stall: float = 0.0) -> Any:
    """The server over ``documents`` (doc_id to text); ``stall``: seconds each read waits
    (a server that hangs)."""
    major, server_class, tool_error = _sdk()
    options: dict[str, Any] = {"log_level": "WARNING"}
    if major == 1 and port is not None:
        options.update(host="127.0.0.1", port=port)
    server = server_class("paragraphs", **options)
    passages = {f"{doc_id}#{number}": (doc_id, para.strip())
                for doc_id, text in documents.items()
                for number, para in enumerate(text.split("\n\n"), 1) if para.strip()}

    def find_passages(
            query: Annotated[str, Field(description="what to look for, in words")],
            limit: Annotated[int, Field(description="passages to return")] = 3) -> str:
        asked = _words(query)
        scored = sorted(passages.items(), key=lambda item: -len(asked & _words(item[1][1])))
        found = [{"passage_id": pid, "doc_id": doc_id, "preview": " ".join(text.split()[:5])}
                 for pid, (doc_id, text) in scored[:limit] if asked & _words(text)]
        return json.dumps({"passages": found})

    def read_passage(
            passage_id: Annotated[str, Field(description="a passage_id find_passages gave")],
            ) -> str:
        time.sleep(stall)
        if passage_id not in passages:
            raise tool_error(f"no passage {passage_id!r}")
        doc_id, text = passages[passage_id]
        return json.dumps({"passage_id": passage_id, "doc_id": doc_id, "text": text})

    server.add_tool(find_passages, name="find_passages",
                    description="Search the documents' paragraphs for a query; gives passage "
                                "ids and short previews, best first.")
    server.add_tool(read_passage, name="read_passage",
                    description="Read one paragraph verbatim by its passage_id.")
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--doc", action="append", default=[], metavar="DOC_ID=PATH")
    parser.add_argument("--http", type=int, default=None, metavar="PORT")
    parser.add_argument("--stall", type=float, default=0.0, metavar="SECONDS")
    args = parser.parse_args()
    documents = {}
    for given in args.doc:
        doc_id, _, path = given.partition("=")
        documents[doc_id] = Path(path).read_text(encoding="utf-8")
    server = build(documents, args.http, args.stall)
    if args.http is None:
        server.run("stdio")
    elif _sdk()[0] == 1:
        server.run("streamable-http")
    else:
        server.run("streamable-http", host="127.0.0.1", port=args.http)


if __name__ == "__main__":
    main()
