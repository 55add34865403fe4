"""The client against servers identified by kind: each capability rule on the wire, usage a
server leaves out, malformed structured output kept raw, and errors in another shape.

The llama.cpp replies are shaped as its server (llama-cpp-python 0.3.36's llama.cpp) sent
them in the conformance run: usage without ``cache_creation_input_tokens``, the model named
by its GGUF file, OpenAI-shaped errors, ``{}`` for a tool call whose arguments were not JSON.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm import server_capabilities
from pytest_legalbench.llm.call_types import Sampling, SystemBlock, ToolSpec
from pytest_legalbench.llm.client import ClientConfig, ModelClient
from pytest_legalbench.llm.failures import ModelCallError
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.llm.server_capabilities import JSON_TEXT
from pytest_legalbench.llm.server_identity import ServerIdentity, host_of
from tests.support.fake_messages import (
    FakeMessages,
    Reply,
    count_reply,
    text_reply,
    tool_reply,
    usage,
)

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
VERDICT = ToolSpec(
    name="record_verdict", description="Record which answer is better.",
    input_schema={"type": "object",
                  "properties": {"verdict": {"type": "string", "enum": ["A", "B", "tie"]}},
                  "required": ["verdict"], "additionalProperties": False})
SYSTEM = [SystemBlock("You answer from the documents."),
          SystemBlock("<documents>fees</documents>", cache=True)]
ASK = [{"role": "user", "content": "Who pays?"}]


def llama_usage(input_tokens: int = 40, cache_read: int = 0,
                output_tokens: int = 7) -> dict[str, object]:
    """Usage as llama.cpp's /v1/messages reports it: no cache-write field at all."""
    return {"cache_read_input_tokens": cache_read, "input_tokens": input_tokens,
            "output_tokens": output_tokens}


def llama_error(status: int, message: str, kind: str) -> Reply:
    """An error as llama.cpp sends it: OpenAI's shape, not the Messages API's."""
    return Reply(status=status, body={"error": {"code": status, "message": message,
                                                "type": kind}})


@pytest.fixture
def fake() -> Iterator[FakeMessages]:
    with FakeMessages() as server:
        yield server


def client_for(fake: FakeMessages, kind: str | None, **settings: Any) -> ModelClient:
    identity = (None if kind is None
                else ServerIdentity(kind, host_of(fake.base_url), "named by a test"))
    config = ClientConfig(**{"backend": "anthropic", "api_key": "local",
                             "base_url": fake.base_url, "max_attempts": 1, "server": identity,
                             **settings})
    return ModelClient(config, Ledger())


def sent(fake: FakeMessages, index: int = -1) -> dict[str, Any]:
    body = fake.requests[index].body
    assert isinstance(body, dict)
    return body


def test_an_unidentified_or_generic_server_gets_the_request_claude_gets(
        fake: FakeMessages) -> None:
    bodies = []
    for kind in (None, "generic", "vllm"):
        fake.script(text_reply("ok"))
        with client_for(fake, kind) as client:
            client.complete(stage="s", model="m", system=SYSTEM, messages=ASK, max_tokens=9,
                            sampling=Sampling(temperature=0.2, seed=4))
        bodies.append(json.dumps(sent(fake), sort_keys=True))
    assert bodies[0] == bodies[1] == bodies[2]
    assert '"cache_control"' in bodies[0] and '"seed": 4' in bodies[0]


def test_llama_cpp_gets_one_system_string_and_no_seed(fake: FakeMessages) -> None:
    fake.script(text_reply("ok", usage_block=llama_usage()))
    with client_for(fake, "llama.cpp") as client:
        client.complete(stage="s", model="m", system=SYSTEM, messages=ASK, max_tokens=9,
                        sampling=Sampling(temperature=0.2, seed=4))
    body = sent(fake)
    assert body["system"] == "You answer from the documents.\n\n<documents>fees</documents>"
    assert body["temperature"] == 0.2 and "seed" not in body
    assert body["messages"] == ASK


def test_llama_cpp_calls_are_filed_under_the_server_and_its_model(fake: FakeMessages) -> None:
    fake.script(text_reply("ok", model=MODEL_FILE,
                           usage_block=llama_usage(input_tokens=12, cache_read=30)))
    with client_for(fake, "llama.cpp") as client:
        done = client.complete(stage="inject.answer", model="claude-sonnet-4-6", system=SYSTEM,
                               messages=ASK, max_tokens=9)
        call, = client.ledger.calls
    assert done.model == MODEL_FILE == call.model  # the model the server reports
    assert call.backend == f"messages-api at {host_of(fake.base_url)}"
    assert call.server == "llama.cpp"
    # The write count was never reported: named, not passed off as a measured zero.
    assert call.unreported == ("cache_creation_input_tokens",)
    assert call.usage.cache_read_input_tokens == 30 and call.usage.footprint == 42
    assert to_builtins(call)["unreported"] == ["cache_creation_input_tokens"]


