"""The MCP SDK's clients as these tests use them, on its 2.x line (``Client``) and its 1.x line
(``ClientSession`` over the SDK's in-memory streams or its stdio client)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from importlib.metadata import version
from typing import Any


def sdk_major() -> int:
    """The installed SDK's major version."""
    return int(version("mcp").split(".")[0])


@asynccontextmanager
async def in_memory(server: Any) -> AsyncIterator[Any]:
    """A client session connected to ``server`` in this process."""
    if sdk_major() >= 2:
        from mcp import Client

        async with Client(server) as client:
            yield client
    else:
        from mcp.shared.memory import create_connected_server_and_client_session

        async with create_connected_server_and_client_session(server) as session:
            yield session


@asynccontextmanager
async def over_stdio(command: str, args: Sequence[str],
                     env: Mapping[str, str]) -> AsyncIterator[Any]:
    """A client session with ``command`` started as a subprocess, over its stdin and stdout."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    parameters = StdioServerParameters(command=command, args=list(args), env=dict(env))
    if sdk_major() >= 2:
        from mcp import Client

        # The stdio client as a transport: every 2.x Client takes one (later ones also take
        # the parameters themselves).
        async with Client(stdio_client(parameters)) as client:
            yield client
    else:
        from mcp import ClientSession

        async with stdio_client(parameters) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def over_http(url: str) -> AsyncIterator[Any]:
    """A client session with the streamable-HTTP server at ``url``."""
    if sdk_major() >= 2:
        from mcp import Client

        async with Client(url) as client:
            yield client
    else:
        from mcp import ClientSession
        from mcp.client.streamable_http import streamablehttp_client

        async with streamablehttp_client(url) as (read, write, _), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session


def is_error(result: Any) -> bool:
    """Whether a tool call came back as a tool error."""
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


def text(result: Any) -> str:
    """The text of a tool call's first content block."""
    return str(result.content[0].text)


def payload(result: Any) -> dict[str, Any]:
    """A successful tool call's result object."""
    found: dict[str, Any] = json.loads(text(result))
    return found


def input_schema(tool: Any) -> dict[str, Any]:
    """A listed tool's input schema."""
    found: dict[str, Any] = getattr(tool, "input_schema", None) or tool.inputSchema
    return found


def mime_type(resource: Any) -> str:
    """A listed resource's MIME type."""
    return str(getattr(resource, "mime_type", None) or resource.mimeType)
