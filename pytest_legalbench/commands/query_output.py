"""What ``ask`` and ``retrieve`` print: retrieval lines, the answer report and its JSON form."""

from __future__ import annotations

import json
from statistics import fmean

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.call_types import Completion
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.llm.pricing import PriceCard, format_usd, price_call, price_calls
from pytest_legalbench.llm.server_capabilities import rules_text
from pytest_legalbench.modes.base import Retrieval
from pytest_legalbench.results.evaluation import nearest_rank
from pytest_legalbench.run.query import QuerySession


def retrieval_line(retrieval: Retrieval, question_id: str | None, question: str) -> str:
    """One line of ``retrieve`` output: the contract later tools read."""
    return json.dumps({
        "id": question_id, "question": question, "mode": retrieval.mode,
        "provisions": [to_builtins(p) for p in retrieval.provisions],
        "payload_tokens": retrieval.payload_tokens, "scan_tokens": retrieval.scan_tokens,
        "dropped": dict(retrieval.dropped), "notes": list(retrieval.notes),
    }, ensure_ascii=False)


def payload_summary(payloads: list[int]) -> str:
    """The payload line ``retrieve --questions`` ends with: mean, p95 and max tokens."""
    if not payloads:
        return "payload tokens: no questions"
    ordered = sorted(payloads)
    return (f"payload tokens over {len(ordered)} questions: mean {fmean(ordered):,.0f}, "
            f"p95 {nearest_rank(ordered, 0.95):,}, max {ordered[-1]:,}")


def report_lines(retrieval: Retrieval, completion: Completion, session: QuerySession,
                 card: PriceCard) -> list[str]:
    """The answer, the provisions it read, who produced it, and every call's tokens and cost."""
    summary = (f"mode {retrieval.mode}: {len(retrieval.provisions)} provisions, "
               f"{retrieval.payload_tokens} payload tokens")
    lines = [completion.text.strip(), "", summary]
    lines.extend(f"  [{p.doc_id}] {p.clause or p.node_id}" for p in retrieval.provisions)
    lines.extend(f"  note: {note}" for note in retrieval.notes)
    lines.append("")
    if session.config.backend == "reference":
        lines.append("backend: the embedded reference backend (extractive, no language model); "
                     "set ANTHROPIC_API_KEY or --backend anthropic for a real model")
    elif session.config.server is not None and session.config.server.third_party:
        server = session.config.server
        lines.append(f"backend: {server.label} ({server.caps.name}, identified by "
                     f"{server.how}; capability rules: {rules_text(server.caps)})")
    else:
        lines.append(f"backend: anthropic ({session.config.base_url or 'api.anthropic.com'})")
    lines.append(f"{'stage':16} {'model':36} {'input':>8} {'cache wr':>9} {'cache rd':>9} "
                 f"{'output':>7} {'footprint':>9} {'dollars':>10}")
    for call in session.ledger.calls:
        usage = call.usage
        lines.append(
            f"{call.stage:16} {call.model[:36]:36} {usage.input_tokens:>8} "
            f"{_count(call, 'cache_creation_input_tokens'):>9} "
            f"{_count(call, 'cache_read_input_tokens'):>9} "
            f"{usage.output_tokens:>7} {usage.footprint:>9} "
            f"{format_usd(price_call(call, card).total):>10}")
    if any(call.unreported for call in session.ledger.calls):
        lines.append("n/r: not reported by this server (counted as zero, priced as nothing)")
    total = session.ledger.total()
    batched = sum(call.batch for call in session.ledger.calls)
    rate = f", {batched} call(s) at batch prices" if batched else ""
    lines.append(f"total: token footprint {total.footprint}, output {total.output_tokens}, "
                 f"cost {format_usd(price_calls(session.ledger.calls, card).total)} "
                 f"(price card {card.label}{rate})")
    return lines


def _count(call: Call, field: str) -> str:
    """A usage count as the table shows it: ``n/r`` where the server did not report it."""
    return "n/r" if field in call.unreported else str(getattr(call.usage, field))


def report_json(retrieval: Retrieval, completion: Completion, session: QuerySession,
                card: PriceCard) -> str:
    """The same report as JSON: the answer, the provisions, and each call's usage and cost."""
    calls = session.ledger.calls
    server = session.config.server
    return json.dumps({
        "answer": completion.text, "backend": session.config.backend, "model": completion.model,
        **({"server": {"label": server.label, "kind": server.kind, "how": server.how,
                       "model": server.model}}
           if server is not None and server.third_party else {}),
        "mode": retrieval.mode,
        "provisions": [{k: v for k, v in to_builtins(p).items() if k != "text"}
                       for p in retrieval.provisions],
        "payload_tokens": retrieval.payload_tokens, "scan_tokens": retrieval.scan_tokens,
        "calls": [dict(to_builtins(call), cost=to_builtins(price_call(call, card)))
                  for call in calls],
        "total": to_builtins(session.ledger.total()),
        "cost": to_builtins(price_calls(calls, card)),
        "price_card": card.label,
    }, indent=2)
