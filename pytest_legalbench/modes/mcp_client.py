"""A synchronous connection to a user's MCP server, over the official MCP Python SDK.

The SDK is asynchronous; a mode is called synchronously, one question at a time. So the
connection runs its own event loop in a daemon thread: ``open`` starts the server (stdio) or
reaches it (streamable HTTP), initialises the session and lists the tools; ``call`` runs one
tool call on that loop and waits at most the timeout for it; ``close`` ends the session (a
stdio server's process with it), as does the interpreter's exit.

The SDK's 2.x line has one ``Client`` for every transport; its 1.x line a ``ClientSession``
over the stdio or streamable-HTTP client's streams. Both are handled; the SDK is imported
only here and only when a connection opens. A stdio server is started with the SDK's default
environment (PATH, HOME and the like), never this process's: no credential of the run (the
Anthropic key among them) reaches it.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib
import importlib.metadata
import os
import sys
import threading
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TextIO

from pytest_legalbench.modes.mcp_servers import McpServer
from pytest_legalbench.modes.retriever_failures import RetrieverProblem, one_line

#: Seconds the server may take to start and answer ``initialize`` and ``tools/list``.
OPEN_TIMEOUT_S = 60.0
#: Tools listed at most (pages of ``tools/list`` followed up to this).
MOST_TOOLS = 128


@dataclass(frozen=True)
class McpTool:
    """One tool the server lists: its name, description and input schema."""

    name: str
    description: str
    input_schema: Mapping[str, object]


@dataclass(frozen=True)
class McpOutcome:
    """One tool call's result: its text (text blocks joined; structured content as JSON when
    there is no text) and whether the server marked it an error."""

    text: str
    is_error: bool


def sdk_major() -> int:
    """The installed MCP SDK's major version (1 or 2)."""
    return int(importlib.metadata.version("mcp").split(".")[0])


class McpConnection:
    """One session with ``server``, usable from any thread, one call at a time or several."""

    def __init__(self, server: McpServer, *, timeout_s: float) -> None:
        self.server = server
        self.timeout_s = timeout_s
        self.tools: tuple[McpTool, ...] = ()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._session: Any = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None

    def open(self) -> McpConnection:
        """Start or reach the server and list its tools; RetrieverProblem saying why not."""
        self._thread = threading.Thread(target=self._run, name=f"mcp {self.server.name}",
                                        daemon=True)
        self._thread.start()
        if not self._ready.wait(OPEN_TIMEOUT_S):
            self.close()
            raise RetrieverProblem(f"MCP server {self.server.name!r} "
                                   f"({self.server.describe()}) did not answer within "
                                   f"{OPEN_TIMEOUT_S:g} s")
        if self._failure is not None:
            self.close()
            raise RetrieverProblem(f"MCP server {self.server.name!r} "
                                   f"({self.server.describe()}) could not be reached over "
                                   f"{self.server.transport}: {_reason(self._failure)}")
        atexit.register(self.close)
        return self

    def call(self, name: str, arguments: Mapping[str, object]) -> McpOutcome:
        """Call tool ``name``; TimeoutError past the timeout, RetrieverProblem when the
        session failed (a tool's own error is an ``McpOutcome`` marked ``is_error``)."""
        if self._loop is None or self._session is None:
            raise RetrieverProblem(f"MCP server {self.server.name!r} is not connected")
        future = asyncio.run_coroutine_threadsafe(self._call(name, dict(arguments)),
                                                  self._loop)
        try:
            return future.result(self.timeout_s)
        except TimeoutError:
            future.cancel()
            raise
        except Exception as error:  # noqa: BLE001 - the SDK and the transport raise many kinds
            raise RetrieverProblem(f"MCP server {self.server.name!r}: tool {name!r} failed: "
                                   f"{_reason(error)}") from None

    def close(self) -> None:
        """End the session and the server's process (idempotent)."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:  # the loop closed in between
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(10)
        atexit.unregister(self.close)

    # --- on the connection's own loop ------------------------------------------------------

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            async with _session(self.server) as session:
                self.tools = await _list_tools(session)
                self._session = session
                self._ready.set()
                await self._stop.wait()
        except BaseException as error:  # noqa: BLE001 - reported to the opening thread
            self._failure = error
        finally:
            self._session = None
            self._ready.set()

    async def _call(self, name: str, arguments: dict[str, object]) -> McpOutcome:
        result = await self._session.call_tool(name, arguments)
        return outcome_of(result)


def outcome_of(result: Any) -> McpOutcome:
    """The text and error mark of an SDK ``CallToolResult`` (either line's field names)."""
    texts = [str(block.text) for block in getattr(result, "content", None) or ()
             if getattr(block, "type", "") == "text" and hasattr(block, "text")]
    structured = (getattr(result, "structured_content", None)
                  or getattr(result, "structuredContent", None))
    if not texts and structured is not None:
        import json

        texts = [json.dumps(structured, ensure_ascii=False)]
    error = getattr(result, "is_error", None)
    if error is None:
        error = getattr(result, "isError", False)
    return McpOutcome("\n\n".join(texts), bool(error))


def tool_of(tool: Any) -> McpTool:
    """An SDK ``Tool`` as this package reads it (either line's field names)."""
    schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {}
    return McpTool(str(tool.name), str(getattr(tool, "description", None) or ""),
                   dict(schema))


async def _list_tools(session: Any) -> tuple[McpTool, ...]:
    found: list[McpTool] = []
    cursor: str | None = None
    while len(found) < MOST_TOOLS:
        listed = await (session.list_tools(cursor=cursor) if cursor else session.list_tools())
        found.extend(tool_of(tool) for tool in listed.tools)
        cursor = getattr(listed, "next_cursor", None) or getattr(listed, "nextCursor", None)
        if not cursor:
            break
    return tuple(found[:MOST_TOOLS])


@asynccontextmanager
async def _session(server: McpServer) -> AsyncIterator[Any]:
    """An initialised client session with ``server``, on either SDK line."""
    if server.url is None:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        parameters = StdioServerParameters(command=server.command[0],
                                           args=list(server.command[1:]))
        if sdk_major() >= 2:
            from mcp import Client

            async with Client(stdio_client(parameters, errlog=_server_log())) as client:
                yield client
        else:
            from mcp import ClientSession

            async with stdio_client(parameters, errlog=_server_log()) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                yield session
    elif sdk_major() >= 2:
        from mcp import Client

        async with Client(server.url) as client:
            yield client
    else:
        from mcp import ClientSession

        # The 1.x line's name of the streamable-HTTP client (2.x has no such function).
        http: Any = importlib.import_module("mcp.client.streamable_http")
        async with http.streamablehttp_client(server.url) as (read, write, _), \
                ClientSession(read, write) as session:
            await session.initialize()
            yield session


def _server_log() -> TextIO:
    """Where a stdio server's stderr goes: this process's stderr when it is a file (not when
    something captures it in memory, as pytest's capsys does), else the original stderr."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    # Kept open as long as the server it serves lives.
    return open(os.devnull, "w")


def _reason(error: BaseException) -> str:
    """An error on one line; an exception group by its first leaf (anyio wraps them)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error)
    return one_line(f"{type(error).__name__}: {text}" if text else type(error).__name__)
