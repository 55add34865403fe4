"""Tests of the cuad manifest generator: name matching, CSV fields, output, the real corpus."""

from __future__ import annotations

import csv
import hashlib
import unicodedata
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from pytest_legalbench.commands.cli import main
from pytest_legalbench.ingest.cuad_manifest import (
    CUAD_LICENSE,
    ClauseRow,
    exhibit_families,
    exhibit_key,
    generate_cuad_manifest,
    iso_date,
    match_rows,
    name_key,
    read_clause_rows,
    render_manifest,
    split_parties,
    write_cuad_manifest,
)
from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import ROLES, CorpusError
from pytest_legalbench.ingest.manifest import load_manifest

REPO = Path(__file__).resolve().parents[2]
COLUMNS = ["Filename", "Document Name", "Document Name-Answer", "Parties", "Parties-Answer",
           "Agreement Date", "Agreement Date-Answer"]


def row(filename: str, title: str = "T", parties: str = "", date: str = "") -> ClauseRow:
    return ClauseRow(filename, title, split_parties(parties), iso_date(date))


def make_corpus(tmp: Path, files: dict[str, str], rows: list[list[str]]) -> Path:
    contracts = tmp / "cuad" / "contracts"
    contracts.mkdir(parents=True)
    for name, text in files.items():
        (contracts / name).write_text(text, encoding="utf-8")
    with (tmp / "cuad" / "master_clauses.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for filename, title, parties, date in rows:
            writer.writerow([filename, "[]", title, "[]", parties, "[]", date])
    return tmp


# --- name normalisation -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("csv_name", "file_name"),
    [
        ("MOELIS&CO_03_24_2014-EX-10.19-ALLIANCE AGREEMENT.PDF",
         "MOELIS_CO_03_24_2014-EX-10.19-ALLIANCE AGREEMENT.txt"),
        ("Acme Corp - SUPPLY AGREEMENT .PDF", "Acme Corp - SUPPLY AGREEMENT.txt"),
        ("MACY'S,INC-EX-99-FILING AGREEMENT.pdf", "MACY_S,INC-EX-99-FILING AGREEMENT.txt"),
        ("Widget Co-LICENSE AGREEMENT.PDF'", "Widget Co-LICENSE AGREEMENT.txt"),
        ("Distribution Agreement-.pdf", "Distribution Agreement.txt"),
        (unicodedata.normalize("NFC", "CAFÉ S.A. - Joint Agreement.pdf"),
         unicodedata.normalize("NFD", "CAFÉ S.A. - Joint Agreement.txt")),
    ],
)
def test_name_key_equates_known_spelling_differences(csv_name: str, file_name: str) -> None:
    assert name_key(csv_name) == name_key(file_name)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Supply Agreement 1.pdf", "Supply Agreement 2.txt"),
        ("A B Agreement.pdf", "AB Agreement.txt"),
        ("Agreement PDF.pdf", "Agreement.txt"),
    ],
)
def test_name_key_keeps_different_names_apart(one: str, other: str) -> None:
    assert name_key(one) != name_key(other)


@given(st.text(max_size=40))
def test_name_key_is_idempotent(name: str) -> None:
    key = name_key(name)
    assert name_key(key) == key


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_name_key_ignores_case_and_the_choice_of_separator(name: str) -> None:
    assert name_key(name.swapcase()) == name_key(name)
    assert name_key(name.replace("&", "_").replace("'", " ")) == name_key(name)


# --- CSV fields ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("answer", "expected"),
    [("3/1/96", "1996-03-01"), ("12/16/04", "2004-12-16"), ("07/15/2019", "2019-07-15"),
     ("2020-01-31", "2020-01-31"), ("[]/[]/2019", None), ("09/[]/2019", None), ("", None),
     ("13/45/99", None), ("sometime in 2001", None)],
)
def test_iso_date(answer: str, expected: str | None) -> None:
    assert iso_date(answer) == expected


