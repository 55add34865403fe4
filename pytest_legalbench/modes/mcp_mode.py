"""``mcp:NAME``: navagent's loop over the tools of a user's own MCP server.

The answering model gets the question, the list of documents and the tools the server lists
(names, descriptions and input schemas as the server gives them); it calls them turn by turn
within the same limits as navagent (``agent_loop``: turns, navigation tokens) and answers from
what they showed it. What it read is the mode's retrieval: every result's prose is located
in the documents (``mcp_reading``), and the provisions found (and the pieces not found, as
unlocated passages) are kept under the payload budget as a hard maximum (``agent_reading``):
a result whose text does not fit is withheld from the model and it is told so. Evidence
recall, payload and footprint are then measured as for every other mode.

The server's own error results go back to the model as tool errors, as navagent's do; a tool
call that outlasts ``--legalbench-timeout`` or a session that breaks fails the item with one
line (``RetrieverFailed``). The turns, with the tool results they carry, are recorded in the
item's cassette like navagent's; a replay calls the server again, so it must answer as it did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pytest_legalbench.llm.agent_prompt import agent_final
from pytest_legalbench.llm.call_types import SystemBlock, ToolSpec
from pytest_legalbench.llm.conversation import ToolUse
from pytest_legalbench.llm.prompts import answer_system, answer_user, load_prompt
from pytest_legalbench.llm.schema import SchemaError
from pytest_legalbench.modes.agent_loop import Conversing, Limits, ToolConversation
from pytest_legalbench.modes.agent_reading import OverBudget
from pytest_legalbench.modes.base import (
    Answered,
    Corpus,
    ModeSettings,
    Provision,
    Retrieval,
    payload_tokens,
)
from pytest_legalbench.modes.mcp_client import McpConnection, McpTool
from pytest_legalbench.modes.mcp_reading import Locator, json_prefix
from pytest_legalbench.modes.mcp_servers import McpServer
from pytest_legalbench.modes.retriever_failures import RetrieverFailed, RetrieverProblem
from pytest_legalbench.modes.traits import NAVIGATED
from pytest_legalbench.modes.units import context_line
from pytest_legalbench.navindex.node import Node

if TYPE_CHECKING:
    from pytest_legalbench.llm.client import ModelClient

#: The stage prefix of the mode's calls: ``mcp.turnN`` per turn, ``mcp.answer``.
STAGE = "mcp"
#: Documents the system prompt lists (a larger corpus is listed in part).
LISTED_DOCUMENTS = 60
#: Characters of the JSON a result's data is read from for the ledger's node ids.
_DATA_CHARS = 200_000


@dataclass(frozen=True)
class ServerToolSpec(ToolSpec):
    """A tool of the user's server, offered to the model with the server's own input schema:
    the server checks its arguments, so the schema is passed on unchecked beyond being an
    object's."""

    def __post_init__(self) -> None:
        if self.input_schema.get("type") != "object":
            raise SchemaError(f"tool {self.name!r} input_schema: the type must be 'object'")


def tool_specs(tools: Sequence[McpTool]) -> tuple[ServerToolSpec, ...]:
    """The server's tools as the model is offered them; ValueError for a tool the Messages
    API cannot take (its name, its schema)."""
    specs = []
    for tool in tools:
        if not tool.name or len(tool.name) > 64 or not all(
                c.isascii() and (c.isalnum() or c in "_-") for c in tool.name):
            raise ValueError(f"tool {tool.name!r}: the Messages API takes tool names of 1 to "
                             f"64 letters, digits, _ and -")
        schema = dict(tool.input_schema) or {"type": "object", "properties": {}}
        try:
            specs.append(ServerToolSpec(tool.name, tool.description, schema))
        except SchemaError as error:
            raise ValueError(str(error)) from None
    return tuple(specs)


def mcp_system(server: str, corpus: Corpus, *, budget: int, turns: int,
               ) -> tuple[SystemBlock, SystemBlock]:
    """The system prompt: the answering rules, then the instructions and the document list,
    marked for caching (the same for every question of a corpus)."""
    lines = [" | ".join((d.doc_id, d.title, d.role or "", d.date or ""))
             for d in corpus.documents[:LISTED_DOCUMENTS]]
    if len(corpus.documents) > LISTED_DOCUMENTS:
        lines.append(f"... and {len(corpus.documents) - LISTED_DOCUMENTS} more documents")
    text = load_prompt("mcp_system").render(server=server, budget=f"{budget:,}",
                                            turns=str(turns), documents="\n".join(lines))
    return SystemBlock(answer_system()), SystemBlock(text.strip(), cache=True)


