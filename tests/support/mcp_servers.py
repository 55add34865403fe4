"""The tests' own MCP server (``paragraph_mcp_server.py``) as ``mcp:NAME`` names it: its
command line over some documents, and the same server on a loopback HTTP port."""

from __future__ import annotations

import contextlib
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

SCRIPT = Path(__file__).with_name("paragraph_mcp_server.py")


def server_command(documents: Mapping[str, Path], *extra: str) -> str:
    """The command line that starts the server over ``documents`` (doc_id to file)."""
    words = [sys.executable, str(SCRIPT)]
    for doc_id, path in documents.items():
        words += ["--doc", f"{doc_id}={path}"]
    return shlex.join([*words, *extra])


def written(folder: Path, texts: Mapping[str, str]) -> dict[str, Path]:
    """``texts`` (doc_id to text) written as files in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for doc_id, text in texts.items():
        paths[doc_id] = folder / f"{doc_id}.txt"
        paths[doc_id].write_text(text, encoding="utf-8")
    return paths


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def http_server(documents: Mapping[str, Path]) -> Iterator[str]:
    """The server on a loopback port for the block; its streamable-HTTP URL."""
    port = free_port()
    process = subprocess.Popen([*shlex.split(server_command(documents)), "--http", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)