def test_split_parties_drops_blanks_and_collapses_whitespace() -> None:
    assert split_parties('Acme  Inc. ("Seller");\n Bolt\xa0LLC ("Buyer"); ;') == (
        'Acme Inc. ("Seller")', 'Bolt LLC ("Buyer")')
    assert split_parties("") == ()


def test_read_clause_rows_names_a_missing_column(tmp_path: Path) -> None:
    table = tmp_path / "master_clauses.csv"
    table.write_text("Filename,Parties-Answer\nx.pdf,A\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"master_clauses\.csv.*Document Name-Answer"):
        read_clause_rows(table)


def test_read_clause_rows_reports_a_missing_table(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="not found"):
        read_clause_rows(tmp_path / "absent.csv")


# --- matching -----------------------------------------------------------------------------

def test_exact_names_win_over_normalised_ones() -> None:
    # Both rows normalise to one key; the exact one must keep its own file.
    rows = [row("Deal & Co.pdf", "loose"), row("Deal _ Co.pdf", "exact")]
    matches = match_rows(rows, ["Deal _ Co.txt"])
    assert matches.by_file["Deal _ Co.txt"].title == "exact"
    assert matches.exact == 1 and matches.normalised == ()
    assert [(u.kind, u.name) for u in matches.unmatched] == [("csv_row", "Deal & Co.pdf")]
    assert "already matched" in matches.unmatched[0].reason


def test_unmatched_rows_and_files_are_reported_with_reasons() -> None:
    matches = match_rows([row("Ghost Agreement.pdf"), row("")], ["Orphan Lease.txt"])
    reasons = {(u.kind, u.name): u.reason for u in matches.unmatched}
    assert reasons[("csv_row", "Ghost Agreement.pdf")] == "no contract file has this name"
    assert reasons[("csv_row", "")] == "empty Filename cell"
    assert "no row" in reasons[("file", "Orphan Lease.txt")]


def test_ambiguous_normalised_name_matches_nothing() -> None:
    matches = match_rows([row("Sale & Lease.pdf")], ["Sale_Lease.txt", "Sale-Lease.txt"])
    assert not matches.by_file
    assert matches.unmatched[0].reason.startswith("ambiguous")


# --- generation on a hand-made folder ------------------------------------------------------

SMALL_FILES = {
    "ALPHA_CO-SUPPLY AGREEMENT.txt": "SUPPLY AGREEMENT\n\n1. Supply. Alpha shall supply widgets.\n",
    "Beta Inc - A_R LICENSE .txt": "LICENSE AGREEMENT\n\n1. Grant. Beta grants a licence.\n",
    "Stray Notice.txt": "NOTICE\n\nThe parties note a change of address.\n",
}
SMALL_ROWS = [
    ["ALPHA_CO-SUPPLY AGREEMENT.pdf", "SUPPLY\n  AGREEMENT", 'Alpha Co ("Seller"); Gamma LLC',
     "3/1/96"],
    ["Beta Inc - A&R LICENSE .PDF", "LICENSE AGREEMENT", "Beta Inc", "[]/[]/2010"],
    ["Missing Contract.pdf", "LOST AGREEMENT", "Nobody", "1/1/01"],
]


def test_generation_on_a_small_folder(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path, SMALL_FILES, SMALL_ROWS)
    manifest, report = generate_cuad_manifest(corpus)
    docs = {doc["path"]: doc for doc in manifest["documents"]}
    assert manifest["root"] == "cuad/contracts" and manifest["profile"] == "cuad"
    assert [doc["doc_id"] for doc in manifest["documents"]] == sorted(
        doc_id_for(name) for name in SMALL_FILES)
    alpha = docs["ALPHA_CO-SUPPLY AGREEMENT.txt"]
    assert alpha["title"] == "SUPPLY AGREEMENT"
    assert alpha["parties"] == ['Alpha Co ("Seller")', "Gamma LLC"]
    assert alpha["date"] == "1996-03-01"
    assert alpha["source"] == {"kind": "cuad", "file": "ALPHA_CO-SUPPLY AGREEMENT.txt"}
    assert alpha["license"] == CUAD_LICENSE
    expected_sha = hashlib.sha256(SMALL_FILES["ALPHA_CO-SUPPLY AGREEMENT.txt"].encode()).hexdigest()
    assert alpha["sha256"] == expected_sha
    assert all(doc["role"] in ROLES for doc in docs.values())
    assert "date" not in docs["Beta Inc - A_R LICENSE .txt"]
    stray = docs["Stray Notice.txt"]
    assert stray["title"] == "Stray Notice" and stray["parties"] == []
    assert manifest["unmatched"] == [
        {"kind": "csv_row", "name": "Missing Contract.pdf",
         "reason": "no contract file has this name"},
        {"kind": "file", "name": "Stray Notice.txt",
         "reason": "no row of master_clauses.csv names this file"},
    ]
    assert report[0].startswith("3 contract files; CSV rows matched: 1 exactly, 1 by normalised")
    assert any("'Beta Inc - A&R LICENSE .PDF' -> 'Beta Inc - A_R LICENSE .txt'" in line
               for line in report)


def test_written_manifest_is_deterministic_yaml(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path / "c", SMALL_FILES, SMALL_ROWS)
    first, second = tmp_path / "one.yaml", tmp_path / "two.yaml"
    write_cuad_manifest(corpus, first)
    write_cuad_manifest(corpus, second)
    assert first.read_bytes() == second.read_bytes()
    loaded = yaml.safe_load(first.read_text(encoding="utf-8"))
    assert loaded == generate_cuad_manifest(corpus)[0]


def test_non_txt_entries_are_reported_not_listed(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path, SMALL_FILES, SMALL_ROWS)
    (corpus / "cuad" / "contracts" / "scan.pdf").write_bytes(b"%PDF-1.4")
    manifest, report = generate_cuad_manifest(corpus)
    assert "scan.pdf" not in {doc["path"] for doc in manifest["documents"]}
    assert "ignored scan.pdf: not a .txt contract file" in report


def test_missing_contracts_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match=r"cuad/contracts: CUAD contracts folder not found"):
        generate_cuad_manifest(tmp_path)


