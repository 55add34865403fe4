"""Loading a corpus: a packaged profile from the mirror (or its public source), or a folder."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from pytest_legalbench.defaults import CORPUS_ENV
from pytest_legalbench.files import locations
from pytest_legalbench.ingest.decoding import DecodedText, read_document
from pytest_legalbench.ingest.doc_ids import doc_id_for
from pytest_legalbench.ingest.document import (
    CorpusError,
    Document,
    Download,
    Manifest,
    ManifestEntry,
)
from pytest_legalbench.ingest.download import fetch_document
from pytest_legalbench.ingest.folder import relative_name, scan_folder
from pytest_legalbench.ingest.manifest import FOLDER_MANIFEST_NAME, load_manifest, profile_manifest
from pytest_legalbench.ingest.roles import infer_role, link_amendments, link_choices
from pytest_legalbench.ingest.titles import guess_title

Progress = Callable[[str], None]

_HOW_TO_SET = (
    f"set --legalbench-corpus-dir or ${CORPUS_ENV} to the corpus mirror folder"
)
# Error messages name this many missing documents, then count the rest.
_MISSING_LISTED = 5


def _quiet(_: str) -> None:
    """A progress callback that reports nothing."""


def _checked(decoded: DecodedText, path: Path, expected: str | None) -> DecodedText:
    if expected is not None and decoded.sha256 != expected:
        raise CorpusError(
            f"{path}: checksum mismatch: the manifest expects sha256 {expected}, "
            f"the file has {decoded.sha256} (a different version of the document)"
        )
    return decoded


def _sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _document(entry: ManifestEntry, decoded: DecodedText, path: Path,
              extra_warnings: tuple[str, ...] = ()) -> Document:
    return Document(
        doc_id=entry.doc_id,
        title=entry.title,
        text=decoded.text,
        role=entry.role,
        path=str(path),
        sha256=decoded.sha256,
        transaction_set=entry.transaction_set,
        date=entry.date,
        amends=entry.amends,
        parties=entry.parties,
        warnings=decoded.warnings + extra_warnings,
    )


def _downloaded(doc_id: str, source: Download, downloads: Path, progress: Progress) -> Path:
    """Return a verified local copy of a document's public source, fetching it when needed."""
    # The suffix tells read_document whether the bytes are HTML to convert.
    dest = downloads / f"{doc_id}{'.html' if source.format == 'html' else '.txt'}"
    if dest.is_file() and _sha256_of(dest) == source.sha256:
        progress(f"{doc_id}: using the downloaded copy {dest}")
        return dest
    progress(f"{doc_id}: downloading {source.url}")
    return fetch_document(source.url, dest, sha256=source.sha256)


def _missing_error(manifest: Manifest, corpus_dir: Path | None,
                   missing: Sequence[tuple[ManifestEntry, Path | None]],
                   allow_download: bool) -> CorpusError:
    name = manifest.profile
    listed = missing[:_MISSING_LISTED]
    more = f" and {len(missing) - len(listed)} more" if len(missing) > len(listed) else ""
    if corpus_dir is None:
        return CorpusError(
            f"profile {name!r}: no corpus directory is set and {len(missing)} of its "
            f"{len(manifest.documents)} documents cannot be downloaded "
            f"({', '.join(entry.doc_id for entry, _ in listed)}{more}); {_HOW_TO_SET}"
        )
    shown = "; ".join(f"{entry.doc_id} ({path})" for entry, path in listed)
    root = corpus_dir / manifest.root
    where = "" if root.is_dir() else f" ({root} is not a folder)"
    hint = "" if allow_download else "; downloads are turned off"
    return CorpusError(
        f"profile {name!r}: {len(missing)} document(s) missing from the corpus directory "
        f"{corpus_dir}{where}: {shown}{more}{hint}; {_HOW_TO_SET}"
    )


def load_manifest_documents(
    manifest: Manifest,
    corpus_dir: Path | None,
    *,
    cache_dir: Path | None = None,
    allow_download: bool = True,
    progress: Progress | None = None,
) -> tuple[Document, ...]:
    """Read every document ``manifest`` names, from ``corpus_dir`` or a verified download."""
    report = progress or _quiet
    plan: list[tuple[ManifestEntry, Path | Download]] = []
    missing: list[tuple[ManifestEntry, Path | None]] = []
    for entry in manifest.documents:
        local = None if corpus_dir is None else corpus_dir / manifest.root / entry.path
        if local is not None and local.exists():
            plan.append((entry, local))
        elif allow_download and entry.download is not None:
            plan.append((entry, entry.download))
        else:
            missing.append((entry, local))
    # Every missing file is named at once, before any slow download starts.
    if missing:
        raise _missing_error(manifest, corpus_dir, missing, allow_download)
    downloads = (cache_dir or locations.default_cache_dir()) / "downloads"
    documents = []
    for entry, source in plan:
        if isinstance(source, Path):
            report(f"{entry.doc_id}: reading {source}")
            decoded = _checked(read_document(source), source, entry.sha256)
            documents.append(_document(entry, decoded, source))
            continue
        path = _downloaded(entry.doc_id, source, downloads, report)
        note = (f"{entry.doc_id}: not in the corpus mirror; text converted from its public "
                f"source {source.url}")
        documents.append(_document(entry, read_document(path), path, (note,)))
    return tuple(documents)


