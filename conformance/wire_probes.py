"""Raw HTTP probes of a Messages-API server: what it accepts, ignores and reports.

Each probe sends one request the suite's client could send (or a deliberately bad one) with
the standard library alone, and returns what came back: status, the shape of the body, the
usage keys. They document the differences the capability table (``llm.server_capabilities``)
handles; they do not go through the client, so nothing here is adapted.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field

SYSTEM = [{"type": "text", "text": "You answer questions about contracts. Be brief."},
          {"type": "text", "text": "<documents>Section 3.1: the price is $445 per tonne."
                                   "</documents>", "cache_control": {"type": "ephemeral"}}]
QUESTION = [{"role": "user", "content": "What is the price per tonne?"}]
VERDICT_TOOL = {"name": "record_verdict", "description": "Record which answer is correct.",
                "input_schema": {"type": "object", "properties": {
                    "verdict": {"type": "string", "enum": ["A", "B", "tie"]},
                    "reason": {"type": "string"}},
                    "required": ["verdict", "reason"], "additionalProperties": False}}
JUDGE_ASK = [{"role": "user", "content": "Question: what is the price per tonne? "
                                         "Answer A: $445. Answer B: $410. Which is correct?"}]


@dataclass(frozen=True)
class Answer:
    """One HTTP exchange: status, headers, the parsed body (or its text), seconds taken."""

    status: int
    headers: dict[str, str]
    body: object
    seconds: float


@dataclass(frozen=True)
class Finding:
    """What one probe observed."""

    probe: str
    sent: str
    status: int
    observed: dict[str, object] = field(default_factory=dict)


def exchange(base_url: str, path: str, body: object | None = None,
             timeout_s: float = 300.0) -> Answer:
    """GET (no body) or POST JSON to ``base_url + path``; HTTP errors are answers too."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base_url + path, data=data,
                                     headers={"content-type": "application/json",
                                              "x-api-key": "local",
                                              "anthropic-version": "2023-06-01"})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            raw, status, headers = answer.read(), int(answer.status), dict(answer.headers)
    except urllib.error.HTTPError as error:
        raw, status, headers = error.read(), int(error.code), dict(error.headers)
    try:
        parsed: object = json.loads(raw)
    except ValueError:
        parsed = raw.decode("utf-8", "replace")
    return Answer(status, headers, parsed, round(time.monotonic() - started, 3))


def _message(base_url: str, **body: object) -> Answer:
    return exchange(base_url, "/v1/messages", {"model": "claude-sonnet-4-6", "max_tokens": 64,
                                               **body})


