"""Two stored runs compared: the paired exact tests with literal numbers, mode pairing, the
warnings said first, flips, and the text, JSON and HTML forms."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.llm.ledger import Call, Usage
from pytest_legalbench.llm.pricing import load_price_card
from pytest_legalbench.modes.registry import builtin_traits
from pytest_legalbench.results.comparison import (
    MetricChange,
    NothingToCompare,
    compare_runs,
    pair_modes,
    paired_test,
    sign_test,
)
from pytest_legalbench.results.comparison_lines import comparison_body, comparison_lines
from pytest_legalbench.results.item_record import ItemRecord, KeyFacts
from pytest_legalbench.results.report_files import write_report
from pytest_legalbench.results.results_file import StoredRun, read_run
from pytest_legalbench.results.run_header import CorpusIdentity, RunHeader
from pytest_legalbench.results.summarise import summarise
from pytest_legalbench.stats.exact import mcnemar_exact

PASS = KeyFacts(("x",), (), False, True)
FAIL = KeyFacts((), ("x",), False, False)
CARD = load_price_card()


def test_exact_mcnemar_and_the_sign_test_with_literal_vectors() -> None:
    assert round(mcnemar_exact(10, 2), 4) == 0.0386  # SPEC section 8
    pairs = [(True, False)] * 10 + [(False, True)] * 2 + [(True, True)] * 5 + [(False, False)] * 3
    test = paired_test("keyfacts_mode", pairs)
    assert (test.items, test.only_a, test.only_b) == (20, 10, 2)
    assert round(test.p_value, 4) == 0.0386
    # 1 rise against 7 falls, 2 equal: two-sided binomial 2 * (1 + 8) / 256 = 0.0703.
    sign = sign_test([(0.5, 1.0)] + [(1.0, 0.5)] * 7 + [(0.5, 0.5)] * 2)
    assert (sign.rose, sign.fell, sign.unchanged) == (1, 7, 2)
    assert round(sign.p_value, 4) == 0.0703
    assert sign_test([]).p_value == 1.0


def test_modes_pair_by_name_then_the_one_left_in_each_run() -> None:
    assert pair_modes(["navindex"], ["navindex"]) == ([("navindex", "navindex")], [], [])
    pairs, notes, unpaired = pair_modes(["navembed:chunks"], ["navembed:hybrid"])
    assert pairs == [("navembed:chunks", "navembed:hybrid")] and unpaired == []
    assert "A's navembed:chunks with B's navembed:hybrid" in notes[0]
    pairs, notes, unpaired = pair_modes(["a", "b", "c"], ["a", "d", "e"])
    assert pairs == [("a", "a")] and unpaired == ["A's b", "A's c", "B's d", "B's e"]
    assert pair_modes(["a", "b"], ["c", "b"], [("a", "c")])[0] == [("a", "c"), ("b", "b")]
    with pytest.raises(ValueError, match="cannot pair x=c"):
        pair_modes(["a"], ["c"], [("x", "c")])


def _record(question: str, mode: str, verdict: str, facts: KeyFacts, *,
            recall: float = 0.5, text: str = "q?") -> ItemRecord:
    call = Call(f"{mode}.answer", "m", Usage(input_tokens=1000, output_tokens=10), 0.1,
                "reference")
    return ItemRecord(
        question_id=question, kind="lookup", practice_area="finance", difficulty="easy",
        mode=mode, question=text, reference="r", judge="reference-anchored", inject_answer="a",
        mode_answer="b", raw_forward="tie", raw_reverse="tie", verdict=verdict,
        keyfacts_inject=PASS, keyfacts_mode=facts, evidence_recall=recall, node_ids=(),
        payload_tokens=100, scan_tokens=0,
        inject_calls=(Call("inject.answer", "m", Usage(input_tokens=9000), 0.1, "reference"),),
        mode_calls=(call,), judge_calls=(), mode_traits=builtin_traits(mode))


def _header(**changes: object) -> RunHeader:
    base = RunHeader(backend="reference", models={"answer": "m"}, price_card=CARD.label,
                     corpus=CorpusIdentity("transactions", 10, "ab" * 32), modes=("navindex",),
                     judge="reference-anchored", questions="packaged",
                     date="2026-01-01T00:00:00Z", package_version="0.1.0")
    return replace(base, **changes)  # type: ignore[arg-type]


def _run(records: list[ItemRecord], header: RunHeader | None = None) -> StoredRun:
    summary = summarise(records, CARD, backend="reference", models={"answer": "m"})
    return StoredRun(header or _header(), tuple(records), summary, {})


def _pair() -> tuple[StoredRun, StoredRun]:
    # q0..q9 pass in A only, q10 and q11 pass in B only, q12 ties in A and loses in B.
    a = [_record(f"q{n:02d}", "navindex", "tie", PASS if n < 10 else FAIL) for n in range(13)]
    b = [_record(f"q{n:02d}", "navindex", "inject" if n == 12 else "tie",
                 FAIL if n < 10 or n == 12 else PASS, recall=0.25 if n < 3 else 0.5)
         for n in range(13)]
    return _run(a), _run(b)


def test_a_comparison_tests_the_shared_items_and_lists_the_flips() -> None:
    a, b = _pair()
    found = compare_runs(a, b)
    assert found.warnings == () and len(found.modes) == 1
    change = found.modes[0]
    assert (change.shared, change.items_a, change.items_b) == (13, 13, 13)
    facts, holds, inject = change.tests
    assert (facts.only_a, facts.only_b, round(facts.p_value, 4)) == (10, 2, 0.0386)
    assert (holds.items, holds.only_a, holds.only_b) == (13, 1, 0)
    assert (inject.only_a, inject.only_b, inject.p_value) == (0, 0, 1.0)
    assert (change.recall.rose, change.recall.fell) == (0, 3)
    assert change.metrics["keyfacts_mode"] == MetricChange(0.7692, 0.1538)  # 10/13 and 2/13
    assert change.metrics["ties"] == MetricChange(1.0, 0.9231)  # 13/13 and 12/13
    flips = {f.question_id: f for f in change.flips}
    assert len(flips) == 13
    assert flips["q12"].verdict == ("tie", "inject") and flips["q12"].keyfacts is None
    assert flips["q00"].keyfacts == ("pass", "fail")
    plain = json.loads(json.dumps(to_builtins(found)))
    assert plain["modes"][0]["paired_tests"][0]["b_only_a"] == 10
    assert plain["modes"][0]["metrics"]["ties"]["change"] == pytest.approx(-0.0769)
    lines = comparison_lines(found)
    assert lines[0] == "A: A"
    assert "navindex (A) vs navindex (B): 13 and 13 items, 13 shared" in lines
    assert any("true in A only b = 10, in B only c = 2, exact McNemar p = 0.03857" in line
               for line in lines)
    assert "    q12: verdict tie -> inject" in lines
    assert "<td>document-bound ties</td><td class=\"num\">100.0%</td>" in comparison_body(found)


@pytest.mark.parametrize(("changes", "warning"), [
    ({"backend": "anthropic"}, "different backends: A ran on reference, B on anthropic"),
    ({"corpus": CorpusIdentity("cuad", 510, "cd" * 32)}, ("different corpora: A read profile "
                                                         "transactions, B profile cuad")),
    ({"corpus": CorpusIdentity("transactions", 10, "cd" * 32)}, "with different texts"),
    ({"corpus": CorpusIdentity("transactions", 0, "unknown")}, "corpus of a run is not recorded"),
    ({"judge": "forced"}, "judged by different protocols: reference-anchored in A, forced in B"),
], ids=["backend", "profile", "texts", "unknown", "judge"])
def test_runs_that_differ_are_compared_after_a_warning(changes: dict[str, object],
                                                       warning: str) -> None:
    a, b = _pair()
    found = compare_runs(a, replace(b, header=_header(**changes)))
    assert len(found.warnings) == 1 and warning in found.warnings[0]
    assert comparison_lines(found)[0].startswith("WARNING: ")
    assert found.modes  # compared all the same


def test_a_different_question_set_is_a_warning_and_only_shared_items_pair() -> None:
    a, b = _pair()
    extra = _record("z-new", "navindex", "tie", PASS)
    reworded = replace(b.records[0], question="another question?")
    b = _run([reworded, *b.records[1:], extra])
    found = compare_runs(a, b)
    assert found.warnings == (("different question sets: 1 only in B; 1 asked or answered "
                              "differently (q00); the paired tests use the questions both "
                              "runs share"),)
    assert found.modes[0].shared == 13 and found.modes[0].items_b == 14


def test_a_model_change_is_a_note_not_a_warning() -> None:
    a, b = _pair()
    found = compare_runs(a, replace(b, header=_header(models={"answer": "other"})))
    assert found.warnings == () and found.notes == ("models: A answer m; B answer other",)


def test_the_compare_command_reads_report_folders(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_legalbench.commands.cli import main

    a, b = _pair()
    for name, run in (("a", a), ("b", b)):
        write_report(tmp_path / name, records=run.records, summary=run.summary,
                     backend="reference", models={"answer": "m"}, card=CARD,
                     header=replace(run.header, backend="anthropic" if name == "b" else
                                    "reference"))
    assert read_run(tmp_path / "a").header.corpus.profile == "transactions"
    page = tmp_path / "compare.html"
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--html", str(page),
                 "-q"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("WARNING: different backends")
    assert "WARNING: different backends" in err
    assert "exact McNemar p = 0.03857" in out
    html = page.read_text(encoding="utf-8")
    assert "different backends" in html and "<script src" not in html
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["modes"][0]["shared"] == 13
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "nowhere")]) == 2
    assert "cannot read the results" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--pair", "x"]) == 2


def test_runs_with_no_mode_name_in_common_are_not_compared_and_the_pair_is_suggested(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_legalbench.commands.cli import main

    a, b = _pair()
    default = _run([replace(r, mode=m) for r in a.records
                    for m in ("navembed:closure", "navindex")])
    chunks = _run([replace(r, mode="navembed:chunks") for r in b.records])
    with pytest.raises(NothingToCompare, match=(
            r"share no mode name \(A ran navembed:closure, navindex; B ran navembed:chunks\); "
            r"name the pairs to compare, e\.g\. --pair navembed:closure=navembed:chunks")):
        compare_runs(default, chunks)
    for name, run in (("default", default), ("chunks", chunks)):
        write_report(tmp_path / name, records=run.records, summary=run.summary,
                     backend="reference", models={"answer": "m"}, card=CARD, header=run.header)
    folders = [str(tmp_path / "default"), str(tmp_path / "chunks")]
    assert main(["compare", *folders, "-q"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("legalbench: error: nothing to compare: the runs share no mode name")
    assert "--pair navembed:closure=navembed:chunks" in err and len(err.splitlines()) == 1
    assert main(["compare", *folders, "--pair", "navembed:closure=navembed:chunks", "-q"]) == 0
    out = capsys.readouterr().out
    assert "navembed:closure (A) vs navembed:chunks (B): 13 and 13 items, 13 shared" in out
    assert "note: not compared: A's navindex" in out


def test_a_run_with_no_records_is_not_compared() -> None:
    a, _ = _pair()
    with pytest.raises(NothingToCompare, match="run B holds no item records"):
        compare_runs(a, _run([]))


def test_the_one_mode_of_each_run_pairs_with_a_note_and_leftovers_suggest_a_pair() -> None:
    a, b = _pair()
    found = compare_runs(a, _run([replace(r, mode="navembed:chunks") for r in b.records]))
    assert [(m.mode_a, m.mode_b) for m in found.modes] == [("navindex", "navembed:chunks")]
    assert "note: paired the one mode left in each run: A's navindex with B's navembed:chunks" \
        in comparison_lines(found)
    _, notes, _ = pair_modes(["a", "b", "c"], ["a", "d"])
    assert notes[-1] == "modes of different names are compared when named: --pair b=d"
