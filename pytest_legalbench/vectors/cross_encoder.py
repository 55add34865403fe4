"""Re-scoring candidates with a cross-encoder loaded by path.

No cross-encoder weights ship with the project and none can be downloaded on an offline
machine, so the strategies that need one are unavailable (with the reason) unless a model
folder is configured.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_legalbench.vectors.models import ModelLoadError, load_model
from pytest_legalbench.vectors.ranking import SCORE_PRECISION

_BATCH_SIZE = 16


class CrossEncoderUnavailable(Exception):
    """No usable cross-encoder: ``reason`` says what is missing (modes turn this into their
    own unavailability)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt from the reason, so it crosses process boundaries (xdist, multiprocessing).
        return (type(self), (self.reason,))


def _checked_folder(configured: str | None) -> Path:
    """The configured cross-encoder folder, or CrossEncoderUnavailable saying what is wrong."""
    if configured is None:
        raise CrossEncoderUnavailable(
            "no cross-encoder is configured (set --legalbench-cross-encoder or --cross-encoder "
            "to a local model folder); none ships with the project and none can be downloaded "
            "offline")
    folder = Path(configured).expanduser()
    if not folder.is_dir():
        raise CrossEncoderUnavailable(f"cross-encoder {configured!r} is not a local folder; "
                                      f"cross-encoders are loaded by path, never downloaded")
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CrossEncoderUnavailable(f"cross-encoder {folder}: unreadable config.json "
                                      f"({error})") from None
    architectures = config.get("architectures") if isinstance(config, dict) else None
    if not any("SequenceClassification" in str(a) for a in architectures or ()):
        # A bare encoder would load with a random scoring head and rank at random.
        raise CrossEncoderUnavailable(f"cross-encoder {folder}: config.json names no "
                                      f"sequence-classification head, so it is not a "
                                      f"cross-encoder")
    return folder.resolve()


class Reranker:
    """Scores (question, text) pairs with one cross-encoder."""

    def __init__(self, folder: Path, model: Any) -> None:
        self.folder = folder
        self._model = model

    @classmethod
    def load(cls, configured: str | None) -> Reranker:
        """Load the configured cross-encoder (once per process), or raise
        CrossEncoderUnavailable."""
        folder = _checked_folder(configured)
        try:
            return cls(folder, load_model("cross", folder))
        except ModelLoadError as error:
            raise CrossEncoderUnavailable(str(error)) from error

    @property
    def max_tokens(self) -> int:
        """The pair length the cross-encoder reads; it reads only the start of longer pairs."""
        return int(self._model.max_seq_length)

    def scores(self, question: str, texts: Sequence[str]) -> list[float]:
        """One relevance score per text, rounded to the fixed precision."""
        if not texts:
            return []
        raw = self._model.predict([(question, text) for text in texts],
                                  batch_size=_BATCH_SIZE, show_progress_bar=False,
                                  convert_to_numpy=True)
        return [round(float(value), SCORE_PRECISION) for value in raw]

    def over_length(self, question: str, texts: Sequence[str]) -> int:
        """How many (question, text) pairs are longer than the cross-encoder reads."""
        tokenizer = self._model.tokenizer
        asked = len(tokenizer(question, add_special_tokens=False, verbose=False)["input_ids"])
        specials = int(tokenizer.num_special_tokens_to_add(pair=True))
        return sum(asked + specials + len(tokenizer(text, add_special_tokens=False,
                                                     verbose=False)["input_ids"])
                   > self.max_tokens for text in texts)
