"""Checks of the packaged, hand-written profile manifests against the corpus mirror they describe."""

from __future__ import annotations

import csv
import hashlib
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import ROLES
from pytest_legalbench.ingest.manifest import load_manifest

REPO = Path(__file__).resolve().parents[2]
TRANSACTIONS = REPO / "corpus" / "transactions.yaml"
EDGAR2023 = REPO / "corpus" / "edgar2023.yaml"
EDGAR2023_TUNE = REPO / "corpus" / "edgar2023-tune.yaml"
#: The manifests written by hand (cuad.yaml is generated and has tests of its own).
HAND_WRITTEN = (TRANSACTIONS, EDGAR2023, EDGAR2023_TUNE)
#: The EDGAR selections: exhibits of the mirror's edgar2023/ folder, as filed.
EDGAR_SELECTIONS = (EDGAR2023, EDGAR2023_TUNE)
EDGAR_ARCHIVES = "https://www.sec.gov/Archives/edgar/data/"

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def corpus() -> Path:
    chosen = os.environ.get("LEGALBENCH_CORPUS_DIR")
    folder = Path(chosen) if chosen else REPO.parent / "shared" / "corpus"
    if not (folder / "transactions").is_dir():
        pytest.fail(f"corpus mirror missing: {folder / 'transactions'} "
                    "(set LEGALBENCH_CORPUS_DIR)")
    return folder


