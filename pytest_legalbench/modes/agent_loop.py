"""navagent's conversation: the model calls the index tools turn by turn, then answers.

Each turn is one Messages API call with the tools offered (``tool_choice`` auto). Its tool
calls run against the index tools; their results, errors included, go back in the next
turn, and the ledger keeps them with the call that carried them. The navigation stops when
the model answers by itself (a turn that calls no tool), or when a limit is reached: the
turn limit, or the token limit (the input the next turn would attend, estimated before it is
sent). A stopped navigation gets one more call, with tools switched off (``tool_choice``
none), asking for the answer from what was read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pytest_legalbench.llm.call_types import Completion, SystemBlock, ToolSpec
from pytest_legalbench.llm.conversation import Exchange, ToolUse
from pytest_legalbench.llm.ledger import Ledger, ToolEvent
from pytest_legalbench.modes.agent_reading import OverBudget, Reading
from pytest_legalbench.modes.base import Provision
from pytest_legalbench.modes.index_tools.bounds import (
    ToolError,
    ToolResult,
    compact_json,
    with_fields,
)
from pytest_legalbench.modes.index_tools.provisions import parts
from pytest_legalbench.modes.index_tools.specs import READING_TOOLS
from pytest_legalbench.modes.index_tools.toolbox import IndexTools
from pytest_legalbench.tokens import estimate_tokens

#: Output room of every turn: a turn may be the one that answers.
TURN_MAX_TOKENS = 2048
#: Tool calls one turn may make; further calls are answered with an error.
CALLS_PER_TURN = 16
#: Reasons a tool call is answered with an error, as a retrieval counts them.
DROP_REASONS = ("invalid_tools", "tool_errors", "over_budget", "too_many_calls")


class Conversing(Protocol):
    """What the loop needs of a client: tool-using turns and the ledger they land in."""

    ledger: Ledger

    def converse(self, *, stage: str, model: str, system: Sequence[SystemBlock],
                 messages: Sequence[Mapping[str, object]], tools: Sequence[ToolSpec],
                 max_tokens: int, question_id: str | None = None, tool_choice: str = "auto",
                 answer_stage: str | None = None,
                 tool_results: Sequence[ToolEvent] = ()) -> Exchange:
        """Send one turn and record it."""
        ...


@dataclass(frozen=True)
class Limits:
    """How far one navigation may go."""

    turns: int
    tokens: int
    budget: int
    """The reading budget: the payload's hard maximum."""


@dataclass(frozen=True)
class Navigated:
    """What one navigation read and answered, and how it went."""

    reading: tuple[Provision, ...]
    completion: Completion
    turns: int
    """Navigation turns taken (the turn that answered by itself included)."""
    navigation_tokens: int
    """Input tokens the navigation turns attended (the answering turn's excluded)."""
    stopped: str
    dropped: tuple[tuple[str, int], ...]
    tool_calls: int


def request_tokens(system: Sequence[SystemBlock], tools: Sequence[ToolSpec],
                   messages: Sequence[Mapping[str, object]]) -> int:
    """The estimated input of a request: system, tool definitions and messages."""
    return (sum(estimate_tokens(block.text) for block in system)
            + estimate_tokens(compact_json([tool.to_param() for tool in tools]))
            + estimate_tokens(compact_json(list(messages))))


