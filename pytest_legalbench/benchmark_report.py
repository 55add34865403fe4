"""The end of a benchmark session: records summarised, printed, and written to the report
folder when one was asked for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .item_record import ItemRecord
from .settings import Settings


def finish_session(raw_records: Sequence[dict[str, Any]], settings: Settings) -> list[str]:
    """The summary lines of a session's records (and the report files, if configured)."""
    from .pricing import load_price_card
    from .session_summary import summarise, summary_lines

    records = [ItemRecord.from_dict(raw) for raw in raw_records]
    card = load_price_card()
    backend = _backend(records)
    models = _models(records, settings)
    summary = summarise(records, card, backend=backend, models=models)
    lines = ["", "legalbench summary", *summary_lines(summary)]
    if backend == "reference":
        lines.append("(reference backend: a deterministic extractive answerer and key-fact "
                     "judge, not a language model; run with ANTHROPIC_API_KEY for Claude)")
    if settings.report_dir is not None:
        from .report_files import write_report

        written = write_report(settings.report_dir, records=records, summary=summary,
                               backend=backend, models=models, card=card)
        lines.append(f"report: {', '.join(str(p) for p in written)}")
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
