"""Batch faults of ``--legalbench-faults``: a request errored, a request expired, a batch that
ends late; how a spec names them, and what the SDK's batch client sees."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anthropic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.reference_backend import ReferenceBackend
from pytest_legalbench.reference_backend.faults import (
    BATCH_FAULT_KINDS,
    FAULT_KINDS,
    FaultPlan,
    FaultSpecError,
    parse_faults,
)
from tests.support.batch_samples import RENTS, FakeClock, answer_params

DELAY_S = 10.0


@contextmanager
def served(spec: str, clock: FakeClock) -> Iterator[tuple[ReferenceBackend, anthropic.Anthropic]]:
    with ReferenceBackend(clock=clock, batch_delay_s=DELAY_S,
                          faults=parse_faults(spec)) as backend:
        sdk = anthropic.Anthropic(api_key="reference", base_url=backend.base_url,
                                  max_retries=0)
        yield backend, sdk
        sdk.close()


def submit(sdk: anthropic.Anthropic, rents: tuple[int, ...]) -> str:
    return sdk.messages.batches.create(requests=[  # type: ignore[misc]
        {"custom_id": f"rent-{rent}", "params": answer_params(rent)} for rent in rents]).id


def test_an_errored_request_carries_an_api_error_and_is_answered_when_sent_again() -> None:
    clock = FakeClock()
    with served("batch-errored:1.0,max:2", clock) as (backend, sdk):
        outcomes = []
        for _ in range(3):
            batch_id = submit(sdk, RENTS[:3])
            clock.now += DELAY_S
            lines = list(sdk.messages.batches.results(batch_id))
            outcomes.append({line.result.type for line in lines})
        assert outcomes == [{"errored"}, {"errored"}, {"succeeded"}]
        assert sdk.messages.batches.retrieve(batch_id).request_counts.succeeded == 3
        assert backend.faults is not None
        assert backend.faults.injected == {"batch-errored": 6}
        # A faulted request never reached the responder: only the third round was answered.
        assert set(backend.batches.processed.values()) == {1}
        assert set(backend.batches.submitted.values()) == {3}


def test_an_errored_result_has_the_apis_error_envelope() -> None:
    clock = FakeClock()
    with served("batch-errored:1.0", clock) as (_, sdk):
        batch_id = submit(sdk, RENTS[:1])
        clock.now += DELAY_S
        (line,) = sdk.messages.batches.results(batch_id)
        result = line.result
        assert result.type == "errored"
        assert (result.error.type, result.error.error.type, result.error.error.message) == (
            "error", "api_error", "injected fault (batch-errored)")


def test_an_expired_request_is_counted_as_expired() -> None:
    clock = FakeClock()
    with served("batch-expired:1.0", clock) as (_, sdk):
        batch_id = submit(sdk, RENTS[:4])
        clock.now += DELAY_S
        assert sdk.messages.batches.retrieve(batch_id).request_counts.expired == 4
        assert {line.result.type for line in sdk.messages.batches.results(batch_id)} == \
            {"expired"}


def test_a_late_batch_ends_late_seconds_after_its_delay() -> None:
    clock = FakeClock()
    with served("batch-late:1.0,late:120", clock) as (backend, sdk):
        batch_id = submit(sdk, RENTS[:2])
        clock.now += DELAY_S + 119
        assert sdk.messages.batches.retrieve(batch_id).processing_status == "in_progress"
        clock.now += 1
        ended = sdk.messages.batches.retrieve(batch_id)
        assert ended.processing_status == "ended" and ended.request_counts.succeeded == 2
        assert backend.faults is not None and backend.faults.injected == {"batch-late": 1}


def test_some_requests_of_a_batch_fault_and_the_rest_succeed() -> None:
    clock = FakeClock()
    with served("batch-errored:0.25,batch-expired:0.25,seed:3", clock) as (_, sdk):
        batch_id = submit(sdk, RENTS)
        clock.now += DELAY_S
        counts = sdk.messages.batches.retrieve(batch_id).request_counts
        assert counts.errored and counts.expired and counts.succeeded
        assert counts.errored + counts.expired + counts.succeeded == len(RENTS)


def test_batch_faults_leave_interactive_requests_alone() -> None:
    clock = FakeClock()
    with served("batch-errored:1.0,batch-expired:0.0", clock) as (backend, sdk):
        message = sdk.messages.create(**answer_params(900))  # type: ignore[call-overload]
        assert "900 euros" in message.content[0].text
        assert backend.faults is not None and not backend.faults.injected


@given(st.dictionaries(st.sampled_from((*FAULT_KINDS, *BATCH_FAULT_KINDS)),
                       st.integers(min_value=0, max_value=100).map(lambda n: n / 1000),
                       min_size=1), st.integers(min_value=0, max_value=10 ** 6))
def test_a_written_spec_with_batch_faults_reads_back_as_its_plan(rates: dict[str, float],
                                                                 seed: int) -> None:
    spec = ",".join(f"{kind}:{rate!r}" for kind, rate in rates.items()) + f",seed:{seed},late:7"
    plan = parse_faults(spec)
    assert {**dict(plan.rates), **dict(plan.batch_rates)} == rates
    assert [kind for kind, _ in plan.batch_rates] == [k for k in BATCH_FAULT_KINDS if k in rates]
    assert plan.late_s == 7.0 and plan.seed == seed
    # An interactive request only ever draws an interactive fault.
    assert all(plan.choose(f"r{n}".encode(), 0) in (*FAULT_KINDS, None) for n in range(50))


@pytest.mark.parametrize(("spec", "message"), [
    ("batch-errored:0.6,batch-expired:0.6", "batch request fault rates add up to 1.2"),
    ("batch-late:1.5", "a rate is between 0 and 1"),
    ("late:-1,batch-late:0.1", "late must be a number of seconds >= 0"),
    ("batch-timeout:0.1", ("unknown fault 'batch-timeout'; choose from 429, .*, batch-errored, "
                          "batch-expired, batch-late"))])
def test_a_bad_batch_spec_says_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(FaultSpecError, match=message):
        parse_faults(spec)


def test_a_plan_names_only_batch_kinds_as_batch_rates() -> None:
    with pytest.raises(FaultSpecError, match="unknown batch fault '429'"):
        FaultPlan((), batch_rates=(("429", 0.1),))
