"""Cassettes: model calls recorded against the real reference backend and replayed offline."""

from __future__ import annotations

import gzip
import json
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.llm.call_types import Completion, StructuredResult, SystemBlock, ToolSpec
from pytest_legalbench.llm.cassette_persister import CassetteError
from pytest_legalbench.llm.cassette_recorder import body_digest, cassette_miss
from pytest_legalbench.llm.cassettes import (
    CassetteMissing,
    CassetteUse,
    cassette_file,
    cassette_size,
    use_cassette,
)
from pytest_legalbench.llm.client import ClientConfig, ModelClient
from pytest_legalbench.llm.failures import ModelCallError
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.llm.prompts import document_block
from pytest_legalbench.reference_backend import ReferenceBackend

LEASE = """EQUIPMENT LEASE

1. RENT

1.1 The Lessee shall pay rent of 900 euros on the first day of each month.

2. TERM

2.1 The lease runs for 36 months from the Delivery Date.
"""
DOCS = document_block([("orchard-lease", "Equipment Lease", LEASE)])
SYSTEM = [SystemBlock("Answer from the documents."), SystemBlock(DOCS, cache=True)]
VERDICT = ToolSpec(
    name="record_verdict", description="Record which answer is better.",
    input_schema={"type": "object",
                  "properties": {"verdict": {"type": "string", "enum": ["A", "B", "tie"]},
                                 "reason": {"type": "string"}},
                  "required": ["verdict", "reason"]})
DEAD_URL = "http://127.0.0.1:9"  # the discard port: nothing listens there
SECRET = "sk-canary-4f1e9b"


def question(text: str) -> list[dict[str, object]]:
    return [{"role": "user", "content": f"<question>\n{text}\n</question>"}]


def client(base_url: str, *, backend: str = "reference", sleeps: list[float] | None = None,
           max_attempts: int = 5) -> ModelClient:
    config = ClientConfig(backend=backend, base_url=base_url, max_attempts=max_attempts,
                          api_key=SECRET if backend == "anthropic" else None)
    return ModelClient(config, Ledger(), sleep=(sleeps if sleeps is not None else []).append,
                       random=lambda: 0.0, local_failure=cassette_miss)


def answer(model_client: ModelClient, text: str = "How much is the monthly rent?",
           system: list[SystemBlock] = SYSTEM) -> Completion:
    return model_client.complete(stage="inject.answer", model="m", system=system,
                                 messages=question(text), max_tokens=200, question_id="q1")


def judge(model_client: ModelClient) -> StructuredResult:
    user = ("<question>\nWhat is the rent?\n</question>\n<reference>\n900 euros a month "
            "[orchard-lease] Section 1.1\n</reference>\n<answer_a>\n900 euros a month "
            "[orchard-lease] Section 1.1\n</answer_a>\n<answer_b>\n500 euros a month "
            "[orchard-lease] Section 2.1\n</answer_b>")
    return model_client.structured(stage="judge.forward", model="j", system=[],
                                   messages=[{"role": "user", "content": user}], tool=VERDICT,
                                   max_tokens=200, question_id="q1")


def record(path: Path, mode: str = "once") -> CassetteUse:
    """Record an answer and a verdict on a fresh reference backend."""
    with ReferenceBackend() as backend, client(backend.base_url) as live, \
            use_cassette(path, record_mode=mode, backend="reference") as use:
        answer(live)
        judge(live)
    return use


