"""``legalbench mcp``: the index tools and documents over MCP, through the SDK's own clients
(in memory, and the real stdio server as a subprocess). MCP traffic is never recorded."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import anyio
import pytest

from pytest_legalbench.commands.mcp_server import build_server, resource_uri, sdk
from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.index_tools.specs import TOOL_NAMES, TOOLS_BY_NAME
from pytest_legalbench.modes.index_tools.toolbox import IndexTools
from pytest_legalbench.modes.navagent import searcher_of
from pytest_legalbench.modes.navembed import ClosureMode
from tests.support.mcp_clients import (
    in_memory,
    input_schema,
    is_error,
    mime_type,
    over_http,
    over_stdio,
    payload,
    text,
)
from tests.support.modes_samples import (
    LEASE,
    LEASE_AMENDMENT_TEXT,
    LEASE_TEXT,
    WordEmbedder,
    two_deal_corpus,
)

LEGALBENCH = Path(sys.executable).with_name("legalbench")
#: One call per tool, on the two small transactions.
CALLS: dict[str, dict[str, Any]] = {
    "list_documents": {}, "search": {"query": "monthly rent", "limit": 3},
    "read_provision": {"node_id": f"{LEASE}:2.1"},
    "follow_references": {"node_id": f"{LEASE}:2.1"},
    "define_term": {"term": "Monthly Rent"}, "amendments": {"node_id": f"{LEASE}:2.1"},
    "outline": {"doc_id": LEASE, "depth": 1}}


@pytest.fixture(scope="module")
def tools() -> IndexTools:
    corpus = two_deal_corpus()
    return IndexTools(corpus, searcher_of(ClosureMode(corpus, ModeSettings(), WordEmbedder())))


@pytest.fixture(scope="module")
def server(tools: IndexTools) -> Any:
    corpus = two_deal_corpus()
    return build_server(tools, corpus.documents, corpus.indexes)


def _deal_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "deal"
    folder.mkdir()
    (folder / "lease.txt").write_text(LEASE_TEXT, encoding="utf-8")
    (folder / "lease-amendment.txt").write_text(LEASE_AMENDMENT_TEXT, encoding="utf-8")
    return folder


def _run(session: Callable[[Any], Coroutine[Any, Any, None]], server: Any) -> None:
    async def main() -> None:
        async with in_memory(server) as client:
            await session(client)

    anyio.run(main)


def test_the_tools_are_listed_with_their_schemas(server: Any) -> None:
    async def check(client: Any) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert sorted(listed) == sorted(TOOL_NAMES)
        for name, tool in listed.items():
            spec = TOOLS_BY_NAME[name]
            schema = input_schema(tool)
            assert tool.description == spec.description
            assert set(schema["properties"]) == set(spec.input_schema["properties"]), name
            assert sorted(schema.get("required", [])) == sorted(spec.input_schema["required"])
            for field, described in spec.input_schema["properties"].items():
                assert schema["properties"][field]["description"] == described["description"]

    _run(check, server)


def test_every_tool_answers_as_the_tool_layer_does(server: Any, tools: IndexTools) -> None:
    async def check(client: Any) -> None:
        for name, arguments in CALLS.items():
            result = await client.call_tool(name, arguments)
            assert not is_error(result), (name, text(result))
            assert payload(result) == dict(tools.call(name, arguments).data), name

    _run(check, server)


def test_unknown_ids_and_tools_are_tool_errors_and_the_server_goes_on(server: Any) -> None:
    async def check(client: Any) -> None:
        unknown_node = await client.call_tool("read_provision", {"node_id": f"{LEASE}:99"})
        assert is_error(unknown_node) and f"unknown node id '{LEASE}:99'" in text(unknown_node)
        unknown_document = await client.call_tool("outline", {"doc_id": "no-such-lease"})
        assert is_error(unknown_document) and "unknown document" in text(unknown_document)
        term = await client.call_tool("define_term", {"term": "Rent Holiday"})
        assert is_error(term) and "no document defines 'Rent Holiday'" in text(term)
        assert is_error(await client.call_tool("teleport", {}))
        assert is_error(await client.call_tool("outline", {"doc_id": 5}))
        after = await client.call_tool("read_provision", {"node_id": f"{LEASE}:2.1"})
        assert not is_error(after) and payload(after)["clause"] == "2.1"

    _run(check, server)


def test_each_document_s_index_and_text_are_resources(server: Any) -> None:
    corpus = two_deal_corpus()

    async def check(client: Any) -> None:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
        assert len(listed) == 2 * len(corpus.indexes)
        for document in corpus.documents:
            index_uri, text_uri = (resource_uri(document.doc_id, p) for p in ("index", "text"))
            assert mime_type(listed[index_uri]) == "application/json"
            assert mime_type(listed[text_uri]) == "text/plain"
            full = (await client.read_resource(text_uri)).contents[0].text
            assert full == document.text
            index = json.loads((await client.read_resource(index_uri)).contents[0].text)
            assert index["documentTitle"] == document.title

    _run(check, server)


def test_the_installed_sdk_is_one_the_server_supports() -> None:
    found = sdk()
    assert found.major in (1, 2)
    assert found.server_class.__name__ == ("MCPServer" if found.major == 2 else "FastMCP")


def test_the_stdio_server_runs_as_a_subprocess(tmp_path: Path) -> None:
    folder = _deal_folder(tmp_path)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    args = ["mcp", "--docs", str(folder), "--cache-dir", str(tmp_path / "cache"), "-q"]

    async def main() -> None:
        with anyio.fail_after(240):
            await session()

    async def session() -> None:
        async with over_stdio(str(LEGALBENCH), args, env) as client:
            names = sorted(tool.name for tool in (await client.list_tools()).tools)
            assert names == sorted(TOOL_NAMES)
            listed = payload(await client.call_tool("list_documents", {}))
            assert sorted(d["doc_id"] for d in listed["documents"]) == ["lease", "lease-amendment"]
            read = payload(await client.call_tool("read_provision", {"node_id": "lease:2.1"}))
            assert read["text"].startswith("2.1 Amount.") and read["amended_by"]
            missing = await client.call_tool("read_provision", {"node_id": "lease:2.9"})
            assert is_error(missing) and "unknown node id" in text(missing)
            # The first search builds the retriever (the packaged embedding model) in the
            # server; it answers like any other tool.
            hits = payload(await client.call_tool("search", {"query": "monthly rent"}))["hits"]
            assert {"lease:2", "lease:2.1"} & {hit["node_id"] for hit in hits}

    anyio.run(main)


def test_the_http_server_listens_on_loopback(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [str(LEGALBENCH), "mcp", "--docs", str(_deal_folder(tmp_path)), "--cache-dir",
         str(tmp_path / "cache"), "--http", "--port", str(port), "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, server.communicate()[1]
            assert time.monotonic() < deadline, "the HTTP server never listened"
            time.sleep(0.2)

        async def main() -> None:
            async with over_http(f"http://127.0.0.1:{port}/mcp") as client:
                read = await client.call_tool("read_provision", {"node_id": "lease:2.1"})
                assert payload(read)["clause"] == "2.1"

        anyio.run(main)
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_the_command_offers_stdio_and_loopback_http() -> None:
    shown = subprocess.run([str(LEGALBENCH), "mcp", "--help"], capture_output=True, text=True,
                           check=True).stdout
    for option in ("--http", "--port", "--docs", "--profile", "--corpus-dir",
                   "--embedding-model"):
        assert option in shown
    assert shutil.which(str(LEGALBENCH))
