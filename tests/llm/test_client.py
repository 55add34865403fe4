"""The model client against a scripted local Messages API: retries, usage, tools, errors."""

from __future__ import annotations

import pickle
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from pytest_legalbench.llm.call_types import Completion, StructuredResult, SystemBlock, ToolSpec
from pytest_legalbench.llm.client import (
    BackendConfigError,
    ClientConfig,
    ModelClient,
    resolve_backend,
)
from pytest_legalbench.llm.failures import ModelCallError
from pytest_legalbench.llm.ledger import Ledger, Usage
from pytest_legalbench.llm.schema import SchemaError
from tests.support.fake_messages import (
    FakeMessages,
    Reply,
    count_reply,
    error_reply,
    text_reply,
    tool_reply,
    usage,
)

VERDICT = ToolSpec(
    name="record_verdict", description="Record which answer is better.",
    input_schema={"type": "object",
                  "properties": {"verdict": {"type": "string", "enum": ["A", "B", "tie"]},
                                 "reason": {"type": "string"}},
                  "required": ["verdict", "reason"], "additionalProperties": False})
SYSTEM = [SystemBlock("You answer from the documents."), SystemBlock("<documents/>", cache=True)]
ASK = [{"role": "user", "content": "<question>\nWho pays?\n</question>"}]


class Harness:
    """A fake server, a ledger, recorded sleeps and a client wired to them."""

    def __init__(self, fake: FakeMessages, *, clock: Callable[[], float] = time.monotonic,
                 **settings: Any) -> None:
        self.fake = fake
        self.ledger = Ledger()
        self.sleeps: list[float] = []
        config = ClientConfig(backend="anthropic", api_key="test-key", base_url=fake.base_url,
                              **settings)
        self.client = ModelClient(config, self.ledger, sleep=self.sleeps.append,
                                  random=lambda: 0.5, clock=clock)

    def complete(self, **overrides: Any) -> Completion:
        params: dict[str, Any] = {"stage": "inject.answer", "model": "claude-test",
                                  "system": SYSTEM, "messages": ASK, "max_tokens": 64,
                                  "question_id": "q-7"}
        return self.client.complete(**{**params, **overrides})

    def judge(self) -> StructuredResult:
        return self.client.structured(stage="judge.forward", model="claude-test", system=SYSTEM,
                                      messages=ASK, tool=VERDICT, max_tokens=64,
                                      question_id="q-7")


@pytest.fixture
def fake() -> Iterator[FakeMessages]:
    with FakeMessages() as server:
        yield server
    assert server.pending == 0, "a scripted reply was never requested"


MakeHarness = Callable[..., Harness]


@pytest.fixture
def harness(fake: FakeMessages) -> Iterator[MakeHarness]:
    """Build harnesses on ``fake``; their clients are closed after the test."""
    made: list[Harness] = []

    def make(**settings: Any) -> Harness:
        made.append(Harness(fake, **settings))
        return made[-1]

    yield make
    for built in made:
        built.client.close()


def test_completion_maps_text_usage_and_records_the_call(harness: MakeHarness,
                                                         fake: FakeMessages) -> None:
    fake.script(text_reply("The Distributor ", "pays.", model="claude-reported",
                           usage_block=usage(120, 9, cache_write=4000, cache_read=0)))
    h = harness()
    answer = h.complete()
    assert answer.text == "The Distributor pays."
    assert answer.model == "claude-reported" and answer.stop_reason == "end_turn"
    assert answer.usage == Usage(120, 4000, 0, 9)
    (call,) = h.ledger.calls
    assert (call.stage, call.model, call.question_id, call.backend, call.valid) == (
        "inject.answer", "claude-reported", "q-7", "anthropic", True)
    assert call.usage == answer.usage and call.latency_s == answer.latency_s >= 0
    (sent,) = fake.requests
    assert sent.path == "/v1/messages"
    assert sent.headers["authorization"] == "Bearer test-key"
    assert isinstance(sent.body, dict)
    assert sent.body["system"] == [
        {"type": "text", "text": "You answer from the documents."},
        {"type": "text", "text": "<documents/>", "cache_control": {"type": "ephemeral"}}]
    assert sent.body["messages"] == ASK and sent.body["max_tokens"] == 64
    # The 2026-10-21 API rejects sampling parameters, so none are sent.
    assert not {"temperature", "top_p", "top_k", "tools"} & set(sent.body)


