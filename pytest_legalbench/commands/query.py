"""``legalbench ask`` and ``legalbench retrieve``: one mode, one question or a file of them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pytest_legalbench.commands.common import (
    Progress,
    UsageProblem,
    add_backend_options,
    add_mode_sources,
    add_selectors,
    answer_model,
    mode_help,
    open_query,
)


def register(commands: Any) -> None:
    """Add the ``ask`` and ``retrieve`` subcommands."""
    ask = commands.add_parser("ask", help="answer one question and print the ledger and cost")
    _query_options(ask, answering=True)
    ask.add_argument("question", help="the question, in quotes")
    ask.add_argument("--price-card", type=Path, help="price card JSON (default: packaged card)")
    ask.add_argument("--json", action="store_true", help="print the report as JSON")
    ask.add_argument("--batch", action="store_true",
                     help="send the calls through the Message Batches API (half the price; "
                          "each dependency step waits for its batch, which may take up to "
                          "24 hours) and answer from their results")
    ask.add_argument("--batch-poll", type=float, metavar="SECONDS",
                     help="seconds between two looks at a running batch (default: 30, 0.2 "
                          "on the reference backend)")
    ask.set_defaults(run=run_ask)
    retrieve = commands.add_parser(
        "retrieve", help="print the provisions a mode retrieves, one JSON line per question")
    _query_options(retrieve)
    retrieve.add_argument("question", nargs="?", help="the question, in quotes")
    retrieve.add_argument("--questions", type=Path,
                          help='JSON Lines file of {"id", "question"} objects, or a folder of '
                               "question YAML files (what --legalbench-questions takes)")
    retrieve.add_argument("--json", action="store_true",
                          help="JSON output (the only format; accepted for symmetry)")
    retrieve.set_defaults(run=run_retrieve)


def _query_options(parser: argparse.ArgumentParser, *, answering: bool = False) -> None:
    add_selectors(parser)
    parser.add_argument("--mode", default="inject", help=f"{mode_help()} (default: %(default)s)")
    add_mode_sources(parser)
    add_backend_options(parser, answering=answering)


def run_ask(args: argparse.Namespace, progress: Progress) -> int:
    """Answer the question and print the answer, provisions, ledger and cost."""
    from pytest_legalbench.commands.query_output import report_json, report_lines
    from pytest_legalbench.llm.pricing import load_price_card
    from pytest_legalbench.run.query import ask

    card = load_price_card(args.price_card)
    with open_query(args, progress, args.mode) as session:
        if args.batch:
            from pytest_legalbench.run.query import ask_through_batches

            server = session.config.server
            kind = server.kind if server is not None else session.config.backend
            poll = args.batch_poll or (0.2 if kind == "reference" else 30.0)
            retrieval, completion = ask_through_batches(
                session, args.question, answer_model(args), poll_interval_s=poll,
                announce=progress)
        else:
            retrieval, completion = ask(session, args.question, answer_model(args))
        if args.json:
            print(report_json(retrieval, completion, session, card))
        else:
            print("\n".join(report_lines(retrieval, completion, session, card)))
    return 0


def run_retrieve(args: argparse.Namespace, progress: Progress) -> int:
    """Print one JSON line of provisions per question, without answering."""
    from pytest_legalbench.commands.query_output import payload_summary, retrieval_line

    if (args.question is None) == (args.questions is None):
        raise UsageProblem("give either a question or --questions FILE.jsonl (or a folder of "
                           "question files)")
    questions = ([(None, args.question)] if args.questions is None
                 else _read_questions(args.questions))
    payloads: list[int] = []
    with open_query(args, progress, args.mode) as session:
        for position, (question_id, question) in enumerate(questions, 1):
            retrieval = session.mode.retrieve(question, question_id=question_id)
            print(retrieval_line(retrieval, question_id, question), flush=True)
            payloads.append(retrieval.payload_tokens)
            progress(f"retrieved {position}/{len(questions)} {question_id or ''}".rstrip())
    if args.questions is not None:
        # A result, not progress: printed under -q too, on stderr so stdout stays JSON Lines.
        print(payload_summary(payloads), file=sys.stderr)
    return 0


def _read_questions(path: Path) -> list[tuple[str | None, str]]:
    if path.is_dir():
        from pytest_legalbench.ingest.questions import QuestionFileError, load_question_set

        try:
            return [(question.id, question.question) for question in load_question_set(path)]
        except QuestionFileError as error:
            raise UsageProblem(str(error)) from None
    questions: list[tuple[str | None, str]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise UsageProblem(f"{path}: cannot read ({error.strerror})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise UsageProblem(f"{path}:{number}: not JSON ({error.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("question"), str):
            raise UsageProblem(f'{path}:{number}: expected {{"id", "question"}} with a '
                                f"string question")
        identifier = record.get("id")
        questions.append((None if identifier is None else str(identifier), record["question"]))
    return questions
