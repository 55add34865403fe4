"""Usage records add up; calls round-trip through plain dicts (their JSON layout, written
and read through ``files.record_json``); the ledger is thread-safe."""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.files.record_json import from_builtins, to_builtins
from pytest_legalbench.llm.ledger import (
    Call,
    Ledger,
    LedgerFormatError,
    ToolEvent,
    Usage,
    sum_usage,
)

counts = st.integers(min_value=0, max_value=10**9)
usages = st.builds(Usage, counts, counts, counts, counts)
stages = st.sampled_from(["inject.answer", "navindex.scan", "navindex.answer", "judge.forward"])
calls = st.builds(Call, stage=stages, model=st.sampled_from(["m-a", "m-b"]), usage=usages,
                  latency_s=st.floats(min_value=0, max_value=600, allow_nan=False),
                  backend=st.sampled_from(["reference", "anthropic"]),
                  question_id=st.none() | st.text(min_size=1, max_size=8),
                  valid=st.booleans(), batch=st.booleans())


def read_call(data: object) -> Call:
    return from_builtins(Call, data, what="call", error=LedgerFormatError)


def read_event(data: object) -> ToolEvent:
    return from_builtins(ToolEvent, data, what="tool event", error=LedgerFormatError)


def read_usage(data: object) -> Usage:
    return from_builtins(Usage, data, what="usage", error=LedgerFormatError)


def test_footprint_counts_every_input_attended_but_not_output() -> None:
    usage = Usage(input_tokens=120, cache_creation_input_tokens=40_000,
                  cache_read_input_tokens=3, output_tokens=900)
    assert usage.footprint == 40_123


def test_addition_is_field_wise() -> None:
    total = Usage(1, 2, 3, 4) + Usage(10, 20, 30, 40)
    assert total == Usage(11, 22, 33, 44)
    assert sum_usage([]) == Usage()


@given(usages, usages, usages)
def test_usage_addition_is_associative_and_commutative(a: Usage, b: Usage, c: Usage) -> None:
    assert (a + b) + c == a + (b + c)
    assert a + b == b + a
    assert a + Usage() == a == Usage() + a


@given(usages)
def test_footprint_is_uncached_plus_write_plus_read(usage: Usage) -> None:
    assert usage.footprint == (usage.input_tokens + usage.cache_creation_input_tokens
                               + usage.cache_read_input_tokens)


@given(st.lists(calls, max_size=30))
def test_ledger_total_and_stages_are_the_sum_of_calls(recorded: list[Call]) -> None:
    ledger = Ledger()
    for call in recorded:
        ledger.record(call)
    assert ledger.calls == tuple(recorded) and len(ledger) == len(recorded)
    expected = Usage(*(sum(getattr(c.usage, name) for c in recorded)
                       for name in ("input_tokens", "cache_creation_input_tokens",
                                    "cache_read_input_tokens", "output_tokens")))
    assert ledger.total() == expected
    assert sum_usage(ledger.by_stage().values()) == expected
    assert ledger.total().footprint == sum(c.usage.footprint for c in recorded)
    assert list(ledger.by_stage()) == list(dict.fromkeys(c.stage for c in recorded))


@given(calls)
def test_a_call_round_trips_through_json(call: Call) -> None:
    assert read_call(json.loads(json.dumps(to_builtins(call)))) == call


def test_usage_from_the_sdk_shape_treats_none_as_zero_and_ignores_extras() -> None:
    sdk_usage = {"input_tokens": 17, "cache_creation_input_tokens": None,
                 "cache_read_input_tokens": None, "output_tokens": 5,
                 "server_tool_use": None, "service_tier": "standard",
                 "cache_creation": {"ephemeral_5m_input_tokens": 0}}
    assert read_usage(sdk_usage) == Usage(input_tokens=17, output_tokens=5)
    assert read_usage({}) == Usage()


@pytest.mark.parametrize("bad", [-1, 1.5, "12", True])
def test_a_bad_count_is_an_error_naming_the_field(bad: object) -> None:
    with pytest.raises(LedgerFormatError, match="cache_read_input_tokens"):
        read_usage({"cache_read_input_tokens": bad})
    with pytest.raises(LedgerFormatError, match="'output_tokens'"):
        Usage(output_tokens=bad)  # type: ignore[arg-type]


def test_a_malformed_call_dict_names_the_field() -> None:
    good = to_builtins(Call("inject.answer", "m", Usage(1, 0, 0, 1), 0.5, "reference", "q1"))
    with pytest.raises(LedgerFormatError, match="^call: latency_ms: Unexpected keyword"):
        read_call({**good, "latency_ms": 3})
    with pytest.raises(LedgerFormatError, match="'stage' must be a non-empty string"):
        read_call({**good, "stage": ""})
    with pytest.raises(LedgerFormatError, match="'question_id'"):
        read_call({**good, "question_id": ""})
    with pytest.raises(LedgerFormatError, match="'question_id'"):
        Call("s", "m", Usage(), 0.0, "reference", question_id="")
    with pytest.raises(LedgerFormatError, match="'latency_s' must be a finite number"):
        read_call({**good, "latency_s": -0.1})
    with pytest.raises(LedgerFormatError, match="^call: valid: Input should be a valid boolean"):
        read_call({**good, "valid": "yes"})
    with pytest.raises(LedgerFormatError, match="^call: usage: "):
        read_call({**good, "usage": None})
    with pytest.raises(LedgerFormatError, match="^call: Input should be a dictionary"):
        read_call(["not", "a", "dict"])


