"""Reading and validating profile manifests (the YAML files that name a corpus's documents)."""

from __future__ import annotations

import datetime
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from pytest_legalbench.files.locations import manifests_dir
from pytest_legalbench.files.yaml_text import load_yaml
from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import (
    ROLES,
    CorpusError,
    Download,
    Manifest,
    ManifestEntry,
    Source,
)

#: A folder of the user's own documents may carry a manifest of this name (with ``root: .``).
FOLDER_MANIFEST_NAME = "legalbench.yaml"

_SUPPORTED_FORMAT = 1
_TOP_KEYS = frozenset({"format", "profile", "description", "root", "documents", "unmatched"})
_ENTRY_KEYS = frozenset(
    {
        "doc_id", "path", "title", "role", "sha256", "transaction_set", "date", "amends",
        "parties", "source", "license", "download",
    }
)
_SOURCE_KEYS = frozenset({"kind", "url", "accession", "cik", "file"})
_DOWNLOAD_KEYS = frozenset({"url", "sha256", "format"})
_DOWNLOAD_FORMATS = ("html", "txt")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class _Where:
    """The place in a manifest an error refers to, so every message names file, entry and field."""

    manifest_path: Path
    entry: str | None = None

    def error(self, field: str | None, problem: str) -> CorpusError:
        parts = [str(self.manifest_path)]
        if self.entry is not None:
            parts.append(f"document {self.entry}")
        if field is not None:
            parts.append(f"field {field!r}")
        return CorpusError(": ".join(parts) + f": {problem}")


def _check_keys(where: _Where, field: str | None, data: Mapping[str, object],
                allowed: frozenset[str]) -> None:
    unknown = sorted(str(key) for key in data if key not in allowed)
    if unknown:
        raise where.error(field, f"unknown key(s) {', '.join(unknown)} "
                                 f"(allowed: {', '.join(sorted(allowed))})")


def _text(where: _Where, data: Mapping[str, object], key: str, prefix: str = "") -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise where.error(prefix + key, f"must be a non-empty string, got {value!r}")
    return value.strip()


def _required_text(where: _Where, data: Mapping[str, object], key: str,
                   prefix: str = "") -> str:
    value = _text(where, data, key, prefix)
    if value is None:
        raise where.error(prefix + key, "is required")
    return value


def _string_list(where: _Where, data: Mapping[str, object], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip()
                                              for item in value):
        raise where.error(key, f"must be a list of non-empty strings, got {value!r}")
    return tuple(item.strip() for item in value)


def _checksum(where: _Where, field: str, value: object) -> str:
    if not isinstance(value, str) or not _SHA256.fullmatch(value.strip().lower()):
        raise where.error(field, f"must be a SHA-256 hex digest (64 hex digits), got {value!r}")
    return value.strip().lower()


def _date(where: _Where, value: object) -> str | None:
    if value is None:
        return None
    # YAML turns an unquoted 2022-12-27 into a date; a quoted one stays a string.
    if isinstance(value, datetime.datetime):
        return value.date().isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            pass
    raise where.error("date", f"must be an ISO date (YYYY-MM-DD), got {value!r}")


def _relative_path(where: _Where, field: str, value: str) -> str:
    posix = value.replace("\\", "/")
    parts = PurePosixPath(posix).parts
    if posix.startswith("/") or re.match(r"[A-Za-z]:", posix) or ".." in parts:
        raise where.error(field, f"must be a relative path inside the corpus, got {value!r}")
    return posix


def _source(where: _Where, value: object) -> Source | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise where.error("source", f"must be a mapping, got {value!r}")
    _check_keys(where, "source", value, _SOURCE_KEYS)
    kind = _required_text(where, value, "kind", "source.")
    return Source(
        kind=kind,
        url=_text(where, value, "url", "source."),
        accession=_text(where, value, "accession", "source."),
        cik=_text(where, value, "cik", "source."),
        file=_text(where, value, "file", "source."),
    )


def _download(where: _Where, value: object) -> Download | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise where.error("download", f"must be a mapping, got {value!r}")
    _check_keys(where, "download", value, _DOWNLOAD_KEYS)
    url = _required_text(where, value, "url", "download.")
    if not url.startswith(("http://", "https://")):
        raise where.error("download.url", f"must be an http(s) URL, got {url!r}")
    sha256 = _checksum(where, "download.sha256", value.get("sha256"))
    fmt = _text(where, value, "format", "download.") or "html"
    if fmt not in _DOWNLOAD_FORMATS:
        raise where.error("download.format",
                          f"must be one of {', '.join(_DOWNLOAD_FORMATS)}, got {fmt!r}")
    return Download(url=url, sha256=sha256, format=fmt)


