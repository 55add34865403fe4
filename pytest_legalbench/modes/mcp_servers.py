"""The MCP servers a run may name as ``mcp:NAME``: each a name and either a command line that
starts the server over stdio or the URL of a streamable-HTTP server.

Written ``NAME=COMMAND ARGS...`` or ``NAME=http(s)://HOST:PORT/PATH``, on the command line
(``--legalbench-mcp-server``, repeatable) or one per line of the ini key
``legalbench_mcp_servers``. The command line is split as a POSIX shell splits words (quotes
group, nothing is expanded) and run without a shell.

Pure: no SDK import.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

#: The scheme prefix of a mode over an MCP server.
MCP_PREFIX = "mcp:"
#: What a server's name may look like (it becomes part of the mode's name).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class McpServer:
    """One named MCP server: started over stdio by ``command``, or reached at ``url``."""

    name: str
    command: tuple[str, ...] = ()
    """The program and its arguments (stdio); empty for an HTTP server."""
    url: str | None = None
    """The streamable-HTTP endpoint; None for a stdio server."""

    def __post_init__(self) -> None:
        if (self.url is None) == (not self.command):
            raise ValueError(f"MCP server {self.name!r} needs a command or a URL, not both")

    @property
    def transport(self) -> str:
        """``stdio`` or ``streamable-http``."""
        return "stdio" if self.url is None else "streamable-http"

    def describe(self) -> str:
        """The server as notes and errors name it."""
        return self.url if self.url is not None else shlex.join(self.command)


def parse_server(text: str, where: str) -> McpServer:
    """One ``NAME=COMMAND...`` or ``NAME=URL``; ValueError naming ``where`` it was written."""
    name, equals, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    if not equals or not name or not spec:
        raise ValueError(f"{where}: {text.strip()!r} is not NAME=COMMAND or NAME=URL "
                         f"(e.g. docs=python my_server.py or docs=http://127.0.0.1:8000/mcp)")
    if not _NAME.fullmatch(name):
        raise ValueError(f"{where}: MCP server name {name!r} must be letters, digits and _ . - "
                         f"(starting with a letter or digit)")
    if re.match(r"https?://", spec, re.IGNORECASE):
        if re.search(r"\s", spec):
            raise ValueError(f"{where}: the URL of MCP server {name!r} has a space in it: "
                             f"{spec!r}")
        return McpServer(name, url=spec)
    try:
        words = tuple(shlex.split(spec))
    except ValueError as error:
        raise ValueError(f"{where}: the command of MCP server {name!r} cannot be split into "
                         f"words ({error}): {spec!r}") from None
    return McpServer(name, command=words)


def parse_servers(lines: Iterable[tuple[str, str]]) -> dict[str, McpServer]:
    """The servers of ``(where, text)`` pairs, blank lines skipped; ValueError for a bad line
    or a name given twice."""
    servers: dict[str, McpServer] = {}
    for where, text in lines:
        if not text.strip():
            continue
        server = parse_server(text, where)
        if server.name in servers:
            raise ValueError(f"{where}: MCP server {server.name!r} is named twice")
        servers[server.name] = server
    return servers


def server_named(spec: str, servers: Mapping[str, McpServer]) -> McpServer:
    """The server ``mcp:NAME`` names; ValueError saying how to name one when it is not
    configured."""
    name = spec.strip()[len(MCP_PREFIX):].strip()
    if not name:
        raise ValueError("mcp: needs a server name: mcp:NAME, with NAME given by "
                         "--legalbench-mcp-server NAME=COMMAND (or NAME=URL)")
    found = servers.get(name)
    if found is None:
        known = f" (configured: {', '.join(servers)})" if servers else ""
        raise ValueError(f"no MCP server is named {name!r}{known}: name it with "
                         f"--legalbench-mcp-server {name}=COMMAND or {name}=URL, or a line "
                         f"'{name} = COMMAND' of the ini key legalbench_mcp_servers")
    return found
