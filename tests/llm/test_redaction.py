"""Secrets stay out of what a run writes: a server that echoes the API key in its error
bodies gets the key replaced in the client's errors, the terminal, JUnit XML and cassettes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_legalbench.llm.backend import ClientConfig
from pytest_legalbench.llm.call_types import SystemBlock
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.failures import ModelCallError
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.llm.redaction import REDACTED, Redactor, redactor_for
from tests.support.fake_messages import FakeMessages, error_reply
from tests.support.plugin_sessions import bench, isolate_environment, prepare

KEY = "sk-ant-api03-THISisAtestKEYthatMUSTneverBEprinted-0123456789"
#: A key of another shape, configured for a local server.
LOCAL_KEY = "local-server-secret-42"


def echoing(status: int = 401) -> list[object]:
    """Error replies that echo both keys, the way a careless proxy does."""
    return [error_reply(status, f"invalid x-api-key {LOCAL_KEY}; also tried {KEY}")
            for _ in range(40)]


def test_the_configured_key_and_key_shaped_strings_are_replaced() -> None:
    redact = redactor_for(LOCAL_KEY)
    assert redact(f"key {LOCAL_KEY} and {KEY} and Bearer abcdefghijklmnopqrstuvwx") == \
        f"key {REDACTED} and {REDACTED} and {REDACTED}"
    assert redact("sk-short stays, a local key of x stays") == \
        "sk-short stays, a local key of x stays"
    assert Redactor(("x",))("x marks the spot") == "x marks the spot"


def test_a_client_error_never_carries_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeMessages(*echoing()) as server:
        config = ClientConfig(backend="anthropic", api_key=LOCAL_KEY, base_url=server.base_url)
        with ModelClient(config, Ledger()) as client, pytest.raises(ModelCallError) as raised:
            client.complete(stage="inject.answer", model="m", system=[SystemBlock("s")],
                            messages=[{"role": "user", "content": "q"}], max_tokens=10,
                            question_id="q1")
    message = str(raised.value)
    assert LOCAL_KEY not in message and KEY not in message
    assert message == (f"model call for stage 'inject.answer', question q1 failed (HTTP 401): "
                       f"invalid x-api-key {REDACTED}; also tried {REDACTED}")
    # Raised on its own: a chained SDK exception would print the unredacted body again.
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


@pytest.mark.parametrize("recording", ["--disable-recording", "--record-mode=once"])
def test_a_benchmark_against_an_echoing_server_writes_the_key_nowhere(
        pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, corpus_root: Path,
        monkeypatch: pytest.MonkeyPatch, recording: str) -> None:
    isolate_environment(monkeypatch, corpus_root)
    monkeypatch.setenv("ANTHROPIC_API_KEY", LOCAL_KEY)
    prepare(pytester)
    with FakeMessages(*echoing(400)) as server:
        result = pytester.runpytest_subprocess(
            *bench(tmp_path_factory, corpus_root).args("navindex"), "-p", "no:randomly",
            "--legalbench-backend=anthropic", f"--legalbench-base-url={server.base_url}",
            "--legalbench-server-kind=generic", recording, "--junitxml=junit.xml",
            "--legalbench-report=out")
        assert server.requests
    result.assert_outcomes(errors=3)  # the item runs in its fixture: an error, not a failure
    output = result.stdout.str() + result.stderr.str()
    assert REDACTED in output
    written = [path for path in pytester.path.rglob("*") if path.is_file()
               and path.suffix in (".xml", ".yaml", ".json", ".jsonl", ".md")]
    assert any(p.name == "junit.xml" for p in written)
    for text in (output, *(p.read_text(encoding="utf-8") for p in written)):
        assert LOCAL_KEY not in text and KEY not in text


def test_a_recorded_response_body_is_stored_without_the_key() -> None:
    from pytest_legalbench.llm.cassette_recorder import new_recorder

    scrub = new_recorder(redactor_for(LOCAL_KEY)).before_record_response
    stored = scrub({"status": {"code": 401}, "headers": {"Set-Cookie": ["a"]},
                    "body": {"string": f'{{"message": "bad key {LOCAL_KEY}"}}'.encode()}})
    assert stored["body"]["string"] == b'{"message": "bad key [redacted]"}'
    assert stored["headers"] == {}
    other = new_recorder().before_record_response(
        {"headers": {}, "body": {"string": f"tried {KEY}"}})
    assert other["body"]["string"] == "tried [redacted]"


def test_the_reference_backend_s_placeholder_key_is_not_a_secret() -> None:
    from pytest_legalbench.llm.client import REFERENCE_API_KEY

    reply = error_reply(400, "cassette cassettes/reference/test_legalbench/q.yaml has no match")
    with FakeMessages(reply) as server:
        config = ClientConfig(backend="anthropic", api_key=REFERENCE_API_KEY,
                              base_url=server.base_url)
        with ModelClient(config, Ledger()) as client, pytest.raises(ModelCallError) as raised:
            client.complete(stage="inject.answer", model="m", system=[SystemBlock("s")],
                            messages=[{"role": "user", "content": "q"}], max_tokens=10,
                            question_id="q1")
    assert "cassettes/reference/test_legalbench/q.yaml" in str(raised.value)
    assert REDACTED not in str(raised.value)
