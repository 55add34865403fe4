"""Checks of the packaged profile manifests against the corpus mirror they describe."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import ROLES
from pytest_legalbench.ingest.manifest import load_manifest

REPO = Path(__file__).resolve().parents[2]
TRANSACTIONS = REPO / "corpus" / "transactions.yaml"
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


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    data = yaml.safe_load(TRANSACTIONS.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_loader_accepts_the_transactions_manifest() -> None:
    manifest = load_manifest(TRANSACTIONS)
    assert manifest.profile == "transactions" and manifest.root == "transactions"
    assert len(manifest.documents) == 10
    assert {doc.transaction_set for doc in manifest.documents} == {
        "stonepoint", "guerrilla", "netgear", "glufox"}


def test_ids_roles_and_relations(raw: dict[str, Any]) -> None:
    docs = raw["documents"]
    ids = [doc["doc_id"] for doc in docs]
    assert len(ids) == len(set(ids)) == 10
    for doc in docs:
        assert doc["doc_id"] == doc_id_for(doc["path"])
        assert doc["role"] in ROLES
        assert doc["path"].split("/")[0] == doc["transaction_set"]
        for target in doc.get("amends", []):
            assert target in ids and target != doc["doc_id"]
        assert (doc["role"] == "amendment") == bool(doc.get("amends")), doc["doc_id"]


def test_every_set_has_one_base_instrument(raw: dict[str, Any]) -> None:
    by_set: dict[str, list[str]] = {}
    for doc in raw["documents"]:
        by_set.setdefault(doc["transaction_set"], []).append(doc["role"])
    assert len(by_set) == 4
    for name, roles in by_set.items():
        assert sum(role in ("base", "conformed") for role in roles) == 1, name


def test_files_exist_and_checksums_match(raw: dict[str, Any], corpus: Path) -> None:
    root = corpus / raw["root"]
    listed = set()
    for doc in raw["documents"]:
        path = root / doc["path"]
        assert path.is_file(), f"{doc['doc_id']}: {path} missing"
        assert sha256_of(path) == doc["sha256"], f"{doc['doc_id']}: checksum differs"
        listed.add(path)
    mirrored = {p for p in root.glob("*/*.txt")}
    assert listed == mirrored


def test_dates_are_iso_strings(raw: dict[str, Any]) -> None:
    for doc in raw["documents"]:
        assert isinstance(doc["date"], str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", doc["date"])


def test_edgar_sources_name_their_archive_url(raw: dict[str, Any]) -> None:
    for doc in raw["documents"]:
        source = doc["source"]
        if source["kind"] != "edgar":
            continue
        folder = source["accession"].replace("-", "")
        assert source["url"] == f"{EDGAR_ARCHIVES}{source['cik']}/{folder}/{source['file']}"


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
