"""The reference backend's Message Batches endpoints, driven through the SDK's own
``client.messages.batches`` (no network): the life cycle and request counts the API reports,
results as JSON Lines matched by custom id, exactly the interactive answers, cancel, delete,
list pages, the checks a create body gets, and every request counted once."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from pytest_legalbench.reference_backend import ReferenceBackend
from pytest_legalbench.reference_backend.batches import params_digest
from tests.support.batch_samples import RENTS, FakeClock, answer_params, judging_request

DELAY_S = 30.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def backend(clock: FakeClock) -> Iterator[ReferenceBackend]:
    with ReferenceBackend(clock=clock, batch_delay_s=DELAY_S) as running:
        yield running


@pytest.fixture
def sdk(backend: ReferenceBackend) -> Iterator[anthropic.Anthropic]:
    client = anthropic.Anthropic(api_key="reference", base_url=backend.base_url, max_retries=0)
    yield client
    client.close()


def requests_for(rents: tuple[int, ...] = RENTS[:4]) -> Any:
    return [{"custom_id": f"rent-{rent}", "params": answer_params(rent)} for rent in rents]


def test_a_batch_processes_after_its_delay_with_the_apis_life_cycle(
        sdk: anthropic.Anthropic, clock: FakeClock, backend: ReferenceBackend) -> None:
    created = sdk.messages.batches.create(requests=requests_for())
    assert created.type == "message_batch" and created.id.startswith("msgbatch_")
    assert created.processing_status == "in_progress" and created.results_url is None
    assert created.request_counts.to_dict() == {"processing": 4, "succeeded": 0, "errored": 0,
                                                "canceled": 0, "expired": 0}
    assert (created.expires_at - created.created_at).total_seconds() == 24 * 3600
    clock.now += DELAY_S - 1
    waiting = sdk.messages.batches.retrieve(created.id)
    assert waiting.processing_status == "in_progress" and waiting.ended_at is None
    assert sum(backend.batches.processed.values()) == 0  # nothing is answered before the end
    clock.now += 1
    ended = sdk.messages.batches.retrieve(created.id)
    assert ended.processing_status == "ended"
    assert ended.request_counts.to_dict() == {"processing": 0, "succeeded": 4, "errored": 0,
                                              "canceled": 0, "expired": 0}
    assert (ended.ended_at - ended.created_at).total_seconds() == DELAY_S
    assert ended.results_url == f"{backend.base_url}/v1/messages/batches/{created.id}/results"
    lines = list(sdk.messages.batches.results(created.id))
    assert [line.custom_id for line in lines] == [f"rent-{rent}" for rent in RENTS[:4]]
    for line, rent in zip(lines, RENTS, strict=False):
        assert line.result.type == "succeeded"
        assert f"{rent} euros" in line.result.message.content[0].text  # type: ignore[union-attr]


def test_a_batch_gets_exactly_the_interactive_answers_ids_and_cache_usage_included(
        clock: FakeClock) -> None:
    requests = [answer_params(rent) for rent in RENTS[:5]] + [judging_request(900).params]
    with ReferenceBackend(clock=clock) as interactive:
        sdk = anthropic.Anthropic(api_key="reference", base_url=interactive.base_url,
                                  max_retries=0)
        expected = [sdk.messages.create(**params).model_dump() for params in requests]
    with ReferenceBackend(clock=clock, batch_delay_s=0.0) as batched:
        sdk = anthropic.Anthropic(api_key="reference", base_url=batched.base_url, max_retries=0)
        batch = sdk.messages.batches.create(requests=[
            {"custom_id": f"r{number}", "params": params}
            for number, params in enumerate(requests)])  # type: ignore[misc]
        got = {line.custom_id: line.result.message.model_dump()  # type: ignore[union-attr]
               for line in sdk.messages.batches.results(batch.id)}
    assert [got[f"r{n}"] for n in range(len(requests))] == expected
    # The shared cached system block was written once, then read: as interactively.
    assert [m["usage"]["cache_read_input_tokens"] > 0 for m in expected] == \
        [False, True, True, True, True, False]


def test_results_are_refused_until_the_batch_has_ended(
        sdk: anthropic.Anthropic, backend: ReferenceBackend) -> None:
    created = sdk.messages.batches.create(requests=requests_for())
    with pytest.raises(anthropic.AnthropicError, match="No `results_url`"):
        list(sdk.messages.batches.results(created.id))
    url = f"{backend.base_url}/v1/messages/batches/{created.id}/results"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url)
    assert refused.value.code == 400
    assert json.loads(refused.value.read())["error"]["message"] == (
        f"message batch {created.id} is still in_progress: its results can be read once "
        f"processing has ended")


def test_cancel_moves_through_canceling_to_every_request_canceled(
        sdk: anthropic.Anthropic, backend: ReferenceBackend, clock: FakeClock) -> None:
    created = sdk.messages.batches.create(requests=requests_for())
    canceling = sdk.messages.batches.cancel(created.id)
    assert canceling.processing_status == "canceling"
    assert canceling.cancel_initiated_at is not None
    ended = sdk.messages.batches.retrieve(created.id)
    assert ended.processing_status == "ended" and ended.request_counts.canceled == 4
    assert {line.result.type for line in sdk.messages.batches.results(created.id)} == \
        {"canceled"}
    clock.now += DELAY_S
    assert sdk.messages.batches.cancel(created.id).request_counts.canceled == 4  # as it was
    assert sum(backend.batches.processed.values()) == 0


def test_delete_takes_only_an_ended_batch(sdk: anthropic.Anthropic, clock: FakeClock) -> None:
    created = sdk.messages.batches.create(requests=requests_for())
    with pytest.raises(anthropic.BadRequestError, match="cancel it and wait for it to end"):
        sdk.messages.batches.delete(created.id)
    clock.now += DELAY_S
    deleted = sdk.messages.batches.delete(created.id)
    assert (deleted.id, deleted.type) == (created.id, "message_batch_deleted")
    with pytest.raises(anthropic.NotFoundError, match="no message batch with id"):
        sdk.messages.batches.retrieve(created.id)


def test_list_pages_newest_first(sdk: anthropic.Anthropic) -> None:
    ids = [sdk.messages.batches.create(requests=requests_for((rent,))).id for rent in RENTS[:5]]
    first = sdk.messages.batches.list(limit=2)
    assert [b.id for b in first.data] == ids[::-1][:2] and first.has_more
    assert [b.id for b in sdk.messages.batches.list(limit=2)] == ids[::-1]  # every page
    before = sdk.messages.batches.list(limit=2, before_id=ids[2])
    assert [b.id for b in before.data] == [ids[4], ids[3]] and not before.has_more
    with pytest.raises(anthropic.BadRequestError, match="limit: must be between 1 and 1000"):
        sdk.messages.batches.list(limit=0)


def test_a_batch_unprocessed_after_24_hours_expires(clock: FakeClock) -> None:
    with ReferenceBackend(clock=clock, batch_delay_s=30 * 3600.0) as backend:
        sdk = anthropic.Anthropic(api_key="reference", base_url=backend.base_url, max_retries=0)
        created = sdk.messages.batches.create(requests=requests_for())
        clock.now += 30 * 3600
        ended = sdk.messages.batches.retrieve(created.id)
        assert ended.request_counts.expired == 4
        assert ended.ended_at == ended.expires_at
        assert {line.result.type for line in sdk.messages.batches.results(created.id)} == \
            {"expired"}


def test_a_request_the_messages_endpoint_refuses_is_errored_in_its_batch(
        clock: FakeClock) -> None:
    with ReferenceBackend(clock=clock, batch_delay_s=0.0, context_window=60) as backend:
        sdk = anthropic.Anthropic(api_key="reference", base_url=backend.base_url, max_retries=0)
        short = {"max_tokens": 10, "messages": [{"role": "user", "content": "Rent?"}],
                 "model": "m"}
        no_max = {"messages": [{"role": "user", "content": "Rent?"}], "model": "m"}
        created = sdk.messages.batches.create(requests=[  # type: ignore[misc]
            {"custom_id": "fits", "params": short}, {"custom_id": "long", "params":
                                                     answer_params(900)},
            {"custom_id": "no-max", "params": no_max}])
        results = {line.custom_id: line.result for line in
                   sdk.messages.batches.results(created.id)}
    assert results["fits"].type == "succeeded"
    for name, message in (("long", "prompt is too long"), ("no-max", "max_tokens")):
        result: Any = results[name]
        assert result.type == "errored"
        assert result.error.error.type == "invalid_request_error"
        assert message in result.error.error.message


@pytest.mark.parametrize(("body", "message"), [
    ({"requests": []}, "requests: field required"),
    ({"requests": [{"custom_id": "has space", "params": {}}]},
     "requests.0.custom_id: 'has space' does not match ^[a-zA-Z0-9_-]{1,64}$"),
    ({"requests": [{"custom_id": "x" * 65, "params": {}}]}, "does not match"),
    ({"requests": [{"custom_id": "a", "params": {}}, {"custom_id": "a", "params": {}}]},
     "requests.1.custom_id: 'a' is used by another request of this batch"),
    ({"requests": [{"custom_id": "a"}]}, "requests.0.params: field required"),
    ({"requests": [{"custom_id": "a", "params": {"stream": True}}]},
     "requests.0.params.stream: a batch request cannot stream")])
def test_a_create_body_the_api_would_refuse_is_a_400_naming_the_problem(
        sdk: anthropic.Anthropic, body: dict[str, object], message: str) -> None:
    with pytest.raises(anthropic.BadRequestError) as refused:
        sdk.messages.batches.create(**body)  # type: ignore[arg-type]
    assert message in str(refused.value)


def test_every_request_is_counted_when_submitted_and_when_answered(
        sdk: anthropic.Anthropic, backend: ReferenceBackend, clock: FakeClock) -> None:
    sdk.messages.create(**answer_params(RENTS[0]))  # type: ignore[call-overload]
    sdk.messages.batches.create(requests=requests_for(RENTS[1:3]))
    clock.now += DELAY_S
    for batch in sdk.messages.batches.list():
        list(sdk.messages.batches.results(batch.id))
    keys = [params_digest(answer_params(rent)) for rent in RENTS[:3]]
    assert backend.answered == dict.fromkeys(keys, 1)
    assert backend.batches.submitted == dict.fromkeys(keys[1:], 1)
    assert backend.batches.processed == dict.fromkeys(keys[1:], 1)


def test_other_methods_and_paths_are_refused(backend: ReferenceBackend) -> None:
    for method, path, status in (("PUT", "/v1/messages/batches", 501),
                                 ("DELETE", "/v1/messages", 404),
                                 ("GET", "/v1/messages/batches/msgbatch_x/cancel", 405)):
        request = urllib.request.Request(backend.base_url + path, method=method)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request)
        assert refused.value.code == status, (method, path)


def test_a_one_hour_cache_mark_lives_an_hour_and_its_write_is_reported_as_the_api_does(
        clock: FakeClock) -> None:
    from pytest_legalbench.files.record_json import from_builtins
    from pytest_legalbench.llm.call_types import SystemBlock
    from pytest_legalbench.llm.ledger import Usage

    corpus = "<documents>" + "The rent is 900 euros a month. " * 200 + "</documents>"

    def params(ttl: str | None) -> Any:
        return {"max_tokens": 50, "messages": [{"role": "user", "content": "Rent?"}],
                "model": "m", "system": [SystemBlock("Answer.").to_param(),
                                         SystemBlock(corpus, cache=True, ttl=ttl).to_param()]}

    with ReferenceBackend(clock=clock) as backend:
        sdk = anthropic.Anthropic(api_key="reference", base_url=backend.base_url, max_retries=0)
        first = from_builtins(Usage, sdk.messages.create(**params("1h")).usage.model_dump())
        assert first.cache_creation_input_tokens == first.cache_write_1h_tokens > 0
        clock.now += 50 * 60  # past 5 minutes, within the hour: still warm
        again = from_builtins(Usage, sdk.messages.create(**params("1h")).usage.model_dump())
        assert again.cache_read_input_tokens == first.cache_creation_input_tokens
        plain = sdk.messages.create(**params(None)).usage.model_dump()
        assert plain["cache_read_input_tokens"] == first.cache_creation_input_tokens
        assert plain.get("cache_creation") is None  # a 5-minute mark reports as it always did
        with pytest.raises(anthropic.BadRequestError, match=r"cache_control.ttl: expected"):
            bad = params("1h")
            bad["system"][1]["cache_control"]["ttl"] = "2h"
            sdk.messages.create(**bad)
    with pytest.raises(ValueError, match="a cache ttl is one of 5m, 1h on a cached block"):
        SystemBlock("x", ttl="1h")