def test_claude_calls_read_as_they_always_did(fake: FakeMessages) -> None:
    fake.script(text_reply("ok", usage_block=usage(5, 2, cache_write=0, cache_read=0)))
    with client_for(fake, None) as client:
        client.complete(stage="s", model="m", system=SYSTEM, messages=ASK, max_tokens=9)
        call, = client.ledger.calls
    assert call.backend == "anthropic" and call.server is None and call.unreported == ()
    assert set(to_builtins(call)) == {"stage", "model", "usage", "latency_s", "backend",
                                   "question_id", "valid"}


def test_llama_cpp_empty_tool_input_is_invalid_and_kept_raw(fake: FakeMessages) -> None:
    # llama.cpp turns tool-call arguments it cannot parse into {}: the schema check fails.
    broken = tool_reply("record_verdict", {}, model=MODEL_FILE, usage_block=llama_usage())
    truncated = Reply(body={**broken.body, "stop_reason": "max_tokens"})  # type: ignore[dict-item]
    fake.script(broken, truncated)
    with client_for(fake, "llama.cpp") as client:
        result = client.structured(stage="judge.forward", model="m", system=SYSTEM,
                                   messages=ASK, tool=VERDICT, max_tokens=16)
        calls = client.ledger.calls
    assert not result.valid and result.data is None and result.attempts == 2
    assert result.raw == '[stop_reason max_tokens] {"tool_use": "record_verdict", "input": {}}'
    assert [c.valid for c in calls] == [False, False]
    assert calls[0].raw_output == '[stop_reason tool_use] {"tool_use": "record_verdict", ' \
                                  '"input": {}}'
    # Forced tool use is still asked for by name: the server maps it to "required".
    assert sent(fake)["tool_choice"] == {"type": "tool", "name": "record_verdict"}


def test_several_calls_of_the_forced_tool_are_invalid_and_kept_raw(fake: FakeMessages) -> None:
    # What llama.cpp sent with a tool-capable template (parallel tool calls on, which the
    # Messages API's disable_parallel_tool_use does not reach): three calls of the one tool,
    # the last cut short by max_tokens and so {}. No call is picked: the reply is invalid.
    calls = [{"type": "tool_use", "id": f"t{n}", "name": "record_verdict", "input": given}
             for n, given in enumerate(({"verdict": "A"}, {"verdict": "B"}, {}))]
    doubled = Reply(body={**tool_reply("record_verdict", {}).body,  # type: ignore[dict-item]
                          "content": calls, "stop_reason": "max_tokens",
                          "usage": llama_usage()})
    fake.script(doubled, doubled)
    with client_for(fake, "llama.cpp") as client:
        result = client.structured(stage="judge.forward", model="m", system=SYSTEM,
                                   messages=ASK, tool=VERDICT, max_tokens=80)
    assert not result.valid and result.data is None
    assert result.raw == ('[stop_reason max_tokens] {"tool_use": "record_verdict", "input": '
                          '{"verdict": "A"}}\n{"tool_use": "record_verdict", "input": '
                          '{"verdict": "B"}}\n{"tool_use": "record_verdict", "input": {}}')


def test_text_where_a_tool_call_was_forced_is_kept_raw(fake: FakeMessages) -> None:
    fake.script(text_reply("Answer A is better.", usage_block=llama_usage()),
                text_reply("A", usage_block=llama_usage()))
    with client_for(fake, "llama.cpp") as client:
        result = client.structured(stage="judge.reverse", model="m", system=SYSTEM,
                                   messages=ASK, tool=VERDICT, max_tokens=16)
    assert not result.valid and result.raw == "[stop_reason end_turn] A"
    assert client.ledger.calls[0].raw_output == "[stop_reason end_turn] Answer A is better."


def test_a_valid_tool_call_keeps_no_raw_text(fake: FakeMessages) -> None:
    fake.script(tool_reply("record_verdict", {"verdict": "tie"}, usage_block=llama_usage()))
    with client_for(fake, "llama.cpp") as client:
        result = client.structured(stage="judge.forward", model="m", system=SYSTEM,
                                   messages=ASK, tool=VERDICT, max_tokens=16)
        call, = client.ledger.calls
    assert result.valid and result.data == {"verdict": "tie"} and result.raw is None
    assert call.raw_output is None and "raw_output" not in to_builtins(call)


