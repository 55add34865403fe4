"""Raw HTTP probes of llama.cpp's server with a chat template that has tool use.

With ``conformance/chatml_tools.jinja`` the server reports ``supports_tools`` and builds a
grammar for tool calls. These probes observe what the no-tools template hid: what forced tool
use (``tool_choice`` ``tool`` naming a tool, or ``any``) becomes, and how a tool call cut short
by ``max_tokens`` arrives. The suite never prefills an answer; two probes here do (an
assistant turn ending in ``<tool_call>``), only so that the 135M model starts a call at all
and the grammar's rules can be seen. Standard library only, like ``wire_probes``.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from conformance.wire_probes import (
    JUDGE_ASK,
    SYSTEM,
    VERDICT_TOOL,
    Finding,
    exchange,
    probe_tool,
    probe_tool_truncated,
)

#: A second tool, so a tool_choice naming one of two can be seen honoured or not.
PRICE_TOOL = {"name": "note_price", "description": "Record the price per tonne the documents "
              "give.", "input_schema": {"type": "object", "properties": {
                  "price": {"type": "string"}}, "required": ["price"],
                  "additionalProperties": False}}
#: The opening of a tool call in the template's shape, sent as the assistant's prefill.
PREFILL = [*JUDGE_ASK, {"role": "assistant", "content": "<tool_call>\n"}]
CHOICES = ({"type": "tool", "name": "note_price"}, {"type": "tool", "name": "record_verdict"},
           {"type": "any"})


def _calls(body: object) -> list[dict[str, object]]:
    """The reply's blocks, shortened to what the probes compare."""
    content = body.get("content") if isinstance(body, dict) else None
    found: list[dict[str, object]] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            found.append({"tool_use": block.get("name"), "input": block.get("input")})
        elif isinstance(block, dict):
            found.append({"text": str(block.get("text", ""))[:160]})
    return found


def probe_caps(base_url: str) -> Finding:
    """``GET /props``: what the server makes of the template's tool use."""
    answer = exchange(base_url, "/props")
    caps = answer.body.get("chat_template_caps") if isinstance(answer.body, dict) else None
    caps = caps if isinstance(caps, dict) else {}
    return Finding("template caps", "GET /props", answer.status, {
        name: caps.get(name) for name in ("supports_tools", "supports_tool_calls",
                                          "supports_parallel_tool_calls")})


def probe_named_tool(base_url: str) -> Finding:
    """Two tools offered, a call opened by prefill, ``tool_choice`` naming each and ``any``,
    at temperature 0: which tools were called under each choice."""
    seen: dict[str, object] = {}
    for tools in ([VERDICT_TOOL, PRICE_TOOL], [PRICE_TOOL, VERDICT_TOOL]):
        for choice in CHOICES:
            answer = exchange(base_url, "/v1/messages", {
                "model": "m", "max_tokens": 60, "temperature": 0, "system": SYSTEM,
                "messages": PREFILL, "tools": tools, "tool_choice": choice})
            key = f"tools {'+'.join(str(t['name']) for t in tools)}, {json.dumps(choice)}"
            seen[key] = [call.get("tool_use", "text") for call in _calls(answer.body)]
    return Finding("tool_choice naming one of two tools", "prefilled <tool_call>, two tools, "
                   "temperature 0", 200, seen)


def probe_cut_calls(base_url: str) -> Finding:
    """A prefilled forced call cut by ``max_tokens`` at three lengths: how the cut call and
    any further calls arrive."""
    seen: dict[str, object] = {}
    for most in (8, 24, 80):
        answer = exchange(base_url, "/v1/messages", {
            "model": "m", "max_tokens": most, "temperature": 0, "system": SYSTEM,
            "messages": PREFILL, "tools": [VERDICT_TOOL],
            "tool_choice": {"type": "tool", "name": "record_verdict"}})
        body = answer.body if isinstance(answer.body, dict) else {}
        seen[f"max_tokens {most}"] = {"stop_reason": body.get("stop_reason"),
                                      "blocks": _calls(answer.body)}
    return Finding("tool calls cut short", "prefilled <tool_call>, forced tool, max_tokens 8, "
                   "24, 80", 200, seen)


TOOL_PROBES: tuple[Callable[[str], Finding], ...] = (
    probe_caps,
    lambda url: probe_tool(url, {"type": "tool", "name": "record_verdict"}),
    lambda url: probe_tool(url, {"type": "any"}),
    probe_tool_truncated, probe_named_tool, probe_cut_calls)


def run_tool_probes(base_url: str) -> list[Finding]:
    """Every probe of the tool-capable server, in order."""
    return [probe(base_url) for probe in TOOL_PROBES]
