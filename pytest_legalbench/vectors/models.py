"""The one place models are loaded: sentence-transformers bi- and cross-encoders, by path.

A model is read-only once loaded and weighs hundreds of megabytes, so each folder is loaded
once per process and shared by every mode and thread that asks for it (the lock makes a
second thread wait for the first load instead of repeating it). Loads are local-only: a
folder that is not a complete model fails with its path, it never turns into a hub download.

One environment default is set before torch first loads, unless the user set it:
``OMP_WAIT_POLICY=PASSIVE``. With OpenMP's default, torch's idle threads spin after each
operation and starve the tokenizer on a small machine; measured on 2 cores, one question's
embedding took 480 ms spinning and 22 ms passive, and bulk embedding 20 s against 14 s
(``perf/output/retrieval_speed.json`` has the per-question figures).
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any, Literal

Kind = Literal["sentence", "cross"]


class ModelLoadError(RuntimeError):
    """A model folder that cannot be loaded; the message names the folder."""


class _Loaded:
    """Loaded models by (kind, folder), and the lock their loading holds."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.models: dict[tuple[Kind, Path], Any] = {}


_LOADED = _Loaded()


def load_model(kind: Kind, folder: Path) -> Any:
    """The ``kind`` model in ``folder``, loaded on first use (CPU, local files only)."""
    key = (kind, folder)
    with _LOADED.lock:
        if key not in _LOADED.models:
            if "torch" not in sys.modules:  # OpenMP reads it once, when torch loads
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            # Imported here: torch and transformers load only when a model is needed.
            from sentence_transformers import CrossEncoder, SentenceTransformer
            from transformers.utils import logging as transformers_logging

            # transformers draws a "Loading weights" bar on stderr that pytest's -q cannot
            # hold back; a local load of a small model takes well under a second, so no bar.
            transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            build = SentenceTransformer if kind == "sentence" else CrossEncoder
            try:
                _LOADED.models[key] = build(str(folder), device="cpu", local_files_only=True)
            except Exception as error:  # any failure to load is reported with the folder
                what = "embedding model" if kind == "sentence" else "cross-encoder"
                raise ModelLoadError(f"{folder}: cannot load the {what}: {error}") from error
        return _LOADED.models[key]


def loaded_folders() -> tuple[Path, ...]:
    """The folders loaded in this process so far (tests check what a run loaded)."""
    with _LOADED.lock:
        return tuple(folder for _, folder in _LOADED.models)