def _entry(manifest_path: Path, index: int, data: object) -> ManifestEntry:
    where = _Where(manifest_path, f"#{index}")
    if not isinstance(data, dict):
        raise where.error(None, f"must be a mapping, got {data!r}")
    if isinstance(data.get("doc_id"), str):
        where = _Where(manifest_path, f"{data['doc_id']!r} (#{index})")
    _check_keys(where, None, data, _ENTRY_KEYS)
    doc_id = _required_text(where, data, "doc_id")
    path = _relative_path(where, "path", _required_text(where, data, "path"))
    try:
        expected_id = doc_id_for(path)
    except ValueError as exc:
        raise where.error("path", str(exc)) from None
    if doc_id != expected_id:
        raise where.error("doc_id", f"{doc_id!r} does not match its path {path!r}, "
                                    f"which gives {expected_id!r}")
    role = _required_text(where, data, "role")
    if role not in ROLES:
        raise where.error("role", f"unknown role {role!r} (expected one of {', '.join(ROLES)})")
    sha256 = data.get("sha256")
    return ManifestEntry(
        doc_id=doc_id,
        path=path,
        title=_required_text(where, data, "title"),
        role=role,
        sha256=None if sha256 is None else _checksum(where, "sha256", sha256),
        transaction_set=_text(where, data, "transaction_set"),
        date=_date(where, data.get("date")),
        amends=_string_list(where, data, "amends"),
        parties=_string_list(where, data, "parties"),
        source=_source(where, data.get("source")),
        license=_text(where, data, "license"),
        download=_download(where, data.get("download")),
    )


def _check_links(manifest_path: Path, entries: tuple[ManifestEntry, ...],
                 outside_ids: Collection[str]) -> None:
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if entry.doc_id in seen:
            raise _Where(manifest_path, f"{entry.doc_id!r} (#{index})").error(
                "doc_id", "appears more than once")
        seen.add(entry.doc_id)
    for index, entry in enumerate(entries):
        where = _Where(manifest_path, f"{entry.doc_id!r} (#{index})")
        for target in entry.amends:
            if target == entry.doc_id:
                raise where.error("amends", "a document cannot amend itself")
            if target not in seen and target not in outside_ids:
                raise where.error("amends", f"names {target!r}, which is not in the manifest")


def parse_manifest(data: object, manifest_path: Path, *,
                   outside_ids: Collection[str] = ()) -> Manifest:
    """Validate already-parsed YAML ``data`` as a manifest; errors name ``manifest_path``.

    ``outside_ids`` are documents that ``amends`` may name without the manifest listing them
    (the other files of a folder whose manifest describes only some).
    """
    where = _Where(manifest_path)
    if not isinstance(data, dict):
        raise where.error(None, "must be a YAML mapping with format, profile, root and documents")
    _check_keys(where, None, data, _TOP_KEYS)
    fmt = data.get("format")
    if fmt != _SUPPORTED_FORMAT or isinstance(fmt, bool):
        raise where.error("format", f"must be {_SUPPORTED_FORMAT}, got {fmt!r}")
    profile = _required_text(where, data, "profile")
    root = _relative_path(where, "root", _required_text(where, data, "root"))
    description = _text(where, data, "description") or ""
    documents = data.get("documents")
    if not isinstance(documents, list) or not documents:
        raise where.error("documents", "must be a non-empty list of document entries")
    entries = tuple(_entry(manifest_path, index, item) for index, item in enumerate(documents))
    _check_links(manifest_path, entries, outside_ids)
    return Manifest(profile=profile, root=root, documents=entries, description=description,
                    format=_SUPPORTED_FORMAT)


def load_manifest(path: Path, *, outside_ids: Collection[str] = ()) -> Manifest:
    """Read and validate the manifest at ``path``; every problem raises a CorpusError."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CorpusError(f"{path}: manifest not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"{path}: cannot read manifest: {exc}") from None
    try:
        data = load_yaml(raw)
    except yaml.YAMLError as exc:
        raise CorpusError(f"{path}: not valid YAML: {exc}") from None
    return parse_manifest(data, path, outside_ids=outside_ids)


def available_profiles() -> tuple[str, ...]:
    """Return the names of the packaged profiles (one YAML manifest each), sorted."""
    folder = manifests_dir()
    return tuple(sorted(item.stem for item in folder.glob("*.yaml") if item.is_file()))


def profile_manifest(name: str) -> Manifest:
    """Load the packaged manifest of profile ``name``; an unknown name lists the known ones."""
    profiles = available_profiles()
    if name not in profiles:
        known = ", ".join(profiles) or "none"
        raise CorpusError(f"unknown corpus profile {name!r} (available: {known})")
    path = manifests_dir() / f"{name}.yaml"
    manifest = load_manifest(path)
    if manifest.profile != name:
        raise CorpusError(f"{path}: field 'profile': says {manifest.profile!r}, "
                          f"but the file is named for profile {name!r}")
    return manifest
