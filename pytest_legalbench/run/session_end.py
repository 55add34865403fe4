"""The end of a benchmark session: records summarised, printed, and written to the report
folder when one was asked for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_legalbench.llm.pricing import PriceCard
from pytest_legalbench.plugin.settings import Settings
from pytest_legalbench.results.item_record import ItemRecord


def finish_session(raw_records: Sequence[dict[str, Any]], settings: Settings,
                   raw_gandr: Sequence[dict[str, Any]] = ()) -> list[str]:
    """The summary lines of a session's records (and the report files, if configured)."""
    from pytest_legalbench.llm.pricing import load_price_card

    card = load_price_card()
    lines: list[str] = []
    if raw_records:
        lines += _retrieval_lines(raw_records, settings, card)
    if raw_gandr:
        lines += _gandr_lines(raw_gandr, settings, card)
    return lines


def _retrieval_lines(raw_records: Sequence[dict[str, Any]], settings: Settings,
                     card: PriceCard) -> list[str]:
    from pytest_legalbench.results.summary import summarise, summary_lines

    records = [ItemRecord.from_dict(raw) for raw in raw_records]
    backend = _backend(records)
    models = _models(records, settings)
    summary = summarise(records, card, backend=backend, models=models)
    lines = ["", "legalbench summary", *summary_lines(summary)]
    if backend == "reference":
        lines.append("(reference backend: a deterministic extractive answerer and key-fact "
                     "judge, not a language model; run with ANTHROPIC_API_KEY for Claude)")
    if settings.report_dir is not None:
        from pytest_legalbench.results.report_files import write_report

        written = write_report(settings.report_dir, records=records, summary=summary,
                               backend=backend, models=models, card=card)
        lines.append(f"report: {', '.join(str(p) for p in written)}")
    return lines


def _gandr_lines(raw_records: Sequence[dict[str, Any]], settings: Settings,
                 card: PriceCard) -> list[str]:
    from pytest_legalbench.gandr.record import GandrRecord, all_calls
    from pytest_legalbench.gandr.summary import gandr_lines, summarise_gandr

    records = sorted((GandrRecord.from_dict(raw) for raw in raw_records),
                     key=lambda r: (r.system, r.question_id))
    summary = summarise_gandr(records, card)
    backends = sorted({c.backend for c in all_calls(records)})
    lines = ["", "legalbench GANDR summary", *gandr_lines(summary)]
    if "reference" in backends:
        lines.append("(reference backend: every role (drafter, audit, rubric, critic, judges) "
                     "is played by deterministic rules, not a language model; seeds vary its "
                     "choices)")
    if "anthropic" in backends:
        from pytest_legalbench.llm.backend import takes_sampling

        lines.append(
            "(temperatures and seeds were sent in the request body to "
            f"{settings.base_url})" if takes_sampling("anthropic", settings.base_url) else
            "(Claude's API takes no temperature and has no seed: neither was sent, so the "
            "repeats differ only by the model's own sampling)")
    if settings.report_dir is not None:
        from pytest_legalbench.gandr.report import write_gandr_report

        written = write_gandr_report(settings.report_dir, records, summary,
                                     backend="+".join(backends) or "none")
        lines.append(f"GANDR report: {written[0]} and {len(written) - 1} trace files")
    return lines


def _backend(records: Sequence[ItemRecord]) -> str:
    found = sorted({c.backend for r in records
                    for c in (*r.inject_calls, *r.mode_calls, *r.judge_calls)})
    return "+".join(found) or "none"


def _models(records: Sequence[ItemRecord], settings: Settings) -> dict[str, str]:
    """The models that produced the records, as their responses name them (the reference
    backend names itself); the configured names when no call of that role was made."""
    answering = {c.model for r in records for c in (*r.inject_calls, *r.mode_calls)
                 if c.stage.endswith(".answer")}
    judging = {c.model for r in records for c in r.judge_calls}
    return {"answer": ", ".join(sorted(answering)) or settings.answer_model,
            "judge": ", ".join(sorted(judging)) or "none (key facts only)"}
