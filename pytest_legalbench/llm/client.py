"""The one client for every model call: the anthropic SDK, our retry loop, and the ledger.

This module and ``llm.failures`` (which reads the SDK's exceptions) are the only ones that
import ``anthropic``, and only inside functions, so importing the plugin (``pytest --help``)
never pays for the SDK. What a call sends and returns lives in ``llm.call_types``.
"""

from __future__ import annotations

import dataclasses
import random as _random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_legalbench.defaults import BACKENDS
from pytest_legalbench.llm.backend import BackendConfigError, ClientConfig, resolve_backend
from pytest_legalbench.llm.batch_replies import (
    INTERACTIVE,
    BatchReplies,
    StoredReply,
    site_custom_id,
)
from pytest_legalbench.llm.batch_requests import request_digest, wire_params
from pytest_legalbench.llm.call_sites import CallSite, next_site
from pytest_legalbench.llm.call_types import (
    Completion,
    Sampling,
    StructuredResult,
    SystemBlock,
    ToolSpec,
)
from pytest_legalbench.llm.conversation import TOOL_CHOICES, Exchange, reply_blocks
from pytest_legalbench.llm.failures import LocalFailure, ModelCallError, classify
from pytest_legalbench.llm.json_text import instruction
from pytest_legalbench.llm.ledger import Call, Ledger, ToolEvent, Usage
from pytest_legalbench.llm.pending_calls import CallPending, PendingRequest
from pytest_legalbench.llm.redaction import redactor_for
from pytest_legalbench.llm.reply_checks import Reply, body_error, read_reply
from pytest_legalbench.llm.server_capabilities import JSON_TEXT, ServerCapabilities, adapt_request
from pytest_legalbench.llm.structured_reply import raw_output, text_input, tool_input

if TYPE_CHECKING:
    from typing import Self

    import anthropic

    from pytest_legalbench.llm.cost_guard import CostGuard

#: The embedded reference backend ignores the key, but the SDK will not send a request without one.
REFERENCE_API_KEY = "reference"

__all__ = [
    "BACKENDS", "REFERENCE_API_KEY", "BackendConfigError", "ClientConfig", "Exchange",
    "ModelClient", "resolve_backend",
]

_T = TypeVar("_T")


