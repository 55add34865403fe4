"""The requests of a message batch: custom ids the API accepts, the params of each request in
the form ``ModelClient`` sends them interactively, and their split into as few batches as the
API's limits allow.

A request's params are laid out as the SDK lays out the body of ``messages.create`` (its
required fields, then its optional ones, then the extra body), so the bytes of a batch request
are the bytes of the same call made interactively: a server that answers by request (the
reference backend) gives a batch exactly the interactive answers, ids included.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pytest_legalbench.llm.call_types import Sampling, SystemBlock, ToolSpec

#: The pattern the Message Batches API holds every ``custom_id`` to (the create endpoint's
#: request schema: ``^[a-zA-Z0-9_-]{1,64}$``).
CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: The API's limits on one batch: requests, and bytes of the create body (256 MB).
MAX_BATCH_REQUESTS = 100_000
MAX_BATCH_BYTES = 256 * 1000 * 1000
#: The fields of ``messages.create`` in the order the SDK (2.x) writes them into the body:
#: the required ones, then the optional ones alphabetically. Anything else travels in the
#: extra body, which the SDK appends after them.
_SDK_FIELDS = ("max_tokens", "messages", "model", "cache_control", "container", "diagnostics",
               "inference_geo", "metadata", "output_config", "service_tier", "speed",
               "stop_sequences", "system", "thinking", "tool_choice", "tools")
_REQUIRED = ("max_tokens", "messages", "model")
#: The create body around its requests, and the comma between two of them.
_ENVELOPE_BYTES = len(b'{"requests":[]}')
_SEPARATOR_BYTES = len(b",")


class BatchRequestError(ValueError):
    """A batch request the API would refuse; the message names the custom id and why."""


def custom_id(*parts: str) -> str:
    """A custom id for ``parts`` (question id, mode, stage, ...) that the API accepts: the
    parts joined by ``-`` with every other character made ``_``; an id longer than 64
    characters keeps its start and ends with a digest of the whole, so it stays unique."""
    if not parts or not any(parts):
        raise BatchRequestError("a custom id needs at least one non-empty part")
    joined = "-".join(re.sub(r"[^a-zA-Z0-9_-]", "_", part) for part in parts)
    if len(joined) <= 64:
        return joined
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:16]
    return f"{joined[:64 - 17]}-{digest}"


def wire_params(params: Mapping[str, object]) -> dict[str, object]:
    """``params`` in the order the SDK writes a ``messages.create`` body."""
    known = [name for name in _SDK_FIELDS if name in params]
    extra = [name for name in params if name not in _SDK_FIELDS]
    return {name: params[name] for name in (*known, *extra)}


def completion_params(*, model: str, system: Sequence[SystemBlock],
                      messages: Sequence[Mapping[str, object]], max_tokens: int,
                      sampling: Sampling | None = None, send_sampling: bool = False,
                      tool: ToolSpec | None = None, tools: Sequence[ToolSpec] = (),
                      tool_choice: str | None = None) -> dict[str, object]:
    """The params of ``ModelClient.complete``; given ``tool``, of ``structured`` (the tool
    forced); given ``tools`` and ``tool_choice`` (``auto`` or ``none``), of a ``converse``
    turn; all as the client sends them (``send_sampling``: the config's ``sends_sampling``)."""
    if tool is not None and tools:
        raise ValueError("give a forced tool or a conversation's tools, not both")
    params: dict[str, object] = {
        "max_tokens": max_tokens, "messages": [dict(message) for message in messages],
        "model": model, "system": [block.to_param() for block in system]}
    if tool is not None:
        params["tools"] = [tool.to_param()]
        params["tool_choice"] = {"type": "tool", "name": tool.name}
    elif tools:
        params["tools"] = [spec.to_param() for spec in tools]
        params["tool_choice"] = {"type": tool_choice or "auto"}
    if sampling is not None and send_sampling:
        if sampling.temperature is not None:
            params["temperature"] = sampling.temperature
        if sampling.seed is not None:
            params["seed"] = sampling.seed
    return wire_params(params)


def params_bytes(params: Mapping[str, object]) -> bytes:
    """The params serialised as the SDK sends a body (compact JSON, UTF-8)."""
    return json.dumps(params, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def request_digest(params: Mapping[str, object]) -> str:
    """A digest of a request's params as sent: the same request, the same digest."""
    return hashlib.sha256(params_bytes(params)).hexdigest()[:24]


@dataclass(frozen=True)
class BatchRequest:
    """One request of a batch: its custom id and its Messages API params."""

    custom_id: str
    params: Mapping[str, object]

    def __post_init__(self) -> None:
        if not isinstance(self.custom_id, str) or not CUSTOM_ID.fullmatch(self.custom_id):
            raise BatchRequestError(f"custom id {self.custom_id!r} does not match "
                                    f"^[a-zA-Z0-9_-]{{1,64}}$ (build one with custom_id())")
        missing = [name for name in _REQUIRED if name not in self.params]
        if missing:
            raise BatchRequestError(f"request {self.custom_id}: params lack "
                                    f"{', '.join(missing)}")
        if self.params.get("stream"):
            raise BatchRequestError(f"request {self.custom_id}: a batch request cannot stream")

    @property
    def digest(self) -> str:
        """A digest of the params as sent (the same request has the same digest)."""
        return request_digest(self.params)

    def to_param(self) -> dict[str, object]:
        """The request as the create endpoint takes it."""
        return {"custom_id": self.custom_id, "params": dict(self.params)}

    @property
    def size(self) -> int:
        """Bytes of this request in a create body (its comma aside)."""
        return len(params_bytes(self.to_param()))


def check_unique(requests: Iterable[BatchRequest]) -> None:
    """Raise BatchRequestError naming the first custom id used twice."""
    seen: set[str] = set()
    for request in requests:
        if request.custom_id in seen:
            raise BatchRequestError(f"custom id {request.custom_id} is used by two requests: "
                                    f"results are matched by custom id, so each must be unique")
        seen.add(request.custom_id)


def split_batches(requests: Sequence[BatchRequest], *, max_requests: int = MAX_BATCH_REQUESTS,
                  max_bytes: int = MAX_BATCH_BYTES) -> list[tuple[BatchRequest, ...]]:
    """``requests`` in order, cut into as few batches as the limits allow: each holds at most
    ``max_requests`` requests and a create body of at most ``max_bytes``."""
    if max_requests < 1 or max_bytes <= _ENVELOPE_BYTES:
        raise ValueError(f"batch limits must leave room for a request, got {max_requests} "
                         f"requests and {max_bytes} bytes")
    check_unique(requests)
    batches: list[tuple[BatchRequest, ...]] = []
    current: list[BatchRequest] = []
    size = _ENVELOPE_BYTES  # the create body of ``current``, exactly
    for request in requests:
        alone = _ENVELOPE_BYTES + request.size
        if alone > max_bytes:
            raise BatchRequestError(f"request {request.custom_id} alone makes a create body of "
                                    f"{alone:,} bytes, more than a batch may hold "
                                    f"({max_bytes:,})")
        if current and (len(current) >= max_requests
                        or size + _SEPARATOR_BYTES + request.size > max_bytes):
            batches.append(tuple(current))
            current, size = [], _ENVELOPE_BYTES
        size += request.size + (_SEPARATOR_BYTES if current else 0)
        current.append(request)
    if current:
        batches.append(tuple(current))
    return batches
