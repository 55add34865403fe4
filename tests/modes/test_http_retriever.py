"""The http:// mode against a retrieval service on loopback speaking the documented JSON:
the request it is sent, the passages it answers, retries with backoff on 429, 5xx, timeouts
and refused connections, a named error for anything else, and no credential ever sent."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.http_retriever import HttpRetriever
from pytest_legalbench.modes.registry import default_registry
from pytest_legalbench.modes.retriever_api import RetrieverQuestion
from pytest_legalbench.modes.retriever_failures import RetrieverFailed, RetrieverProblem
from pytest_legalbench.modes.retriever_mode import retriever_corpus
from tests.support.modes_samples import LEASE, LEASE_AMENDMENT, lease_corpus
from tests.support.retrieval_service import Canned, RetrievalService

QUESTION = RetrieverQuestion("rent-amount", "What Monthly Rent does the Lessee pay?")


@pytest.fixture
def service() -> Iterator[RetrievalService]:
    corpus = lease_corpus()
    with RetrievalService({d.doc_id: d.text for d in corpus.documents}).running() as running:
        yield running


def _client(url: str, sleeps: list[float], timeout_s: float = 5.0) -> HttpRetriever:
    corpus = retriever_corpus(lease_corpus(), ModeSettings(payload_budget_tokens=1234), timeout_s)
    return HttpRetriever(url, corpus, timeout_s=timeout_s, sleep=sleeps.append, draw=lambda: 1.0)


def test_one_post_per_question_in_the_documented_json(service: RetrievalService) -> None:
    passages = _client(service.url, []).retrieve(QUESTION)
    assert passages and all(p.doc_id in (LEASE, LEASE_AMENDMENT) for p in passages)
    assert "Monthly Rent" in passages[0].text and passages[0].score is not None
    seen, = service.seen
    assert (seen.method, seen.path) == ("POST", "/retrieve")
    assert seen.json == {"id": "rent-amount", "question": QUESTION.text,
                         "documents": [LEASE, LEASE_AMENDMENT], "budget_tokens": 1234}
    assert seen.headers["Content-Type"] == "application/json"


def test_no_credential_reaches_the_service(service: RetrievalService,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-ant-test-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", secret)
    monkeypatch.setenv("HTTP_PROXY", f"http://user:{secret}@127.0.0.1:9")
    mode = default_registry().build(service.url, lease_corpus(), ModeSettings(), None)
    assert mode.retrieve(QUESTION.text, question_id=QUESTION.id).provisions
    seen, = service.seen
    names = {name.lower() for name in seen.headers}
    assert names == {"host", "accept-encoding", "content-length", "content-type", "accept",
                     "user-agent"}
    assert secret not in json.dumps(dict(seen.headers)) and secret.encode() not in seen.body


def test_rate_limits_and_server_errors_are_retried_with_backoff(
        service: RetrievalService) -> None:
    service.canned = [Canned(429, b"slow down", {"Retry-After": "3"}),
                      Canned(503, b"overloaded"), Canned(500, b"")]
    sleeps: list[float] = []
    passages = _client(service.url, sleeps).retrieve(QUESTION)
    assert passages and len(service.seen) == 4
    # Retry-After is honoured (up to the cap); then the backoff doubles: 0.5 s, 1 s.
    assert sleeps == [3.0, 1.0, 2.0]


def test_a_service_that_keeps_failing_is_a_named_error(service: RetrievalService) -> None:
    service.canned = [Canned(502, b"bad gateway " * 40)] * 4
    with pytest.raises(RetrieverProblem) as failed:
        _client(service.url, []).retrieve(QUESTION)
    message = str(failed.value)
    assert message.startswith(f"gave up after 4 attempts: {service.url} answered 502 Bad "
                              f"Gateway: 'bad gateway bad gateway")
    assert message.endswith("...'") and len(message) < 400


@pytest.mark.parametrize(("canned", "problem"), [
    (Canned(404, b"no such route"), "answered 404 Not Found: 'no such route' (not retried)"),
    (Canned(401, b""), "answered 401 Unauthorized: (empty body) (not retried)"),
    (Canned(200, b"<html>"), "answered 200 with a body that is not JSON: '<html>'"),
    (Canned(200, b'{"results": []}'), 'answered JSON without "passages"'),
    (Canned(200, b'{"passages": [{"doc_id": "lease"}]}'),
     "answer: passage 1: Passage.text must be a string, got NoneType"),
    (Canned(200, b'{"passages": {"doc_id": "lease"}}'),
     "answer: expected a list of passages, got an object"),
])
def test_anything_else_is_not_retried_and_says_what_came_back(
        service: RetrievalService, canned: Canned, problem: str) -> None:
    service.canned = [canned]
    with pytest.raises(RetrieverProblem) as failed:
        _client(service.url, []).retrieve(QUESTION)
    assert problem in str(failed.value) and len(service.seen) == 1


def test_a_service_that_hangs_times_out_each_attempt(service: RetrievalService) -> None:
    service.canned = [Canned(delay_s=1.0)] * 4
    sleeps: list[float] = []
    with pytest.raises(RetrieverProblem, match=r"no answer within the timeout of 0.2 s "
                                               r"\(--legalbench-timeout\)"):
        _client(service.url, sleeps, timeout_s=0.2).retrieve(QUESTION)
    assert len(sleeps) == 3


def test_a_refused_connection_is_retried_then_named() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleeps: list[float] = []
    with pytest.raises(RetrieverProblem, match="the connection failed "
                                               r"\(ConnectionRefusedError"):
        _client(f"http://127.0.0.1:{port}/r", sleeps).retrieve(QUESTION)
    assert sleeps == [0.5, 1.0, 2.0]


def test_through_the_registry_a_failure_names_the_mode_and_the_question(
        service: RetrievalService) -> None:
    service.canned = [Canned(400, b"bad question")]
    mode = default_registry().build(service.url, lease_corpus(), ModeSettings(), None)
    with pytest.raises(RetrieverFailed) as failed:
        mode.retrieve(QUESTION.text, question_id=QUESTION.id)
    assert str(failed.value) == (f"mode '{service.url}', question 'rent-amount': {service.url} "
                                 f"answered 400 Bad Request: 'bad question' (not retried)")