@pytest.fixture
def rows(monkeypatch: pytest.MonkeyPatch) -> dict[str, server_capabilities.ServerCapabilities]:
    """The table with two rows of a kind that needs the other structured-output rules."""
    table = dict(server_capabilities.CAPABILITIES)
    monkeypatch.setattr(server_capabilities, "CAPABILITIES", table)
    return table


def test_llama_cpp_without_tool_use_is_asked_for_json_and_read_strictly(
        fake: FakeMessages) -> None:
    # What SmolLM2 behind llama.cpp did with forced tool use: ignored it, answered in text.
    fake.script(text_reply('Sure! {"verdict": "A"}', usage_block=llama_usage()),
                text_reply(' {"verdict": "B"}\n', usage_block=llama_usage()))
    with client_for(fake, "llama.cpp-no-tools") as client:
        result = client.structured(stage="j", model="m", system=SYSTEM, messages=ASK,
                                   tool=VERDICT, max_tokens=16)
        first = client.ledger.calls[0]
    assert result.valid and result.data == {"verdict": "B"} and result.attempts == 2
    assert first.raw_output == '[stop_reason end_turn] Sure! {"verdict": "A"}'
    body = sent(fake)
    assert "tools" not in body and "tool_choice" not in body
    # The schema goes into the prompt, after the other system blocks (joined: llama.cpp).
    assert body["system"].startswith("You answer from the documents.\n\n<documents>fees")
    assert "exactly one JSON object" in body["system"]


def test_the_json_text_rule_applies_to_any_row_that_has_it(fake: FakeMessages,
                                                           rows: dict[str, Any]) -> None:
    rows["vllm"] = dataclasses.replace(rows["vllm"], structured=JSON_TEXT)
    fake.script(text_reply('{"verdict": "tie"}'))
    with client_for(fake, "vllm") as client:
        result = client.structured(stage="j", model="m", system=SYSTEM, messages=ASK,
                                   tool=VERDICT, max_tokens=16)
    assert result.valid and "tools" not in sent(fake)
    assert "exactly one JSON object" in sent(fake)["system"][-1]["text"]  # blocks kept apart


def test_json_text_that_breaks_the_schema_is_invalid(fake: FakeMessages) -> None:
    fake.script(text_reply('{"verdict": "maybe"}'), text_reply('{"verdict": "A", "x": 1}'))
    with client_for(fake, "llama.cpp-no-tools") as client:
        result = client.structured(stage="j", model="m", system=SYSTEM, messages=ASK,
                                   tool=VERDICT, max_tokens=16)
    assert not result.valid and result.raw == '[stop_reason end_turn] {"verdict": "A", "x": 1}'


def test_llama_cpp_errors_keep_their_message_and_status(fake: FakeMessages) -> None:
    fake.script(llama_error(400, "request (9301 tokens) exceeds the available context size "
                                 "(8192 tokens), try increasing it",
                            "exceed_context_size_error"))
    with client_for(fake, "llama.cpp") as client, pytest.raises(ModelCallError) as raised:
        client.complete(stage="inject.answer", model="m", system=SYSTEM, messages=ASK,
                        max_tokens=9, question_id="q1")
    assert raised.value.status == 400 and "exceeds the available context size" in str(
        raised.value)
    assert len(fake.requests) == 1  # a 400 is not retried


def test_llama_cpp_500s_are_final_where_claude_s_are_retried(fake: FakeMessages) -> None:
    # llama.cpp answers 500 when its handler throws on the request (here: no messages); the
    # same request would get the same answer.
    thrown = llama_error(500, "'messages' is required", "server_error")
    fake.script(thrown)
    with client_for(fake, "llama.cpp", max_attempts=3) as client, \
            pytest.raises(ModelCallError, match="'messages' is required"):
        client.complete(stage="s", model="m", system=SYSTEM, messages=ASK, max_tokens=9)
    assert len(fake.requests) == 1
    fake.script(thrown, text_reply("ok"))
    config = ClientConfig(backend="anthropic", api_key="k", base_url=fake.base_url,
                          max_attempts=3)
    with ModelClient(config, Ledger(), sleep=lambda _: None) as client:
        assert client.complete(stage="s", model="m", system=SYSTEM, messages=ASK,
                               max_tokens=9).text == "ok"
    assert len(fake.requests) == 3  # Claude (and an unidentified server): retried


def test_count_tokens_is_asked_as_the_request_would_be_sent(fake: FakeMessages) -> None:
    fake.script(count_reply(31))
    with client_for(fake, "llama.cpp") as client:
        assert client.count_tokens(model="m", system=SYSTEM, messages=ASK) == 31
    assert fake.requests[0].path == "/v1/messages/count_tokens"
    assert sent(fake)["system"] == "You answer from the documents.\n\n<documents>fees</documents>"