class ModelClient:
    """Sends Messages API requests with our retries and records every response in the ledger."""

    def __init__(self, config: ClientConfig, ledger: Ledger, *,
                 sleep: Callable[[float], None] = time.sleep,
                 random: Callable[[], float] = _random.random,
                 clock: Callable[[], float] = time.monotonic,
                 local_failure: LocalFailure | None = None,
                 guard: CostGuard | None = None,
                 replies: BatchReplies | None = None) -> None:
        if config.backend == "reference" and not config.base_url:
            raise BackendConfigError("the reference backend needs the base_url of a running "
                                     "ReferenceBackend")
        if config.backend == "anthropic" and not config.api_key:
            raise BackendConfigError("backend 'anthropic' needs an API key (ANTHROPIC_API_KEY)")
        self.config = config
        self.ledger = ledger
        server = config.server
        #: The capability row whose rules shape requests; None (no rules) for Claude, the
        #: reference backend and a server nobody identified.
        self._caps: ServerCapabilities | None = (
            server.caps if server is not None and server.caps.has_rules else None)
        self._backend_label = (server.label if server is not None and server.third_party
                               else config.backend)
        self._server_kind = server.kind if server is not None and server.third_party else None
        self._final_statuses = self._caps.final_statuses if self._caps else frozenset()
        self._sleep, self._random, self._clock = sleep, random, clock
        self._local_failure = local_failure
        self._guard = guard
        #: Error bodies may echo the key: every message leaving the client passes through it.
        # The reference backend's placeholder key is a word, not a secret: redacting it would
        # garble every message that says "reference" (a cassette's path among them).
        self._redact = redactor_for(None if config.api_key == REFERENCE_API_KEY
                                    else config.api_key)
        self._lock = threading.Lock()
        self._sdk_client: anthropic.Anthropic | None = None
        self.replies = replies
        """The answers of a batch run (``llm.batch_replies``); None: every call is sent."""
        self.cache_ttl: str | None = None
        """The lifetime every cache mark asks for when it names none (a batch run's ``1h``:
        ``plugin.batch_hooks``); None: the API's default 5 minutes."""
        self._served_sdk: anthropic.Anthropic | None = None
        self._serving: StoredReply | None = None
        self._serve_lock = threading.Lock()

    @property
    def backend_label(self) -> str:
        """The backend its ledger calls name (``reference``, ``anthropic``, or a third-party
        server's label)."""
        return self._backend_label

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the SDK's connection pool, if one was opened."""
        with self._lock:
            sdk, self._sdk_client = self._sdk_client, None
            served, self._served_sdk = self._served_sdk, None
        for opened in (sdk, served):
            if opened is not None:
                opened.close()

    def _sdk(self) -> anthropic.Anthropic:
        with self._lock:
            if self._sdk_client is None:
                import anthropic

                key = self.config.api_key or REFERENCE_API_KEY
                # Explicit key and URL: the SDK then reads neither environment nor profiles.
                self._sdk_client = anthropic.Anthropic(
                    api_key=key, base_url=self.config.base_url, timeout=self.config.timeout_s,
                    max_retries=0)
            return self._sdk_client

    def _send(self, stage: str, question_id: str | None,
              request: Callable[[anthropic.Anthropic], _T],
              ) -> tuple[_T, float, tuple[str, ...]]:
        """Run ``request`` under our retry policy; return its result, its own latency and
        the failures retried before it."""
        policy = self.config.retry_policy
        sdk = self._sdk()  # built first: importing the SDK is no part of any call's latency
        spent = 0.0
        retried: list[str] = []
        for attempt in range(1, policy.max_attempts + 1):
            started = self._clock()
            try:
                result = request(sdk)
                error = body_error(result)
                if error is not None:
                    raise error
                return result, max(0.0, self._clock() - started), tuple(retried)
            except Exception as exc:
                failure = classify(exc, self.config.timeout_s, self._local_failure)
                if failure is None:
                    raise
                if failure.retryable and failure.status in self._final_statuses:
                    # The capability table: this server's answer to a resend would be the same.
                    failure = dataclasses.replace(failure, retryable=False)
                spent += self._clock() - started
                delay = policy.delay(attempt - 1, self._random(), failure.retry_after)
                reason = (policy.give_up(attempt, spent + delay, failure.message)
                          if failure.retryable else failure.message)
                if reason is not None:
                    raise ModelCallError(stage, question_id, failure.status,
                                         self._redact(reason)) from None
                retried.append(failure.label)
            self._sleep(delay)
            spent += delay
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    def _create(self, stage: str, question_id: str | None, model: str,
                **params: Any) -> tuple[Reply, float]:
        if self._caps is not None:
            params = adapt_request(params, self._caps)
        stored = self._stored(stage, question_id, model, params)
        if stored is not None:
            message, latency, retried = self._serve(stored, stage, question_id, model, params)
        else:
            if self._guard is not None:
                self._guard.before(stage, model, params)
            message, latency, retried = self._send(
                stage, question_id, lambda sdk: sdk.messages.create(model=model, **params))
        reply = read_reply(message, model)
        if isinstance(reply, str):
            raise ModelCallError(stage, question_id, None, self._redact(reply))
        return dataclasses.replace(reply, retries=retried, batch=stored is not None
                                   and stored.batch, served=stored is not None), latency

    def _stored(self, stage: str, question_id: str | None, model: str,
                params: Mapping[str, Any]) -> StoredReply | None:
        """The batch run's answer to this call, if it has one; in its first pass, a call
        without one raises CallPending (one to be called interactively is called now)."""
        replies = self.replies
        if replies is None:
            return None
        extra = params.get("extra_body") or {}
        body = wire_params({"model": model, **{k: v for k, v in params.items()
                                               if k != "extra_body"}, **extra})
        site = next_site(request_digest(body))
        if site is None:
            if replies.collecting:
                raise RuntimeError(f"{stage}: a model call outside every call scope (an item's "
                                   f"cassette block) cannot be matched to a batch answer")
            replies.went_interactive(stage)
            return None
        found = replies.get(site)
        if found == INTERACTIVE:
            # A batch request handed back: answered interactively now, kept for the second
            # pass (which then serves it as the interactive answer it was).
            found = self._interactive_answer(site, stage, question_id, model, params)
            replies.put(site, found)
        if isinstance(found, StoredReply):
            if not replies.collecting:
                replies.served(site)
            return found
        if replies.collecting:
            raise CallPending([PendingRequest(site, stage, question_id, body)])
        replies.went_interactive(stage)
        return None

    def _interactive_answer(self, site: CallSite, stage: str, question_id: str | None,
                            model: str, params: Mapping[str, Any]) -> StoredReply:
        """Call ``site``'s request interactively and keep its answer as sent."""
        if self._guard is not None:
            self._guard.before(stage, model, params)
        raw, latency, retried = self._send(
            stage, question_id,
            lambda sdk: sdk.messages.with_raw_response.create(model=model, **params))
        message = raw.parse()
        reply = read_reply(message, model)
        if not isinstance(reply, str) and self._guard is not None:
            self._guard.after(Call(stage=stage, model=reply.model, usage=reply.usage,
                                   latency_s=latency, backend=self._backend_label))
        headers = tuple((name, value) for name, value in raw.headers.items()
                        if name.lower() not in ("content-type", "content-length",
                                                "content-encoding", "transfer-encoding",
                                                "connection", "date"))
        return StoredReply(site_custom_id(site, stage), raw.http_response.content, headers, None,
                           latency, retried)

    def _serve(self, stored: StoredReply, stage: str, question_id: str | None, model: str,
               params: Mapping[str, Any]) -> tuple[Any, float, tuple[str, ...]]:
        """Answer a call from a stored answer, through the SDK as an interactive call is
        answered (a cassette around it records a plain Messages call)."""
        if stored.body is None:
            raise ModelCallError(stage, question_id, None,
                                 self._redact(stored.error or "no answer was stored"))
        with self._serve_lock:
            sdk = self._served_client()
            self._serving = stored
            try:
                message = sdk.messages.create(model=model, **params)
            finally:
                self._serving = None
        error = body_error(message)
        if error is not None:
            raise ModelCallError(stage, question_id, None, self._redact(str(error)))
        return message, stored.latency_s, stored.retried

    def _served_client(self) -> anthropic.Anthropic:
        if self._served_sdk is None:
            import anthropic

            http = _sdk_http()

            def answer(request: Any) -> Any:
                stored = self._serving
                if stored is None or stored.body is None:
                    raise RuntimeError("a stored answer was asked for outside _serve")
                return http.Response(200, content=stored.body, headers=[
                    ("content-type", "application/json"), *stored.headers])

            self._served_sdk = anthropic.Anthropic(
                api_key=self.config.api_key or REFERENCE_API_KEY, base_url=self.config.base_url,
                timeout=self.config.timeout_s, max_retries=0,
                http_client=http.Client(transport=http.MockTransport(answer)))
        return self._served_sdk

    def _record(self, stage: str, reply: Reply, latency: float, question_id: str | None, *,
                valid: bool = True, raw_output: str | None = None,
                tool_results: Sequence[ToolEvent] = ()) -> None:
        call = Call(stage=stage, model=reply.model, usage=reply.usage, latency_s=latency,
                    backend=self._backend_label, question_id=question_id, valid=valid,
                    server=self._server_kind, unreported=reply.unreported,
                    raw_output=None if raw_output is None else self._redact(raw_output),
                    retries=reply.retries, tool_results=tuple(tool_results), batch=reply.batch)
        self.ledger.record(call)
        if self._guard is not None and not reply.served:
            # A served answer was counted when its batch (or fallback) brought it.
            self._guard.after(call)

    def complete(self, *, stage: str, model: str, system: Sequence[SystemBlock],
                 messages: Sequence[Mapping[str, object]], max_tokens: int,
                 question_id: str | None = None, sampling: Sampling | None = None) -> Completion:
        """Ask for a text answer; the call is recorded in the ledger."""
        reply, latency = self._create(stage, question_id, model, max_tokens=max_tokens,
                                      system=self._system(system), messages=_messages(messages),
                                      **self._sampling(sampling))
        self._record(stage, reply, latency, question_id)
        text = "".join(block.text for block in reply.content
                       if getattr(block, "type", None) == "text"
                       and isinstance(getattr(block, "text", None), str))
        return Completion(text=text, model=reply.model, stop_reason=reply.stop_reason,
                          usage=reply.usage, latency_s=latency)

    def structured(self, *, stage: str, model: str, system: Sequence[SystemBlock],
                   messages: Sequence[Mapping[str, object]], tool: ToolSpec, max_tokens: int,
                   question_id: str | None = None,
                   sampling: Sampling | None = None) -> StructuredResult:
        """Force ``tool`` and return its input if it conforms; one retry, then invalid (with
        what the model sent kept in the result and the ledger)."""
        as_text = self._caps is not None and self._caps.structured == JSON_TEXT
        if as_text:
            # The server honours no forced tool use: the schema goes into the prompt instead.
            request: dict[str, Any] = {"system": self._system([*system, SystemBlock(instruction(
                tool.name, tool.description, tool.input_schema))])}
        else:
            request = {"system": self._system(system), "tools": [tool.to_param()],
                       "tool_choice": {"type": "tool", "name": tool.name}}
        total = Usage()
        raw: str | None = None
        for attempt in (1, 2):
            # The retry resends the same request: feeding the bad output back would change
            # the prompt (and its cached prefix accounting) between attempts.
            reply, latency = self._create(
                stage, question_id, model, max_tokens=max_tokens, messages=_messages(messages),
                **request, **self._sampling(sampling))
            total = total + reply.usage
            data = (text_input(reply.content, tool.input_schema) if as_text
                    else tool_input(reply.content, tool.name, tool.input_schema))
            raw = None if data is not None else raw_output(reply.content, reply.stop_reason)
            self._record(stage, reply, latency, question_id, valid=data is not None,
                         raw_output=raw)
            if data is not None:
                return StructuredResult(data=data, valid=True, attempts=attempt, usage=total)
        return StructuredResult(data=None, valid=False, attempts=2, usage=total, raw=raw)

    def converse(self, *, stage: str, model: str, system: Sequence[SystemBlock],
                 messages: Sequence[Mapping[str, object]], tools: Sequence[ToolSpec],
                 max_tokens: int, question_id: str | None = None, tool_choice: str = "auto",
                 answer_stage: str | None = None,
                 tool_results: Sequence[ToolEvent] = ()) -> Exchange:
        """One turn of a tool-using conversation: the model may call ``tools`` (``auto``) or
        must answer (``none``). Recorded under ``stage``, or ``answer_stage`` when the reply
        calls no tool (the turn that answers); ``tool_results`` are the results this request
        carries, kept in the ledger with the call."""
        if tool_choice not in TOOL_CHOICES:
            raise ValueError(f"tool_choice must be one of {', '.join(TOOL_CHOICES)}, "
                             f"got {tool_choice!r}")
        reply, latency = self._create(
            stage, question_id, model, max_tokens=max_tokens, system=self._system(system),
            messages=_messages(messages), tools=[tool.to_param() for tool in tools],
            tool_choice={"type": tool_choice})
        text, uses, content = reply_blocks(reply.content)
        recorded = stage if uses or answer_stage is None else answer_stage
        self._record(recorded, reply, latency, question_id, tool_results=tool_results)
        return Exchange(stage=recorded, text=text, tool_uses=uses, content=content,
                        model=reply.model, stop_reason=reply.stop_reason, usage=reply.usage,
                        latency_s=latency)

    def _sampling(self, sampling: Sampling | None) -> dict[str, Any]:
        """Request parameters for ``sampling``; nothing at all when it is None or the server
        takes no sampling fields, so such requests keep the shape (and the cassette digests)
        they always had."""
        if sampling is None or not self.config.sends_sampling:
            return {}
        # In the extra body: the SDK (2.x) has no sampling parameters, and no Messages API
        # version has a seed; servers that take them read them from the body.
        extra: dict[str, Any] = {}
        if sampling.temperature is not None:
            extra["temperature"] = sampling.temperature
        if sampling.seed is not None:
            extra["seed"] = sampling.seed
        return {"extra_body": extra} if extra else {}

    def _system(self, blocks: Sequence[SystemBlock]) -> Any:
        """The system blocks as sent, cache marks given the client's lifetime."""
        ttl = self.cache_ttl
        if ttl is not None:
            blocks = [dataclasses.replace(block, ttl=ttl) if block.cache and block.ttl is None
                      else block for block in blocks]
        return _system(blocks)

    def count_tokens(self, *, model: str, system: Sequence[SystemBlock],
                     messages: Sequence[Mapping[str, object]]) -> int:
        """Return the input tokens the server counts for this prompt (not a billed call)."""
        params: dict[str, Any] = {"system": self._system(system), "messages": _messages(messages)}
        if self._caps is not None:
            params = adapt_request(params, self._caps)  # counted as it would be sent
        counted, _, _ = self._send("count_tokens", None, lambda sdk: sdk.messages.count_tokens(
            model=model, **params))
        tokens = getattr(counted, "input_tokens", None)
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise ModelCallError("count_tokens", None, None,
                                 f"count_tokens answered input_tokens={tokens!r}")
        return tokens


def _system(blocks: Sequence[SystemBlock]) -> Any:
    # Any: the SDK's TypedDict params cannot be built from our plain dicts without casts.
    return [block.to_param() for block in blocks]


def _messages(messages: Sequence[Mapping[str, object]]) -> Any:
    return [dict(message) for message in messages]


def _sdk_http() -> Any:
    """The HTTP package the installed SDK is built on (httpx; some builds ship it under
    another name): the one whose client the SDK accepts and whose transport serves a stored
    answer."""
    import importlib

    import anthropic

    # DefaultHttpxClient subclasses that package's Client.
    package = anthropic.DefaultHttpxClient.__mro__[1].__module__.partition(".")[0]
    return importlib.import_module(package)