def test_a_folder_without_contracts_is_a_clear_error(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path, {}, [["A.pdf", "A", "", ""]])
    with pytest.raises(CorpusError, match="no .txt contract files"):
        generate_cuad_manifest(corpus)


def test_a_name_without_id_characters_is_a_clear_error(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path, {"&&.txt": "AGREEMENT\n\n1. Terms. None.\n"}, [])
    with pytest.raises(CorpusError, match="&&.txt"):
        generate_cuad_manifest(corpus)


def test_an_empty_contract_is_an_error_naming_it(tmp_path: Path) -> None:
    corpus = make_corpus(tmp_path, {"Blank.txt": ""}, [])
    with pytest.raises(CorpusError, match="Blank.txt"):
        generate_cuad_manifest(corpus)


def test_command_line_writes_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = make_corpus(tmp_path / "c", SMALL_FILES, SMALL_ROWS)
    out = tmp_path / "cuad.yaml"
    assert main(["cuad-manifest", "--corpus-dir", str(corpus), "--out", str(out)]) == 0
    assert "unmatched csv_row 'Missing Contract.pdf'" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8").startswith("# Generated")
    assert main(["cuad-manifest", "--corpus-dir", str(tmp_path / "nowhere"),
                 "--out", str(out)]) == 2
    assert "--corpus-dir=" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["cuad-manifest", "--corpus-dir", str(empty), "--out", str(out)]) == 2
    assert "CUAD contracts folder not found" in capsys.readouterr().err


# --- the real corpus ----------------------------------------------------------------------