def test_the_ledger_records_only_calls() -> None:
    with pytest.raises(TypeError, match="Usage"):
        Ledger().record(Usage(1, 0, 0, 0))  # type: ignore[arg-type]


def test_concurrent_recording_loses_nothing() -> None:
    ledger = Ledger()
    call = Call("navindex.scan", "m", Usage(3, 5, 7, 11), 0.01, "reference")

    def record_many() -> None:
        for _ in range(500):
            ledger.record(call)

    workers = [threading.Thread(target=record_many) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(ledger) == 4000
    assert ledger.total() == Usage(3 * 4000, 5 * 4000, 7 * 4000, 11 * 4000)
    assert ledger.by_stage() == {"navindex.scan": ledger.total()}


def test_third_party_fields_round_trip_and_appear_only_when_set() -> None:
    call = Call(stage="judge.forward", model="SmolLM2-135M-Instruct.Q4_1.gguf",
                usage=Usage(input_tokens=30, cache_read_input_tokens=12, output_tokens=4),
                latency_s=0.4, backend="messages-api at 127.0.0.1:8080", server="llama.cpp",
                unreported=("cache_creation_input_tokens",), valid=False,
                raw_output='[stop_reason max_tokens] {"tool_use": "record_verdict"}')
    data = to_builtins(call)
    assert data["server"] == "llama.cpp" and data["unreported"] == ["cache_creation_input_tokens"]
    assert read_call(data) == call
    plain = Call(stage="s", model="m", usage=Usage(), latency_s=0.0, backend="reference")
    assert set(to_builtins(plain)) == {"stage", "model", "usage", "latency_s", "backend",
                                       "question_id", "valid"}


def test_third_party_fields_are_checked() -> None:
    base = {"stage": "s", "model": "m", "usage": {}, "latency_s": 0.0, "backend": "b"}
    with pytest.raises(LedgerFormatError, match="'unreported' must list cache usage fields"):
        read_call({**base, "unreported": ["output_tokens"]})
    with pytest.raises(LedgerFormatError, match="unreported: Input should be a valid tuple"):
        read_call({**base, "unreported": "cache_read_input_tokens"})
    with pytest.raises(LedgerFormatError, match="raw_output: Input should be a valid string"):
        read_call({**base, "raw_output": 7})
    with pytest.raises(LedgerFormatError, match="'server' must be None or a non-empty string"):
        read_call({**base, "server": ""})


def test_a_tool_event_keeps_the_ids_a_result_named_and_an_errors_text() -> None:
    data = {"hits": [{"node_id": "lease:2.1", "snippet": "Rent is ..."},
                     {"node_id": "lease:5", "cites": [{"node_id": "lease:2.1"}]}],
            "node_id": "lease:1", "tokens": 40}
    event = ToolEvent.of_result("search", '{"query":"rent"}', 120, data=data)
    assert event.node_ids == ("lease:2.1", "lease:5", "lease:1") and not event.error
    assert to_builtins(event) == {"name": "search", "arguments": '{"query":"rent"}',
                                  "result_tokens": 120, "error": False,
                                  "node_ids": ["lease:2.1", "lease:5", "lease:1"]}
    assert read_event(to_builtins(event)) == event
    failed = ToolEvent.of_result("read_provision", "{}", 30, message="x" * 1000)
    assert failed.error and failed.node_ids == () and len(failed.message or "") == 400
    assert to_builtins(failed)["message"] == "x" * 397 + "..."
    assert read_event(to_builtins(failed)) == failed
    many = ToolEvent.of_result("outline", "{}", 9, data={"outline": [
        {"node_id": f"d:{i}"} for i in range(120)]})
    assert len(many.node_ids) == 50 and many.more_node_ids == 70
    assert read_event(to_builtins(many)) == many


def test_a_tool_event_written_before_ids_were_kept_still_reads() -> None:
    old = {"name": "search", "arguments": "{}", "result_tokens": 5, "error": True}
    assert read_event(old) == ToolEvent("search", "{}", 5, True)
    for broken, field in (({**old, "node_ids": "lease:1"}, "node_ids"),
                          ({**old, "node_ids": [3]}, "node_ids.0"),
                          ({**old, "more_node_ids": -1}, "must be non-negative"),
                          ({**old, "message": 4}, "message"),
                          ({**old, "result_tokens": True}, "result_tokens")):
        with pytest.raises(LedgerFormatError, match=f"^tool event: .*{field}"):
            read_event(broken)
