"""The end of a benchmark session: every product's records summarised, printed, and written
to the report folder when one was asked for. One path for every product: the records arrive
as envelopes (``run.protocol``) and each product's finisher takes its own."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_legalbench.llm.pricing import PriceCard
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.run.protocol import unwrap


@dataclass(frozen=True)
class SessionEnd:
    """What the end of a session needs to know of its settings."""

    report_dir: Path | None = None
    base_url: str | None = None
    """The Messages-API server given by URL, if any (it decides what the sampling note says)."""
    answer_model: str = ""
    """The configured answering model, named when no answering call was made."""


def finish_session(envelopes: Sequence[object], end: SessionEnd) -> list[str]:
    """The summary lines of a session's records, product by product (and the report files,
    if a folder was asked for)."""
    from pytest_legalbench.llm.pricing import load_price_card

    by_product: dict[str, list[Mapping[str, Any]]] = {}
    for value in envelopes:
        found = unwrap(value)
        if found is None:
            raise ValueError(f"not a record envelope: {value!r:.80}")
        by_product.setdefault(found[0], []).append(found[1])
    unknown = sorted(set(by_product) - set(_FINISHERS))
    if unknown:
        raise ValueError(f"records of unknown products: {', '.join(unknown)}")
    card = load_price_card()
    lines: list[str] = []
    for product, finish in _FINISHERS.items():
        if by_product.get(product):
            lines += finish(by_product[product], end, card)
    return lines


def _qa_lines(raw_records: Sequence[Mapping[str, Any]], end: SessionEnd,
                     card: PriceCard) -> list[str]:
    from pytest_legalbench.results.summary import summarise
    from pytest_legalbench.results.summary_lines import summary_lines

    records = [ItemRecord.from_dict(raw) for raw in raw_records]
    backend = _backend(records)
    models = _models(records, end.answer_model)
    summary = summarise(records, card, backend=backend, models=models)
    lines = ["", "legalbench summary", *summary_lines(summary)]
    lines.extend(_server_lines({c.server for r in records
                                for c in (*r.inject_calls, *r.mode_calls, *r.judge_calls)
                                if c.server}))
    if backend == "reference":
        lines.append("(reference backend: a deterministic extractive answerer and key-fact "
                     "judge, not a language model; run with ANTHROPIC_API_KEY for Claude)")
    if end.report_dir is not None:
        from pytest_legalbench.results.report_files import write_report

        written = write_report(end.report_dir, records=records, summary=summary,
                               backend=backend, models=models, card=card)
        lines.append(f"report: {', '.join(str(p) for p in written)}")
    return lines


def _gandr_lines(raw_records: Sequence[Mapping[str, Any]], end: SessionEnd,
                 card: PriceCard) -> list[str]:
    from pytest_legalbench.gandr.record import GandrRecord, all_calls
    from pytest_legalbench.gandr.summary import gandr_lines, summarise_gandr
    from pytest_legalbench.results.summary import unreported_usage
    from pytest_legalbench.results.summary_lines import cache_accounting_lines

    records = sorted((GandrRecord.from_dict(raw) for raw in raw_records),
                     key=lambda r: (r.system, r.question_id))
    summary = summarise_gandr(records, card)
    calls = all_calls(records)
    backends = sorted({c.backend for c in calls})
    lines = ["", "legalbench GANDR summary", *gandr_lines(summary)]
    if any(b != "reference" for b in backends):
        lines.append(f"backend {' + '.join(backends)}")
    lines.extend(cache_accounting_lines(unreported_usage(calls)))
    if "reference" in backends:
        lines.append("(reference backend: every role (drafter, audit, rubric, critic, judges) "
                     "is played by deterministic rules, not a language model; seeds vary its "
                     "choices)")
    if any(b != "reference" for b in backends):
        lines.append(_sampling_note(end.base_url, {c.server for c in calls if c.server}))
    if end.report_dir is not None:
        from pytest_legalbench.gandr.report import write_gandr_report

        written = write_gandr_report(end.report_dir, records, summary,
                                     backend="+".join(backends) or "none")
        lines.append(f"GANDR report: {written[0]} and {len(written) - 1} trace files")
    return lines


def _server_lines(servers: set[str]) -> list[str]:
    """Which kind of third-party server answered, and the capability rules applied to it."""
    from pytest_legalbench.llm.server_capabilities import capabilities, rules_text

    return [f"(server: {capabilities(kind).name}; capability rules: "
            f"{rules_text(capabilities(kind))})" for kind in sorted(servers)]


def _sampling_note(base_url: str | None, servers: set[str]) -> str:
    """What was sent of the GANDR systems' temperatures and seeds, and to whom."""
    from pytest_legalbench.llm.backend import takes_sampling
    from pytest_legalbench.llm.server_capabilities import capabilities

    if not takes_sampling("anthropic", base_url):
        return ("(Claude's API takes no temperature and has no seed: neither was sent, so the "
                "repeats differ only by the model's own sampling)")
    seedless = sorted(capabilities(s).name for s in servers if not capabilities(s).takes_seed)
    if seedless:
        return (f"(temperatures were sent in the request body to {base_url}; seeds were not: "
                f"the {', '.join(seedless)} reads none from /v1/messages, so its own --seed "
                f"applies to every call)")
    return f"(temperatures and seeds were sent in the request body to {base_url})"


def _backend(records: Sequence[ItemRecord]) -> str:
    found = sorted({c.backend for r in records
                    for c in (*r.inject_calls, *r.mode_calls, *r.judge_calls)})
    return "+".join(found) or "none"


def _models(records: Sequence[ItemRecord], answer_model: str) -> dict[str, str]:
    """The models that produced the records, as their responses name them (the reference
    backend names itself); the configured names when no call of that role was made."""
    answering = {c.model for r in records for c in (*r.inject_calls, *r.mode_calls)
                 if c.stage.endswith(".answer")}
    judging = {c.model for r in records for c in r.judge_calls}
    return {"answer": ", ".join(sorted(answering)) or answer_model,
            "judge": ", ".join(sorted(judging)) or "none (key facts only)"}


_FINISHERS: dict[str, Callable[[Sequence[Mapping[str, Any]], SessionEnd, PriceCard],
                               list[str]]] = {"qa": _qa_lines, "gandr": _gandr_lines}
