"""The torch-bf16 embedding backend: the same loaded model with bfloat16 matrix products,
vectors within rounding of float32's and cached under their own key; and the token-budget
batches, which leave a text's vector the same whatever it is batched with."""

from __future__ import annotations

import numpy as np
import pytest

from pytest_legalbench.vectors import models
from pytest_legalbench.vectors.embedding import Embedder, packaged_model_path

TEXTS = ["The Territory means the United States and Canada.",
         "Licensee shall pay the royalties within thirty (30) days after each quarter.",
         "This Agreement is governed by the laws of the State of Delaware.",
         " ".join(f"Clause {n}: the Supplier shall deliver lot {n} to the warehouse."
                  for n in range(60))]


def test_bf16_vectors_agree_with_float32_and_are_keyed_apart() -> None:
    folder = packaged_model_path()
    full = Embedder(folder).embed(TEXTS)
    half = Embedder(folder, "torch-bf16").embed(TEXTS)
    assert Embedder(folder, "torch-bf16").digest != Embedder(folder).digest
    assert half.windowed == full.windowed == 1
    assert half.vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(half.vectors, axis=1), 1.0, atol=1e-5)
    cosines = (full.vectors * half.vectors).sum(axis=1)
    assert cosines.min() > 0.999, cosines
    assert not np.array_equal(full.vectors, half.vectors)  # the products really ran in bf16
    # One model in memory serves both precisions.
    assert models.loaded_folders().count(folder) == 1


@pytest.mark.parametrize("backend", ["torch", "torch-bf16"])
def test_a_texts_vector_does_not_depend_on_its_batch(backend: str) -> None:
    embedder = Embedder(packaged_model_path(), backend)
    together = embedder.embed(TEXTS).vectors
    alone = np.stack([embedder.embed([text]).vectors[0] for text in TEXTS])
    assert np.allclose(together, alone, atol=2e-3 if backend == "torch-bf16" else 1e-5)
