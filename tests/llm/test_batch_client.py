"""The batch client against the reference backend's Batches endpoints (no network): batch ids
persisted before any wait, progress at every poll, results by custom id equal to the
interactive answers, every batch fault retried or handed back, resumes that never submit a
request twice (counted at the server), cancel, and clear errors."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest

from pytest_legalbench.files.record_json import RecordError, from_builtins, to_builtins
from pytest_legalbench.llm.backend import ClientConfig
from pytest_legalbench.llm.batch_progress import BatchProgress
from pytest_legalbench.llm.batch_requests import BatchRequest
from pytest_legalbench.llm.batches import (
    BatchClient,
    BatchError,
    BatchResult,
    BatchSettings,
    BatchWaitExpired,
    Submission,
)
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.llm.pricing import load_price_card, price_calls
from pytest_legalbench.reference_backend import ReferenceBackend
from pytest_legalbench.reference_backend.batches import params_digest
from pytest_legalbench.reference_backend.faults import parse_faults
from tests.support.batch_samples import (
    RENTS,
    SYSTEM,
    FakeClock,
    answering_requests,
    judging_request,
    lease_messages,
)
from tests.support.fake_messages import FakeMessages, error_reply

DELAY_S = 90.0
POLL_S = 30.0


class Harness:
    """A reference backend and batch clients on one fake clock, with every callback kept."""

    def __init__(self, backend: ReferenceBackend, clock: FakeClock) -> None:
        self.backend = backend
        self.clock = clock
        self.events: list[str] = []
        self.submitted: list[Submission] = []
        self.progress: list[BatchProgress] = []
        self.streamed: list[BatchResult] = []
        self.config = ClientConfig(backend="reference", base_url=backend.base_url,
                                   api_key="reference")
        retrieve = backend.batches.retrieve

        def logged(batch_id: str) -> dict[str, object]:
            self.events.append(f"poll {batch_id}")
            return retrieve(batch_id)

        backend.batches.retrieve = logged  # type: ignore[method-assign]

    def client(self, **settings: Any) -> BatchClient:
        def submitted(submission: Submission) -> None:
            self.events.append(f"persist {submission.batch_id}")
            self.submitted.append(submission)

        def sleep(seconds: float) -> None:
            self.events.append(f"sleep {seconds:g}")
            self.clock.sleep(seconds)

        return BatchClient(self.config, BatchSettings(**{"poll_interval_s": POLL_S, **settings}),
                           on_submitted=submitted, on_progress=self.progress.append,
                           on_result=self.streamed.append, sleep=sleep, clock=self.clock)

    def submissions_per_request(self) -> set[int]:
        return set(self.backend.batches.submitted.values())


@contextmanager
def harness(faults: str | None = None, **options: Any) -> Iterator[Harness]:
    clock = FakeClock()
    plan = parse_faults(faults) if faults else None
    with ReferenceBackend(clock=clock, batch_delay_s=DELAY_S, faults=plan,
                          **options) as backend:
        yield Harness(backend, clock)


def interactive_texts(requests: list[BatchRequest]) -> dict[str, str]:
    """Each request's answer made interactively, by our client, on a fresh backend."""
    with ReferenceBackend() as backend:
        config = ClientConfig(backend="reference", base_url=backend.base_url,
                              api_key="reference")
        with ModelClient(config, Ledger()) as client:
            return {request.custom_id: client.complete(
                stage="navembed.answer", model="claude-test", system=SYSTEM,
                messages=lease_messages(int(request.custom_id.split("-")[1])),
                max_tokens=300).text for request in requests}


def text_of(result: BatchResult) -> str:
    assert result.reply is not None, result.error
    return "".join(block.text for block in result.reply.content if block.type == "text")


