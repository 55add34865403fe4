"""Loading profiles and folders: mirror files, checksums, downloads, overrides, clear errors."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_legalbench.ingest import manifest as manifest_module
from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.ingest.loading import (
    describe_inference,
    load_folder,
    load_manifest_documents,
    load_profile,
)
from pytest_legalbench.ingest.manifest import FOLDER_MANIFEST_NAME, load_manifest

REPO = Path(__file__).resolve().parents[2]

LEASE = (b"OFFICE LEASE\n\nThis Office Lease is made between Harbor Point Realty and "
         b"Wexford Analytics.\n\n1. Premises. Suite 400.\n")
LEASE_AMENDMENT = (b"FIRST AMENDMENT TO OFFICE LEASE\n\nThis First Amendment amends the Office "
                   b"Lease between Harbor Point Realty and Wexford Analytics.\n\n"
                   b"1. Premises. Suite 500 replaces Suite 400.\n")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def entry(path: str, data: bytes | None = None, **fields: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"doc_id": doc_id_for(path), "path": path, "title": path,
                            "role": "base"}
    if data is not None:
        item["sha256"] = sha(data)
    item.update(fields)
    return item


def write_manifest(folder: Path, *entries: dict[str, Any], name: str = "lab.yaml",
                   root: str = "lab") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    data = {"format": 1, "profile": path.stem, "root": root, "documents": list(entries)}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def put(root: Path, relative: str, data: bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    put(root, "lab/harbor/lease.txt", LEASE)
    put(root, "lab/harbor/amendment.txt", LEASE_AMENDMENT)
    return root


def two_documents(tmp_path: Path, **amendment_fields: Any) -> Path:
    return write_manifest(
        tmp_path / "manifests",
        entry("harbor/lease.txt", LEASE, title="Office Lease", transaction_set="harbor",
              parties=["Harbor Point Realty", "Wexford Analytics"], date="2019-04-01"),
        entry("harbor/amendment.txt", LEASE_AMENDMENT, title="First Amendment", role="amendment",
              amends=["harbor-lease"], **amendment_fields),
    )


def test_manifest_documents_carry_metadata(tmp_path: Path, corpus: Path) -> None:
    seen: list[str] = []
    lease, amendment = load_manifest_documents(load_manifest(two_documents(tmp_path)), corpus,
                                               progress=seen.append)
    assert (lease.doc_id, lease.title, lease.role) == ("harbor-lease", "Office Lease", "base")
    assert lease.parties == ("Harbor Point Realty", "Wexford Analytics")
    assert (lease.date, lease.transaction_set) == ("2019-04-01", "harbor")
    assert lease.text.startswith("OFFICE LEASE") and lease.sha256 == sha(LEASE)
    assert lease.path == str(corpus / "lab" / "harbor" / "lease.txt")
    assert amendment.amends == ("harbor-lease",) and amendment.role == "amendment"
    assert lease.warnings == () and len(seen) == 2


def test_load_profile_reads_the_packaged_manifest(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manifest_module, "manifests_dir", lambda: tmp_path / "manifests")
    two_documents(tmp_path)
    assert [d.doc_id for d in load_profile("lab", corpus)] == ["harbor-lease", "harbor-amendment"]
    with pytest.raises(CorpusError, match="available: lab"):
        load_profile("nope", corpus)


def test_missing_file_is_named_with_the_fix(tmp_path: Path, corpus: Path) -> None:
    (corpus / "lab" / "harbor" / "amendment.txt").unlink()
    with pytest.raises(CorpusError) as caught:
        load_manifest_documents(load_manifest(two_documents(tmp_path)), corpus)
    message = str(caught.value)
    assert str(corpus / "lab" / "harbor" / "amendment.txt") in message
    assert "harbor-amendment" in message and "LEGALBENCH_CORPUS_DIR" in message
    assert "--legalbench-corpus-dir" in message


def test_wrong_corpus_folder_says_so(tmp_path: Path) -> None:
    with pytest.raises(CorpusError) as caught:
        load_manifest_documents(load_manifest(two_documents(tmp_path)), tmp_path / "elsewhere")
    assert "2 document(s) missing" in str(caught.value)
    assert f"{tmp_path / 'elsewhere' / 'lab'} is not a folder" in str(caught.value)


def test_many_missing_files_are_counted(tmp_path: Path) -> None:
    entries = [entry(f"set/{number}.txt") for number in range(8)]
    manifest = load_manifest(write_manifest(tmp_path / "m", *entries))
    with pytest.raises(CorpusError, match=r"8 document\(s\) missing.*and 3 more"):
        load_manifest_documents(manifest, tmp_path)


def test_no_corpus_dir_and_nothing_downloadable(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no corpus directory is set.*LEGALBENCH_CORPUS_DIR"):
        load_manifest_documents(load_manifest(two_documents(tmp_path)), None)


def test_checksum_mismatch_names_file_expected_and_actual(tmp_path: Path, corpus: Path) -> None:
    changed = LEASE_AMENDMENT.replace(b"Suite 500", b"Suite 600")
    target = put(corpus, "lab/harbor/amendment.txt", changed)
    with pytest.raises(CorpusError) as caught:
        load_manifest_documents(load_manifest(two_documents(tmp_path)), corpus)
    message = str(caught.value)
    assert str(target) in message and sha(LEASE_AMENDMENT) in message and sha(changed) in message


def test_empty_file_error_names_the_file(tmp_path: Path, corpus: Path) -> None:
    target = put(corpus, "lab/harbor/amendment.txt", b"  \n")
    manifest = write_manifest(tmp_path / "m", entry("harbor/amendment.txt"))
    with pytest.raises(CorpusError, match="empty") as caught:
        load_manifest_documents(load_manifest(manifest), corpus)
    assert str(target) in str(caught.value)
    with pytest.raises(CorpusError, match="empty") as caught:
        load_folder(corpus / "lab")
    assert str(target) in str(caught.value)


def test_cp1252_file_loads_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    put(folder, "memo.txt", "SERVICES AGREEMENT\n\nThe \u201cServices\u201d are listed "
        "below.\n".encode("cp1252"))
    (document,) = load_folder(folder)
    assert "\u201cServices\u201d" in document.text
    assert any("cp1252" in warning for warning in document.warnings)


class _Counter:
    def __init__(self) -> None:
        self.hits = 0


SUPPLY_HTML = (b"<html><body><p>SUPPLY AGREEMENT</p><p>This Supply Agreement is made between "
               b"Larkspur Mills and Tidewater Goods.</p><table><tr><td>Item</td><td>Price</td>"
               b"</tr></table></body></html>")


@pytest.fixture
def html_server() -> Iterator[tuple[str, _Counter]]:
    body = SUPPLY_HTML
    counter = _Counter()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            counter.hits += 1
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/supply.htm", counter
    finally:
        server.shutdown()
        server.server_close()


def test_download_is_verified_cached_and_reused(
    tmp_path: Path, html_server: tuple[str, _Counter]
) -> None:
    url, counter = html_server
    manifest = load_manifest(write_manifest(
        tmp_path / "m", entry("supply.txt", sha256="0" * 64, title="Supply Agreement",
                              download={"url": url, "sha256": sha(SUPPLY_HTML)})))
    cache = tmp_path / "cache"
    notes: list[str] = []
    (document,) = load_manifest_documents(manifest, None, cache_dir=cache, progress=notes.append)
    cached = cache / "downloads" / "supply.html"
    assert cached.is_file() and document.path == str(cached)
    assert "SUPPLY AGREEMENT" in document.text and "Item | Price" in document.text
    assert document.sha256 == sha(SUPPLY_HTML)  # the mirror checksum applies to the mirror only
    assert any(url in w for w in document.warnings)
    assert counter.hits == 1 and any("downloading" in n for n in notes)
    load_manifest_documents(manifest, tmp_path / "empty-mirror", cache_dir=cache)
    assert counter.hits == 1  # the verified copy was reused
    cached.write_bytes(b"<html>tampered</html>")
    load_manifest_documents(manifest, None, cache_dir=cache)
    assert counter.hits == 2 and cached.read_bytes() != b"<html>tampered</html>"


def test_download_with_wrong_checksum_fails(
    tmp_path: Path, html_server: tuple[str, _Counter]
) -> None:
    url, _ = html_server
    manifest = load_manifest(write_manifest(
        tmp_path / "m", entry("supply.txt", download={"url": url, "sha256": "1" * 64})))
    with pytest.raises(CorpusError, match="checksum mismatch"):
        load_manifest_documents(manifest, None, cache_dir=tmp_path / "cache")
    assert not (tmp_path / "cache" / "downloads" / "supply.html").exists()


def test_downloads_can_be_turned_off(tmp_path: Path) -> None:
    manifest = load_manifest(write_manifest(
        tmp_path / "m", entry("supply.txt", download={"url": "http://127.0.0.1:9/x",
                                                      "sha256": "1" * 64})))
    with pytest.raises(CorpusError, match="downloads are turned off"):
        load_manifest_documents(manifest, tmp_path, allow_download=False)


def test_folder_documents_are_inferred(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    put(folder, "harbor/lease.txt", LEASE)
    put(folder, "harbor/amendment.htm", b"<html><body><p>" + LEASE_AMENDMENT.replace(
        b"\n\n", b"</p><p>") + b"</p></body></html>")
    put(folder, "_originals/lease.pdf.txt", b"skipped")
    lease_id, amendment_id = "harbor-lease", "harbor-amendment"
    documents = {d.doc_id: d for d in load_folder(folder)}
    assert set(documents) == {lease_id, amendment_id}
    assert documents[lease_id].title == "Office Lease" and documents[lease_id].role == "base"
    amendment = documents[amendment_id]
    assert amendment.title == "First Amendment to Office Lease"
    assert (amendment.role, amendment.amends) == ("amendment", (lease_id,))
    assert amendment.transaction_set == "harbor"
    lines = describe_inference(list(documents.values()))
    assert any(line.startswith(f"{amendment_id}: amendment of {lease_id} (title ")
               for line in lines), lines
    assert any(line.startswith(f"{lease_id}: base (") for line in lines)


def test_folder_manifest_overrides_inference(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    put(folder, "harbor/lease.txt", LEASE)
    put(folder, "harbor/amendment.txt", LEASE_AMENDMENT)
    put(folder, "harbor/rider.txt", b"RIDER\n\nParking terms for Wexford Analytics.\n")
    write_manifest(folder, entry("harbor/rider.txt", b"RIDER\n\nParking terms for Wexford "
                                 b"Analytics.\n", title="Parking Rider", role="schedule",
                                 amends=["harbor-lease"]),
                   name=FOLDER_MANIFEST_NAME, root=".")
    documents = {d.doc_id: d for d in load_folder(folder)}
    rider = documents["harbor-rider"]
    assert (rider.title, rider.role, rider.amends) == ("Parking Rider", "schedule",
                                                       ("harbor-lease",))
    assert documents["harbor-amendment"].amends == ("harbor-lease",)
    assert any("harbor-rider: schedule of harbor-lease (" in line
               for line in describe_inference(list(documents.values())))


@pytest.mark.parametrize(
    ("manifest_entry", "root", "needle"),
    [
        (entry("harbor/missing.txt"), ".", "not among the documents"),
        (entry("harbor/lease.txt"), "docs", "root"),
        (entry("harbor/lease.txt", sha256="2" * 64), ".", "checksum mismatch"),
        (entry("harbor/lease.txt", role="amendment", amends=["elsewhere"]), ".",
         "not in the manifest"),
    ],
)
def test_bad_folder_manifest_is_reported(
    tmp_path: Path, manifest_entry: dict[str, Any], root: str, needle: str
) -> None:
    folder = tmp_path / "docs"
    put(folder, "harbor/lease.txt", LEASE)
    write_manifest(folder, manifest_entry, name=FOLDER_MANIFEST_NAME, root=root)
    with pytest.raises(CorpusError, match=needle):
        load_folder(folder)


def test_duplicate_ids_in_a_folder_are_rejected(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    put(folder, "Lease One.txt", LEASE)
    put(folder, "lease-one.txt", LEASE)
    with pytest.raises(CorpusError, match="'Lease One.txt' and 'lease-one.txt'"):
        load_folder(folder)


@pytest.mark.corpus
def test_transactions_folder_loads_ten_documents(corpus_root: Path) -> None:
    documents = load_folder(corpus_root / "transactions")
    assert len(documents) == 10
    assert not any("_html" in d.path for d in documents)
    assert all(d.text.strip() and d.title for d in documents)


@pytest.mark.corpus
def test_transactions_profile_loads_from_the_mirror(
    corpus_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manifest_module, "manifests_dir", lambda: REPO / "corpus")
    documents = load_profile("transactions", corpus_root, allow_download=False)
    assert len(documents) == 10
    by_id = {d.doc_id: d for d in documents}
    assert by_id["netgear-03_amendment_no2_1998-07-15"].amends == (
        "netgear-01_distributor_agreement_1996",)
    assert by_id["stonepoint-02_revolving_credit_agreement_conformed"].role == "conformed"
    assert sum(len(d.text) for d in documents) > 600_000