def test_absent_or_null_cache_counts_are_zero(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(text_reply(usage_block=usage(7, 3, cache_write=None, cache_read=None)),
                text_reply(usage_block={"input_tokens": 7, "output_tokens": 3}))
    h = harness()
    assert h.complete().usage == Usage(7, 0, 0, 3)
    assert h.complete().usage == Usage(7, 0, 0, 3)
    assert h.ledger.total() == Usage(14, 0, 0, 6)


def test_cache_read_is_kept_apart_from_uncached_input(harness: MakeHarness,
                                                      fake: FakeMessages) -> None:
    fake.script(text_reply(usage_block=usage(50, 4, cache_write=0, cache_read=9000)))
    result = harness().complete()
    assert result.usage.cache_read_input_tokens == 9000
    assert result.usage.input_tokens == 50 and result.usage.footprint == 9050


@pytest.mark.parametrize("status", [429, 500, 503, 529])
def test_retryable_status_then_success(harness: MakeHarness,
                                       fake: FakeMessages, status: int) -> None:
    fake.script(error_reply(status, "busy"), error_reply(status, "busy"), text_reply("done"))
    h = harness()
    assert h.complete().text == "done"
    # Full jitter with random() = 0.5: half of base * 2**retry.
    assert h.sleeps == [0.5, 1.0]
    assert len(fake.requests) == 3 and len(h.ledger) == 1


def test_backoff_grows_then_stops_at_the_cap(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(*[error_reply(529, "overloaded")] * 5, text_reply("late"))
    h = harness(max_attempts=6, backoff_base_s=1.0, backoff_cap_s=5.0)
    assert h.complete().text == "late"
    assert h.sleeps == [0.5, 1.0, 2.0, 2.5, 2.5]


def test_retry_after_is_honoured_and_capped(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(error_reply(429, "slow down", headers={"retry-after": "3"}),
                error_reply(429, "slow down", headers={"retry-after": "600"}),
                error_reply(429, "slow down", headers={"retry-after-ms": "1500"}),
                text_reply("ok"))
    h = harness(backoff_cap_s=30.0)
    h.complete()
    assert h.sleeps == [3.0, 30.0, 1.5]


def test_timeout_is_retried(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(Reply(body={}, delay_s=5.0), text_reply("after the timeout"))
    h = harness(timeout_s=0.3)
    assert h.complete().text == "after the timeout"
    assert h.sleeps == [0.5] and len(fake.requests) == 2


def test_timeouts_exhaust_the_attempts(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(Reply(delay_s=5.0), Reply(delay_s=5.0))
    h = harness(timeout_s=0.2, max_attempts=2)
    with pytest.raises(ModelCallError) as caught:
        h.complete()
    assert caught.value.status is None
    assert "gave up after 2 attempts" in str(caught.value)
    assert "no response within 0.2 s" in str(caught.value)


def test_exhausted_attempts_name_stage_question_and_status(harness: MakeHarness,
                                                           fake: FakeMessages) -> None:
    fake.script(*[error_reply(529, "Overloaded")] * 3)
    h = harness(max_attempts=3)
    with pytest.raises(ModelCallError) as caught:
        h.complete(stage="navembed.answer", question_id="txn-012")
    error = caught.value
    assert (error.stage, error.question_id, error.status) == ("navembed.answer", "txn-012", 529)
    assert str(error) == ("model call for stage 'navembed.answer', question txn-012 failed "
                          "(HTTP 529): gave up after 3 attempts: Overloaded")
    assert len(h.sleeps) == 2 and len(fake.requests) == 3 and len(h.ledger) == 0


def test_retry_budget_bounds_the_total_wait(harness: MakeHarness, fake: FakeMessages) -> None:
    wait = {"retry-after": "4"}
    fake.script(error_reply(429, "later", headers=wait), error_reply(429, "later", headers=wait))
    h = harness(retry_budget_s=5.0, clock=lambda: 0.0)
    with pytest.raises(ModelCallError, match="retry budget of 5 s would be exceeded"):
        h.complete()
    assert h.sleeps == [4.0]


@pytest.mark.parametrize(("status", "kind"), [(400, "invalid_request_error"),
                                              (401, "authentication_error"),
                                              (404, "not_found_error")])
def test_other_errors_are_not_retried(harness: MakeHarness,
                                      fake: FakeMessages, status: int, kind: str) -> None:
    fake.script(error_reply(status, f"bad thing {status}", error_type=kind))
    h = harness()
    with pytest.raises(ModelCallError) as caught:
        h.complete(question_id=None)
    assert caught.value.status == status and caught.value.message == f"bad thing {status}"
    assert str(caught.value).startswith("model call for stage 'inject.answer', question (none)")
    assert h.sleeps == [] and len(fake.requests) == 1


def test_error_without_json_body_still_names_the_status(harness: MakeHarness,
                                                        fake: FakeMessages) -> None:
    fake.script(Reply(status=403, raw=b"forbidden by proxy"))
    with pytest.raises(ModelCallError, match=r"HTTP 403\): forbidden by proxy"):
        harness().complete()


def test_connection_refused_is_retried_then_reported() -> None:
    with FakeMessages() as gone:
        url = gone.base_url
    sleeps: list[float] = []
    config = ClientConfig(backend="anthropic", api_key="k", base_url=url, max_attempts=3)
    client = ModelClient(config, Ledger(), sleep=sleeps.append, random=lambda: 1.0)
    with client, pytest.raises(ModelCallError, match="connection failed") as caught:
        client.complete(stage="inject.answer", model="m", system=[], messages=ASK, max_tokens=8)
    assert caught.value.status is None and sleeps == [1.0, 2.0]


def test_structured_valid_first_time(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(tool_reply("record_verdict", {"verdict": "A", "reason": "cites 2.1"}))
    h = harness()
    result = h.judge()
    assert result == StructuredResult({"verdict": "A", "reason": "cites 2.1"}, True, 1,
                                      Usage(10, 0, 0, 5))
    (sent,) = fake.requests
    assert isinstance(sent.body, dict)
    assert sent.body["tool_choice"] == {"type": "tool", "name": "record_verdict"}
    assert sent.body["tools"][0]["input_schema"]["required"] == ["verdict", "reason"]
    assert [c.valid for c in h.ledger.calls] == [True]


def test_structured_invalid_then_valid(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(tool_reply("record_verdict", {"verdict": "C", "reason": "?"}),
                tool_reply("record_verdict", {"verdict": "tie", "reason": "same facts"}))
    h = harness()
    result = h.judge()
    assert result.valid and result.attempts == 2
    assert result.data == {"verdict": "tie", "reason": "same facts"}
    assert result.usage == Usage(20, 0, 0, 10) == h.ledger.total()
    assert [c.valid for c in h.ledger.calls] == [False, True]


@pytest.mark.parametrize("bad", [
    tool_reply("record_verdict", {"verdict": "A"}),
    tool_reply("record_verdict", {"verdict": "A", "reason": "x", "extra": 1}),
    tool_reply("record_verdict", ["A", "x"]),
    tool_reply("select_nodes", {"verdict": "A", "reason": "x"}),
    text_reply("I think A is better."),
])
def test_structured_invalid_twice_is_recorded_not_guessed(harness: MakeHarness, fake: FakeMessages,
                                                           bad: Reply) -> None:
    fake.script(bad, bad)
    h = harness()
    result = h.judge()
    assert (result.data, result.valid, result.attempts) == (None, False, 2)
    assert [(c.stage, c.valid, c.question_id) for c in h.ledger.calls] == [
        ("judge.forward", False, "q-7")] * 2


def test_structured_transport_retries_do_not_count_as_attempts(harness: MakeHarness,
                                                               fake: FakeMessages) -> None:
    fake.script(error_reply(529, "busy"), tool_reply("record_verdict",
                                                     {"verdict": "B", "reason": "r"}))
    h = harness()
    assert h.judge().attempts == 1 and h.sleeps == [0.5]


def test_count_tokens_is_not_a_ledger_call(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(error_reply(500, "hiccup"), count_reply(4242))
    h = harness()
    assert h.client.count_tokens(model="claude-test", system=SYSTEM, messages=ASK) == 4242
    assert fake.requests[-1].path == "/v1/messages/count_tokens" and len(h.ledger) == 0


def test_unscripted_request_fails_loudly(harness: MakeHarness, fake: FakeMessages) -> None:
    with pytest.raises(ModelCallError, match="script exhausted at request 1"):
        harness().complete()


def test_fake_server_releases_its_port() -> None:
    fake = FakeMessages().start()
    port = fake.port
    fake.stop()
    fake.stop()  # idempotent
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


def test_a_closed_client_reopens_on_the_next_call(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(text_reply("a"), text_reply("b"))
    with harness().client as client:
        client.complete(stage="s", model="m", system=[], messages=ASK, max_tokens=8)
    # A closed client reopens lazily rather than failing.
    assert client.complete(stage="s", model="m", system=[], messages=ASK, max_tokens=8).text == "b"
    client.close()


@pytest.mark.parametrize(("requested", "env", "backend", "key"), [
    (None, {}, "reference", None),
    (None, {"ANTHROPIC_API_KEY": ""}, "reference", None),
    (None, {"ANTHROPIC_API_KEY": "sk-1"}, "anthropic", "sk-1"),
    ("reference", {"ANTHROPIC_API_KEY": "sk-1"}, "reference", None),
    ("anthropic", {"ANTHROPIC_API_KEY": "sk-1"}, "anthropic", "sk-1"),
])
def test_resolve_backend(requested: str | None, env: Mapping[str, str], backend: str,
                         key: str | None) -> None:
    config = resolve_backend(requested, env)
    assert (config.backend, config.api_key) == (backend, key)


def test_resolve_backend_takes_the_base_url_from_the_environment() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:8000"}
    assert resolve_backend(None, env).base_url == "http://127.0.0.1:8000"


def test_anthropic_without_a_key_is_a_clear_error() -> None:
    with pytest.raises(BackendConfigError, match="ANTHROPIC_API_KEY is not set"):
        resolve_backend("anthropic", {"ANTHROPIC_BASE_URL": "http://x"})
    with pytest.raises(BackendConfigError, match="unknown backend 'claude'"):
        resolve_backend("claude", {})


def test_client_refuses_unusable_configs() -> None:
    with pytest.raises(BackendConfigError, match="base_url of a running ReferenceBackend"):
        ModelClient(ClientConfig(), Ledger())
    with pytest.raises(BackendConfigError, match="needs an API key"):
        ModelClient(ClientConfig(backend="anthropic"), Ledger())
    with pytest.raises(BackendConfigError, match="timeout_s must be a positive number"):
        ClientConfig(timeout_s=0)
    with pytest.raises(BackendConfigError, match="max_attempts must be an integer >= 1"):
        ClientConfig(max_attempts=0)


def test_reference_config_sends_a_placeholder_key(fake: FakeMessages) -> None:
    fake.script(text_reply("extractive"))
    with ModelClient(ClientConfig(base_url=fake.base_url), Ledger()) as client:
        client.complete(stage="s", model="m", system=[], messages=ASK, max_tokens=8)
    assert fake.requests[0].headers["authorization"] == "Bearer reference"
    assert client.ledger.calls[0].backend == "reference"


def test_tool_spec_rejects_schemas_we_cannot_check() -> None:
    with pytest.raises(SchemaError, match=r"properties\.n: unsupported keyword 'minimum'"):
        ToolSpec("t", "d", {"type": "object", "properties": {"n": {"minimum": 1}}})
    with pytest.raises(SchemaError, match="the type must be .object."):
        ToolSpec("t", "d", {"type": "array"})


def test_importing_the_client_does_not_import_the_sdk() -> None:
    code = ("import sys, pytest_legalbench.llm.client\n"
            "assert 'anthropic' not in sys.modules, 'anthropic imported eagerly'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("reply", "problem"), [
    (Reply(body={}), "response content is not a list of blocks"),
    (Reply(body={"content": [], "model": "m"}), "no usage block"),
    (Reply(body={"content": [], "usage": {"input_tokens": -1, "output_tokens": 0}}),
     "malformed usage in response: usage field 'input_tokens'"),
    (Reply(body={"content": [], "usage": "lots"}), "malformed usage in response: Input should be a dictionary"),
    (Reply(raw=b"<html>gateway</html>"), "unreadable response"),
])
def test_malformed_success_replies_fail_clearly(harness: MakeHarness, fake: FakeMessages,
                                                reply: Reply, problem: str) -> None:
    fake.script(reply)
    h = harness()
    with pytest.raises(ModelCallError, match=problem) as caught:
        h.complete()
    assert caught.value.stage == "inject.answer" and h.sleeps == [] and len(h.ledger) == 0


def test_missing_model_name_falls_back_to_the_requested_one(harness: MakeHarness,
                                                            fake: FakeMessages) -> None:
    fake.script(Reply(body={"content": [{"type": "text", "text": "x"}], "usage": usage()}))
    h = harness()
    assert h.complete(model="asked-for").model == "asked-for"
    assert h.ledger.calls[0].model == "asked-for"


def test_bad_token_count_fails_clearly(harness: MakeHarness, fake: FakeMessages) -> None:
    fake.script(Reply(body={"input_tokens": None}))
    with pytest.raises(ModelCallError, match="input_tokens=None"):
        harness().client.count_tokens(model="m", system=[], messages=ASK)


def test_model_call_error_survives_pickling() -> None:
    error = ModelCallError("judge.reverse", "q1", 529, "busy")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.stage, copy.question_id, copy.status, str(copy)) == (
        "judge.reverse", "q1", 529, str(error))


def test_round_trip_through_the_reference_backend() -> None:
    from pytest_legalbench.reference_backend import REFERENCE_MODEL, ReferenceBackend

    corpus = ('<documents>\n<document doc_id="acme-01" title="Supply Agreement">\n1. Payment\n'
              '1.1 The Buyer shall pay each invoice within 30 days of receipt.\n</document>\n'
              '</documents>')
    system = [SystemBlock("Answer from the documents."), SystemBlock(corpus, cache=True)]
    question = [{"role": "user",
                 "content": "<question>\nWhen must the Buyer pay an invoice?\n</question>"}]
    ledger = Ledger()
    with ReferenceBackend() as backend, ModelClient(
            ClientConfig(base_url=backend.base_url), ledger) as client:
        first, second = (client.complete(stage="inject.answer", model="any", system=system,
                                         messages=question, max_tokens=256)
                         for _ in range(2))
        verdict = client.structured(
            stage="judge.forward", model="any", system=[SystemBlock("Judge.")], tool=VERDICT,
            max_tokens=256, messages=[{"role": "user", "content": (
                "<question>\nWhen?\n</question>\n<reference>\nWithin 30 days.\n</reference>\n"
                "<answer_a>\nWithin 30 days.\n</answer_a>\n<answer_b>\nWithin 60 days.\n"
                "</answer_b>")}])
    assert "[acme-01]" in first.text and first.model == REFERENCE_MODEL
    written = first.usage.cache_creation_input_tokens
    assert written > 0 and first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == written
    assert second.usage.cache_creation_input_tokens == 0
    assert verdict.valid and verdict.data is not None and verdict.data["verdict"] == "A"
    assert [c.backend for c in ledger.calls] == ["reference"] * 3
