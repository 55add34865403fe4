"""What each kind of Messages-API server accepts and reports, and the request rules that follow.

One row per server kind. A row's rules change a request only for a server identified as that
kind (``llm.server_identity``); Claude, the reference backend and an unidentified server get
the request exactly as it always was, so recorded cassettes keep matching. Every rule here was
observed against the real server (``verified``) or is left out: a kind known only from its
documentation gets no rules, only its name in the summary.

Pure: no I/O, no SDK.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: How a structured output is obtained: forced tool use naming the tool (the Messages API's
#: own way), or a JSON object asked for in the text and parsed strictly (``llm.json_text``)
#: from a server that ignores forced tool use. (``tool_choice`` ``any`` is no third way:
#: llama.cpp maps it to the same "required" as a named tool, and a chat template without tool
#: use ignores both alike.)
FORCED_TOOL = "tool"
JSON_TEXT = "json-text"
STRUCTURED_WAYS = (FORCED_TOOL, JSON_TEXT)

#: The usage fields a server may leave out; the two input counts every server reports.
CACHE_FIELDS = ("cache_creation_input_tokens", "cache_read_input_tokens")

#: Kinds by what the client knows of them: Claude's API, the embedded reference backend,
#: llama.cpp's server (serving a model whose chat template calls tools, or one whose template
#: has no tool use), vLLM, a LiteLLM proxy, and any other server speaking the Messages API.
SERVER_KINDS = ("claude", "reference", "llama.cpp", "llama.cpp-no-tools", "vllm", "litellm",
                "generic")
#: Kinds that are a third party's server reached by base URL (summaries say "messages-api").
THIRD_PARTY_KINDS = frozenset({"llama.cpp", "llama.cpp-no-tools", "vllm", "litellm",
                               "generic"})


@dataclass(frozen=True)
class ServerCapabilities:
    """One row of the table: how a kind of server differs from Claude's Messages API."""

    kind: str
    name: str
    """How reports name the server."""
    join_system: bool = False
    """The server glues system blocks together with no separator (and ignores their cache
    marks), so the client sends the system prompt as one string, blocks joined by a blank
    line."""
    takes_seed: bool = True
    """The server reads ``seed`` from the request; False drops it (the server's own
    ``--seed`` applies to every call, which the summary says)."""
    structured: str = FORCED_TOOL
    """How structured outputs are obtained (one of ``STRUCTURED_WAYS``)."""
    final_statuses: frozenset[int] = frozenset()
    """Error statuses that are not retried from this server although they are from Claude
    (a retry resends the same request and would get the same answer)."""
    reports_cache_write: bool = True
    """Usage carries ``cache_creation_input_tokens``; False: cache writes are not reported,
    the input the server did not read from its cache arrives as uncached input and is priced
    at the input rate."""
    reports_cache_read: bool = True
    """Usage carries ``cache_read_input_tokens`` (for llama.cpp: its KV-cache prefix reuse)."""
    verified: bool = False
    """The row was checked against the real server (``perf/llama_conformance.py``)."""
    notes: tuple[str, ...] = ()
    """Differences that need no rule (the server copes) but a reader should know."""

    @property
    def has_rules(self) -> bool:
        """Whether any rule changes the requests sent to this kind of server, or how its
        answers are taken."""
        return (self.join_system or not self.takes_seed or self.structured != FORCED_TOOL
                or bool(self.final_statuses))


