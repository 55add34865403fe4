"""A Messages API request body validated into a ``MessagesRequest``: its prompt as ordered
segments (tools, then system blocks, then message content, the order in which the API builds a
prompt and therefore the order in which a cached prefix is measured), its turns and its tool
choice. Anything the backend cannot honour is a ``WireError`` naming the first problem found.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from pytest_legalbench.reference_backend.wire import Block, MessagesRequest, Segment, Turn, invalid

_ROLES = ("user", "assistant")
_CHOICES = ("auto", "any", "tool", "none")


def parse_request(body: bytes, *, needs_max_tokens: bool) -> MessagesRequest:
    """Validate a request body; raise ``WireError`` naming the first problem found."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise invalid(f"request body is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise invalid("request body must be a JSON object")
    if data.get("stream"):
        raise invalid("stream: streaming is not supported by the reference backend")
    model = data.get("model")
    if not isinstance(model, str) or not model.strip():
        raise invalid("model: field required (a non-empty string)")
    max_tokens = _max_tokens(data.get("max_tokens"), needs_max_tokens)
    tools, tool_names, schemas = _tools(data.get("tools"))
    choice, forced = _tool_choice(data.get("tool_choice"), tool_names)
    system = _system(data.get("system"))
    turns, message_segments = _messages(data.get("messages"))
    return MessagesRequest(
        model=model, max_tokens=max_tokens,
        segments=tuple(tools + system + message_segments),
        system="\n\n".join(segment.text for segment in system),
        turns=turns, tool_names=tool_names, tool_choice=choice, forced_tool=forced,
        temperature=_temperature(data.get("temperature")), seed=_seed(data.get("seed")),
        tool_schemas=schemas,
    )


def _temperature(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise invalid(f"temperature: expected a number between 0 and 1, got {value!r}")
    return float(value)


def _seed(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise invalid(f"seed: expected a non-negative integer, got {value!r}")
    return value


def _max_tokens(value: object, required: bool) -> int | None:
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise invalid("max_tokens: field required (an integer of at least 1)")
    return value


def _mark(text: str, block: Mapping[str, object], where: str) -> Segment:
    """A segment of ``text``, cache-marked as ``block`` says (with the 1-hour TTL or not)."""
    control = block.get("cache_control")
    if control is None:
        return Segment(text, False)
    if not isinstance(control, dict) or control.get("type") != "ephemeral":
        raise invalid(f"{where}.cache_control: expected {{\"type\": \"ephemeral\"}}")
    ttl = control.get("ttl", "5m")
    if ttl not in ("5m", "1h"):
        raise invalid(f"{where}.cache_control.ttl: expected \"5m\" or \"1h\", got {ttl!r}")
    return Segment(text, True, one_hour=ttl == "1h")


def _tools(value: object) -> tuple[list[Segment], tuple[str, ...],
                                   dict[str, Mapping[str, object]]]:
    if value is None:
        return [], (), {}
    if not isinstance(value, list):
        raise invalid("tools: expected a list of tool definitions")
    segments: list[Segment] = []
    names: list[str] = []
    schemas: dict[str, Mapping[str, object]] = {}
    for index, tool in enumerate(value):
        where = f"tools.{index}"
        if not isinstance(tool, dict):
            raise invalid(f"{where}: expected an object")
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise invalid(f"{where}.name: field required")
        if not isinstance(tool.get("input_schema"), dict):
            raise invalid(f"{where}.input_schema: field required (an object)")
        names.append(name)
        schemas[name] = tool["input_schema"]
        # A tool's definition is prompt text too: it is counted, and it can end a cached prefix.
        shown = {key: tool[key] for key in ("name", "description", "input_schema") if key in tool}
        segments.append(_mark(json.dumps(shown, sort_keys=True), tool, where))
    return segments, tuple(names), schemas


def _tool_choice(value: object, tool_names: Sequence[str]) -> tuple[str, str | None]:
    if value is None:
        return "auto", None
    if not isinstance(value, dict) or value.get("type") not in _CHOICES:
        raise invalid(f"tool_choice.type: expected one of {', '.join(_CHOICES)}")
    choice = str(value["type"])
    if choice in ("any", "tool") and not tool_names:
        raise invalid(f"tool_choice: type '{choice}' needs at least one tool in tools")
    if choice != "tool":
        return choice, None
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise invalid("tool_choice.name: field required when type is 'tool'")
    if name not in tool_names:
        raise invalid(f"tool_choice.name: tool '{name}' is not defined in tools")
    return choice, name


def _system(value: object) -> list[Segment]:
    if value is None:
        return []
    if isinstance(value, str):
        return [Segment(value, False)]
    if not isinstance(value, list):
        raise invalid("system: expected a string or a list of text blocks")
    segments = []
    for index, block in enumerate(value):
        where = f"system.{index}"
        if not isinstance(block, dict) or block.get("type") != "text":
            raise invalid(f"{where}: expected a text block")
        segments.append(_mark(_text_field(block, where), block, where))
    return segments


def _messages(value: object) -> tuple[tuple[Turn, ...], list[Segment]]:
    if not isinstance(value, list) or not value:
        raise invalid("messages: field required (a non-empty list)")
    turns: list[Turn] = []
    segments: list[Segment] = []
    for index, message in enumerate(value):
        where = f"messages.{index}"
        if not isinstance(message, dict):
            raise invalid(f"{where}: expected an object with role and content")
        role = message.get("role")
        if role not in _ROLES:
            raise invalid(f"{where}.role: expected 'user' or 'assistant', got {role!r}")
        content = _content(message.get("content"), f"{where}.content")
        segments.extend(segment for segment, _ in content)
        turns.append(Turn(str(role), "\n".join(segment.text for segment, _ in content),
                          tuple(block for _, block in content)))
    return tuple(turns), segments


def _content(value: object, where: str) -> list[tuple[Segment, Block]]:
    if isinstance(value, str):
        return [(Segment(value, False), Block("text", value))]
    if not isinstance(value, list) or not value:
        raise invalid(f"{where}: expected a string or a non-empty list of content blocks")
    found = []
    for index, block in enumerate(value):
        place = f"{where}.{index}"
        if not isinstance(block, dict):
            raise invalid(f"{place}: expected a content block object")
        kind = block.get("type")
        if kind == "text":
            read = Block("text", _text_field(block, place))
        elif kind == "tool_use":
            read = Block("tool_use", json.dumps(block.get("input", {}), sort_keys=True),
                         name=str(block.get("name", "")), call_id=str(block.get("id", "")))
        elif kind == "tool_result":
            error = block.get("is_error", False)
            if not isinstance(error, bool):
                raise invalid(f"{place}.is_error: expected a boolean")
            read = Block("tool_result", _tool_result_text(block.get("content", ""), place),
                         call_id=str(block.get("tool_use_id", "")), is_error=error)
        else:
            raise invalid(f"{place}.type: content of type {kind!r} is not supported by the "
                          "reference backend (text, tool_use and tool_result are)")
        found.append((_mark(read.text, block, place), read))
    return found


def _tool_result_text(value: object, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text_field(block, f"{where}.content") for block in value
                         if isinstance(block, dict))
    raise invalid(f"{where}.content: expected a string or a list of text blocks")


def _text_field(block: Mapping[str, object], where: str) -> str:
    text = block.get("text")
    if not isinstance(text, str):
        raise invalid(f"{where}.text: field required (a string)")
    return text
