"""``legalbench ask``: one question answered end to end, with its ledger and dollar cost."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .client import ClientConfig, Completion, ModelClient, resolve_backend
from .ingest.document import Document
from .inject import answer_with_inject, inject_context
from .ledger import Ledger
from .pricing import PriceCard, format_usd, price, price_calls

#: Modes ``ask`` can run today; the retrieval modes arrive with their own issue.
ASK_MODES = ("inject",)


class UnavailableMode(ValueError):
    """A mode ``ask`` cannot run (yet); the message lists the ones it can."""


@dataclass(frozen=True)
class AskRequest:
    """What one ``ask`` run needs, already validated by the command line."""

    question: str
    mode: str
    model: str
    backend: str | None
    base_url: str | None
    context_window: int
    price_card: Path | None


@contextlib.contextmanager
def open_backend(config: ClientConfig, context_window: int) -> Iterator[ClientConfig]:
    """Yield a client configuration; for the reference backend, serve it for the duration."""
    if config.backend != "reference":
        yield config
        return
    from .reference_backend import ReferenceBackend

    with ReferenceBackend(context_window=context_window) as backend:
        yield dataclasses.replace(config, base_url=backend.base_url, api_key="reference")


def ask(request: AskRequest, documents: Sequence[Document]) -> tuple[Completion, Ledger, ClientConfig]:
    """Answer the question over ``documents`` and return the answer, the ledger and the backend."""
    if request.mode not in ASK_MODES:
        raise UnavailableMode(f"--mode {request.mode!r} is not available yet; available: "
                         f"{', '.join(ASK_MODES)}")
    context = inject_context(documents, request.context_window)
    config = resolve_backend(request.backend, os.environ)
    if request.base_url:
        config = dataclasses.replace(config, base_url=request.base_url)
    ledger = Ledger()
    with open_backend(config, request.context_window) as live, ModelClient(live, ledger) as client:
        completion = answer_with_inject(client, context, request.question, model=request.model)
    return completion, ledger, config


def report_lines(completion: Completion, ledger: Ledger, config: ClientConfig,
                 card: PriceCard) -> list[str]:
    """The answer, who produced it, and every call with its tokens and dollars."""
    lines = [completion.text.strip(), ""]
    if config.backend == "reference":
        lines.append("backend: the embedded reference backend (extractive, no language model); "
                     "set ANTHROPIC_API_KEY or --backend anthropic for a real model")
    else:
        lines.append(f"backend: anthropic ({config.base_url or 'api.anthropic.com'})")
    lines.append(f"{'stage':16} {'model':36} {'input':>8} {'cache wr':>9} {'cache rd':>9} "
                 f"{'output':>7} {'footprint':>9} {'dollars':>10}")
    for call in ledger.calls:
        usage = call.usage
        lines.append(
            f"{call.stage:16} {call.model[:36]:36} {usage.input_tokens:>8} "
            f"{usage.cache_creation_input_tokens:>9} {usage.cache_read_input_tokens:>9} "
            f"{usage.output_tokens:>7} {usage.footprint:>9} "
            f"{format_usd(price(usage, card, call.model).total):>10}")
    total = ledger.total()
    lines.append(f"total: token footprint {total.footprint}, output {total.output_tokens}, "
                 f"cost {format_usd(price_calls(ledger.calls, card).total)} "
                 f"(price card {card.label})")
    return lines


def report_json(completion: Completion, ledger: Ledger, config: ClientConfig,
                card: PriceCard) -> str:
    """The same report as JSON: the answer, the backend and each call's usage and cost."""
    return json.dumps({
        "answer": completion.text, "backend": config.backend, "model": completion.model,
        "calls": [dict(call.to_dict(), cost=price(call.usage, card, call.model).to_dict())
                  for call in ledger.calls],
        "total": ledger.total().to_dict(), "cost": price_calls(ledger.calls, card).to_dict(),
        "price_card": card.label,
    }, indent=2)
