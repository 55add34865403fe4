"""Tests of the CUAD span importer: locating excerpts, queries, the report, the CLI, real CUAD."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.commands.cli import main
from pytest_legalbench.ingest.cuad_manifest import ClauseRow, match_rows
from pytest_legalbench.ingest.decoding import read_document
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.spans.benchmark_file import (
    Snippet,
    benchmark_to_json,
    parse_benchmark,
    read_benchmark,
)
from pytest_legalbench.spans.cuad_import import (
    category_question,
    contract_query,
    import_cuad,
    parse_excerpts,
)
from pytest_legalbench.spans.excerpt_location import OMISSION_MARK, locate, locate_excerpt

ALPHA = """SUPPLY AGREEMENT

This Supply Agreement is made between Alpha Widgets Ltd. ("Alpha") and
Beta Stores Inc. ("Beta").

1. Law. This Agreement is governed by
      the laws of   Ontario.

2. Licence. Alpha grants Beta a licence to show the Alpha marks in its stores.
Beta shall pay a fee each quarter. Alpha grants Beta a licence to show the Alpha marks in its stores.
"""

GAMMA = """Services deal

Gamma Co. hires Delta LLC to clean the offices. The laws of Quebec govern this deal.
"""

COLUMNS = ["Filename", "Document Name", "Document Name-Answer", "Parties", "Parties-Answer",
           "Governing Law", "Governing Law-Answer", "License Grant", "License Grant- Answer"]

DESCRIPTIONS = [
    ["Category (incl. context and answer)", "Description", "Answer Format", "Group"],
    ["Category: Document Name", "Description: The name of the contract", "x", "-"],
    ["Category: Parties", "Description: The two or more parties who signed the contract", "x", "-"],
    ["Category: Governing Law",
     "Description: Which state's  law governs the contract? Name the place.", "x", "-"],
    ["Category: License Grant", "Description: Does the contract grant a license?", "x", "-"],
]

LICENCE = "Alpha grants Beta a licence to show the Alpha marks in its stores."


def alpha_row(**cells: str) -> list[str]:
    row = {
        "Filename": "Alpha-Supply.pdf",
        "Document Name": "['SUPPLY AGREEMENT']",
        "Document Name-Answer": "SUPPLY AGREEMENT",
        "Parties": repr(["Alpha Widgets Ltd.", "Alpha", "Beta Stores Inc.", "Beta"]),
        "Parties-Answer": 'Alpha Widgets Ltd. ("Alpha"); Beta Stores Inc. ("Beta")',
        # Whitespace differs from the contract's line breaks and runs of spaces.
        "Governing Law": repr(["This Agreement is governed by the laws of Ontario."]),
        "Governing Law-Answer": "Ontario",
        # Listed twice because it occurs twice; a third excerpt occurs nowhere.
        "License Grant": repr([LICENCE, LICENCE, "Beta may sublicense the marks."]),
        "License Grant- Answer": "Yes",
    }
    row.update(cells)
    return [row[c] for c in COLUMNS]


def gamma_row() -> list[str]:
    omitted = f"Gamma Co. hires Delta LLC{OMISSION_MARK}The laws of Quebec govern"
    return ["gamma_services.PDF", "[]", "", "['Gamma Co.', 'Delta LLC']",
            "Gamma Co.; Delta LLC", repr([omitted]), "Quebec", "[]", "No"]


def make_corpus(root: Path, rows: list[list[str]] | None = None) -> Path:
    contracts = root / "cuad" / "contracts"
    contracts.mkdir(parents=True)
    (contracts / "Alpha-Supply.txt").write_text(ALPHA, encoding="utf-8")
    (contracts / "gamma_services.txt").write_text(GAMMA, encoding="utf-8")
    write_csv(root / "cuad" / "master_clauses.csv",
              [COLUMNS, *(rows if rows is not None else [alpha_row(), gamma_row()])])
    write_csv(root / "cuad" / "category_descriptions.csv", DESCRIPTIONS)
    return root


def write_csv(path: Path, rows: list[list[str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)


def span_text(text: str, snippet: Snippet) -> str:
    return text[snippet.start:snippet.end]


def squash(text: str) -> str:
    return " ".join(text.split())


# --- parsing cells and phrasing queries -----------------------------------------------------

def test_parse_excerpts_reads_python_list_literals() -> None:
    assert parse_excerpts("['a \\'quoted\\' b', \"it's\"]", "w") == ["a 'quoted' b", "it's"]
    assert parse_excerpts("[]", "w") == []
    assert parse_excerpts("  ", "w") == []


@pytest.mark.parametrize("cell", ["['unclosed", "[1, 2]", "'a string'", "[__import__('os')]"])
def test_parse_excerpts_rejects_other_cells_naming_where(cell: str) -> None:
    with pytest.raises(CorpusError, match=r"^f\.csv row 3, column 'X': "):
        parse_excerpts(cell, "f.csv row 3, column 'X'")


@pytest.mark.parametrize(
    ("description", "question"),
    [
        ("Does the contract  grant a license?", "does the contract grant a license?"),
        ("What is the term? This includes renewals.", "what is the term? This includes renewals."),
        ("The date of the contract", "which passages give the date of the contract?"),
        ("This category includes the exceptions to Non-Compete.",
         "which passages give the exceptions to Non-Compete?"),
        ("IP rights: who owns them?", "IP rights: who owns them?"),
    ],
)
def test_category_question_turns_descriptions_into_questions(description: str,
                                                             question: str) -> None:
    assert category_question(description) == question


def test_contract_query_names_title_and_parties_without_defined_names() -> None:
    parties = ('Alpha Ltd. ("Alpha")', "Beta Inc. (“Beta”)", "Gamma plc")
    assert contract_query("SUPPLY AGREEMENT", parties, "is there a cap?") == (
        "In the SUPPLY AGREEMENT between Alpha Ltd., Beta Inc. and Gamma plc, is there a cap?")
    assert contract_query("The Deal", ("Solo Corp",), "q?") == "In The Deal of Solo Corp, q?"
    assert contract_query("Deal", (), "q?") == "In the Deal, q?"
    many = tuple(f"P{i}" for i in range(9))
    assert contract_query("Deal", many, "q?") == "In the Deal between P0, P1, P2 and 6 other parties, q?"


# --- locating excerpts ---------------------------------------------------------------------

def test_locate_tolerates_different_whitespace() -> None:
    text = "Intro.\nThe price is\n   fixed  for\tone year. End."
    span = locate("  The price is fixed for one year. ", text)
    assert span is not None
    assert text[span[0]:span[1]] == "The price is\n   fixed  for\tone year."


def test_locate_prefers_exact_free_and_whole_word_occurrences() -> None:
    text = "MARKETING AGENT (the MA) and MA again; MA"
    assert locate("MA", text) == (21, 23)
    assert locate("MA", text, [(21, 23)]) == (29, 31)
    assert locate("MA", text, [(21, 23), (29, 31), (39, 41)]) == (0, 2)
    # When every occurrence is taken, the first is returned (an excerpt listed twice).
    assert locate("MA", "xx MA", [(3, 5)]) == (3, 5)
    assert locate("absent", text) is None
    assert locate("   ", text) is None


def test_locate_skips_occurrences_inside_a_taken_span() -> None:
    text = 'Acme Corp. ("Acme") and Acme'
    assert locate("Acme", text, [(0, 10)]) == (13, 17)
    # Overlapping another excerpt still beats repeating one's exact span.
    assert locate("Acme", "Acme Corp and Acme", [(0, 4), (10, 18)]) == (14, 18)


def test_locate_excerpt_splits_at_the_omission_mark() -> None:
    text = "Clause 1. The buyer pays. Clause 2. Nothing. Clause 3. The seller ships."
    found = locate_excerpt(f"The buyer pays.{OMISSION_MARK}The seller ships.", text)
    assert isinstance(found, list)
    assert [text[a:b] for a, b in found] == ["The buyer pays.", "The seller ships."]
    reversed_found = locate_excerpt(f"The seller ships.{OMISSION_MARK}The buyer pays.", text)
    assert isinstance(reversed_found, list) and len(reversed_found) == 2
    assert locate_excerpt(f"The buyer pays.{OMISSION_MARK}No such text", text) == (
        "piece 2 of 2 not found in the contract")
    assert locate_excerpt(f" {OMISSION_MARK} ", text) == "empty excerpt"


words = st.lists(st.text("abcdefgh.,()'\"", min_size=1, max_size=6), min_size=1, max_size=30)
gaps = st.lists(st.sampled_from([" ", "  ", "\n", "\t ", "\n\n  "]), min_size=30, max_size=30)


@given(words, gaps, gaps, st.data())
def test_a_respaced_piece_of_the_text_is_found_equal_up_to_whitespace(
        tokens: list[str], text_gaps: list[str], excerpt_gaps: list[str],
        data: st.DataObject) -> None:
    text = "".join(w + g for w, g in zip(tokens, text_gaps, strict=False))
    first = data.draw(st.integers(0, len(tokens) - 1))
    last = data.draw(st.integers(first, len(tokens) - 1))
    excerpt = "".join(w + g for w, g in zip(tokens[first:last + 1], excerpt_gaps, strict=False))
    span = locate(excerpt, text)
    assert span is not None
    assert squash(text[span[0]:span[1]]) == squash(excerpt)


# --- importing a small corpus ----------------------------------------------------------------

def test_import_builds_one_test_per_contract_and_category(tmp_path: Path) -> None:
    benchmark, _ = import_cuad(make_corpus(tmp_path))
    alpha = "cuad/contracts/Alpha-Supply.txt"
    gamma = "cuad/contracts/gamma_services.txt"
    by_key = {(t.snippets[0].file_path, t.tags): t for t in benchmark.tests}
    assert sorted(by_key) == [(alpha, ("Governing Law",)), (alpha, ("License Grant",)),
                              (alpha, ("Parties",)), (gamma, ("Governing Law",)),
                              (gamma, ("Parties",))]
    parties = by_key[alpha, ("Parties",)]
    assert [span_text(ALPHA, s) for s in parties.snippets] == [
        "Alpha Widgets Ltd.", "Alpha", "Beta Stores Inc.", "Beta"]
    # The short names are the defined terms, not the starts of the full names.
    assert ALPHA[parties.snippets[1].start - 2:parties.snippets[1].start] == '("'
    law = by_key[alpha, ("Governing Law",)].snippets
    assert [squash(span_text(ALPHA, s)) for s in law] == [
        "This Agreement is governed by the laws of Ontario."]
    licence = by_key[alpha, ("License Grant",)].snippets
    assert [span_text(ALPHA, s) for s in licence] == [LICENCE, LICENCE]
    assert licence[0].start < licence[1].start
    gamma_law = by_key[gamma, ("Governing Law",)].snippets
    assert [span_text(GAMMA, s) for s in gamma_law] == [
        "Gamma Co. hires Delta LLC", "The laws of Quebec govern"]


def test_import_reports_counts_and_the_unlocated_excerpt(tmp_path: Path) -> None:
    _, report = import_cuad(make_corpus(tmp_path))
    assert (report.contracts, report.categories, report.tests) == (2, 3, 5)
    assert report.skipped_categories == ("Document Name",)
    assert (report.excerpts, report.located) == (11, 10)
    assert [(u.contract, u.category, u.excerpt) for u in report.unlocated] == [
        ("Alpha-Supply.txt", "License Grant", "Beta may sublicense the marks.")]
    assert report.unlocated[0].reason == "text not found in the contract"
    body = json.loads(report.to_json())
    assert body["unlocated_count"] == 1
    assert body["unlocated"][0]["excerpt"] == "Beta may sublicense the marks."
    assert "11 excerpts: 10 located (90.91%), 1 unlocated" in report.summary_lines()


def test_import_queries_name_the_contract_and_ask_about_the_category(tmp_path: Path) -> None:
    benchmark, _ = import_cuad(make_corpus(tmp_path))
    queries = {(t.snippets[0].file_path, t.tags[0]): t.query for t in benchmark.tests}
    assert queries["cuad/contracts/Alpha-Supply.txt", "Governing Law"] == (
        "In the SUPPLY AGREEMENT between Alpha Widgets Ltd. and Beta Stores Inc., "
        "which state's law governs the contract? Name the place.")
    # An empty title falls back to the file stem.
    assert queries["cuad/contracts/gamma_services.txt", "Parties"] == (
        "In the gamma_services between Gamma Co. and Delta LLC, "
        "which passages give the two or more parties who signed the contract?")


def test_import_output_round_trips_through_the_format(tmp_path: Path) -> None:
    benchmark, _ = import_cuad(make_corpus(tmp_path))
    assert parse_benchmark(json.loads(benchmark_to_json(benchmark)), "x") == benchmark


def test_malformed_cell_names_file_row_and_column(tmp_path: Path) -> None:
    root = make_corpus(tmp_path, [alpha_row(), alpha_row(Filename="gamma_services.PDF",
                                                         **{"License Grant": "['unclosed"})])
    with pytest.raises(CorpusError) as caught:
        import_cuad(root)
    message = str(caught.value)
    assert "master_clauses.csv row 3 (gamma_services.PDF), column 'License Grant'" in message
    assert "not a list literal" in message


def test_unmatched_rows_and_files_are_noted(tmp_path: Path) -> None:
    root = make_corpus(tmp_path, [alpha_row(), alpha_row(Filename="Nowhere.pdf")])
    benchmark, report = import_cuad(root)
    assert report.contracts == 1
    assert any("'Nowhere.pdf'" in note and "no contract file" in note for note in report.notes)
    assert any("'gamma_services.txt'" in note for note in report.notes)
    assert {t.snippets[0].file_path for t in benchmark.tests} == {
        "cuad/contracts/Alpha-Supply.txt"}


@pytest.mark.parametrize(
    ("remove", "message"),
    [
        ("cuad/category_descriptions.csv", "category_descriptions.csv: file not found"),
        ("cuad/master_clauses.csv", "master_clauses.csv: file not found"),
        ("cuad/contracts", "contracts: CUAD contracts folder not found"),
    ],
)
def test_missing_inputs_are_named(tmp_path: Path, remove: str, message: str) -> None:
    root = make_corpus(tmp_path)
    target = root / remove
    if target.is_dir():
        for child in target.iterdir():
            child.unlink()
        target.rmdir()
    else:
        target.unlink()
    with pytest.raises(CorpusError, match=re.escape(message)):
        import_cuad(root)


def test_cli_writes_the_benchmark_and_report(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = make_corpus(tmp_path / "corpus")
    out, report_path = tmp_path / "spans.json", tmp_path / "report.json"
    code = main(["cuad-spans", "--corpus-dir", str(root), "--out", str(out), "--report", str(report_path)])
    assert code == 0
    assert len(read_benchmark(out).tests) == 5
    assert json.loads(report_path.read_text(encoding="utf-8"))["unlocated_count"] == 1
    err = capsys.readouterr().err
    assert "2/2 contracts, 5 tests" in err
    assert "11 excerpts: 10 located" in err


def test_cli_exits_2_with_a_clear_message_on_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["cuad-spans", "--corpus-dir", str(tmp_path / "nothing"),
                 "--out", str(tmp_path / "o.json")])
    assert code == 2
    assert "error: " in capsys.readouterr().err
    assert not (tmp_path / "o.json").exists()


# --- the real corpus -------------------------------------------------------------------------

@pytest.mark.corpus
def test_real_cuad_imports_every_contract_and_locates_its_excerpts(corpus_root: Path) -> None:
    benchmark, report = import_cuad(corpus_root)
    contracts = corpus_root / "cuad" / "contracts"
    names = {p.name for p in contracts.iterdir() if p.suffix == ".txt"}
    assert len(names) == 510 and report.contracts == 510
    assert {t.snippets[0].file_path for t in benchmark.tests} == {
        f"cuad/contracts/{n}" for n in names}
    # Measured: 12580 of 12580 excerpts located (100%); the floor leaves room for new data.
    assert report.located >= 0.99 * report.excerpts and report.excerpts > 12000
    assert len(report.unlocated) == report.excerpts - report.located
    pieces = _excerpt_pieces(corpus_root)
    texts: dict[str, str] = {}
    for test in benchmark.tests:
        path = test.snippets[0].file_path
        if path not in texts:
            texts[path] = read_document(corpus_root / path).text
        text = texts[path]
        expected = pieces[path.rsplit("/", 1)[1], _fold(test.tags[0])]
        for snippet in test.snippets:
            assert snippet.file_path == path
            assert squash(span_text(text, snippet)) in expected, (path, test.tags, snippet)


def _excerpt_pieces(root: Path) -> dict[tuple[str, str], set[str]]:
    """Whitespace-squashed excerpt pieces per (contract file, folded category), read afresh."""
    with (root / "cuad" / "master_clauses.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    clause_rows = [ClauseRow(r["Filename"], "", (), None) for r in rows]
    raw = {id(c): r for c, r in zip(clause_rows, rows, strict=True)}
    files = [p.name for p in (root / "cuad" / "contracts").iterdir()]
    pieces: dict[tuple[str, str], set[str]] = {}
    for name, row in match_rows(clause_rows, files).by_file.items():
        for column, cell in raw[id(row)].items():
            if column.endswith("Answer") or column == "Filename":
                continue
            found = pieces.setdefault((name, _fold(column)), set())
            for excerpt in parse_excerpts(cell, column):
                found.update(squash(p) for p in excerpt.split(OMISSION_MARK) if p.strip())
    return pieces


def _fold(name: str) -> str:
    return name.casefold()
