"""A run's settings fingerprint: everything that decides what an item's record holds, as named
parts and one digest, so a resumed run takes only records made under the same settings.

Files are digested by their bytes (the corpus by its manifest, whose checksums pin every
document text; a folder of documents by every file in it), never by their paths or dates.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Fingerprint:
    """Named parts (each a short text or a digest) and the digest over all of them."""

    parts: Mapping[str, str]

    @property
    def digest(self) -> str:
        """sha256 over the parts in name order, hex, 16 characters."""
        text = json.dumps(sorted(self.parts.items()), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def differences(self, other: Mapping[str, str]) -> list[str]:
        """One line per part that differs from ``other``'s: ``name: OTHER -> THIS``."""
        names = sorted(set(self.parts) | set(other))
        return [f"{name}: {other.get(name, '(none)')} -> {self.parts.get(name, '(none)')}"
                for name in names if other.get(name) != self.parts.get(name)]


def files_digest(paths: Sequence[Path], root: Path) -> str:
    """sha256 over each file's path relative to ``root`` and its bytes, in path order."""
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def folder_digest(folder: Path, patterns: Sequence[str] = ("**/*",)) -> str:
    """The ``files_digest`` of the files below ``folder`` matching ``patterns``."""
    found = {p for pattern in patterns for p in folder.glob(pattern) if p.is_file()
             and not any(part.startswith(".") for part in p.relative_to(folder).parts)}
    return files_digest(sorted(found), folder)


def run_fingerprint(*, modes: Sequence[str], models: Mapping[str, str], backend: str,
                    judge: str, retrieval: Mapping[str, object], gandr: Sequence[str],
                    repeats: int, prompts: Path, corpus: Path, questions: Path,
                    questions_digest: str | None = None) -> Fingerprint:
    """The fingerprint of a run: ``corpus`` is the profile's manifest file or a documents
    folder, ``prompts`` and ``questions`` are folders; a generated question set is named by
    its own digest (``questions_digest``) instead of reading its thousands of files again."""
    corpus_part = (files_digest([corpus], corpus.parent) if corpus.is_file()
                   else folder_digest(corpus))
    return Fingerprint({
        "modes": ", ".join(modes),
        "models": ", ".join(f"{role} {name}" for role, name in sorted(models.items())),
        "backend": backend,
        "judge": judge,
        "retrieval": json.dumps(dict(retrieval), sort_keys=True, default=str),
        "gandr": json.dumps({"repeats": repeats, "settings": list(gandr)}),
        "prompts": folder_digest(prompts, ("*.txt",)),
        "corpus": corpus_part,
        "questions": questions_digest or folder_digest(questions, ("*.yaml", "*.yml")),
    })