def load_profile(
    name: str,
    corpus_dir: Path | None,
    *,
    cache_dir: Path | None = None,
    allow_download: bool = True,
    progress: Progress | None = None,
) -> tuple[Document, ...]:
    """Load the packaged profile ``name`` from ``corpus_dir``, downloading what is missing."""
    return load_manifest_documents(
        profile_manifest(name), corpus_dir, cache_dir=cache_dir,
        allow_download=allow_download, progress=progress,
    )


def _folder_overrides(root: Path, folder_ids: set[str]) -> dict[str, ManifestEntry]:
    path = root / FOLDER_MANIFEST_NAME
    if not path.is_file():
        return {}
    manifest = load_manifest(path, outside_ids=folder_ids)
    if PurePosixPath(manifest.root) != PurePosixPath("."):
        raise CorpusError(f"{path}: field 'root': a folder's manifest must say root: \".\", "
                          f"got {manifest.root!r}")
    for entry in manifest.documents:
        if entry.doc_id not in folder_ids:
            raise CorpusError(f"{path}: document {entry.doc_id!r}: field 'path': {entry.path!r} "
                              f"is not among the documents found in {root}")
    return {entry.doc_id: entry for entry in manifest.documents}


def load_folder(root: Path, *, progress: Progress | None = None,
                skipped: Progress | None = None) -> tuple[Document, ...]:
    """Load every document under ``root``, inferring titles, roles and amendment links.

    A ``legalbench.yaml`` in ``root`` (the manifest schema, ``root: .``) overrides what is
    inferred for the documents it lists. Every unreadable file is named in one CorpusError;
    given ``skipped``, each is reported to it instead and the rest are loaded.
    """
    report = progress or _quiet
    paths = scan_folder(root)
    relatives = [relative_name(path, root) for path in paths]
    ids = [doc_id_for(relative) for relative in relatives]
    overrides = _folder_overrides(root, set(ids))
    documents = []
    unreadable: list[str] = []
    for path, relative, doc_id in zip(paths, relatives, ids, strict=True):
        report(f"{doc_id}: reading {path}")
        entry = overrides.get(doc_id)
        try:
            decoded = read_document(path)
            if entry is not None:
                decoded = _checked(decoded, path, entry.sha256)
        except CorpusError as error:
            unreadable.append(str(error))
            continue
        if entry is not None:
            documents.append(_document(entry, decoded, path))
            continue
        title = guess_title(decoded.text) or doc_id
        parts = PurePosixPath(relative).parts
        documents.append(Document(
            doc_id=doc_id,
            title=title,
            text=decoded.text,
            role=infer_role(title, decoded.text).role,
            path=str(path),
            sha256=decoded.sha256,
            # A sub-folder groups one transaction's instruments.
            transaction_set=parts[0] if len(parts) > 1 else None,
            warnings=decoded.warnings,
        ))
    if unreadable and skipped is None:
        heading = f"{root}: {len(unreadable)} of {len(paths)} documents cannot be read:"
        raise CorpusError("\n  ".join([heading, *unreadable]))
    for problem in unreadable:
        (skipped or _quiet)(problem)
    if not documents:
        raise CorpusError(f"{root}: no document could be read")
    linked = link_amendments(documents)
    # What the folder's manifest says about a document is final, links included.
    return tuple(
        original if original.doc_id in overrides else inferred
        for original, inferred in zip(documents, linked, strict=True)
    )


def describe_inference(documents: Sequence[Document]) -> list[str]:
    """Return one line per document saying its role, its link and why (for the CLI)."""
    choices = link_choices(documents)
    lines = []
    for document in documents:
        guess = infer_role(document.title, document.text)
        reasons = [guess.reason if guess.role == document.role else "role given by a manifest"]
        choice = choices.get(document.doc_id)
        if choice is not None:
            if document.amends == (choice.target,):
                reasons.append(choice.reason)
            elif document.amends:
                reasons.append("link given by a manifest")
            else:
                reasons.append(f"not linked: {choice.reason}")
        linked = f" of {', '.join(document.amends)}" if document.amends else ""
        lines.append(f"{document.doc_id}: {document.role}{linked} ({'; '.join(reasons)})")
    return lines

