"""The end of a benchmark session: every product's records summarised, printed, and written
to the report folder when one was asked for (report.html last, over every product). One path
for every product: the records arrive as envelopes (``run.protocol``) and each product's
finisher takes its own."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_legalbench import __version__
from pytest_legalbench.files.record_json import from_builtins
from pytest_legalbench.gandr.record import GandrRecord, all_calls
from pytest_legalbench.gandr.report import write_gandr_report
from pytest_legalbench.gandr.summary import gandr_lines, summarise_gandr
from pytest_legalbench.gandr.systems import is_system
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.llm.backend import takes_sampling
from pytest_legalbench.llm.ledger import Call
from pytest_legalbench.llm.pricing import PriceCard, load_price_card
from pytest_legalbench.llm.server_capabilities import capabilities, rules_text
from pytest_legalbench.results.item_errors import ItemError, error_lines, item_error
from pytest_legalbench.results.item_record import ItemRecord
from pytest_legalbench.results.provision_table import provision_table
from pytest_legalbench.results.report_files import write_report
from pytest_legalbench.results.results_file import StoredRun, read_run
from pytest_legalbench.results.retry_lines import retry_lines
from pytest_legalbench.results.run_header import (
    UNKNOWN,
    CorpusIdentity,
    QuestionSelection,
    RunHeader,
    corpus_identity,
    report_date,
    sorted_modes,
)
from pytest_legalbench.results.summarise import summarise, unreported_usage
from pytest_legalbench.results.summary_lines import cache_accounting_lines, summary_lines
from pytest_legalbench.run.cost_plan import measured_calls
from pytest_legalbench.run.html_report import write_html_report
from pytest_legalbench.run.progress import Progress
from pytest_legalbench.run.protocol import unwrap
from pytest_legalbench.run.run_folder import PARTIAL_FOLDER


@dataclass(frozen=True)
class SessionEnd:
    """What the end of a session needs to know of its settings."""

    report_dir: Path | None = None
    base_url: str | None = None
    """The Messages-API server given by URL, if any (it decides what the sampling note says)."""
    answer_model: str = ""
    """The configured answering model, named when no answering call was made."""
    judge_model: str = ""
    """The configured judge model; with ``answer_model`` it names the output lengths the
    session's calls leave for the next plan (``run.output_memory``). Empty: none are kept."""
    profile: str = ""
    """The corpus profile (the report reads its documents for the provision texts)."""
    corpus_dir: Path | None = None
    cache_dir: Path | None = None
    questions_dir: Path | None = None
    """None: the profile's packaged question set."""
    judge: str = ""
    """The judging protocol asked for."""
    progress: Progress | None = None
    """How much of the run finished; None when nothing says (taken as whole)."""
    modes: tuple[str, ...] = ()
    """The run's modes in the order it named them (its comparisons follow it)."""
    selection: QuestionSelection | None = None
    """The question set and the sample the run drew."""
    errors: tuple[ItemError, ...] = ()
    """Items that failed with an error instead of producing a record."""

    @property
    def partial(self) -> str:
        """``partial: N of M items`` for a run that did not finish, else ``""``."""
        return self.progress.label if self.progress is not None else ""


@dataclass
class _Parts:
    """What each product's finisher leaves for report.html."""

    qa: StoredRun | None = None
    gandr: list[GandrRecord] = field(default_factory=list)
    calls: list[tuple[str, Call]] = field(default_factory=list)
    """Every model call of the session with the arm it served."""


def finish_session(envelopes: Sequence[object], end: SessionEnd,
                   errors: Sequence[object] = ()) -> list[str]:
    """The summary lines of a session's records, product by product (and the report files,
    report.html last, if a folder was asked for); ``errors``, the ``legalbench_error``
    properties of items that failed, are counted and listed (a QA run's in its summary)."""
    failed = tuple(found for found in map(item_error, errors) if found is not None)
    end = dataclasses.replace(end, errors=failed)
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
    parts = _Parts()
    end = dataclasses.replace(end, report_dir=_report_folder(end))
    for product, finish in _FINISHERS.items():
        if by_product.get(product):
            lines += finish(by_product[product], end, card, parts)
    unlisted = [e for e in failed if not by_product.get("qa") or is_system(e.mode)]
    if unlisted:
        lines += ["", *error_lines(unlisted)]
    lines += _keep_output_lengths(parts.calls, end)
    if end.report_dir is not None and (parts.qa is not None or parts.gandr):
        page = write_html_report(end.report_dir, parts.qa, parts.gandr, card)
        lines.append(f"report: {page} (one page, open it in a browser)")
    return lines


