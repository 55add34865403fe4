"""The MCP server of ``legalbench mcp``: the index tools and each document's index and text.

Built with the official MCP Python SDK, imported only here and only inside functions (the
``legalbench`` command and ``pytest --help`` never pay for it). The SDK's 2.x line calls
its server class ``MCPServer`` (``mcp.server.mcpserver``); the 1.x line ``FastMCP``
(``mcp.server.fastmcp``): ``sdk()`` finds whichever is installed, and everything else this
module uses is common to both.

No ``from __future__ import annotations`` here: the SDK reads each tool function's parameter
annotations (types and descriptions) at registration, and those are local to ``_add_tools``.
"""

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.modes.index_tools.bounds import (
    LIST_ITEMS,
    OUTLINE_DEFAULT,
    SEARCH_DEFAULT,
    ToolError,
    ToolResult,
)
from pytest_legalbench.modes.index_tools.specs import TOOLS_BY_NAME
from pytest_legalbench.modes.index_tools.toolbox import IndexTools
from pytest_legalbench.navindex.json_forms import readable_json
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.navindex.schema import DEFAULT_RUNG, Rung
from pytest_legalbench.navindex.serialise import index_document

#: The server's name, as clients list it.
SERVER_NAME = "legalbench"
#: Loopback only: the server reads private documents and has no authentication.
HTTP_HOST = "127.0.0.1"
INSTRUCTIONS = (
    "Tools over the structured index of a set of legal instruments. Start with search or "
    "list_documents; read_provision gives a provision's verbatim text with its amendments "
    "(amended_by), the base provisions an amendment changes (amends) and the terms it uses; "
    "define_term resolves a defined term to the document defining it. A later instrument "
    "prevails over the original to the extent of any inconsistency. Resources: "
    "legalbench://documents/<doc_id>/index (the navigation index) and .../text (full text).")


@dataclass(frozen=True)
class Sdk:
    """The parts of the installed SDK this server uses."""

    major: int
    server_class: Any
    tool_error: type[Exception]


def sdk() -> Sdk:
    """The installed MCP SDK: 2.x (``MCPServer``) or 1.x (``FastMCP``)."""
    try:
        server: Any = importlib.import_module("mcp.server.mcpserver")
        errors: Any = importlib.import_module("mcp.server.mcpserver.exceptions")
        return Sdk(2, server.MCPServer, errors.ToolError)
    except ImportError:
        server = importlib.import_module("mcp.server.fastmcp")
        errors = importlib.import_module("mcp.server.fastmcp.exceptions")
        return Sdk(1, server.FastMCP, errors.ToolError)


def resource_uri(doc_id: str, part: str) -> str:
    """The URI of a document's ``index`` or ``text`` resource."""
    return f"legalbench://documents/{doc_id}/{part}"


def build_server(tools: IndexTools, documents: tuple[Document, ...],
                 indexes: tuple[DocumentIndex, ...], *, rung: Rung = DEFAULT_RUNG,
                 port: int | None = None) -> Any:
    """A server exposing ``tools`` and, per document, its index and full text."""
    found = sdk()
    # Warnings only: in stdio mode stderr is the client's log, and INFO logs every request.
    options: dict[str, Any] = {"instructions": INSTRUCTIONS, "log_level": "WARNING"}
    if found.major == 1 and port is not None:
        # 1.x takes the HTTP address when built; 2.x when run.
        options.update(host=HTTP_HOST, port=port)
    server = found.server_class(SERVER_NAME, **options)
    _add_tools(server, tools, found.tool_error)
    texts = {d.doc_id: d.text for d in documents}
    for index in indexes:
        _add_resources(server, index, texts.get(index.doc_id, index.root.text), rung)
    return server


def serve(server: Any, *, http: bool, port: int) -> None:
    """Run ``server`` over stdio, or streamable HTTP on the loopback ``port``."""
    if not http:
        server.run("stdio")
    elif sdk().major == 1:
        server.run("streamable-http")
    else:
        server.run("streamable-http", host=HTTP_HOST, port=port)


def _add_resources(server: Any, index: DocumentIndex, text: str, rung: Rung) -> None:
    surface = readable_json(index_document(index, rung))
    for part, mime, body, what in (("index", "application/json", surface, "navigation index"),
                                   ("text", "text/plain", text, "full text")):
        server.resource(resource_uri(index.doc_id, part), name=f"{index.doc_id} {part}",
                        description=f"{what} of {index.title}", mime_type=mime)(_reader(body))


def _reader(body: str) -> Callable[[], str]:
    def read() -> str:
        return body

    return read


def _add_tools(server: Any, tools: IndexTools, tool_error: type[Exception]) -> None:
    from pydantic import Field

    def run(call: Callable[[], ToolResult]) -> dict[str, Any]:
        try:
            return dict(call().data)
        except ToolError as error:
            # The SDK's own error type: the client gets a tool error, the server goes on.
            raise tool_error(str(error)) from None

    node = Annotated[str, Field(description=_described("read_provision", "node_id"))]

    def list_documents(
            offset: Annotated[int, Field(description=_described("list_documents", "offset"))] = 0,
            limit: Annotated[int, Field(description=_described("list_documents", "limit"))]
            = LIST_ITEMS) -> dict[str, Any]:
        return run(lambda: tools.list_documents(offset, limit))

    def search(query: Annotated[str, Field(description=_described("search", "query"))],
               limit: Annotated[int, Field(description=_described("search", "limit"))]
               = SEARCH_DEFAULT,
               offset: Annotated[int, Field(description=_described("search", "offset"))] = 0,
               ) -> dict[str, Any]:
        return run(lambda: tools.search(query, limit, offset))

    def read_provision(node_id: node) -> dict[str, Any]:
        return run(lambda: tools.read_provision(node_id))

    def follow_references(node_id: node) -> dict[str, Any]:
        return run(lambda: tools.follow_references(node_id))

    def define_term(term: Annotated[str, Field(description=_described("define_term", "term"))],
                    doc_id: Annotated[str | None, Field(
                        description=_described("define_term", "doc_id"))] = None,
                    ) -> dict[str, Any]:
        return run(lambda: tools.define_term(term, doc_id))

    def amendments(node_id: node) -> dict[str, Any]:
        return run(lambda: tools.amendments(node_id))

    def outline(doc_id: Annotated[str, Field(description=_described("outline", "doc_id"))],
                node_id: Annotated[str | None, Field(
                    description=_described("outline", "node_id"))] = None,
                depth: Annotated[int, Field(description=_described("outline", "depth"))]
                = OUTLINE_DEFAULT) -> dict[str, Any]:
        return run(lambda: tools.outline(doc_id, node_id, depth))

    for function in (list_documents, search, read_provision, follow_references, define_term,
                     amendments, outline):
        spec = TOOLS_BY_NAME[function.__name__]
        server.add_tool(function, name=spec.name, description=spec.description)


def _described(tool: str, field: str) -> str:
    """The description the tool's spec gives ``field``."""
    properties: Any = TOOLS_BY_NAME[tool].input_schema["properties"]
    return str(properties[field]["description"])