def forbid_connections(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """From now on every socket connect fails; returns the addresses that were tried."""
    tried: list[object] = []

    def refuse(self: socket.socket, address: object) -> None:
        tried.append(address)
        raise OSError(f"the test forbids connecting to {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    return tried


def stored(path: Path) -> list[dict[str, Any]]:
    interactions: list[dict[str, Any]] = yaml.safe_load(path.read_text("utf-8"))["interactions"]
    return interactions


def test_replay_on_a_dead_port_gives_identical_results_without_a_socket(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "item.yaml"
    with ReferenceBackend() as backend, client(backend.base_url) as live, \
            use_cassette(path, record_mode="once", backend="reference") as use:
        first, verdict = answer(live), judge(live)
    assert (use.recording, use.recorded, use.played) == (True, 2, 0)
    assert "900 euros" in first.text and verdict.data is not None
    tried = forbid_connections(monkeypatch)
    with client(DEAD_URL) as offline, \
            use_cassette(path, record_mode="none", backend="reference") as replay:
        again, verdict_again = answer(offline), judge(offline)
    assert (again.text, again.usage, again.model) == (first.text, first.usage, first.model)
    assert (verdict_again.data, verdict_again.usage) == (verdict.data, verdict.usage)
    assert (replay.recording, replay.played, replay.recorded) == (False, 2, 0)
    assert tried == []


def test_replay_ignores_the_port_of_the_server(tmp_path: Path) -> None:
    path = tmp_path / "item.yaml"
    record(path)
    with ReferenceBackend() as other, client(other.base_url) as live, \
            use_cassette(path, record_mode="none", backend="reference") as replay:
        answer(live)
        judge(live)
    assert replay.played == 2
    assert all(re.fullmatch(r"http://127\.0\.0\.1/v1/messages", item["request"]["uri"])
               for item in stored(path))


def test_repeated_requests_replay_in_recorded_order(tmp_path: Path) -> None:
    path = tmp_path / "item.yaml"
    with ReferenceBackend() as backend, client(backend.base_url) as live, \
            use_cassette(path, record_mode="once", backend="reference"):
        recorded = [answer(live).usage for _ in range(3)]
    # The backend's prompt cache makes the first call a cache write and the later ones reads.
    assert recorded[0] != recorded[1] == recorded[2]
    with client(DEAD_URL) as offline, \
            use_cassette(path, record_mode="none", backend="reference") as replay:
        replayed = [answer(offline).usage for _ in range(3)]
    assert replayed == recorded and replay.played == 3


def test_stored_file_holds_digests_and_no_secrets_and_stays_small(tmp_path: Path) -> None:
    clauses = [f"{n}.1 The Lessee shall keep item {n} insured for {n * 10} euros."
               for n in range(1, 4000)]
    big = document_block([("orchard-big", "Schedule of Equipment", "\n\n".join(clauses))])
    assert len(big) > 200_000
    path = tmp_path / "item.yaml"
    with ReferenceBackend() as backend, client(backend.base_url, backend="anthropic") as live, \
            use_cassette(path, record_mode="once", backend="anthropic"):
        reply = answer(live, "Which amount insures item 3999?",
                       [SystemBlock("Answer."), SystemBlock(big, cache=True)])
    text = path.read_text("utf-8")
    assert "39990 euros" in reply.text
    assert "39990 euros" in text  # the answer is readable in the file
    assert "item 17 insured" not in text  # the documents are not
    assert len(text.encode()) < 5_000
    for forbidden in (SECRET, "authorization", "x-api-key", "user-agent", "x-stainless"):
        assert forbidden not in text.lower()
    (item,) = stored(path)
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", item["request"]["body"])
    assert set(item["request"]["headers"]) <= {"anthropic-version", "anthropic-beta",
                                               "content-type"}
    assert set(item["response"]["headers"]) <= {"content-type", "x-legalbench-backend",
                                                "retry-after", "retry-after-ms",
                                                "x-should-retry"}
    assert json.loads(item["response"]["body"]["string"])["content"][0]["text"] == reply.text


class GzipApi(BaseHTTPRequestHandler):
    """Answers like the hosted API: a gzipped body and account- and run-specific headers."""

    protocol_version = "HTTP/1.0"
    served = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).served += 1
        body = gzip.compress(json.dumps({
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [{"type": "text", "text": "The rent is 900 euros. [orchard-lease] 1.1"}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 50, "output_tokens": 12}}).encode())
        self.send_response_only(200)
        for name, value in (("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                            ("Content-Length", str(len(body))), ("Date", self.date_time_string()),
                            ("request-id", f"req_{self.served}"), ("cf-ray", "8a1b-LHR"),
                            ("anthropic-organization-id", "org-canary"), ("Server", "edge"),
                            ("Set-Cookie", "session=canary"),
                            ("anthropic-ratelimit-tokens-remaining", "39000")):
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Keep test output clean."""


@pytest.fixture
def hosted_api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), GzipApi)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


def test_compressed_responses_are_stored_decoded_without_volatile_headers(
        tmp_path: Path, hosted_api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "item.yaml"
    with client(hosted_api, backend="anthropic") as live, \
            use_cassette(path, record_mode="once", backend="anthropic"):
        recorded = answer(live)
    text = path.read_text("utf-8")
    assert "The rent is 900 euros." in text and "gzip" not in text
    for volatile in ("date", "request-id", "req_1", "cf-ray", "org-canary", "server:",
                     "set-cookie", "canary", "ratelimit"):
        assert volatile not in text.lower()
    (item,) = stored(path)
    assert set(item["response"]["headers"]) == {"content-type"}
    tried = forbid_connections(monkeypatch)
    with client(DEAD_URL, backend="anthropic") as offline, \
            use_cassette(path, record_mode="none", backend="anthropic") as replay:
        replayed = answer(offline)
    assert (replayed.text, replayed.usage) == (recorded.text, recorded.usage)
    assert replay.played == 1 and tried == []


@pytest.mark.parametrize("mode", ["none", "once"])
def test_a_miss_fails_at_once_naming_the_cassette(tmp_path: Path, mode: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "item.yaml"
    record(path)
    tried = forbid_connections(monkeypatch)
    sleeps: list[float] = []
    with client(DEAD_URL, sleeps=sleeps) as offline, \
            use_cassette(path, record_mode=mode, backend="reference") as replay, \
            pytest.raises(ModelCallError) as failure:
        answer(offline, "When does the lease end?")
    assert "no recorded response matches this request (cassette miss)" in str(failure.value)
    assert str(path) in str(failure.value)
    assert sleeps == [] and tried == []  # one attempt, no backoff, nothing sent
    assert replay.recording is False and replay.recorded == 0


def test_a_miss_is_named_only_for_vcr_s_own_exception() -> None:
    from vcr.errors import CannotOverwriteExistingCassetteException

    class Fake:
        path = "cassettes/x.yaml"

    # Built without its constructor, which asks the cassette for similar requests.
    inner = CannotOverwriteExistingCassetteException.__new__(
        CannotOverwriteExistingCassetteException)
    inner.cassette = Fake()
    try:
        try:
            raise inner
        except CannotOverwriteExistingCassetteException as error:
            raise RuntimeError("wrapped by the SDK") from error
    except RuntimeError as outer:
        assert cassette_miss(outer) == ("no recorded response matches this request (cassette "
                                        "miss) in cassette cassettes/x.yaml")

    class CannotOverwriteExistingCassetteExceptionLookalike(Exception):
        pass

    assert cassette_miss(CannotOverwriteExistingCassetteExceptionLookalike()) is None
    assert cassette_miss(ValueError("no")) is None


def test_a_connection_failure_without_a_cassette_is_still_retried() -> None:
    sleeps: list[float] = []
    with client(DEAD_URL, sleeps=sleeps, max_attempts=3) as offline, \
            pytest.raises(ModelCallError, match="gave up after 3 attempts: connection failed"):
        answer(offline)
    assert len(sleeps) == 2


def test_none_without_a_file_records_for_the_reference_backend(tmp_path: Path) -> None:
    path = tmp_path / "reference" / "g" / "new.yaml"
    use = record(path, mode="none")
    assert (use.recording, use.recorded) == (True, 2)
    assert len(stored(path)) == 2


def test_none_without_a_file_on_a_live_backend_sends_nothing(tmp_path: Path) -> None:
    path = tmp_path / "anthropic" / "g" / "new.yaml"
    entered = False
    with ReferenceBackend() as backend, client(backend.base_url, backend="anthropic") as live, \
            pytest.raises(CassetteMissing) as missing, \
            use_cassette(path, record_mode="none", backend="anthropic"):
        entered = True
        answer(live)
    assert not entered and not path.exists() and not path.parent.exists()
    message = str(missing.value)
    assert str(path) in message
    assert "--record-mode=once" in message and "ANTHROPIC_API_KEY" in message


@pytest.mark.parametrize("mode", ["all", "rewrite"])
def test_rerecording_replaces_the_file_unless_the_block_fails(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "item.yaml"
    record(path)
    before = path.read_bytes()
    with ReferenceBackend() as backend, client(backend.base_url) as live:
        with pytest.raises(RuntimeError, match="item failed"), \
                use_cassette(path, record_mode=mode, backend="reference") as failed:
            answer(live, "When does the lease end?")
            raise RuntimeError("item failed")
        assert path.read_bytes() == before and failed.recorded == 0
        with use_cassette(path, record_mode=mode, backend="reference") as redone:
            end = answer(live, "When does the lease end?")
    assert (redone.recording, redone.recorded, redone.played) == (True, 1, 0)
    (item,) = stored(path)  # the old answer and verdict are gone
    assert json.loads(item["response"]["body"]["string"])["content"][0]["text"] == end.text
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_a_failed_first_recording_leaves_no_partial_cassette(tmp_path: Path) -> None:
    path = tmp_path / "item.yaml"
    with ReferenceBackend() as backend, client(backend.base_url) as live, \
            pytest.raises(RuntimeError, match="item failed"), \
            use_cassette(path, record_mode="once", backend="reference"):
        answer(live)
        raise RuntimeError("item failed")
    # A partial file would make every later replay of this item miss on its remaining calls.
    assert not path.exists()


def test_rewrite_of_a_block_without_calls_leaves_an_empty_cassette(tmp_path: Path) -> None:
    path = tmp_path / "item.yaml"
    record(path)
    with use_cassette(path, record_mode="rewrite", backend="reference") as use:
        pass
    assert stored(path) == [] and use.recorded == 0
    with use_cassette(path, record_mode="none", backend="anthropic") as replay:
        pass
    assert replay.played == 0


def test_new_episodes_replays_known_calls_and_adds_new_ones(tmp_path: Path) -> None:
    path = tmp_path / "item.yaml"
    record(path)
    with ReferenceBackend() as backend, client(backend.base_url) as live, \
            use_cassette(path, record_mode="new_episodes", backend="reference") as use:
        judge(live)
        answer(live, "When does the lease end?")
    assert (use.recording, use.played, use.recorded) == (True, 1, 1)
    assert len(stored(path)) == 3


CORRUPT = {
    "bad YAML": b"interactions: [unclosed\n",
    "not a mapping": b"- just\n- a list\n",
    "no interactions": b"version: 1\ninteractions: 3\n",
    "wrong version": b"version: 7\ninteractions: []\n",
    "no response": b"version: 1\ninteractions:\n- request: {method: POST, uri: u, body: null, "
                   b"headers: {}}\n",
    "bad status": b"version: 1\ninteractions:\n- request: {method: POST, uri: u, body: null, "
                  b"headers: {}}\n  response: {status: {code: ok, message: OK}, headers: {}, "
                  b"body: {string: x}}\n",
    "not UTF-8": b"version: 1\ninteractions: []\n# \xff\xfe\n",
    "empty": b"",
}


@pytest.mark.parametrize("mode", ["none", "once", "new_episodes"])
@pytest.mark.parametrize("content", CORRUPT.values(), ids=CORRUPT.keys())
def test_a_corrupt_cassette_is_an_error_naming_the_file(tmp_path: Path, content: bytes,
                                                        mode: str) -> None:
    path = tmp_path / "broken.yaml"
    path.write_bytes(content)
    entered = False
    with pytest.raises(CassetteError, match=re.escape(str(path))) as error, \
            use_cassette(path, record_mode=mode, backend="reference"):
        entered = True
    assert not entered and "re-record" in str(error.value)
    assert path.read_bytes() == content


def test_a_folder_in_place_of_a_cassette_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match="is a folder"), \
            use_cassette(tmp_path, record_mode="once", backend="reference"):
        pass


def test_bad_arguments_are_rejected_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="record mode 'sometimes'"), \
            use_cassette(tmp_path / "x.yaml", record_mode="sometimes", backend="reference"):
        pass
    with pytest.raises(ValueError, match="backend 'openai'"), \
            use_cassette(tmp_path / "x.yaml", record_mode="once", backend="openai"):
        pass
    assert not (tmp_path / "x.yaml").exists()


def test_rerecording_the_same_calls_is_byte_identical(tmp_path: Path) -> None:
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    record(first)
    record(second)
    assert first.read_bytes() == second.read_bytes()
    record(first, mode="rewrite")
    assert first.read_bytes() == second.read_bytes()


def test_body_digest_is_canonical_and_idempotent() -> None:
    compact = body_digest(b'{"b":[1,2],"a":"\\u00e9"}')
    spaced = body_digest('{\n  "a": "\u00e9",\n  "b": [1, 2]\n}')
    assert compact == spaced and compact is not None and compact.startswith("sha256:")
    assert body_digest(compact) == compact
    assert body_digest(b'{"a":"x"}') != body_digest(b'{"a":"y"}')
    assert body_digest(b"not json") == body_digest(b"not json") != body_digest(b"not jsom")
    assert body_digest(None) is None and body_digest(b"") is None


@given(st.dictionaries(st.text(max_size=5),
                       st.recursive(st.none() | st.integers() | st.text(max_size=5),
                                    lambda inner: st.lists(inner, max_size=3)
                                    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                                    max_leaves=8), max_size=5))
def test_digest_ignores_key_order_and_layout(body: dict[str, Any]) -> None:
    reordered = dict(reversed(list(body.items())))
    assert body_digest(json.dumps(body)) == body_digest(
        json.dumps(reordered, indent=2, ensure_ascii=False).encode("utf-8"))


def test_cassette_file_layout_and_sanitising(tmp_path: Path) -> None:
    path = cassette_file(tmp_path, "reference", "transactions", "q1-navembed:embed+xref")
    assert path == tmp_path / "reference" / "transactions" / "q1-navembed_embed+xref.yaml"
    assert cassette_file(tmp_path, "reference", "..", "..").parent.name == "_."
    with pytest.raises(ValueError, match="name"):
        cassette_file(tmp_path, "reference", "g", "")
    with pytest.raises(ValueError, match="group"):
        cassette_file(tmp_path, "reference", "", "q1")
    with pytest.raises(ValueError, match="backend 'openai'"):
        cassette_file(tmp_path, "openai", "g", "q1")


@given(group=st.text(min_size=1), name=st.text(min_size=1))
def test_cassette_file_stays_one_component_under_its_group(group: str, name: str) -> None:
    root = Path("/cassettes")
    path = cassette_file(root, "anthropic", group, name)
    assert path.parent.parent == root / "anthropic"
    assert path == cassette_file(root, "anthropic", group, name)
    for component in (path.parent.name, path.name):
        assert re.fullmatch(r"[A-Za-z0-9_+-][A-Za-z0-9._+-]*", component)
        assert len(component) <= 160
    assert path.name.endswith(".yaml") and len(path.name) > len(".yaml")


def test_cassette_size_counts_finished_files(tmp_path: Path) -> None:
    assert cassette_size(tmp_path / "absent") == (0, 0)
    record(tmp_path / "reference" / "g" / "a.yaml")
    record(tmp_path / "reference" / "g" / "b.yaml")
    (tmp_path / "reference" / "g" / ".b.yaml.123.tmp").write_text("partial")
    files, size = cassette_size(tmp_path)
    assert files == 2
    assert size == sum(p.stat().st_size for p in (tmp_path / "reference" / "g").glob("?.yaml"))