def _report_folder(end: SessionEnd) -> Path | None:
    """Where the report goes: a partial run never replaces a whole run's report, it goes
    into the ``partial/`` folder beside it instead."""
    folder = end.report_dir
    if folder is None or not end.partial:
        return folder
    if (folder / "gandr-results.json").is_file():
        return folder / PARTIAL_FOLDER  # GANDR's results file does not say whether it is whole
    if not (folder / "results.json").is_file():
        return folder
    try:
        whole = not read_run(folder / "results.json").header.partial
    except (OSError, ValueError, KeyError, TypeError):
        whole = False  # an unreadable results.json is no report worth keeping
    return folder / PARTIAL_FOLDER if whole else folder


def _keep_output_lengths(calls: Sequence[tuple[str, Call]], end: SessionEnd) -> list[str]:
    """Keep the session's output lengths for the next plan, per backend that answered."""
    if end.cache_dir is None or not end.judge_model or not calls:
        return []
    from pytest_legalbench.run.output_memory import MemoryKey, remember

    by_backend: dict[str, list[tuple[str, Call]]] = {}
    for arm, call in calls:
        by_backend.setdefault(call.backend, []).append((arm, call))
    run = str(end.report_dir) if end.report_dir is not None else "a run without a report folder"
    lines = []
    for backend, found in sorted(by_backend.items()):
        key = MemoryKey(backend, end.answer_model, end.judge_model)
        try:
            path = remember(end.cache_dir, key, found, run)
        except OSError as error:
            # A read-only cache costs the next plan its measured lengths, never the summary.
            lines.append(f"output lengths not kept for the next plan: {error}")
            continue
        if path is not None:
            lines.append(f"output lengths of {len(found):,} {backend} calls kept for the next "
                         f"plan: {path}")
    return lines


def _title(title: str, end: SessionEnd) -> str:
    return f"{title} ({end.partial})" if end.partial else title


_REFERENCE_NOTE = ("(reference backend: a deterministic extractive answerer and key-fact "
                   "judge, not a language model; run with ANTHROPIC_API_KEY for Claude)")


def _qa_lines(raw_records: Sequence[Mapping[str, Any]], end: SessionEnd,
              card: PriceCard, parts: _Parts) -> list[str]:
    records = [from_builtins(ItemRecord, raw, what="a qa record") for raw in raw_records]
    parts.calls.extend(measured_calls(records))
    backend = _backend(records)
    models = _models(records, end.answer_model)
    summary = summarise(records, card, backend=backend, models=models, order=end.modes,
                        errors=[e for e in end.errors if not is_system(e.mode)])
    lines = ["", _title("legalbench summary", end), *summary_lines(summary)]
    if end.selection is not None:
        lines.append(f"questions: {end.selection.text()}")
    lines.extend(_server_lines({c.server for r in records
                                for c in (*r.inject_calls, *r.mode_calls, *r.judge_calls)
                                if c.server}))
    lines.extend(retry_lines(_distinct_calls(records)))
    if backend == "reference":
        lines.append(_REFERENCE_NOTE)
    if end.report_dir is not None:
        texts, corpus = _corpus(end)
        header = RunHeader(
            backend=backend, models=models, price_card=card.label, corpus=corpus,
            modes=sorted_modes(r.mode for r in records), judge=end.judge or UNKNOWN,
            questions=str(end.questions_dir) if end.questions_dir else "packaged",
            date=report_date(), package_version=__version__,
            notes=(*((end.partial,) if end.partial else ()),
                   *((_REFERENCE_NOTE.strip("()"),) if backend == "reference" else ())))
        provisions = provision_table(records, texts)
        written = write_report(end.report_dir, records=records, summary=summary,
                               backend=backend, models=models, card=card, header=header,
                               provisions=provisions)
        lines.append(f"report: {', '.join(str(p) for p in written)}")
        parts.qa = read_run(written[0])
    return lines