def test_a_run_persists_before_waiting_and_returns_the_interactive_answers() -> None:
    requests = answering_requests()
    with harness() as h, h.client(max_requests=5) as client:
        outcome = client.run(requests)
    ids = [s.batch_id for s in h.submitted]
    assert len(ids) == 3  # 12 requests at most 5 a batch
    # Every batch was persisted as soon as it was created, before the first poll or wait.
    assert h.events[:3] == [f"persist {batch_id}" for batch_id in ids]
    assert [s.custom_ids for s in h.submitted] == [
        tuple(r.custom_id for r in requests[i:i + 5]) for i in (0, 5, 10)]
    assert list(outcome.results) == [r.custom_id for r in requests]
    assert {cid: text_of(r) for cid, r in outcome.results.items()} == \
        interactive_texts(requests)
    assert {r.custom_id for r in h.streamed} == set(outcome.results)
    assert not outcome.failed and not outcome.fallback
    assert h.submissions_per_request() == {1}
    assert all(r.attempts == 1 and r.latency_s == DELAY_S for r in outcome.results.values())
    first = outcome.results[requests[0].custom_id]
    assert first.message is not None and first.message.model_dump()["type"] == "message"


def test_progress_shows_counts_time_waited_and_the_next_poll() -> None:
    with harness() as h, h.client() as client:
        client.run(answering_requests(RENTS[:4]))
    assert [p.line() for p in h.progress] == [
        ("1 batch (1 still processing): 4 processing, 0 succeeded, 0 errored, 0 canceled, "
        "0 expired; waited 0.0s; next poll in 30s"),
        ("1 batch (1 still processing): 4 processing, 0 succeeded, 0 errored, 0 canceled, "
        "0 expired; waited 30s; next poll in 30s"),
        ("1 batch (1 still processing): 4 processing, 0 succeeded, 0 errored, 0 canceled, "
        "0 expired; waited 1m00s; next poll in 30s"),
        ("1 batch (0 still processing): 0 processing, 4 succeeded, 0 errored, 0 canceled, "
        "0 expired; waited 1m30s; all ended")]
    assert h.clock.sleeps == [POLL_S] * 3


def test_results_become_ledger_calls_at_the_batch_rate() -> None:
    with harness() as h, h.client() as client:
        outcome = client.run([judging_request(900), *answering_requests(RENTS[:1])])
    calls = [outcome.results[cid].to_call("judge.forward" if "judge" in cid else
                                          "navembed.answer", backend="reference")
             for cid in outcome.results]
    assert all(call.batch and to_builtins(call)["batch"] is True for call in calls)
    card = load_price_card()
    interactive = [dataclasses.replace(call, batch=False) for call in calls]
    assert price_calls(calls, card).total * 2 == price_calls(interactive, card).total
    assert price_calls(calls, card).total > Decimal(0)


@pytest.mark.parametrize(("spec", "label"), [("batch-errored:1.0,max:1",
                                              "batch errored: api_error"),
                                             ("batch-expired:1.0,max:1", "batch expired")])
def test_an_errored_or_expired_request_is_resubmitted_in_a_new_batch(spec: str,
                                                                     label: str) -> None:
    requests = answering_requests(RENTS[:3])
    with harness(spec) as h, h.client() as client:
        outcome = client.run(requests)
    assert [s.attempt for s in h.submitted] == [1, 2]
    assert h.submitted[1].custom_ids == h.submitted[0].custom_ids
    assert all(r.succeeded and r.attempts == 2 and r.retried == (label,)
               for r in outcome.results.values())
    assert all(r.batch_id == h.submitted[1].batch_id for r in outcome.results.values())
    assert set(h.backend.batches.processed.values()) == {1}  # answered once each


def test_resubmission_stops_at_the_cap_with_the_last_error() -> None:
    with harness("batch-errored:1.0,max:9") as h, h.client(max_resubmits=2) as client:
        outcome = client.run(answering_requests(RENTS[:2]))
    assert [s.attempt for s in h.submitted] == [1, 2, 3]
    (first, _second) = outcome.failed
    assert (first.outcome, first.error_type, first.attempts) == ("errored", "api_error", 3)
    assert first.retried == ("batch errored: api_error",) * 2
    assert first.error == "injected fault (batch-errored)"
    assert not h.backend.batches.processed


def test_with_fallback_failures_are_handed_back_instead_of_resubmitted() -> None:
    requests = answering_requests(RENTS)
    with harness("batch-errored:0.3,seed:5") as h, h.client(fallback=True) as client:
        outcome = client.run(requests)
    handed = set(outcome.fallback)
    assert handed and len(h.submitted) == 1
    assert {cid for cid, r in outcome.results.items() if not r.succeeded} == handed
    assert not outcome.failed
    assert h.submissions_per_request() == {1}


