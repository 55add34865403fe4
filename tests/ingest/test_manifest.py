"""Validation of manifest files: every mistake is reported with file, entry and field."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_legalbench.ingest import manifest as manifest_module
from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import ROLES, CorpusError, Download, Source
from pytest_legalbench.ingest.manifest import (
    available_profiles,
    load_manifest,
    parse_manifest,
    profile_manifest,
)

REPO = Path(__file__).resolve().parents[2]
SHA = "ab" * 32


def entry(path: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"doc_id": doc_id_for(path), "path": path,
                            "title": f"Title of {path}", "role": "base"}
    base.update(fields)
    return base


def manifest_data(*entries: dict[str, Any], **top: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"format": 1, "profile": "sample", "root": "sample",
                            "documents": list(entries)}
    data.update(top)
    return data


def write(tmp_path: Path, data: object, name: str = "sample.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_full_entry_is_read_with_every_field(tmp_path: Path) -> None:
    data = manifest_data(
        entry("deal/01_credit_agreement.txt", sha256=SHA.upper(), transaction_set="deal",
              date="2020-01-31", parties=["Lender Bank", "Borrower Co"], license="public",
              source={"kind": "edgar", "url": "https://example.org/a.htm",
                      "accession": "0000000000-20-000001", "cik": "123", "file": "a.htm"},
              download={"url": "https://example.org/a.htm", "sha256": SHA}),
        entry("deal/02_first_amendment.txt", role="amendment",
              date=datetime.date(2021, 5, 6), amends=[doc_id_for("deal/01_credit_agreement.txt")]),
        description="two documents",
        unmatched=[{"row": "ignored"}],
    )
    loaded = load_manifest(write(tmp_path, data))
    assert (loaded.profile, loaded.root, loaded.description) == ("sample", "sample", "two documents")
    first, second = loaded.documents
    assert first.doc_id == "deal-01_credit_agreement"
    assert first.sha256 == SHA  # normalised to lower case
    assert first.parties == ("Lender Bank", "Borrower Co")
    assert first.source == Source(kind="edgar", url="https://example.org/a.htm",
                                  accession="0000000000-20-000001", cik="123", file="a.htm")
    assert first.download == Download(url="https://example.org/a.htm", sha256=SHA, format="html")
    assert second.date == "2021-05-06"  # a YAML date becomes an ISO string
    assert second.amends == ("deal-01_credit_agreement",)
    assert second.role == "amendment" and second.sha256 is None and second.download is None


def test_unquoted_yaml_date_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "dates.yaml"
    path.write_text(
        "format: 1\nprofile: dates\nroot: r\ndocuments:\n"
        "  - {doc_id: a, path: a.txt, title: A, role: base, date: 2022-12-27}\n",
        encoding="utf-8",
    )
    assert load_manifest(path).documents[0].date == "2022-12-27"


BAD_ENTRIES: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    ("unknown role", entry("a.txt", role="main"), ("'role'", "unknown role 'main'")),
    ("missing title", {"doc_id": "a", "path": "a.txt", "role": "base"}, ("'title'", "required")),
    ("id not from path", entry("a.txt", doc_id="other"), ("'doc_id'", "'a'")),
    ("amends unknown", entry("a.txt", amends=["nowhere"]), ("'amends'", "'nowhere'")),
    ("amends itself", entry("a.txt", amends=["a"]), ("'amends'", "itself")),
    ("parties not a list", entry("a.txt", parties="Acme"), ("'parties'", "list")),
    ("amends not strings", entry("a.txt", amends=[3]), ("'amends'", "list")),
    ("bad date", entry("a.txt", date="31/01/2020"), ("'date'", "ISO")),
    ("bad checksum", entry("a.txt", sha256="xyz"), ("'sha256'", "SHA-256")),
    ("title not text", entry("a.txt", title=12), ("'title'", "string")),
    ("unknown key", entry("a.txt", amend=["b"]), ("unknown key", "amend")),
    ("source not mapping", entry("a.txt", source="edgar"), ("'source'", "mapping")),
    ("source without kind", entry("a.txt", source={"url": "https://x"}), ("'source.kind'",)),
    ("cik as number", entry("a.txt", source={"kind": "edgar", "cik": 123}), ("'source.cik'",)),
    ("download format", entry("a.txt", download={"url": "https://x/a", "sha256": SHA,
                                                  "format": "pdf"}), ("'download.format'",)),
    ("download not http", entry("a.txt", download={"url": "ftp://x/a", "sha256": SHA}),
     ("'download.url'",)),
    ("download checksum", entry("a.txt", download={"url": "https://x/a"}),
     ("'download.sha256'",)),
    ("path escapes root", entry("../a.txt"), ("'path'", "relative path")),
    ("absolute path", {"doc_id": "etc-a", "path": "/etc/a.txt", "title": "A", "role": "base"},
     ("'path'",)),
    ("entry not mapping", "just text", ("document #1", "mapping")),  # type: ignore[list-item]
]


@pytest.mark.parametrize(("case", "bad", "needles"), BAD_ENTRIES, ids=[c[0] for c in BAD_ENTRIES])
def test_bad_entry_names_file_entry_and_field(
    tmp_path: Path, case: str, bad: Any, needles: tuple[str, ...]
) -> None:
    path = write(tmp_path, manifest_data(entry("z.txt"), bad))
    with pytest.raises(CorpusError) as caught:
        load_manifest(path)
    message = str(caught.value)
    assert str(path) in message
    assert "#1" in message  # the entry's position, so it can be found even without an id
    for needle in needles:
        assert needle in message, (case, message)


def test_duplicate_doc_ids_are_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, manifest_data(entry("a.txt"), entry("b.txt"), entry("a.txt")))
    with pytest.raises(CorpusError, match=r"'a'.*'doc_id'.*more than once"):
        load_manifest(path)


@pytest.mark.parametrize(
    ("top", "needle"),
    [
        ({"format": 2}, "'format'"),
        ({"format": True}, "'format'"),
        ({"documents": []}, "'documents'"),
        ({"root": None}, "'root'"),
        ({"profile": ""}, "'profile'"),
        ({"extra": 1}, "unknown key"),
        ({"root": "../outside"}, "'root'"),
    ],
)
def test_bad_top_level_fields(tmp_path: Path, top: dict[str, Any], needle: str) -> None:
    path = write(tmp_path, manifest_data(entry("a.txt"), **top))
    with pytest.raises(CorpusError, match=needle) as caught:
        load_manifest(path)
    assert str(path) in str(caught.value)


def test_unreadable_manifests(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="manifest not found"):
        load_manifest(tmp_path / "absent.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("documents: [unclosed\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="not valid YAML"):
        load_manifest(broken)
    listing = tmp_path / "list.yaml"
    listing.write_text("- a\n- b\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="mapping"):
        load_manifest(listing)


def test_outside_ids_may_be_amended(tmp_path: Path) -> None:
    path = write(tmp_path, manifest_data(entry("b.txt", role="amendment", amends=["a"])))
    with pytest.raises(CorpusError, match="not in the manifest"):
        load_manifest(path)
    assert load_manifest(path, outside_ids={"a"}).documents[0].amends == ("a",)


def test_profiles_come_from_the_manifests_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, manifest_data(entry("a.txt"), profile="alpha"), "alpha.yaml")
    write(tmp_path, manifest_data(entry("a.txt"), profile="wrong"), "beta.yaml")
    (tmp_path / "README.md").write_text("not a profile", encoding="utf-8")
    monkeypatch.setattr(manifest_module, "manifests_dir", lambda: tmp_path)
    assert available_profiles() == ("alpha", "beta")
    assert profile_manifest("alpha").profile == "alpha"
    with pytest.raises(CorpusError, match=r"unknown corpus profile 'gamma' \(available: alpha, beta"):
        profile_manifest("gamma")
    with pytest.raises(CorpusError, match="beta.yaml.*'profile'.*'wrong'"):
        profile_manifest("beta")


def test_packaged_manifests_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manifest_module, "manifests_dir", lambda: REPO / "corpus")
    profiles = available_profiles()
    assert "transactions" in profiles
    for name in profiles:
        loaded = profile_manifest(name)
        assert loaded.profile == name and loaded.documents


_SEGMENT = st.text(alphabet="abcdefghij0123456789_", min_size=1, max_size=8)


@st.composite
def manifests(draw: st.DrawFn) -> dict[str, Any]:
    paths = draw(st.lists(st.lists(_SEGMENT, min_size=1, max_size=3).map("/".join),
                          min_size=1, max_size=6, unique_by=lambda p: doc_id_for(p + ".txt")))
    entries = []
    ids: list[str] = []
    for path in paths:
        item = entry(path + ".txt", role=draw(st.sampled_from(ROLES)))
        links = draw(st.booleans())
        if ids and links:
            item["amends"] = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
        if draw(st.booleans()):
            item["date"] = draw(st.dates()).isoformat()
        entries.append(item)
        ids.append(item["doc_id"])
    return manifest_data(*entries)


@settings(max_examples=60, deadline=None)
@given(manifests())
def test_valid_manifests_round_trip(data: dict[str, Any]) -> None:
    loaded = parse_manifest(data, Path("generated.yaml"))
    assert [e.doc_id for e in loaded.documents] == [d["doc_id"] for d in data["documents"]]
    for read, written in zip(loaded.documents, data["documents"], strict=True):
        assert (read.path, read.role, read.title) == (written["path"], written["role"],
                                                      written["title"])
        assert read.amends == tuple(written.get("amends", ()))
        assert read.date == written.get("date")
