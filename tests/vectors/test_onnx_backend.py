"""The onnx-int8 embedding backend: the packaged MiniLM exported once into the cache, giving
vectors close to the torch model's, cached apart from them; models it cannot run are named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pytest_legalbench.vectors import onnx_export
from pytest_legalbench.vectors.embedding import Embedder, EmbeddingModelError, packaged_model_path
from pytest_legalbench.vectors.onnx_export import OnnxUnavailable, exported_path, pooling_mode

TEXTS = ["The Territory means the United States and Canada.",
         ("Licensee shall pay the royalties within thirty (30) days after the end of each "
          "calendar quarter."),
         "This Agreement is governed by the laws of the State of Delaware.",
         # Well over the model's 256 tokens: embedded in windows and pooled.
         " ".join(f"Clause {n}: the Supplier shall deliver lot {n} to the warehouse."
                  for n in range(60))]


@pytest.fixture(scope="module")
def export_cache(shared_cache: Path) -> Path:
    """The test run's shared cache: the model is exported into it once, whoever asks first."""
    return shared_cache


def test_int8_vectors_agree_with_the_torch_model(export_cache: Path) -> None:
    torch_vectors = Embedder(packaged_model_path()).embed(TEXTS)
    onnx = Embedder(packaged_model_path(), "onnx-int8", export_cache)
    onnx_vectors = onnx.embed(TEXTS)
    assert onnx_vectors.windowed == torch_vectors.windowed == 1
    assert np.allclose(np.linalg.norm(onnx_vectors.vectors, axis=1), 1.0, atol=1e-5)
    cosines = (torch_vectors.vectors * onnx_vectors.vectors).sum(axis=1)
    assert cosines.min() > 0.95, cosines
    # Each text is still nearest to its own torch vector.
    similarity = onnx_vectors.vectors @ torch_vectors.vectors.T
    assert list(similarity.argmax(axis=1)) == list(range(len(TEXTS)))


def test_the_export_is_written_once_and_keyed_apart_from_torch_vectors(
        export_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = packaged_model_path()
    torch_digest = Embedder(folder).digest
    onnx = Embedder(folder, "onnx-int8", export_cache)
    assert onnx.digest != torch_digest
    Embedder(folder, "onnx-int8", export_cache).embed(TEXTS[:1])
    assert exported_path(export_cache, torch_digest).is_file()

    def no_second_export(_: Path) -> bytes:
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_export, "_export_int8", no_second_export)
    again = Embedder(folder, "onnx-int8", export_cache).embed(TEXTS[:2])
    assert again.vectors.shape == (2, 384)


def _model_folder(tmp_path: Path, pooling: dict[str, bool]) -> Path:
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling",
         "type": "sentence_transformers.models.Pooling"}]), encoding="utf-8")
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling), encoding="utf-8")
    return tmp_path


def test_pooling_is_read_from_the_model_folder(tmp_path: Path) -> None:
    assert pooling_mode(packaged_model_path()) == "mean"
    assert pooling_mode(_model_folder(tmp_path, {"pooling_mode_cls_token": True,
                                                 "pooling_mode_mean_tokens": False})) == "cls"


def test_a_model_the_backend_cannot_pool_is_named(tmp_path: Path) -> None:
    folder = _model_folder(tmp_path, {"pooling_mode_max_tokens": True})
    with pytest.raises(OnnxUnavailable, match="pooling_mode_max_tokens.*not supported"):
        pooling_mode(folder)
    with pytest.raises(EmbeddingModelError, match=str(folder)):
        Embedder(folder, "onnx-int8", tmp_path).embed(["a clause"])


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(EmbeddingModelError, match="choose one of torch, torch-bf16, onnx-int8"):
        Embedder(packaged_model_path(), "tensorflow")