def test_an_error_another_batch_would_repeat_is_final() -> None:
    with harness(context_window=60) as h, h.client() as client:
        outcome = client.run(answering_requests(RENTS[:2]))
    assert len(h.submitted) == 1
    assert {(r.outcome, r.error_type) for r in outcome.failed} == {
        ("errored", "invalid_request_error")}
    assert all("prompt is too long" in (r.error or "") for r in outcome.failed)


def test_a_late_batch_is_waited_for_and_progress_says_so() -> None:
    with harness("batch-late:1.0,late:600") as h, h.client() as client:
        outcome = client.run(answering_requests(RENTS[:2]))
    assert all(r.succeeded for r in outcome.results.values())
    assert sum(h.clock.sleeps) == DELAY_S + 600
    assert h.progress[-1].line().endswith("waited 11m30s; all ended")


def test_a_wait_past_max_wait_leaves_the_batches_running_and_a_resume_collects_them() -> None:
    requests = answering_requests(RENTS[:4])
    with harness("batch-late:1.0,late:600") as h:
        with h.client(max_wait_s=300.0) as client, \
                pytest.raises(BatchWaitExpired) as stopped:
            client.run(requests)
        assert stopped.value.open_batches == (h.submitted[0].batch_id,)
        assert "they keep running and can be collected later" in str(stopped.value)
        h.clock.now += 600
        with h.client() as resumed:
            outcome = resumed.run(requests, submitted=h.submitted)
    assert len(h.submitted) == 1  # nothing was submitted again
    assert all(r.succeeded for r in outcome.results.values())
    assert h.submissions_per_request() == {1}


def test_a_run_interrupted_while_waiting_resumes_without_submitting_anything_twice() -> None:
    requests = answering_requests()
    with harness() as h:
        client = h.client(max_requests=4)
        client._sleep = _interrupt  # type: ignore[method-assign]  # Ctrl-C at the first wait
        with client, pytest.raises(KeyboardInterrupt):
            client.run(requests)
        persisted = [from_builtins(Submission, to_builtins(s)) for s in h.submitted]  # journal
        assert len(persisted) == 3
        h.clock.now += DELAY_S
        with h.client(max_requests=4) as resumed:
            outcome = resumed.run(requests, submitted=persisted)
    assert h.submitted[3:] == []  # the resume created no batch
    assert list(outcome.results) == [r.custom_id for r in requests]
    assert all(r.succeeded for r in outcome.results.values())
    assert h.backend.batches.submitted == {params_digest(r.params): 1 for r in requests}
    assert h.backend.batches.processed == h.backend.batches.submitted


def test_a_run_interrupted_between_submissions_submits_only_the_rest() -> None:
    requests = answering_requests()
    with harness() as h:
        client = h.client(max_requests=5)
        persist = client._on_submitted

        def persist_then_stop(submission: Submission) -> None:
            persist(submission)
            raise KeyboardInterrupt  # Ctrl-C right after the first batch was persisted

        client._on_submitted = persist_then_stop  # type: ignore[method-assign]
        with client, pytest.raises(KeyboardInterrupt):
            client.run(requests)
        assert len(h.submitted) == 1
        with h.client(max_requests=5) as resumed:
            outcome = resumed.run(requests, submitted=list(h.submitted))
    assert [len(s.custom_ids) for s in h.submitted] == [5, 5, 2]
    assert all(r.succeeded for r in outcome.results.values())
    assert h.submissions_per_request() == {1}


def test_a_resume_after_a_resubmission_takes_each_result_from_its_latest_batch() -> None:
    requests = answering_requests(RENTS[:3])
    with harness("batch-errored:1.0,max:1") as h:
        client = h.client()

        def stop_on_the_second_batch(seconds: float) -> None:
            if len(h.submitted) == 2:
                raise KeyboardInterrupt
            h.clock.sleep(seconds)

        client._sleep = stop_on_the_second_batch  # type: ignore[method-assign]
        with client, pytest.raises(KeyboardInterrupt):
            client.run(requests)
        h.clock.now += DELAY_S
        with h.client() as resumed:
            outcome = resumed.run(requests, submitted=list(h.submitted))
    assert [s.attempt for s in h.submitted] == [1, 2]
    assert all(r.succeeded and r.batch_id == h.submitted[1].batch_id and r.attempts == 2
               for r in outcome.results.values())


