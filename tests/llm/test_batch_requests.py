"""Batch requests: custom ids the API accepts, params byte-identical to the interactive
client's, and the split into as few batches as the limits allow."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.llm.backend import ClientConfig
from pytest_legalbench.llm.batch_requests import (
    CUSTOM_ID,
    BatchRequest,
    BatchRequestError,
    completion_params,
    custom_id,
    params_bytes,
    split_batches,
)
from pytest_legalbench.llm.call_types import Sampling
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.ledger import Ledger
from tests.support.batch_samples import SYSTEM, VERDICT, answer_params, lease_messages
from tests.support.fake_messages import FakeMessages, text_reply, tool_reply


@given(st.lists(st.text(min_size=1, max_size=80), min_size=1, max_size=5))
def test_a_custom_id_from_any_parts_matches_the_apis_pattern(parts: list[str]) -> None:
    made = custom_id(*parts)
    assert CUSTOM_ID.fullmatch(made)
    assert made == custom_id(*parts)


def test_custom_ids_keep_readable_parts_and_stay_unique_when_cut() -> None:
    assert custom_id("glufox-royalty-base", "navembed:closure", "judge", "forward") == \
        "glufox-royalty-base-navembed_closure-judge-forward"
    long_a = custom_id("q" * 70, "navindex", "scan")
    long_b = custom_id("q" * 70, "navindex", "answer")
    assert len(long_a) == len(long_b) == 64 and long_a != long_b
    assert long_a.startswith("q" * 47 + "-")
    with pytest.raises(BatchRequestError, match="at least one non-empty part"):
        custom_id("")


@pytest.mark.parametrize(("custom", "params", "message"), [
    ("has space", {"max_tokens": 1, "messages": [], "model": "m"}, "does not match"),
    ("ok", {"messages": [], "model": "m"}, "request ok: params lack max_tokens"),
    ("ok", {"max_tokens": 1, "messages": [], "model": "m", "stream": True},
     "request ok: a batch request cannot stream")])
def test_a_request_the_api_would_refuse_is_refused_here(custom: str, params: dict[str, object],
                                                        message: str) -> None:
    with pytest.raises(BatchRequestError, match=message):
        BatchRequest(custom, params)


def test_the_params_are_the_interactive_clients_bytes() -> None:
    """complete, structured and a converse turn: the body ModelClient sends, byte for byte."""
    sampling = Sampling(temperature=0.7, seed=3)
    with FakeMessages(text_reply("900 euros"), tool_reply(VERDICT.name, {"verdict": "A",
                                                                          "reason": "r"}),
                      text_reply("done")) as fake:
        config = ClientConfig(backend="anthropic", api_key="k", base_url=fake.base_url,
                              send_sampling=True)
        with ModelClient(config, Ledger()) as client:
            client.complete(stage="s", model="claude-test", system=SYSTEM,
                            messages=lease_messages(900), max_tokens=300, sampling=sampling)
            client.structured(stage="s", model="claude-test", system=SYSTEM,
                              messages=lease_messages(900), tool=VERDICT, max_tokens=512)
            client.converse(stage="s", model="claude-test", system=SYSTEM,
                            messages=lease_messages(900), tools=[VERDICT], max_tokens=64)
        sent = [request.body for request in fake.requests]
    ours = [completion_params(model="claude-test", system=SYSTEM, messages=lease_messages(900),
                              max_tokens=300, sampling=sampling, send_sampling=True),
            completion_params(model="claude-test", system=SYSTEM, messages=lease_messages(900),
                              max_tokens=512, tool=VERDICT),
            completion_params(model="claude-test", system=SYSTEM, messages=lease_messages(900),
                              max_tokens=64, tools=[VERDICT], tool_choice="auto")]
    assert [params_bytes(body) for body in sent] == [params_bytes(p) for p in ours]  # type: ignore[arg-type]


def test_sampling_is_left_out_unless_the_server_takes_it() -> None:
    params = completion_params(model="m", system=SYSTEM, messages=lease_messages(900),
                               max_tokens=10, sampling=Sampling(0.7, 3))
    assert "temperature" not in params and "seed" not in params
    with pytest.raises(ValueError, match="not both"):
        completion_params(model="m", system=SYSTEM, messages=[], max_tokens=1, tool=VERDICT,
                          tools=[VERDICT])


def requests(count: int) -> list[BatchRequest]:
    return [BatchRequest(f"r{n:03d}", answer_params(900 + n)) for n in range(count)]


def test_batches_are_cut_at_the_request_limit() -> None:
    cut = split_batches(requests(7), max_requests=3)
    assert [[r.custom_id for r in batch] for batch in cut] == [
        ["r000", "r001", "r002"], ["r003", "r004", "r005"], ["r006"]]


def test_batches_are_cut_at_the_byte_limit_of_a_create_body() -> None:
    made = requests(5)
    size = made[0].size  # every request here serialises to the same length
    assert {r.size for r in made} == {size}
    two = params_bytes({"requests": [r.to_param() for r in made[:2]]})
    assert len(two) == len(b'{"requests":[]}') + 2 * size + 1  # the comma between them
    # Room for exactly two requests per body, then for one.
    assert [len(batch) for batch in split_batches(made, max_bytes=len(two))] == [2, 2, 1]
    assert len(split_batches(made, max_bytes=len(two) - 1)) == 5
    one = len(b'{"requests":[]}') + size
    with pytest.raises(BatchRequestError, match=rf"request r000 alone makes a create body of "
                                                rf"{one:,} bytes"):
        split_batches(made, max_bytes=one - 1)


def test_a_custom_id_used_twice_is_refused() -> None:
    twice = [BatchRequest("same", answer_params(900)), BatchRequest("same", answer_params(901))]
    with pytest.raises(BatchRequestError, match="custom id same is used by two requests"):
        split_batches(twice)


def test_one_batch_holds_everything_under_the_api_limits() -> None:
    assert len(split_batches(requests(40))) == 1