class ServerReading(ToolConversation):
    """One question's conversation over the server's tools: every result's prose is read."""

    def __init__(self, mode: McpMode, question_id: str | None) -> None:
        super().__init__(mode.client, mode.specs, mode.system, mode.limits, stage=STAGE)
        self.mode = mode
        self.question_id = question_id
        self.names = {spec.name for spec in mode.specs}
        # Per question: which occurrence of a repeated text was read is this question's.
        self.locator = Locator(mode.documents)

    def _run(self, use: ToolUse) -> tuple[str, Mapping[str, object] | None]:
        if use.name not in self.names:
            self.dropped["invalid_tools"] += 1
            return (f"unknown tool {use.name!r}: the tools are "
                    f"{', '.join(sorted(self.names))}"), None
        if not isinstance(use.input, Mapping):
            self.dropped["tool_errors"] += 1
            return f"{use.name}: the input must be an object, got {use.input!r}", None
        try:
            outcome = self.mode.connection.call(use.name, use.input)
        except TimeoutError:
            raise RetrieverFailed(self.mode.name, self.question_id,
                                  f"tool {use.name!r} took longer than the timeout of "
                                  f"{self.mode.connection.timeout_s:g} s "
                                  f"(--legalbench-timeout)") from None
        except RetrieverProblem as problem:
            raise RetrieverFailed(self.mode.name, self.question_id, str(problem)) from None
        if outcome.is_error:
            self.dropped["tool_errors"] += 1
            return outcome.text or f"tool {use.name!r} failed (the server gave no message)", None
        shown = self.locator.provisions(outcome.text, self.mode.holder)
        try:
            self.reading.take(shown)
        except OverBudget as over:
            self.dropped["over_budget"] += 1
            return (f"withheld: this result shows {payload_tokens(shown):,} tokens of document "
                    f"text and {over}; the reading budget of {self.limits.budget:,} tokens is "
                    f"a hard limit: ask for less (a narrower query, one passage)"), None
        note = f"(reading budget left: {self.reading.left:,} tokens)"
        return f"{outcome.text}\n\n{note}", _data(outcome.text)


class McpMode:
    """A user's MCP server, bound to one corpus, navigated by the answering model (an
    ``AnsweringMode``)."""

    traits = NAVIGATED

    def __init__(self, name: str, server: McpServer, connection: McpConnection,
                 corpus: Corpus, settings: ModeSettings, client: Conversing) -> None:
        self.name = name
        self.server = server
        self.connection = connection
        self.settings = settings
        self.client = client
        try:
            self.specs = tool_specs(connection.tools)
        except ValueError as error:
            raise RetrieverFailed(name, None, f"MCP server {server.name!r} lists {error}"
                                  ) from None
        self.system = mcp_system(server.name, corpus, budget=settings.payload_budget_tokens,
                                 turns=settings.agent_turns)
        self.limits = Limits(turns=settings.agent_turns, tokens=settings.agent_tokens,
                             budget=settings.payload_budget_tokens)
        self.documents = corpus.documents
        self._indexes = {index.doc_id: index for index in corpus.indexes}
        self._titles = {d.doc_id: d.title for d in corpus.documents}
        self._by_id = {n.node_id: n for index in corpus.indexes for n in index.nodes}

    def retrieve(self, question: str, *, question_id: str | None = None) -> Retrieval:
        """Navigate and answer with the scanning model; the provisions read."""
        return self.answer(question, model=self.settings.scan_model,
                           question_id=question_id).retrieval

    def answer(self, question: str, *, model: str,
               question_id: str | None = None) -> Answered:
        """Navigate the server's tools for ``question`` with ``model`` and answer."""
        seen = len(self.client.ledger)
        conversation = ServerReading(self, question_id)
        done = conversation.run(answer_user(question), model=model, question_id=question_id,
                                final=agent_final)
        payload = payload_tokens(done.reading)
        errors = sum(count for _, count in done.dropped)
        unlocated = sum(p.unlocated for p in done.reading)
        notes = [(f"navigated MCP server {self.server.name!r} ({self.server.transport}, "
                  f"{len(self.specs)} tools) for {done.turns} turns with {done.tool_calls} "
                  f"tool calls ({errors} answered with an error); read {len(done.reading)} "
                  f"passages, {payload} of {self.limits.budget} budget tokens; stopped: "
                  f"{done.stopped}")]
        if unlocated:
            notes.append(f"{unlocated} of {len(done.reading)} passages could not be located "
                         f"in the documents (shown to the model, outside evidence recall)")
        calls = tuple(call for call in self.client.ledger.calls[seen:]
                      if call.stage.startswith(f"{STAGE}.") and call.question_id == question_id)
        retrieval = Retrieval(mode=self.name, provisions=done.reading, payload_tokens=payload,
                              scan_tokens=done.navigation_tokens, calls=calls,
                              dropped=done.dropped, notes=tuple(notes))
        return Answered(retrieval, done.completion)

    def holder(self, doc_id: str, start: int, end: int) -> tuple[str, str]:
        """The clause and heading path of the smallest provision holding a span ("" and
        "" without an index or such a provision)."""
        index = self._indexes.get(doc_id)
        if index is None:
            return "", ""
        holders = [n for n in index.nodes if n.start <= start and end <= n.end
                   and n.kind != "document"]
        node: Node | None = min(holders, key=lambda n: (n.end - n.start, n.node_id),
                                default=None)
        if node is None:
            return "", ""
        return (Provision.from_node(node).clause,
                context_line(node, self._titles[doc_id], self._by_id))


def build(name: str, server: McpServer, corpus: Corpus, settings: ModeSettings,
          client: ModelClient | None, *, timeout_s: float) -> McpMode:
    """The mode ``name`` over ``server``: the server started (or reached) and its tools
    listed now; RetrieverFailed saying why when it cannot be."""
    if client is None:
        raise ValueError(f"mode {name!r} calls a model: pass a ModelClient")
    try:
        connection = McpConnection(server, timeout_s=timeout_s).open()
    except RetrieverProblem as problem:
        raise RetrieverFailed(name, None, str(problem)) from None
    if not connection.tools:
        connection.close()
        raise RetrieverFailed(name, None, f"MCP server {server.name!r} lists no tools")
    try:
        return McpMode(name, server, connection, corpus, settings, client)
    except RetrieverFailed:
        connection.close()
        raise


def _data(text: str) -> Mapping[str, object]:
    """What a result's JSON says, for the ledger to keep the ids it names ({} for prose)."""
    value, _ = json_prefix(text[:_DATA_CHARS])
    if isinstance(value, list):
        return {"items": value}
    return value if isinstance(value, dict) else {}