def _raw(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    return _raw(TRANSACTIONS)


@pytest.fixture(scope="module")
def edgar_raw() -> dict[str, Any]:
    return _raw(EDGAR2023)


@pytest.fixture(scope="module", params=EDGAR_SELECTIONS, ids=lambda path: path.stem)
def any_edgar_raw(request: pytest.FixtureRequest) -> dict[str, Any]:
    path: Path = request.param
    return _raw(path)


@pytest.fixture(scope="module", params=HAND_WRITTEN, ids=lambda path: path.stem)
def any_raw(request: pytest.FixtureRequest) -> dict[str, Any]:
    path: Path = request.param
    return _raw(path)


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


# --- every hand-written manifest -------------------------------------------------------


@pytest.mark.parametrize("path", HAND_WRITTEN, ids=lambda path: path.stem)
def test_the_loader_accepts_it_under_its_own_name(path: Path) -> None:
    manifest = load_manifest(path)
    assert manifest.profile == path.stem
    # A profile reads the mirror folder of its name; the tuning selection reads edgar2023's.
    assert manifest.root == ("edgar2023" if path in EDGAR_SELECTIONS else path.stem)


def test_ids_roles_and_relations(any_raw: dict[str, Any]) -> None:
    docs = any_raw["documents"]
    ids = [doc["doc_id"] for doc in docs]
    assert len(ids) == len(set(ids))
    for doc in docs:
        assert doc["doc_id"] == doc_id_for(doc["path"])
        assert doc["role"] in ROLES
        for target in doc.get("amends", []):
            assert target in ids and target != doc["doc_id"]
            # An amendment changes an instrument of its own transaction.
            assert next(d for d in docs if d["doc_id"] == target)["transaction_set"] == \
                doc["transaction_set"], doc["doc_id"]
        assert (doc["role"] == "amendment") == bool(doc.get("amends")), doc["doc_id"]


def test_files_exist_and_checksums_match(any_raw: dict[str, Any], corpus: Path) -> None:
    root = corpus / any_raw["root"]
    for doc in any_raw["documents"]:
        path = root / doc["path"]
        assert path.is_file(), f"{doc['doc_id']}: {path} missing"
        assert sha256_of(path) == doc["sha256"], f"{doc['doc_id']}: checksum differs"


def test_dates_are_iso_strings(any_raw: dict[str, Any]) -> None:
    for doc in any_raw["documents"]:
        if "date" in doc:
            assert isinstance(doc["date"], str), doc["doc_id"]
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", doc["date"]), doc["doc_id"]


def test_edgar_sources_name_their_archive_url(any_raw: dict[str, Any]) -> None:
    for doc in any_raw["documents"]:
        source = doc["source"]
        if source["kind"] != "edgar":
            continue
        folder = source["accession"].replace("-", "")
        assert source["url"] == f"{EDGAR_ARCHIVES}{source['cik']}/{folder}/{source['file']}"


# --- transactions ----------------------------------------------------------------------


def test_loader_accepts_the_transactions_manifest() -> None:
    manifest = load_manifest(TRANSACTIONS)
    assert manifest.profile == "transactions" and manifest.root == "transactions"
    assert len(manifest.documents) == 10
    assert {doc.transaction_set for doc in manifest.documents} == {
        "stonepoint", "guerrilla", "netgear", "glufox"}


def test_transactions_sets_are_folders(raw: dict[str, Any]) -> None:
    for doc in raw["documents"]:
        assert doc["path"].split("/")[0] == doc["transaction_set"]


def test_every_set_has_one_base_instrument(raw: dict[str, Any]) -> None:
    by_set: dict[str, list[str]] = {}
    for doc in raw["documents"]:
        by_set.setdefault(doc["transaction_set"], []).append(doc["role"])
    assert len(by_set) == 4
    for name, roles in by_set.items():
        assert sum(role in ("base", "conformed") for role in roles) == 1, name


def test_the_transactions_mirror_holds_no_unlisted_document(raw: dict[str, Any],
                                                            corpus: Path) -> None:
    root = corpus / raw["root"]
    assert {root / doc["path"] for doc in raw["documents"]} == set(root.glob("*/*.txt"))


def test_downloads_hash_the_mirrored_exhibit(raw: dict[str, Any], corpus: Path) -> None:
    downloads = {doc["doc_id"]: doc["download"] for doc in raw["documents"] if "download" in doc}
    assert set(downloads) == {"guerrilla-01_unit_purchase_agreement"}
    exhibit = corpus / "transactions" / "_html" / "guerrilla_ex_453028.htm"
    assert downloads["guerrilla-01_unit_purchase_agreement"]["sha256"] == sha256_of(exhibit)


def test_cuad_sources_hold_the_document_text(raw: dict[str, Any], corpus: Path) -> None:
    # CUAD cuts some exhibits at other places than the mirror does, so the named CUAD file
    # must contain the document's text (whitespace aside), not equal it.
    for doc in raw["documents"]:
        source = doc["source"]
        if source["kind"] != "cuad":
            continue
        assert doc["license"] == "CC BY 4.0 (The Atticus Project, CUAD v1)"
        cuad_file = corpus / "cuad" / "contracts" / source["file"]
        text = (corpus / raw["root"] / doc["path"]).read_text(encoding="utf-8")
        assert squeeze(text) in squeeze(cuad_file.read_text(encoding="utf-8")), doc["doc_id"]


# --- edgar2023: a selection of the filings in the mirror's edgar2023/ folder ------------


def test_edgar2023_is_a_held_out_selection_of_whole_exhibits(edgar_raw: dict[str, Any]) -> None:
    docs = edgar_raw["documents"]
    sets = Counter(doc["transaction_set"] for doc in docs)
    assert 15 <= len(docs) <= 30 and 5 <= len(sets) <= 8
    assert sum(count >= 2 for count in sets.values()) >= 5
    for name in sets:
        roles = [doc["role"] for doc in docs if doc["transaction_set"] == name]
        assert sum(role in ("base", "conformed") for role in roles) <= 1, name


def test_edgar2023_sources_are_rows_of_the_mirror_listing(any_edgar_raw: dict[str, Any],
                                                          corpus: Path) -> None:
    # MANIFEST.tsv lists every exhibit of the mirror with its accession, CIK and file name;
    # each entry's path is <accession>/<file>, exactly as the listing names it.
    with (corpus / "edgar2023" / "MANIFEST.tsv").open(encoding="utf-8", newline="") as handle:
        listing = {(row["accession"], row["file"]): row
                   for row in csv.DictReader(handle, delimiter="\t")}
    for doc in any_edgar_raw["documents"]:
        source = doc["source"]
        row = listing[(source["accession"], source["file"])]
        assert doc["path"] == f"{source['accession']}/{source['file']}"
        assert source["kind"] == "edgar" and source["cik"] == row["cik"].lstrip("0")
        assert doc["license"] == "Public record: SEC EDGAR filing"


def test_edgar2023_downloads_are_the_mirrored_exhibits(any_edgar_raw: dict[str, Any],
                                                       corpus: Path) -> None:
    # The mirror keeps each exhibit as filed, so its download is the same bytes.
    for doc in any_edgar_raw["documents"]:
        download = doc["download"]
        assert download["url"] == doc["source"]["url"] and download["format"] == "html"
        assert download["sha256"] == sha256_of(corpus / "edgar2023" / doc["path"])
