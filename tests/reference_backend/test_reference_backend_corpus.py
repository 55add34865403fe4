"""An inject request over the real `transactions` profile, through the reference backend."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anthropic
import pytest

from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.loading import load_profile
from pytest_legalbench.llm.prompts import REFUSAL, answer_system, answer_user, document_block
from pytest_legalbench.reference_backend import BACKEND_NOTE, ReferenceBackend
from pytest_legalbench.tokens import estimate_tokens

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def documents(corpus_root: Path) -> tuple[Document, ...]:
    return load_profile("transactions", corpus_root, allow_download=False)


def _ask(client: anthropic.Anthropic, block: str, question: str) -> Any:
    system: list[Any] = [{"type": "text", "text": answer_system()},
                         {"type": "text", "text": block, "cache_control": {"type": "ephemeral"}}]
    return client.messages.create(model="reference", max_tokens=2048, system=system,
                                  messages=[{"role": "user", "content": answer_user(question)}])


def test_inject_over_the_whole_profile(documents: tuple[Document, ...]) -> None:
    block = document_block((d.doc_id, d.title, d.text) for d in documents)
    with ReferenceBackend() as backend:
        client = anthropic.Anthropic(base_url=backend.base_url, api_key="reference",
                                     max_retries=0)
        first = _ask(client, block, "Which state's laws govern the wireless content license?")
        second = _ask(client, block, "Who is the captain of the company football team?")
    # The whole profile fits the default 200k window, and the prefix is cached once.
    prefix = estimate_tokens(answer_system()) + estimate_tokens(block)
    assert 150_000 < prefix < 200_000
    assert first.usage.cache_creation_input_tokens == prefix
    assert second.usage.cache_read_input_tokens == prefix
    text = first.content[0].text
    cited = set(re.findall(r"\[([a-z0-9_-]+)\] \S", text))
    assert cited and cited <= {d.doc_id for d in documents}
    assert text.endswith(BACKEND_NOTE)
    assert second.content[0].text.startswith(REFUSAL)