@pytest.mark.corpus
def test_committed_cuad_manifest_is_reproduced_from_the_mirror(corpus_root: Path) -> None:
    corpus = corpus_root
    manifest, report = generate_cuad_manifest(corpus)
    committed = REPO / "corpus" / "cuad.yaml"
    assert render_manifest(manifest).encode("utf-8") == committed.read_bytes(), (
        "corpus/cuad.yaml is stale; regenerate it with "
        "python -m pytest_legalbench.ingest.cuad_manifest")
    files = {p.name for p in (corpus / "cuad" / "contracts").iterdir() if p.suffix == ".txt"}
    assert len(files) == 510
    assert {doc["path"] for doc in manifest["documents"]} == files
    assert manifest["unmatched"] == [], report


def test_committed_cuad_manifest_passes_the_loader() -> None:
    manifest = load_manifest(REPO / "corpus" / "cuad.yaml")
    assert manifest.profile == "cuad" and manifest.root == "cuad/contracts"
    assert len(manifest.documents) == 510
    assert all(doc.source is not None and doc.source.file == doc.path
               for doc in manifest.documents)


# --- exhibit families ---------------------------------------------------------------------

@pytest.mark.parametrize(
    ("file_name", "key"),
    [
        ("GluMobileInc_20070319_S-1A_EX-10.09_436630_EX-10.09_Content License Agreement2.txt",
         "GluMobileInc_20070319_S-1A_EX-10.09_436630"),
        (("LejuHoldingsLtd_20140121_DRS (on F-1)_EX-10.26_8473102_EX-10.26_Content License "
         "Agreement1.txt"), "LejuHoldingsLtd_20140121_DRS (on F-1)_EX-10.26_8473102"),
        ("NETGEAR,INC_04_21_2003-EX-10.16- AMENDMENT #2 TO THE DISTRIBUTION AGREEMENT.txt",
         "NETGEAR,INC_04_21_2003-EX-10.16"),
        ("TUNIUCORP_03_06_2014-EX-10-COOPERATION AGREEMENT.txt", "TUNIUCORP_03_06_2014-EX-10"),
        ("Cerus Corporation - FIRST AMEND TO SUPPLY AND MANUFACTURING AGREEMENT.txt",
         "Cerus Corporation - FIRST AMEND TO SUPPLY AND MANUFACTURING AGREEMENT"),
    ],
)
def test_exhibit_key_reads_filer_date_and_exhibit(file_name: str, key: str) -> None:
    assert exhibit_key(file_name) == key


def test_files_of_one_exhibit_share_a_set_and_lone_files_get_none() -> None:
    names = ["ACME_01_02_2003-EX-10.7-SUPPLY AGREEMENT.txt",
             "ACME_01_02_2003-EX-10.7-SUPPLY AGREEMENT_Amendment.txt",
             "ACME_01_02_2003-EX-10.8-SUPPLY AGREEMENT.txt",
             "Beta Ltd - LICENSE.txt"]
    families = exhibit_families(names)
    # EX-10.7 and EX-10.8 are different exhibits: the exhibit number keeps its decimal part.
    assert families == {names[0]: "acme_01_02_2003-ex-10-7", names[1]: "acme_01_02_2003-ex-10-7"}


def test_the_generated_manifest_names_the_sets(tmp_path: Path) -> None:
    files = {"ACME_01_02_2003-EX-10.7-SUPPLY AGREEMENT.txt": "SUPPLY AGREEMENT\nText.\n",
             "ACME_01_02_2003-EX-10.7-SUPPLY AGREEMENT_Amendment.txt":
                 "AMENDMENT NO. 1 TO SUPPLY AGREEMENT\nText.\n"}
    root = make_corpus(tmp_path, files, [[name[:-4] + ".pdf", "T", "", ""] for name in files])
    manifest, report = generate_cuad_manifest(root)
    assert {d["transaction_set"] for d in manifest["documents"]} == {"acme_01_02_2003-ex-10-7"}
    assert "2 files in 1 multi-file exhibits share a transaction set" in report