def _blocks(body: object) -> list[dict[str, object]]:
    content = body.get("content") if isinstance(body, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _usage(body: object) -> dict[str, object]:
    usage = body.get("usage") if isinstance(body, dict) else None
    return dict(usage) if isinstance(usage, dict) else {}


def probe_models(base_url: str) -> Finding:
    """``GET /v1/models``: the kind and model id the client's identification reads."""
    answer = exchange(base_url, "/v1/models")
    data = answer.body.get("data") if isinstance(answer.body, dict) else None
    first = data[0] if isinstance(data, list) and data else {}
    return Finding("models", "GET /v1/models", answer.status, {
        "id": first.get("id"), "owned_by": first.get("owned_by"),
        "n_ctx": (first.get("meta") or {}).get("n_ctx")})


def probe_plain(base_url: str) -> Finding:
    """A text answer with cache-marked system blocks and ``metadata``: accepted? usage?"""
    answer = _message(base_url, system=SYSTEM, messages=QUESTION, metadata={"user_id": "u1"})
    again = _message(base_url, system=SYSTEM, messages=QUESTION, metadata={"user_id": "u1"})
    body = answer.body if isinstance(answer.body, dict) else {}
    return Finding("plain", "system blocks with cache_control, metadata", answer.status, {
        "model": body.get("model"), "requested_model": "claude-sonnet-4-6",
        "stop_reason": body.get("stop_reason"), "usage": _usage(answer.body),
        "usage_repeated": _usage(again.body), "text": "".join(
            str(b.get("text", "")) for b in _blocks(answer.body) if b.get("type") == "text"),
        "seconds": answer.seconds})


def probe_tool(base_url: str, choice: dict[str, object]) -> Finding:
    """Forced tool use with ``tool_choice`` ``choice``: a tool_use block? its input?"""
    answer = _message(base_url, system=SYSTEM, messages=JUDGE_ASK, tools=[VERDICT_TOOL],
                      tool_choice=choice, max_tokens=160)
    blocks = _blocks(answer.body)
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    body = answer.body if isinstance(answer.body, dict) else {}
    return Finding(f"tool_choice {choice['type']}", json.dumps(choice), answer.status, {
        "block_types": [b.get("type") for b in blocks],
        "tool_inputs": [b.get("input") for b in uses], "stop_reason": body.get("stop_reason"),
        "seconds": answer.seconds})


def probe_tool_truncated(base_url: str) -> Finding:
    """Forced tool use cut off by ``max_tokens``: how malformed arguments arrive."""
    answer = _message(base_url, system=SYSTEM, messages=JUDGE_ASK, tools=[VERDICT_TOOL],
                      tool_choice={"type": "tool", "name": "record_verdict"}, max_tokens=6)
    body = answer.body if isinstance(answer.body, dict) else {}
    return Finding("tool call cut short", "forced tool, max_tokens 6", answer.status, {
        "blocks": _blocks(answer.body), "stop_reason": body.get("stop_reason")})


def probe_count(base_url: str) -> Finding:
    """``count_tokens`` beside the usage of the same prompt answered."""
    counted = exchange(base_url, "/v1/messages/count_tokens",
                       {"model": "m", "system": SYSTEM, "messages": QUESTION})
    answered = _message(base_url, system=SYSTEM, messages=QUESTION, max_tokens=1)
    usage = _usage(answered.body)
    read = [usage.get(k) for k in ("input_tokens", "cache_read_input_tokens")]
    return Finding("count_tokens", "POST /v1/messages/count_tokens", counted.status, {
        "body": counted.body, "answered_input": sum(n for n in read if isinstance(n, int))})


def probe_seed(base_url: str) -> Finding:
    """Two hot samples differing only in ``seed``: does the seed change anything?"""
    texts = []
    for seed in (1, 2, 1):
        answer = _message(base_url, messages=QUESTION, max_tokens=24, temperature=1.0,
                          seed=seed)
        texts.append("".join(str(b.get("text", "")) for b in _blocks(answer.body)))
    return Finding("seed", "temperature 1.0, seeds 1, 2, 1", 200, {
        "texts": texts, "seed_1_repeats": texts[0] == texts[2],
        "seeds_differ": texts[0] != texts[1]})


def probe_errors(base_url: str) -> list[Finding]:
    """Requests the server refuses: too long for its context, no messages, not JSON."""
    too_long = _message(base_url, messages=[{"role": "user", "content": "clause " * 12000}])
    no_messages = exchange(base_url, "/v1/messages", {"model": "m", "max_tokens": 8})
    not_json = exchange(base_url, "/v1/messages", "not an object")
    return [Finding(name, sent, answer.status, {"body": answer.body})
            for name, sent, answer in (("over the context", "12,000-word prompt", too_long),
                                       ("no messages", "body without messages", no_messages),
                                       ("not an object", "a JSON string", not_json))]


PROBES: tuple[Callable[[str], Finding | list[Finding]], ...] = (
    probe_models, probe_plain,
    lambda url: probe_tool(url, {"type": "tool", "name": "record_verdict"}),
    lambda url: probe_tool(url, {"type": "any"}),
    probe_tool_truncated, probe_count, probe_seed, probe_errors)


def run_probes(base_url: str) -> list[Finding]:
    """Every probe, in order."""
    found: list[Finding] = []
    for probe in PROBES:
        result = probe(base_url)
        found.extend(result if isinstance(result, list) else [result])
    return found
