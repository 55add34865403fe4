"""What the backend says to a validated request: a text answer or a forced tool call."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pytest_legalbench.gandr.wire import (
    CLAIM_AUDIT_TOOL,
    CORRECTNESS_TOOL,
    CRITIC_TOOL,
    EQUIVALENCE_TOOL,
    RUBRIC_TOOL,
)
from pytest_legalbench.reference_backend.agent import agent_answer, is_agent_request, next_calls
from pytest_legalbench.reference_backend.answering import extractive_answer
from pytest_legalbench.reference_backend.claim_audit import claim_audit_input
from pytest_legalbench.reference_backend.critic_decision import critic_input
from pytest_legalbench.reference_backend.equivalence import equivalence_input
from pytest_legalbench.reference_backend.grading import correctness_input
from pytest_legalbench.reference_backend.identity import BACKEND_NOTE, with_note
from pytest_legalbench.reference_backend.judging import (
    FORCED_VERDICT_TOOL,
    VERDICT_TOOL,
    forced_verdict_input,
    verdict_input,
)
from pytest_legalbench.reference_backend.navigator import (
    SELECT_DOCUMENTS,
    SELECT_NODES,
    select_documents_input,
    select_nodes_input,
)
from pytest_legalbench.reference_backend.titles import SELECT_TITLES, select_titles_input
from pytest_legalbench.reference_backend.tool_agent import is_tool_request, tool_answer
from pytest_legalbench.reference_backend.tool_agent import next_calls as tool_next_calls
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid
from pytest_legalbench.reference_backend.writing_roles import gandr_text
from pytest_legalbench.reference_backend.writing_rubric import rubric_input
from pytest_legalbench.tokens import CHARS_PER_TOKEN, estimate_tokens

ToolHandler = Callable[[MessagesRequest], dict[str, object]]

#: Forced tools the backend can serve, by name.
TOOL_HANDLERS: Mapping[str, ToolHandler] = {
    VERDICT_TOOL: verdict_input,
    FORCED_VERDICT_TOOL: forced_verdict_input,
    SELECT_NODES: select_nodes_input,
    SELECT_DOCUMENTS: select_documents_input,
    SELECT_TITLES: select_titles_input,
    CLAIM_AUDIT_TOOL: claim_audit_input,
    RUBRIC_TOOL: rubric_input,
    CRITIC_TOOL: critic_input,
    CORRECTNESS_TOOL: correctness_input,
    EQUIVALENCE_TOOL: equivalence_input,
}


@dataclass(frozen=True)
class Reply:
    """The content blocks of a response, why it stopped, and its output token count."""

    content: tuple[dict[str, object], ...]
    stop_reason: str
    output_tokens: int


def request_digest(path: str, body: bytes) -> str:
    """A digest of the request, from which response ids are derived (same request, same id)."""
    return hashlib.sha256(path.encode("utf-8") + b"\0" + body).hexdigest()[:24]


def respond(request: MessagesRequest, digest: str) -> Reply:
    """Answer ``request``: a forced tool when one is chosen, navagent's next tool calls or
    answer, the next calls over tools it does not know (or their answer), else a text answer (the format a GANDR writing prompt names, or the extractive
    answer)."""
    if is_agent_request(request):
        return _agent_reply(request, digest)
    if is_tool_request(request):
        return _tool_reply(request, digest)
    tool = _chosen_tool(request)
    if tool is None:
        written = gandr_text(request)
        return _text_reply(extractive_answer(request) if written is None else written,
                           request.max_tokens)
    data = TOOL_HANDLERS[tool](request)
    for key in ("reason", "rationale"):
        # Handlers that already end the text with the note are left as they are.
        value = data.get(key)
        if isinstance(value, str) and not value.rstrip().endswith(BACKEND_NOTE):
            data[key] = with_note(value)
    block: dict[str, object] = {"type": "tool_use", "id": f"toolu_ref_{digest}",
                                "name": tool, "input": data}
    return Reply((block,), "tool_use", estimate_tokens(json.dumps(data, sort_keys=True)))


def _agent_reply(request: MessagesRequest, digest: str) -> Reply:
    """navagent's next move: its tool calls (ids numbered within the turn), or its answer
    when tools are off or nothing is left to read."""
    calls = next_calls(request) if request.tool_choice == "auto" else []
    if not calls:
        return _text_reply(agent_answer(request), request.max_tokens)
    return _calls_reply(calls, digest)


def _tool_reply(request: MessagesRequest, digest: str) -> Reply:
    """The next move over tools the backend does not know (a user's MCP server): calls
    chosen by the tools' input schemas, or the answer."""
    calls = tool_next_calls(request) if request.tool_choice == "auto" else []
    if not calls:
        return _text_reply(tool_answer(request), request.max_tokens)
    return _calls_reply(calls, digest)


def _calls_reply(calls: Sequence[tuple[str, dict[str, object]]], digest: str) -> Reply:
    """Tool calls as one turn's ``tool_use`` blocks, their ids numbered within the turn."""
    blocks: tuple[dict[str, object], ...] = tuple(
        {"type": "tool_use", "id": f"toolu_ref_{digest}_{number}", "name": name,
         "input": arguments} for number, (name, arguments) in enumerate(calls, 1))
    written = json.dumps([arguments for _, arguments in calls], sort_keys=True)
    return Reply(blocks, "tool_use", estimate_tokens(written))


def _chosen_tool(request: MessagesRequest) -> str | None:
    served = ", ".join(sorted(TOOL_HANDLERS))
    if request.tool_choice == "tool":
        name = request.forced_tool or ""
        if name not in TOOL_HANDLERS:
            raise invalid(f"tool_choice.name: the reference backend cannot serve the forced tool "
                          f"'{name}' (it serves: {served})")
        return name
    if request.tool_choice == "any":
        usable = [name for name in request.tool_names if name in TOOL_HANDLERS]
        if not usable:
            raise invalid(f"tool_choice: none of the tools {list(request.tool_names)} can be "
                          f"served by the reference backend (it serves: {served})")
        return usable[0]
    return None


def _text_reply(answer: str, max_tokens: int | None) -> Reply:
    text = with_note(answer)
    stop_reason = "end_turn"
    if max_tokens is not None and estimate_tokens(text) > max_tokens:
        # Cut the answer, never the note: the output must still say where it came from.
        room = max(0, max_tokens * CHARS_PER_TOKEN - len(BACKEND_NOTE) - 2)
        text = with_note(answer[:room])
        stop_reason = "max_tokens"
    return Reply(({"type": "text", "text": text},), stop_reason, estimate_tokens(text))
