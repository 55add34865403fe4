"""The ways a sentence model runs: on torch as sentence-transformers ships it (in float32, or
with its matrix products in bfloat16), or as an int8 ONNX export on onnxruntime. All tokenise
with the model folder's own tokenizer, take texts that already fit the model's window
(``vectors.embedding`` cuts the windows) and return unit vectors.

Batches are cut by padded tokens from texts sorted by token count
(``vectors.token_batches``), so a short clause never pays for a long one's padding and short
clauses travel in wide batches.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from pytest_legalbench.vectors.models import ModelLoadError, load_model
from pytest_legalbench.vectors.token_batches import token_batches

Vectors = NDArray[np.float32]


class EngineError(RuntimeError):
    """The model cannot be loaded or run; the message names the folder."""


class SentenceEngine(Protocol):
    """Tokenises and encodes texts with one sentence model."""

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Character spans of ``text``'s tokens, special tokens left out."""

    def special_tokens(self) -> int:
        """Tokens the model adds around every text (CLS and SEP for BERT)."""

    def max_seq_length(self) -> int:
        """The model's window in tokens, special tokens included."""

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors of texts that each fit the window."""


class TorchEngine:
    """The model as sentence-transformers runs it; it loads on first use. With ``bfloat16``
    its matrix products run in bfloat16 under torch's CPU autocast (the weights stay float32
    and are shared with float32 users of the same folder)."""

    def __init__(self, folder: Path, *, bfloat16: bool = False) -> None:
        self.folder = folder
        self.bfloat16 = bfloat16

    def _model(self) -> Any:
        try:
            return load_model("sentence", self.folder)
        except ModelLoadError as error:
            raise EngineError(str(error)) from error

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Token spans from the model's tokenizer."""
        # verbose=False: a text longer than the window is expected here (it is about to be
        # cut into windows), so the tokenizer's warning about it would only mislead.
        encoded = self._model().tokenizer(text, add_special_tokens=False,
                                          return_offsets_mapping=True, verbose=False)
        return [(int(a), int(b)) for a, b in encoded["offset_mapping"]]

    def special_tokens(self) -> int:
        """Special tokens the model's tokenizer adds to a single text."""
        return int(self._model().tokenizer.num_special_tokens_to_add(pair=False))

    def max_seq_length(self) -> int:
        """The window sentence-transformers gives the model."""
        return int(self._model().max_seq_length)

    def encode(self, texts: Sequence[str]) -> Vectors:
        """sentence-transformers' encode over token-budget batches, normalised in float32."""
        model = self._model()
        texts = list(texts)
        lengths = [len(ids) for ids in model.tokenizer(
            texts, truncation=True, max_length=model.max_seq_length, verbose=False)["input_ids"]]
        vectors = np.zeros((len(texts), 0), dtype=np.float32)
        with self._precision():
            for batch in token_batches(lengths):
                raw = model.encode([texts[index] for index in batch], batch_size=len(batch),
                                   convert_to_numpy=True, normalize_embeddings=False,
                                   show_progress_bar=False)
                if vectors.shape[1] == 0:
                    vectors = np.zeros((len(texts), raw.shape[1]), dtype=np.float32)
                vectors[batch] = np.asarray(raw, dtype=np.float32)
        return normalised(vectors)

    @contextlib.contextmanager
    def _precision(self) -> Iterator[None]:
        if not self.bfloat16:
            yield
            return
        import torch

        if not _native_bfloat16(torch):
            warnings.warn("this CPU has no native bfloat16 arithmetic: the torch-bf16 "
                          "embedding backend runs emulated and slower than torch", stacklevel=3)
        # One autocast region for the whole call: its cast of each weight is made once and
        # reused by every batch.
        with torch.autocast("cpu", dtype=torch.bfloat16):
            yield


def _native_bfloat16(torch: Any) -> bool:
    """Whether oneDNN runs bfloat16 matrix products natively on this CPU."""
    check = getattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", None)
    return bool(check()) if check is not None else True


def normalised(vectors: Vectors) -> Vectors:
    """``vectors`` with each row scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)


class OnnxEngine:
    """The int8 ONNX export of a model's transformer, with the folder's fast tokenizer and
    its pooling, on onnxruntime with one thread per available core. Loads on first use."""

    def __init__(self, folder: Path, exported: Path, window: int, pooling: str) -> None:
        self.folder = folder
        self.exported = exported
        self.window = window
        self.pooling = pooling
        self._loaded: tuple[Any, Any] | None = None

    def _parts(self) -> tuple[Any, Any]:
        if self._loaded is None:
            try:
                import onnxruntime
                from tokenizers import Tokenizer
            except ImportError as error:
                raise EngineError(f"the onnx-int8 embedding backend needs onnxruntime "
                                  f"({error}); pip install 'pytest-legalbench[onnx]'") from error
            try:
                tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            except Exception as error:  # a missing or unreadable file, named with its path
                raise EngineError(f"{self.folder}: cannot read tokenizer.json for the ONNX "
                                  f"backend: {error}") from error
            tokenizer.no_padding()
            tokenizer.no_truncation()
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = len(os.sched_getaffinity(0))
            options.inter_op_num_threads = 1
            session = onnxruntime.InferenceSession(str(self.exported), options,
                                                   providers=["CPUExecutionProvider"])
            self._loaded = (tokenizer, session)
        return self._loaded

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Token spans from the folder's tokenizer.json."""
        tokenizer, _ = self._parts()
        return [(int(a), int(b)) for a, b in tokenizer.encode(text, add_special_tokens=False)
                .offsets]

    def special_tokens(self) -> int:
        """Special tokens tokenizer.json's post-processor adds to a single text."""
        tokenizer, _ = self._parts()
        return int(tokenizer.num_special_tokens_to_add(False))

    def max_seq_length(self) -> int:
        """The window the folder's sentence-transformers configuration states."""
        return self.window

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Length-sorted batches, each padded to its longest text, pooled and normalised."""
        tokenizer, session = self._parts()
        encoded = tokenizer.encode_batch(list(texts))
        vectors = np.zeros((len(texts), 0), dtype=np.float32)
        for batch in token_batches([min(len(item.ids), self.window) for item in encoded]):
            width = min(max(len(encoded[i].ids) for i in batch), self.window)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            types = np.zeros_like(ids)
            mask = np.zeros_like(ids)
            for row, i in enumerate(batch):
                tokens = encoded[i].ids[:width]
                ids[row, :len(tokens)] = tokens
                types[row, :len(tokens)] = encoded[i].type_ids[:width]
                mask[row, :len(tokens)] = 1
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                        "token_type_ids": types})[0]
            pooled = self._pool(np.asarray(hidden, dtype=np.float32), mask)
            if vectors.shape[1] == 0:
                vectors = np.zeros((len(texts), pooled.shape[1]), dtype=np.float32)
            vectors[batch] = pooled
        return vectors

    def _pool(self, hidden: Vectors, mask: NDArray[np.int64]) -> Vectors:
        if self.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalised(pooled)