_LLAMA_NOTES = (
    ("the response names the server's model (its --alias, else the GGUF file's path), "
    "whatever model the request asked for"),
    ("usage has cache_read_input_tokens (the slot's KV-cache prefix reuse) but no "
    "cache_creation_input_tokens"),
    ("errors come in OpenAI's shape ({'error': {'code', 'message', 'type'}}), which the SDK "
    "reads; a prompt over the context is a 400 exceed_context_size_error"),
    "cache_control and metadata are accepted and ignored",
    ("count_tokens counts the prompt after the chat template is applied (the same count as "
    "the answer's input)"),
)
_LLAMA = ServerCapabilities(
    "llama.cpp", "llama.cpp server", join_system=True, takes_seed=False,
    structured=FORCED_TOOL, final_statuses=frozenset({500}), reports_cache_write=False,
    reports_cache_read=True, verified=True, notes=(
        # Observed with SmolLM2 under conformance/chatml_tools.jinja, a template with tool use.
        ("tool_choice of type tool or any becomes 'required' (any tool): the name restricts "
        "nothing (of two tools offered, naming one got a call of the other only) and any "
        "gave the same calls as a named tool; each request offers exactly one tool, so that "
        "is the named one"),
        ("the required-tool grammar lets the model write text before the call and not end "
        "its turn without one: a model that never starts a call writes until max_tokens, "
        "and the call is recorded invalid with its text kept"),
        ("a tool call cut short by max_tokens inside its arguments arrives as input {} (the "
        "text is lost), one cut before them as text: either is recorded invalid"),
        ("several calls of the tool can come in one reply (the template's parallel tool "
        "calls; disable_parallel_tool_use is not read): recorded invalid, none picked"),
        *_LLAMA_NOTES))

CAPABILITIES: Mapping[str, ServerCapabilities] = {
    "claude": ServerCapabilities("claude", "Claude (Anthropic API)", verified=True),
    "reference": ServerCapabilities("reference", "the reference backend", verified=True),
    "generic": ServerCapabilities(
        "generic", "a Messages-API server", notes=(
            ("not identified: requests go out exactly as to Claude; usage fields it leaves "
            "out are reported as not reported"),)),
    "llama.cpp": _LLAMA,
    "llama.cpp-no-tools": dataclasses.replace(
        _LLAMA, kind="llama.cpp-no-tools",
        name="llama.cpp server (a chat template without tool use)", structured=JSON_TEXT,
        notes=(("with a chat template that has no tool use (GET /props: chat_template_caps."
               "supports_tools false) the server ignores tools and tool_choice without an "
               "error and answers in text, so structured output is asked for as JSON text"),
               *_LLAMA_NOTES)),
    "vllm": ServerCapabilities("vllm", "vLLM", notes=(
        "identified by /v1/models (owned_by vllm); not run here, so no rules",)),
    "litellm": ServerCapabilities("litellm", "LiteLLM proxy", notes=(
        "identified by its x-litellm-* response headers; not run here, so no rules",)),
}


def rules_text(caps: ServerCapabilities) -> str:
    """The rules a row applies, in words ("none" for a row without any)."""
    rules = []
    if caps.join_system:
        rules.append("system blocks sent joined as one string")
    if not caps.takes_seed:
        rules.append("seeds not sent")
    if caps.structured == JSON_TEXT:
        rules.append("structured output as JSON in the text, parsed strictly")
    if caps.final_statuses:
        statuses = ", ".join(str(status) for status in sorted(caps.final_statuses))
        rules.append(f"HTTP {statuses} not retried")
    return "; ".join(rules) or "none"


def capabilities(kind: str) -> ServerCapabilities:
    """The row for ``kind``; ValueError for a kind that is not in the table."""
    try:
        return CAPABILITIES[kind]
    except KeyError:
        raise ValueError(f"unknown server kind {kind!r}: choose one of "
                         f"{', '.join(SERVER_KINDS)}") from None


def adapt_request(params: Mapping[str, Any], caps: ServerCapabilities) -> dict[str, Any]:
    """The request parameters ``caps`` calls for; unchanged (a copy) when it has no rules."""
    adapted = dict(params)
    if caps.join_system and isinstance(adapted.get("system"), list):
        texts = [str(block.get("text", "")) for block in adapted["system"]
                 if isinstance(block, Mapping) and block.get("type") == "text"]
        adapted["system"] = "\n\n".join(text for text in texts if text)
    extra = adapted.get("extra_body")
    if not caps.takes_seed and isinstance(extra, Mapping) and "seed" in extra:
        kept = {key: value for key, value in extra.items() if key != "seed"}
        if kept:
            adapted["extra_body"] = kept
        else:
            del adapted["extra_body"]
    return adapted


def unreported_fields(usage: Mapping[str, object]) -> tuple[str, ...]:
    """The cache fields a response's usage leaves out (absent or null), in field order."""
    return tuple(name for name in CACHE_FIELDS if usage.get(name) is None)
