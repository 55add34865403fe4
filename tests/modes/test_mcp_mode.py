"""``mcp:NAME``: the servers it names, how a tool result's prose becomes provisions, and the
mode end to end over the tests' own MCP server (stdio and streamable HTTP) with the reference
backend playing the model."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.modes.agent_reading import Reading
from pytest_legalbench.modes.base import AnsweringMode, ModeSettings, Provision
from pytest_legalbench.modes.mcp_client import McpConnection
from pytest_legalbench.modes.mcp_mode import ServerToolSpec, build, tool_specs
from pytest_legalbench.modes.mcp_reading import Locator, pieces
from pytest_legalbench.modes.mcp_servers import (
    McpServer,
    parse_server,
    parse_servers,
    server_named,
)
from pytest_legalbench.modes.registry import default_registry
from pytest_legalbench.modes.retriever_failures import RetrieverFailed
from tests.support.mcp_servers import http_server, server_command, written
from tests.support.modes_samples import (
    LEASE,
    LEASE_AMENDMENT,
    LEASE_AMENDMENT_TEXT,
    LEASE_TEXT,
    lease_corpus,
    lease_documents,
    reference_client,
)

RENT = "How much is the Monthly Rent for the Equipment?"


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return written(tmp_path_factory.mktemp("mcp-docs"),
                   {LEASE: LEASE_TEXT, LEASE_AMENDMENT: LEASE_AMENDMENT_TEXT})


def _server(documents: dict[str, Path], *extra: str) -> McpServer:
    return parse_server(f"lease={server_command(documents, *extra)}", "test")


# --- the servers ---------------------------------------------------------------------------


def test_a_server_is_a_command_split_like_shell_words_or_a_url() -> None:
    stdio = parse_server("docs = python 'my server.py' --root /data", "--legalbench-mcp-server")
    assert stdio == McpServer("docs", command=("python", "my server.py", "--root", "/data"))
    assert stdio.transport == "stdio"
    http = parse_server("remote=HTTPS://search.example/mcp", "ini")
    assert http.url == "HTTPS://search.example/mcp" and http.transport == "streamable-http"
    assert parse_servers([("a", "x=cmd"), ("b", "  "), ("c", "y=http://h/mcp")]).keys() \
        == {"x", "y"}


@pytest.mark.parametrize(("text", "problem"), [
    ("no-equals", "is not NAME=COMMAND or NAME=URL"),
    ("=cmd", "is not NAME=COMMAND or NAME=URL"),
    ("bad name=cmd", "must be letters, digits"),
    ("x=python 'unclosed", "cannot be split into words"),
    ("x=http://host/a b", "has a space in it"),
])
def test_a_bad_server_is_an_error_naming_where_it_was_written(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as raised:
        parse_server(text, "ini key legalbench_mcp_servers")
    assert str(raised.value).startswith("ini key legalbench_mcp_servers: ")


def test_a_server_named_twice_and_an_unknown_name_are_errors() -> None:
    with pytest.raises(ValueError, match="'x' is named twice"):
        parse_servers([("--legalbench-mcp-server", "x=a"), ("--legalbench-mcp-server", "x=b")])
    servers = parse_servers([("flag", "docs=python s.py")])
    with pytest.raises(ValueError, match=r"no MCP server is named 'other' \(configured: docs\)"):
        server_named("mcp:other", servers)
    with pytest.raises(ValueError, match="mcp: needs a server name"):
        server_named("mcp:", servers)
    assert server_named("mcp:docs", servers).command == ("python", "s.py")


def test_the_registry_resolves_mcp_names_to_configured_servers_only() -> None:
    registry = default_registry(mcp_servers=parse_servers([("flag", "docs=python s.py")]))
    assert registry.resolve("mcp:docs") == "mcp:docs"
    assert registry.traits("mcp:docs").shown == "answer"
    assert registry.traits("mcp:docs").crossover == "conversation"
    with pytest.raises(ValueError, match="mcp:nope: no MCP server is named 'nope'"):
        registry.resolve("mcp:nope")
    with pytest.raises(ValueError, match="--legalbench-mcp-server missing="):
        default_registry().resolve("mcp:missing")


# --- what a result shows --------------------------------------------------------------------


def test_the_prose_of_a_result_is_its_long_strings_and_paragraphs() -> None:
    result = json.dumps({"hits": [{"id": "a#1", "preview": "2.1 Amount. The Lessee"},
                                  {"id": "a#2", "text": "The Lessee shall insure the Equipment "
                                                        "against loss by fire and flood."}]})
    assert pieces(result + "\n\nA note the server wrote below its JSON, long enough to read.") \
        == ["The Lessee shall insure the Equipment against loss by fire and flood.",
            "A note the server wrote below its JSON, long enough to read."]
    assert pieces("Short line.\n\nThis paragraph has well over eight words in it, so it is "
                  "read.") == ["This paragraph has well over eight words in it, so it is read."]


def test_pieces_are_located_tolerantly_and_the_rest_kept_unlocated() -> None:
    locator = Locator(lease_documents())
    reflowed = ("From lease:\n2.2 Late Payment.   Overdue Monthly Rent bears interest at "
                "1.5% per month\nuntil paid.")
    found = locator.provisions(json.dumps({"doc_id": LEASE, "text": reflowed}))
    assert len(found) == 1 and not found[0].unlocated
    start = LEASE_TEXT.index("2.2 Late Payment.")
    assert (found[0].doc_id, found[0].start) == (LEASE, start)
    assert found[0].text == LEASE_TEXT[start:found[0].end]
    # A header line above a quotation: the quotation is found line by line.
    quoted = locator.provisions("Result 1 of 1, from the lease agreement file itself\n"
                                "The Lessee shall insure the Equipment against loss by fire "
                                "and flood for its replacement value.")
    assert [p.unlocated for p in quoted] == [True, False]
    assert quoted[1].doc_id == LEASE
    invented = locator.provisions(f"{LEASE_AMENDMENT}: the rent is payable in gold coins "
                                  f"on the first day of each quarter.")
    assert invented[0].unlocated and invented[0].doc_id == LEASE_AMENDMENT
    assert invented[0].start == invented[0].end == 0


_SENTENCES = [line for text in (LEASE_TEXT, LEASE_AMENDMENT_TEXT)
              for line in text.splitlines() if len(line.split()) >= 8]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_SENTENCES), st.lists(st.sampled_from([" ", "\n", "  ", "\t"]),
                                             min_size=1, max_size=40), st.booleans())
def test_any_sentence_reflowed_or_curled_is_located_to_its_own_text(
        sentence: str, spaces: list[str], curled: bool) -> None:
    words = sentence.split()
    copied = "".join(word + spaces[n % len(spaces)] for n, word in enumerate(words))
    if curled:
        copied = copied.replace('"', "\u201c")
    (found,) = Locator(lease_documents()).provisions(copied)
    assert not found.unlocated
    source = LEASE_TEXT if found.doc_id == LEASE else LEASE_AMENDMENT_TEXT
    assert found.text == source[found.start:found.end]
    assert found.text.split() == words


def test_unlocated_reading_counts_once_and_never_holds_located_text() -> None:
    reading = Reading(1000)
    located = Provision(LEASE, f"{LEASE}@0-40", "", 0, 40, LEASE_TEXT[:40])
    loose = Provision(LEASE, f"{LEASE}@unlocated-1", "", 0, 0, "text found nowhere at all",
                      unlocated=True)
    reading.take([loose])
    reading.take([located, dataclasses.replace(loose, node_id="again")])
    assert reading.provisions == (loose, located)


def test_a_server_tool_keeps_its_own_schema_but_must_take_an_object() -> None:
    schema = {"type": "object", "properties": {"q": {"anyOf": [{"type": "string"}],
                                                     "title": "Q"}}}
    assert ServerToolSpec("search", "", schema).to_param()["input_schema"] == schema
    with pytest.raises(ValueError, match="the type must be 'object'"):
        tool_specs([McpToolLike("x", {"type": "string"})])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="tool names of 1 to 64"):
        tool_specs([McpToolLike("has.dot", {"type": "object"})])  # type: ignore[list-item]


@dataclasses.dataclass(frozen=True)
class McpToolLike:
    name: str
    input_schema: dict[str, object]
    description: str = ""


# --- end to end over the tests' own server ----------------------------------------------------


def test_the_model_navigates_a_stdio_server_and_what_it_read_is_the_retrieval(
        documents: dict[str, Path]) -> None:
    corpus = lease_corpus()
    with reference_client() as client:
        mode = build("mcp:lease", _server(documents), corpus, ModeSettings(), client,
                     timeout_s=30)
        try:
            assert isinstance(mode, AnsweringMode)
            answered = mode.answer(RENT, model="claude-sonnet-4-5", question_id="rent")
        finally:
            mode.connection.close()
    retrieval = answered.retrieval
    assert retrieval.mode == "mcp:lease"
    rent = LEASE_TEXT.index("2.1 Amount.")
    assert any(p.doc_id == LEASE and p.start == rent and not p.unlocated
               for p in retrieval.provisions)
    assert all(p.text == (LEASE_TEXT if p.doc_id == LEASE else LEASE_AMENDMENT_TEXT)
               [p.start:p.end] for p in retrieval.provisions)
    assert "$42,500" in answered.completion.text
    stages = [call.stage for call in retrieval.calls]
    assert stages[0] == "mcp.turn1" and stages[-1] == "mcp.answer"
    events = [event for call in retrieval.calls for event in call.tool_results]
    assert events[0].name == "find_passages"
    assert {e.name for e in events[1:]} == {"read_passage"}
    assert 0 < retrieval.payload_tokens <= 6000 and retrieval.scan_tokens > 0
    assert "navigated MCP server 'lease' (stdio, 2 tools)" in retrieval.notes[0]


def test_a_result_over_the_budget_is_withheld_and_the_payload_stays_under_it(
        documents: dict[str, Path]) -> None:
    settings = ModeSettings(payload_budget_tokens=30)
    with reference_client() as client:
        mode = build("mcp:lease", _server(documents), lease_corpus(), settings, client,
                     timeout_s=30)
        try:
            retrieval = mode.answer(RENT, model="claude-sonnet-4-5").retrieval
        finally:
            mode.connection.close()
    assert dict(retrieval.dropped)["over_budget"] > 0
    assert 0 < retrieval.payload_tokens <= 30


def test_a_tool_past_the_timeout_fails_the_item_in_one_line(
        documents: dict[str, Path]) -> None:
    with reference_client() as client:
        mode = build("mcp:lease", _server(documents, "--stall", "5"), lease_corpus(),
                     ModeSettings(), client, timeout_s=0.5)
        try:
            with pytest.raises(RetrieverFailed) as failed:
                mode.answer(RENT, model="claude-sonnet-4-5", question_id="rent")
        finally:
            mode.connection.close()
    assert str(failed.value) == ("mode 'mcp:lease', question 'rent': tool 'read_passage' took "
                                 "longer than the timeout of 0.5 s (--legalbench-timeout)")


def test_a_server_that_cannot_start_fails_the_mode_naming_it(tmp_path: Path) -> None:
    server = parse_server(f"gone={tmp_path / 'no-such-program'}", "test")
    with reference_client() as client, pytest.raises(RetrieverFailed) as failed:
        build("mcp:gone", server, lease_corpus(), ModeSettings(), client, timeout_s=5)
    assert "MCP server 'gone'" in str(failed.value)
    assert "could not be reached over stdio" in str(failed.value)


def test_a_streamable_http_server_is_navigated_alike(documents: dict[str, Path]) -> None:
    with http_server(documents) as url, reference_client() as client:
        server = parse_server(f"remote={url}", "test")
        connection = McpConnection(server, timeout_s=30).open()
        try:
            assert {tool.name for tool in connection.tools} == {"find_passages",
                                                                "read_passage"}
        finally:
            connection.close()
        mode = build("mcp:remote", server, lease_corpus(), ModeSettings(), client,
                     timeout_s=30)
        try:
            answered = mode.answer(RENT, model="claude-sonnet-4-5")
        finally:
            mode.connection.close()
    assert "$42,500" in answered.completion.text
    assert "(streamable-http, 2 tools)" in answered.retrieval.notes[0]