def _corpus(end: SessionEnd) -> tuple[dict[str, str], CorpusIdentity]:
    """The profile's document texts and identity; none when they cannot be read (the report
    then names the provisions without their texts)."""
    if not end.profile:
        return {}, CorpusIdentity(UNKNOWN, 0, UNKNOWN)
    try:
        documents = load_documents(Selection(profile=end.profile), corpus_dir=end.corpus_dir,
                                   cache_dir=end.cache_dir or Path("."))
    except CorpusError as error:
        return {}, CorpusIdentity(end.profile or UNKNOWN, 0, f"{UNKNOWN} ({error})")
    texts = {d.doc_id: d.text for d in documents}
    return texts, corpus_identity(end.profile, texts)


def _gandr_lines(raw_records: Sequence[Mapping[str, Any]], end: SessionEnd,
                 card: PriceCard, parts: _Parts) -> list[str]:
    records = sorted((from_builtins(GandrRecord, raw, what="a gandr record")
                      for raw in raw_records),
                     key=lambda r: (r.system, r.question_id))
    summary = summarise_gandr(records, card)
    calls = all_calls(records)
    parts.calls.extend(measured_calls((), records))
    backends = sorted({c.backend for c in calls})
    lines = ["", _title("legalbench GANDR summary", end), *gandr_lines(summary)]
    if any(b != "reference" for b in backends):
        lines.append(f"backend {' + '.join(backends)}")
    lines.extend(cache_accounting_lines(unreported_usage(calls)))
    lines.extend(retry_lines(calls))
    if "reference" in backends:
        lines.append("(reference backend: every role (drafter, audit, rubric, critic, judges) "
                     "is played by deterministic rules, not a language model; seeds vary its "
                     "choices)")
    if any(b != "reference" for b in backends):
        lines.append(_sampling_note(end.base_url, {c.server for c in calls if c.server}))
    if end.report_dir is not None:
        written = write_gandr_report(end.report_dir, records, summary,
                                     backend="+".join(backends) or "none")
        lines.append(f"GANDR report: {written[0]} and {len(written) - 1} trace files")
        parts.gandr = list(records)
    return lines


def _server_lines(servers: set[str]) -> list[str]:
    """Which kind of third-party server answered, and the capability rules applied to it."""
    return [f"(server: {capabilities(kind).name}; capability rules: "
            f"{rules_text(capabilities(kind))})" for kind in sorted(servers)]


def _sampling_note(base_url: str | None, servers: set[str]) -> str:
    """What was sent of the GANDR systems' temperatures and seeds, and to whom."""
    if not takes_sampling("anthropic", base_url):
        return ("(Claude's API takes no temperature and has no seed: neither was sent, so the "
                "repeats differ only by the model's own sampling)")
    seedless = sorted(capabilities(s).name for s in servers if not capabilities(s).takes_seed)
    if seedless:
        return (f"(temperatures were sent in the request body to {base_url}; seeds were not: "
                f"the {', '.join(seedless)} reads none from /v1/messages, so its own --seed "
                f"applies to every call)")
    return f"(temperatures and seeds were sent in the request body to {base_url})"


def _distinct_calls(records: Sequence[ItemRecord]) -> list[Call]:
    """Every call of the records once: inject's answer is shared by each mode's record of
    its question."""
    inject = {r.question_id: r.inject_calls for r in records}
    return [*(c for calls in inject.values() for c in calls),
            *(c for r in records for c in (*r.mode_calls, *r.judge_calls))]


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


_FINISHERS: dict[str, Callable[[Sequence[Mapping[str, Any]], SessionEnd, PriceCard, _Parts],
                               list[str]]] = {"qa": _qa_lines, "gandr": _gandr_lines}
