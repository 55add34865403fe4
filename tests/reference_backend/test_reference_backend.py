"""The reference backend driven through the real ``anthropic`` SDK, as the product uses it."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any, cast

import anthropic
import pytest

from pytest_legalbench.llm.prompts import REFUSAL, document_block, provisions_block
from pytest_legalbench.reference_backend import (
    BACKEND_HEADER,
    BACKEND_NOTE,
    REFERENCE_MODEL,
    ReferenceBackend,
)
from pytest_legalbench.tokens import estimate_tokens

SUPPLY = """SUPPLY AGREEMENT

This Supply Agreement is made between Harbor Tools Ltd ("Supplier") and Quill Retail Inc ("Buyer").

1. DEFINITIONS

1.1 "Territory" means the Republic of Ireland.

2. SUPPLY

2.1 Supplier shall deliver the Goods to Buyer within 14 days of each purchase order.

2.2 Buyer shall pay each invoice within 30 days of its date.

3. GOVERNING LAW

3.1 This Agreement is governed by the laws of England and Wales.
"""

AMENDMENT = """AMENDMENT NO. 1 TO THE SUPPLY AGREEMENT

1. The Territory is amended to be the Republic of Ireland and Northern Ireland.

2. All other terms of the Supply Agreement remain in force.
"""

DOCS = document_block([("harbor-supply", "Supply Agreement", SUPPLY),
                       ("harbor-amend-1", "Amendment No. 1 to the Supply Agreement", AMENDMENT)])

VERDICT_TOOL: Any = {
    "name": "record_verdict",
    "description": "Record which answer is better.",
    "input_schema": {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": ["A", "B", "tie"]},
                       "reason": {"type": "string"}},
        "required": ["verdict", "reason"],
    },
}


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def backend(clock: FakeClock) -> Iterator[ReferenceBackend]:
    with ReferenceBackend(context_window=5_000, cache_ttl_s=300.0, clock=clock) as running:
        yield running
    assert not running.running


@pytest.fixture
def client(backend: ReferenceBackend) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=backend.base_url, api_key="reference", max_retries=0)


def ask(client: anthropic.Anthropic, question: str, *, context: str = DOCS,
        cached: bool = True, **extra: Any) -> Any:
    system: list[Any] = [{"type": "text", "text": "Answer from the documents."}]
    user = f"<question>\n{question}\n</question>"
    if context.startswith("<documents>"):
        block: dict[str, Any] = {"type": "text", "text": context}
        if cached:
            block["cache_control"] = {"type": "ephemeral"}
        system.append(block)
    else:
        user = context + user
    return client.messages.create(model="any-model-name", max_tokens=1024, system=system,
                                  messages=[{"role": "user", "content": user}], **extra)


def raw_post(backend: ReferenceBackend, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(backend.base_url + path, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_answers_from_documents_with_citations(client: anthropic.Anthropic) -> None:
    message = ask(client, "Within how many days must the Buyer pay an invoice?")
    text = message.content[0].text
    assert "30 days" in text
    assert "[harbor-supply] Section 2.2" in text
    assert text.endswith(BACKEND_NOTE)
    assert message.model == REFERENCE_MODEL
    assert message.stop_reason == "end_turn"
    assert message.id.startswith("msg_")


def test_amendment_and_original_are_both_cited(client: anthropic.Anthropic) -> None:
    text = ask(client, "What is the Territory?").content[0].text
    assert "[harbor-amend-1] Section 1" in text
    assert "[harbor-supply] Section 1.1" in text


def test_answers_from_provisions_with_their_clause(client: anthropic.Anthropic) -> None:
    provisions = provisions_block([
        ("harbor-supply", "harbor-supply:2.1", "Section 2.1", "",
         "Supplier shall deliver the Goods to Buyer within 14 days of each purchase order."),
        ("harbor-supply", "harbor-supply:3.1", "Section 3.1", "",
         "This Agreement is governed by the laws of England and Wales."),
    ])
    text = ask(client, "Which laws govern the agreement?", context=provisions).content[0].text
    assert "England and Wales. [harbor-supply] Section 3.1" in text
    assert "Section 2.1" not in text


def test_refuses_when_the_documents_are_silent(client: anthropic.Anthropic) -> None:
    message = ask(client, "What colour is the company's delivery van?")
    assert message.content[0].text == f"{REFUSAL}\n\n{BACKEND_NOTE}"


def test_usage_counts_the_prompt_and_answer(client: anthropic.Anthropic) -> None:
    message = ask(client, "Within how many days must the Buyer pay an invoice?", cached=False)
    usage = message.usage
    assert usage.cache_creation_input_tokens == 0 and usage.cache_read_input_tokens == 0
    assert usage.output_tokens == estimate_tokens(message.content[0].text)
    counted = client.messages.count_tokens(
        model="m", system=[{"type": "text", "text": "Answer from the documents."},
                           {"type": "text", "text": DOCS}],
        messages=[{"role": "user", "content": "<question>\nWithin how many days must the Buyer "
                                              "pay an invoice?\n</question>"}])
    assert counted.input_tokens == usage.input_tokens
    assert counted.input_tokens == (estimate_tokens("Answer from the documents.")
                                    + estimate_tokens(DOCS) + estimate_tokens(
                                        "<question>\nWithin how many days must the Buyer pay "
                                        "an invoice?\n</question>"))


def test_cache_write_then_read_within_ttl_then_write_after(
        client: anthropic.Anthropic, clock: FakeClock) -> None:
    prefix = estimate_tokens("Answer from the documents.") + estimate_tokens(DOCS)
    first = ask(client, "What is the Territory?").usage
    assert (first.cache_creation_input_tokens, first.cache_read_input_tokens) == (prefix, 0)
    clock.now += 299
    second = ask(client, "Which laws govern the agreement?").usage
    assert (second.cache_creation_input_tokens, second.cache_read_input_tokens) == (0, prefix)
    assert second.input_tokens == estimate_tokens(
        "<question>\nWhich laws govern the agreement?\n</question>")
    # A read refreshes the entry, so the TTL counts from the last use.
    clock.now += 299
    assert ask(client, "What is the Territory?").usage.cache_read_input_tokens == prefix
    clock.now += 301
    third = ask(client, "What is the Territory?").usage
    assert (third.cache_creation_input_tokens, third.cache_read_input_tokens) == (prefix, 0)


def test_forced_verdict_tool_returns_a_b_and_tie(client: anthropic.Anthropic) -> None:
    reference = "The Buyer must pay within 30 days [harbor-supply] Section 2.2."
    good = "Payment is due within 30 days [harbor-supply] Section 2.2."
    wrong = "Payment is due within 45 days [harbor-supply] Section 2.1."

    def verdict(answer_a: str, answer_b: str) -> dict[str, Any]:
        user = (f"<question>\nWhen must the Buyer pay?\n</question>\n<reference>\n{reference}\n"
                f"</reference>\n<answer_a>\n{answer_a}\n</answer_a>\n<answer_b>\n{answer_b}\n"
                "</answer_b>")
        message = client.messages.create(
            model="judge", max_tokens=512, tools=[VERDICT_TOOL],
            tool_choice={"type": "tool", "name": "record_verdict"},
            messages=[{"role": "user", "content": user}])
        assert message.stop_reason == "tool_use"
        block = message.content[0]
        assert block.type == "tool_use" and block.name == "record_verdict"
        assert str(block.input["reason"]).endswith(BACKEND_NOTE)
        return dict(block.input)

    assert verdict(good, wrong)["verdict"] == "A"
    assert verdict(wrong, good)["verdict"] == "B"
    assert verdict(good, good)["verdict"] == "tie"


def test_unknown_forced_tool_is_a_400_naming_it(client: anthropic.Anthropic) -> None:
    tool: Any = {"name": "pick_widgets", "input_schema": {"type": "object"}}
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model="m", max_tokens=10, tools=[tool],
                               tool_choice={"type": "tool", "name": "pick_widgets"},
                               messages=[{"role": "user", "content": "pick"}])
    assert raised.value.status_code == 400
    assert "pick_widgets" in str(raised.value)


def test_a_scan_without_an_index_is_a_400_naming_the_tool(client: anthropic.Anthropic) -> None:
    tool: Any = {"name": "select_nodes", "input_schema": {"type": "object"}}
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model="m", max_tokens=10, tools=[tool],
                               tool_choice={"type": "tool", "name": "select_nodes"},
                               messages=[{"role": "user", "content": "pick"}])
    assert raised.value.status_code == 400 and "select_nodes" in str(raised.value)


def test_prompt_over_the_context_window_is_rejected(client: anthropic.Anthropic) -> None:
    huge = "word " * 6_000  # 30,000 characters: 7,500 tokens against a 5,000-token window
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model="m", max_tokens=10,
                               messages=[{"role": "user", "content": huge}])
    body = raised.value.body
    assert isinstance(body, dict)
    assert body["error"]["type"] == "invalid_request_error"
    assert "prompt is too long: 7500 tokens > 5000 maximum" in body["error"]["message"]


@pytest.mark.parametrize(("body", "problem"), [
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "JSON object"),
    (b'{"model": "m", "max_tokens": 5}', "messages"),
    (b'{"max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}', "model"),
    (b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}', "max_tokens"),
    (b'{"model": "m", "max_tokens": 5, "messages": [{"role": "system", "content": "hi"}]}',
     "messages.0.role"),
    (b'{"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": '
     + b'[{"type": "image"}]}]}', "'image'"),
    (b'{"model": "m", "max_tokens": 5, "stream": true, "messages": '
     + b'[{"role": "user", "content": "hi"}]}', "streaming"),
])
def test_malformed_requests_get_api_shaped_400s(backend: ReferenceBackend, body: bytes,
                                                problem: str) -> None:
    status, headers, raw = raw_post(backend, "/v1/messages", body)
    payload = json.loads(raw)
    assert status == 400
    assert payload["type"] == "error"
    assert payload["error"]["type"] == "invalid_request_error"
    assert problem in payload["error"]["message"]
    assert "Traceback" not in payload["error"]["message"]
    assert headers[BACKEND_HEADER] == "reference"


def test_malformed_request_through_the_sdk(client: anthropic.Anthropic) -> None:
    with pytest.raises(anthropic.BadRequestError, match="role"):
        client.messages.create(model="m", max_tokens=5,
                               messages=cast(Any, [{"role": "robot", "content": "hi"}]))


def test_unknown_path_is_a_404(backend: ReferenceBackend) -> None:
    status, _, raw = raw_post(backend, "/v1/complete", b"{}")
    assert status == 404
    assert json.loads(raw)["error"]["type"] == "not_found_error"


def test_same_request_same_bytes(backend: ReferenceBackend) -> None:
    body = json.dumps({"model": "m", "max_tokens": 100, "system": DOCS,
                       "messages": [{"role": "user", "content": "What is the Territory?"}]})
    first = raw_post(backend, "/v1/messages", body.encode())
    second = raw_post(backend, "/v1/messages", body.encode())
    assert first[0] == 200
    assert first[2] == second[2]
    assert first[1][BACKEND_HEADER] == "reference"
    assert "Date" not in first[1]


def test_stop_closes_the_port_and_is_idempotent() -> None:
    backend = ReferenceBackend().start()
    port = int(backend.base_url.rsplit(":", 1)[1])
    backend.stop()
    backend.stop()
    assert not backend.running
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port),
                                                                         timeout=2):
        pass
    with pytest.raises(RuntimeError, match="not running"):
        _ = backend.base_url


def test_max_tokens_cuts_the_answer_but_keeps_the_note(client: anthropic.Anthropic) -> None:
    message = client.messages.create(
        model="m", max_tokens=20, system=DOCS,
        messages=[{"role": "user", "content": "What is the Territory?"}])
    assert message.stop_reason == "max_tokens"
    block = message.content[0]
    assert block.type == "text" and block.text.endswith(BACKEND_NOTE)