def test_cancel_stops_batches_in_progress_and_their_requests_come_back_canceled() -> None:
    requests = answering_requests(RENTS[:3])
    with harness() as h:
        client = h.client()
        client._sleep = _interrupt  # type: ignore[method-assign]
        with client, pytest.raises(KeyboardInterrupt):
            client.run(requests)
        with h.client() as other:
            (state,) = other.cancel([h.submitted[0].batch_id])
            assert state.status == "canceling"
            (ended,) = other.states([h.submitted[0].batch_id])
            assert ended.status == "ended" and ended.counts.canceled == 3
            assert other.cancel([h.submitted[0].batch_id])[0].status == "ended"
            outcome = other.run(requests, submitted=list(h.submitted))
    assert {r.outcome for r in outcome.results.values()} == {"canceled"}
    assert len(outcome.failed) == 3 and len(h.submitted) == 1


def test_submissions_round_trip_through_the_typed_layer_and_bad_ones_are_named() -> None:
    submission = Submission("msgbatch_1", ("a", "b-2"), 2, {"a": "d1", "b-2": "d2"})
    written = to_builtins(submission)
    assert written == {"batch_id": "msgbatch_1", "custom_ids": ["a", "b-2"], "attempt": 2,
                       "digests": {"a": "d1", "b-2": "d2"}}
    assert from_builtins(Submission, written) == submission
    # A submission without digests (written before they were kept) reads with none.
    assert from_builtins(Submission, {"batch_id": "msgbatch_1", "custom_ids": ["a"]}) == \
        Submission("msgbatch_1", ("a",))
    with pytest.raises(RecordError, match="'no spaces' is not a custom id"):
        from_builtins(Submission, {"batch_id": "msgbatch_1", "custom_ids": ["no spaces"]})
    with pytest.raises(RecordError, match="attempt: Input should be greater than or equal"):
        from_builtins(Submission, {"batch_id": "msgbatch_1", "custom_ids": [], "attempt": 0})


def test_a_rate_limited_create_is_sent_again_and_an_ambiguous_one_is_not() -> None:
    (request,) = answering_requests(RENTS[:1])
    with FakeMessages(error_reply(429, "slow down", headers={"retry-after": "0"}),
                      error_reply(500, "boom")) as fake:
        config = ClientConfig(backend="anthropic", api_key="sk-test", base_url=fake.base_url)
        with BatchClient(config, sleep=lambda _: None) as client, \
                pytest.raises(BatchError) as failed:
            client.run([request])
        assert [r.path for r in fake.requests] == ["/v1/messages/batches"] * 2
    assert str(failed.value) == (
        "message batch create failed (HTTP 500): boom; requests "
        "lease-900-navembed-answer were not collected: if the batch was created after all, "
        "list the workspace's batches before submitting them again")


def test_a_server_without_the_batches_api_is_named() -> None:
    with FakeMessages(error_reply(404, "Not Found")) as fake:
        config = ClientConfig(backend="anthropic", api_key="sk-test", base_url=fake.base_url)
        with BatchClient(config, sleep=lambda _: None) as client, \
                pytest.raises(BatchError, match=r"create failed \(HTTP 404\) \(this server "
                                                r"does not serve the Message Batches API\)"):
            client.run(answering_requests(RENTS[:1]))


def test_the_api_key_never_appears_in_an_error() -> None:
    with FakeMessages(error_reply(400, "bad key sk-secret-123")) as fake:
        config = ClientConfig(backend="anthropic", api_key="sk-secret-123",
                              base_url=fake.base_url)
        with BatchClient(config) as client, pytest.raises(BatchError) as failed:
            client.run(answering_requests(RENTS[:1]))
    assert "sk-secret-123" not in str(failed.value)


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="poll_interval_s must be positive"):
        BatchSettings(poll_interval_s=0)
    with pytest.raises(ValueError, match="max_resubmits must be >= 0"):
        BatchSettings(max_resubmits=-1)


def _interrupt(seconds: float) -> None:
    raise KeyboardInterrupt
