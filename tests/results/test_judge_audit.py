"""Reading a hand-audited verdicts.csv: agreement counts, the error rate and each bad file."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.results.judge_audit import (
    REQUIRED_COLUMNS,
    AuditFileError,
    AuditResult,
    Disagreement,
    audit_lines,
    read_audit,
)
from pytest_legalbench.results.report_files import write_report
from pytest_legalbench.results.summarise import summarise
from pytest_legalbench.results.verdicts_file import VERDICT_COLUMNS


def _csv_text(rows: list[list[str]], header: tuple[str, ...] = VERDICT_COLUMNS) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _row(question_id: str, verdict: str, auditor: str, mode: str = "navindex",
         note: str = "") -> list[str]:
    return [question_id, mode, "Which notice period applies?", "Thirty days.", "30 days",
            "thirty days,\nper clause 9", "A", "B", verdict, "pass", "pass", "both pass", "",
            auditor, note]


def _write(tmp_path: Path, text: str, name: str = "verdicts.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_counts_agreements_and_disagreements(tmp_path: Path) -> None:
    path = _write(tmp_path, _csv_text([
        _row("q1", "inject", "inject"),
        _row("q2", "tie", "mode", note="mode cites the right clause"),
        _row("q3", "mode", ""),  # not audited
        _row("q4", "tie", " Tie "),  # hand typing: case and spaces are forgiven
        _row("q5", "unscored", "tie"),  # no judge decision never agrees
        _row("q5", "tie", "   ", mode="navembed:hybrid"),  # blank: not audited
    ]))
    result = read_audit(path)
    assert (result.audited, result.agreed) == (4, 2)
    assert result.disagreements == (Disagreement("q2", "navindex", "tie", "mode"),
                                    Disagreement("q5", "navindex", "unscored", "tie"))
    assert (result.error_rate.k, result.error_rate.n, result.error_rate.share) == (2, 4, 0.5)
    assert audit_lines(result) == [
        ("judge disagreed with the auditor on 2 of 4 audited verdicts: 50.0% [6.8%, 93.2%] "
         "(95% Clopper-Pearson)"),
        "  q2 [navindex]: judge tie, auditor mode",
        "  q5 [navindex]: judge unscored, auditor tie",
    ]


def test_headline_with_literal_clopper_pearson_bounds(tmp_path: Path) -> None:
    rows = [_row(f"q{n:02d}", "tie", "tie") for n in range(18)]
    rows += [_row("q18", "inject", "mode"), _row("q19", "mode", "tie")]
    result = read_audit(_write(tmp_path, _csv_text(rows)))
    # CP 2/20 = [0.0123, 0.3170].
    assert audit_lines(result)[0] == ("judge disagreed with the auditor on 2 of 20 audited "
                                      "verdicts: 10.0% [1.2%, 31.7%] (95% Clopper-Pearson)")


def test_single_and_no_audited_verdicts(tmp_path: Path) -> None:
    one = read_audit(_write(tmp_path, _csv_text([_row("q1", "mode", "mode")]), "one.csv"))
    assert audit_lines(one) == [("judge disagreed with the auditor on 0 of 1 audited verdict: "
                                 "0.0% [0.0%, 97.5%] (95% Clopper-Pearson)")]
    none = read_audit(_write(tmp_path, _csv_text([_row("q1", "mode", "")]), "none.csv"))
    assert none == AuditResult(0, 0, (), none.error_rate)
    assert (none.error_rate.interval.low, none.error_rate.interval.high) == (0.0, 1.0)
    assert audit_lines(none) == [("no verdict was audited: fill the auditor_verdict column "
                                  "with inject, mode or tie")]


def _record(question_id: str, mode: str, verdict: str | None) -> ItemRecord:
    facts = KeyFacts(("30 days",), (), False, True)
    call = Call(stage="inject.answer", model="m", usage=Usage(input_tokens=10), latency_s=0.5,
                backend="reference", question_id=question_id)
    return ItemRecord(
        question_id=question_id, kind="fact", practice_area="commercial", difficulty="low",
        mode=mode, question="Which notice period applies?", reference="Thirty days.",
        judge="reference-anchored", inject_answer="30 days", mode_answer="thirty days",
        raw_forward="A", raw_reverse="tie", verdict=verdict, keyfacts_inject=facts,
        keyfacts_mode=facts, evidence_recall=1.0, node_ids=(), payload_tokens=40,
        scan_tokens=0, inject_calls=(call,), mode_calls=(), judge_calls=(),
        mode_traits=builtin_traits(mode))


def test_round_trip_through_write_report(tmp_path: Path) -> None:
    records = [_record("notice", "navindex", "tie"), _record("notice", "navembed", "inject"),
               _record("fees", "navindex", None), _record("term", "navindex", "mode")]
    card = load_price_card()
    summary = summarise(records, card, backend="reference", models={"answer": "m"})
    paths = write_report(tmp_path, records=records, summary=summary, backend="reference",
                         models={"answer": "m"}, card=card)
    verdicts = paths[2]
    with verdicts.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert [row[:2] for row in rows[1:]] == [["notice", "navembed"], ["notice", "navindex"],
                                            ["term", "navindex"]]
    column = VERDICT_COLUMNS.index("auditor_verdict")
    rows[1][column] = "inject"
    rows[2][column] = "mode"
    verdicts.write_text(_csv_text(rows[1:]), encoding="utf-8")
    result = read_audit(verdicts)
    assert (result.audited, result.agreed) == (2, 1)
    assert result.disagreements == (Disagreement("notice", "navindex", "tie", "mode"),)


def test_byte_order_mark_and_extra_columns_are_accepted(tmp_path: Path) -> None:
    header = ("extra", *REQUIRED_COLUMNS)
    text = _csv_text([["x", "q1", "navindex", "tie", "tie"]], header=header)
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert read_audit(path).agreed == 1


def _error(path: Path) -> str:
    with pytest.raises(AuditFileError) as caught:
        read_audit(path)
    return str(caught.value)


@pytest.mark.parametrize("missing", REQUIRED_COLUMNS)
def test_missing_column_names_file_row_and_column(tmp_path: Path, missing: str) -> None:
    header = tuple(column for column in VERDICT_COLUMNS if column != missing)
    path = _write(tmp_path, _csv_text([], header=header))
    assert _error(path) == f"{path}, row 1, column {missing!r}: missing from the header row"


def test_bad_auditor_verdict_names_row_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, _csv_text([_row("q1", "tie", "tie"), _row("q2", "tie", "draw")]))
    assert _error(path) == (f"{path}, row 3, column 'auditor_verdict': must be one of inject, "
                            "mode, tie or blank (not audited), got 'draw'")


def test_bad_judge_verdict_names_row_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, _csv_text([_row("q1", "B", "tie")]))
    assert _error(path) == (f"{path}, row 2, column 'verdict': must be one of inject, mode, "
                            "tie, split, unscored, got 'B'")


def test_blank_question_id_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, _csv_text([_row(" ", "tie", "tie")]))
    assert _error(path) == f"{path}, row 2, column 'question_id': must not be blank"


def test_short_and_long_rows_are_errors(tmp_path: Path) -> None:
    short = _write(tmp_path, _csv_text([["q1", "navindex", "Q?"]]), "short.csv")
    assert _error(short) == (f"{short}, row 2, column 'verdict': the row has fewer fields "
                             "than the header")
    long = _write(tmp_path, _csv_text([[*_row("q1", "tie", "tie"), "surplus"]]), "long.csv")
    assert _error(long) == f"{long}, row 2: the row has more fields than the header"


def test_repeated_item_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, _csv_text([_row("q1", "tie", ""), _row("q2", "tie", ""),
                                       _row("q1", "tie", "tie")]))
    assert _error(path) == f"{path}, row 4: question 'q1' under mode 'navindex' repeats row 2"


def test_unreadable_files(tmp_path: Path) -> None:
    missing = tmp_path / "absent.csv"
    assert _error(missing).startswith(f"{missing}: cannot be read as UTF-8 text:")
    binary = tmp_path / "latin1.csv"
    binary.write_bytes(_csv_text([_row("q1", "tie", "tie", note="d\xe9j\xe0")]).encode("latin-1"))
    assert _error(binary).startswith(f"{binary}: cannot be read as UTF-8 text:")
    empty = _write(tmp_path, "", "empty.csv")
    assert _error(empty) == f"{empty}, row 1: is empty: expected a verdicts.csv header row"
    huge = _write(tmp_path, _csv_text([_row("q1", "tie", "tie", note="x" * 200_000)]), "big.csv")
    assert _error(huge).startswith(f"{huge}: not valid CSV near line")


_PAIRS = st.lists(st.tuples(st.sampled_from(["inject", "mode", "tie", "split", "unscored"]),
                            st.sampled_from(["inject", "mode", "tie", ""])), max_size=30)


@settings(max_examples=60, deadline=None)
@given(_PAIRS)
def test_counts_hold_for_any_filled_file(pairs: list[tuple[str, str]]) -> None:
    rows = [_row(f"q{n}", verdict, auditor) for n, (verdict, auditor) in enumerate(pairs)]
    with tempfile.TemporaryDirectory() as folder:
        result = read_audit(_write(Path(folder), _csv_text(rows)))
    audited = [(n, verdict, auditor) for n, (verdict, auditor) in enumerate(pairs) if auditor]
    assert result.audited == result.error_rate.n == len(audited)
    assert result.agreed + len(result.disagreements) == result.audited
    assert result.disagreements == tuple(Disagreement(f"q{n}", "navindex", verdict, auditor)
                                         for n, verdict, auditor in audited
                                         if verdict != auditor)
    interval = result.error_rate.interval
    assert 0.0 <= interval.low <= result.error_rate.share <= interval.high <= 1.0


def test_the_audit_command_prints_the_error_rate_or_names_the_bad_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_legalbench.commands.cli import main

    good = _write(tmp_path, _csv_text([_row("q1", "inject", "inject"),
                                       _row("q2", "tie", "mode")]))
    assert main(["audit", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("judge disagreed with the auditor on 1 of 2 audited verdicts")
    bad = _write(tmp_path, _csv_text([_row("q1", "inject", "draw")]), "bad.csv")
    assert main(["audit", str(bad)]) == 2
    assert "bad.csv, row 2, column 'auditor_verdict'" in capsys.readouterr().err