class ToolConversation:
    """One question's conversation over some tools: limits and the reading so far. What a
    tool call runs against is the subclass's (``_run``): the index tools (``Navigation``),
    a user's MCP server (``modes.mcp_mode``)."""

    def __init__(self, client: Conversing, specs: Sequence[ToolSpec],
                 system: Sequence[SystemBlock], limits: Limits, *, stage: str) -> None:
        self.client = client
        self.specs = tuple(specs)
        self.system = tuple(system)
        self.limits = limits
        self.stage = stage
        self.reading = Reading(limits.budget)
        self.dropped: Counter[str] = Counter()
        self.tool_calls = 0

    def run(self, opening: str, *, model: str, question_id: str | None,
            final: Callable[[str], str]) -> Navigated:
        """Navigate from the ``opening`` user turn until the model answers or a limit stops
        it; ``final`` words the turn that asks for the answer."""
        messages: list[dict[str, object]] = [
            {"role": "user", "content": [{"type": "text", "text": opening}]}]
        carried: tuple[ToolEvent, ...] = ()
        spent = turns = 0
        answered: Exchange | None = None
        stopped = f"the turn limit ({self.limits.turns}) was reached"
        for turn in range(1, self.limits.turns + 1):
            upcoming = request_tokens(self.system, self.specs, messages)
            if spent + upcoming > self.limits.tokens:
                stopped = (f"the next turn ({upcoming:,} tokens) would pass the navigation "
                           f"token limit ({self.limits.tokens:,}; {spent:,} spent)")
                break
            exchange = self.client.converse(
                stage=f"{self.stage}.turn{turn}", answer_stage=f"{self.stage}.answer",
                model=model, system=self.system, messages=messages, tools=self.specs,
                max_tokens=TURN_MAX_TOKENS, question_id=question_id, tool_results=carried)
            turns = turn
            if not exchange.tool_uses:
                answered, stopped = exchange, "the model answered"
                break
            spent += exchange.usage.footprint
            messages.append({"role": "assistant", "content": list(exchange.content)})
            blocks, carried = self._run_tools(exchange.tool_uses)
            messages.append({"role": "user", "content": blocks})
        if answered is None:
            last = messages[-1]["content"]
            assert isinstance(last, list)
            last.append({"type": "text", "text": final(stopped)})
            answered = self.client.converse(
                stage=f"{self.stage}.answer", model=model, system=self.system,
                messages=messages, tools=self.specs, max_tokens=TURN_MAX_TOKENS,
                question_id=question_id, tool_choice="none", tool_results=carried)
        completion = Completion(text=answered.text, model=answered.model,
                                stop_reason=answered.stop_reason, usage=answered.usage,
                                latency_s=answered.latency_s)
        return Navigated(self.reading.provisions, completion, turns, spent, stopped,
                         tuple((reason, self.dropped[reason]) for reason in DROP_REASONS),
                         self.tool_calls)

    def _run_tools(self, uses: Sequence[ToolUse]) -> tuple[list[dict[str, object]],
                                                          tuple[ToolEvent, ...]]:
        """A tool_result block per call, errors as error results, and the ledger's events."""
        blocks: list[dict[str, object]] = []
        events: list[ToolEvent] = []
        for position, use in enumerate(uses):
            self.tool_calls += 1
            if position >= CALLS_PER_TURN:
                self.dropped["too_many_calls"] += 1
                content, data = (f"not run: at most {CALLS_PER_TURN} tool calls per turn; "
                                 f"ask again in the next turn"), None
            else:
                content, data = self._run(use)
            block: dict[str, object] = {"type": "tool_result", "tool_use_id": use.id,
                                        "content": content}
            if data is None:
                block["is_error"] = True
            blocks.append(block)
            # The ledger keeps the ids the result named and an error's text, not the result.
            events.append(ToolEvent.of_result(
                use.name, compact_json(use.input), estimate_tokens(content), data=data,
                message=content if data is None else None))
        return blocks, tuple(events)

    def _run(self, use: ToolUse) -> tuple[str, Mapping[str, object] | None]:
        """One call's result text and its data; None for data when the result is an error."""
        raise NotImplementedError


class Navigation(ToolConversation):
    """navagent's conversation: the index tools, charged by the reading tools."""

    def __init__(self, client: Conversing, tools: IndexTools, specs: Sequence[ToolSpec],
                 system: Sequence[SystemBlock], limits: Limits, *, stage: str) -> None:
        super().__init__(client, specs, system, limits, stage=stage)
        self.tools = tools

    def _run(self, use: ToolUse) -> tuple[str, Mapping[str, object] | None]:
        """One call's result text and its data; None for data when the result is an error."""
        try:
            result = self.tools.call(use.name, use.input)
        except ToolError as problem:
            unknown = use.name not in {spec.name for spec in self.specs}
            self.dropped["invalid_tools" if unknown else "tool_errors"] += 1
            return str(problem), None
        if use.name in READING_TOOLS:
            try:
                self.reading.take(result.read)
            except OverBudget as over:
                self.dropped["over_budget"] += 1
                return self._refusal(result, over), None
        sent = with_fields(result, reading_budget_left=self.reading.left)
        return sent.to_json(), sent.data

    def _refusal(self, result: ToolResult, over: OverBudget) -> str:
        """Why a read was refused, with the parts that might fit."""
        shown = result.read[0] if result.read else None
        node = self.tools.lookup.nodes.get(shown.node_id) if shown is not None else None
        smaller = [p for p in (parts(self.tools.lookup, node) if node is not None else [])
                   if _fits(p.get("tokens"), over.left)]
        names = ", ".join(f"{p['node_id']} ({p['tokens']} tokens)" for p in smaller[:10])
        what = shown.node_id if shown is not None else "this provision"
        return (f"not read: {what} {over}; the reading budget of {self.limits.budget:,} tokens "
                f"is a hard limit" + (f"; parts that fit: {names}" if names else ""))


def _fits(tokens: object, left: int) -> bool:
    return isinstance(tokens, int) and tokens <= left
