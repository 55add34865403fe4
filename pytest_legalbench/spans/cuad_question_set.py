"""The generated cuad question set in the cache: built once per input, shared by every worker.

The set (about nineteen thousand files) is too large to commit, so it lives in the cache at
``<cache>/questions/cuad/<digest>/``, where ``<digest>`` is the set's own SHA-256
(``cuad_questions.set_digest``). A small pointer, ``<cache>/questions/cuad/inputs/<key>.json``,
maps the inputs that produced it (the CSV, the cuad manifest, whose checksums pin every
contract text, and the source of the generating code) to that digest, so a second call finds the
set without regenerating it. Generation happens under a build lock, so concurrent workers wait
for one build; the set is written into a temporary folder and renamed into place, so a reader
sees a whole set or none.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from pytest_legalbench.files.atomic_write import write_text_atomic
from pytest_legalbench.files.build_lock import build_lock, lock_file
from pytest_legalbench.files.locations import manifests_dir
from pytest_legalbench.files.record_json import from_builtins, to_builtins
from pytest_legalbench.ingest import cuad_manifest, decoding, questions, text_location
from pytest_legalbench.ingest.document import CorpusError
from pytest_legalbench.judging import keyfacts
from pytest_legalbench.spans import (
    contract_names,
    cuad_categories,
    cuad_facts,
    cuad_import,
    cuad_questions,
    excerpt_location,
)
from pytest_legalbench.spans.cuad_questions import (
    PROFILE,
    generate_cuad_questions,
    write_question_set,
)

#: Where generated sets live, under the cache folder.
QUESTIONS_FOLDER = "questions"
#: Written last into a finished set: its digest and counts.
SET_FILE = "set.json"
# The code whose output the set is: a change to any of it makes a new set.
_GENERATING_MODULES: tuple[ModuleType, ...] = (
    cuad_questions, cuad_categories, cuad_facts, contract_names, cuad_import, excerpt_location,
    text_location, keyfacts, questions, cuad_manifest, decoding,
)


@dataclass(frozen=True)
class CuadQuestionSet:
    """A generated cuad question set on disk."""

    folder: Path
    digest: str
    questions: int
    controls: int


@dataclass(frozen=True)
class SetRecord:
    """``set.json``, written last into a finished set: its digest and counts."""

    digest: str
    questions: int
    controls: int


def input_key(corpus_dir: Path, manifest_path: Path | None = None) -> str:
    """SHA-256 of everything the generated set depends on."""
    digest = hashlib.sha256(b"legalbench cuad-questions\0")
    csv_path = corpus_dir / cuad_manifest.CLAUSES_CSV
    try:
        sources = [csv_path.read_bytes(),
                   (manifest_path or manifests_dir() / f"{PROFILE}.yaml").read_bytes()]
    except FileNotFoundError as error:
        raise CorpusError(f"{error.filename}: not found (needed to generate the cuad "
                          f"questions)") from None
    sources += [Path(str(module.__file__)).read_bytes() for module in _GENERATING_MODULES]
    for source in sources:
        digest.update(len(source).to_bytes(8, "big"))
        digest.update(source)
    return digest.hexdigest()


def _read_set(folder: Path) -> CuadQuestionSet | None:
    """The set in ``folder`` if it is whole (its set file written and naming the folder)."""
    try:
        data = json.loads((folder / SET_FILE).read_text(encoding="utf-8"))
        record = from_builtins(SetRecord, data)
    except (OSError, ValueError):
        # RecordError is a ValueError: a set file that is not one marks an unfinished set.
        return None
    if record.digest != folder.name:
        return None
    return CuadQuestionSet(folder, folder.name, record.questions, record.controls)


def _pointed_set(root: Path, key: str) -> CuadQuestionSet | None:
    try:
        pointer = json.loads((root / "inputs" / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    digest = pointer.get("digest") if isinstance(pointer, dict) else None
    return _read_set(root / digest) if isinstance(digest, str) else None


def cuad_question_set(corpus_dir: Path, cache_dir: Path, *,
                      manifest_path: Path | None = None,
                      progress: Callable[[str], None] | None = None) -> CuadQuestionSet:
    """The cuad question set for ``corpus_dir``, generated into ``cache_dir`` on first use."""
    root = cache_dir / QUESTIONS_FOLDER / PROFILE
    key = input_key(corpus_dir, manifest_path)
    found = _pointed_set(root, key)
    if found is not None:
        return found
    lock = lock_file(cache_dir, f"{QUESTIONS_FOLDER}-{PROFILE}-{key[:16]}")
    with build_lock(lock, "the cuad question set", on_wait=progress):
        # Another process may have built it while this one waited.
        found = _pointed_set(root, key)
        if found is not None:
            return found
        if progress is not None:
            progress(f"generating the cuad question set into {root}")
        generated = generate_cuad_questions(corpus_dir, manifest_path=manifest_path,
                                            progress=progress)
        root.mkdir(parents=True, exist_ok=True)
        final = root / generated.digest
        if _read_set(final) is None:
            staging = Path(tempfile.mkdtemp(prefix=".building-", dir=root))
            try:
                write_question_set(generated, staging)
                write_text_atomic(staging / SET_FILE, json.dumps(to_builtins(SetRecord(
                    generated.digest, generated.report.questions,
                    generated.report.controls))) + "\n")
                try:
                    os.replace(staging, final)
                except OSError:
                    # Another build (other inputs, the same questions) put the set in place
                    # first; only a folder that is not a whole set is replaced.
                    if _read_set(final) is None:
                        shutil.rmtree(final, ignore_errors=True)
                        os.replace(staging, final)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        write_text_atomic(root / "inputs" / f"{key}.json",
                          json.dumps({"digest": generated.digest}) + "\n")
        made = _read_set(final)
        if made is None:
            raise CorpusError(f"{final}: the generated cuad question set could not be read back")
        return made
