"""A sentence-transformers model's encoder exported once to ONNX with int8 matrix products.

Only the transformer is exported; tokenising, pooling and normalising stay in Python
(``vectors.sentence_engines``), read from the model folder's own configuration. The int8
recipe quantises the weights of matrix products only, per output channel: quantising the
embedding lookups as well moved MiniLM's vectors to a mean cosine of 0.95 against the torch
model on contract text, this recipe keeps 0.99 (``perf/embedding_speed.py`` measures it).

Exporting needs torch and the ``onnx`` package (and takes seconds); it happens the first time
a cache folder is asked for the model, under a build lock, and is written atomically, so
concurrent processes export once and every later run reads the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_legalbench.files.atomic_write import write_bytes_atomic
from pytest_legalbench.files.build_lock import build_lock, lock_file

#: What the export does, as part of the file's name and of every vector cache key: another
#: recipe gives other vectors.
RECIPE = "onnx-opset17;int8-weights;matmul-only;per-channel;mean-pooling"
#: The encoder's inputs, in the order the exported graph takes them.
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")


class OnnxUnavailable(RuntimeError):
    """The ONNX backend cannot run here; the message says what to install or fix."""


def recipe_digest(model_digest: str) -> str:
    """The content key of an exported model: the source model's digest and the recipe."""
    return hashlib.sha256(f"{model_digest}\0{RECIPE}".encode()).hexdigest()[:16]


def exported_path(cache_dir: Path, model_digest: str) -> Path:
    """Where the int8 export of the model with ``model_digest`` lives in a cache folder."""
    return cache_dir / "models" / model_digest / f"onnx-int8-{recipe_digest(model_digest)}.onnx"


def ensure_exported(folder: Path, model_digest: str, cache_dir: Path) -> Path:
    """The int8 ONNX export of the model in ``folder``, made now if the cache lacks it."""
    target = exported_path(cache_dir, model_digest)
    if target.is_file():
        return target
    with build_lock(lock_file(cache_dir, f"onnx-{recipe_digest(model_digest)}"),
                    f"the ONNX export of {folder}"):
        if not target.is_file():  # another process may have exported it while we waited
            write_bytes_atomic(target, _export_int8(folder))
    return target


def _export_int8(folder: Path) -> bytes:
    """The int8 ONNX bytes of the transformer of the sentence model in ``folder``."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as error:
        raise OnnxUnavailable(f"exporting to ONNX needs torch, onnx and onnxruntime ({error}); "
                              f"pip install 'pytest-legalbench[onnx]'") from error
    with tempfile.TemporaryDirectory(prefix="legalbench-onnx-") as scratch, \
            warnings.catch_warnings(), _quiet("root"):
        # The quantiser suggests a pre-processing pass, which a finished export does not need.
        warnings.simplefilter("ignore")
        plain, quantised = Path(scratch) / "plain.onnx", Path(scratch) / "int8.onnx"
        export_float32(folder, plain)
        quantize_dynamic(str(plain), str(quantised), weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul"], per_channel=True)
        return quantised.read_bytes()


def export_float32(folder: Path, target: Path) -> None:
    """Write the float32 ONNX graph of the transformer of the sentence model in ``folder``
    to ``target`` (the int8 export's first step; the perf scripts time it as it is)."""
    try:
        import torch
    except ImportError as error:
        raise OnnxUnavailable(f"exporting to ONNX needs torch and onnx ({error}); "
                              f"pip install 'pytest-legalbench[onnx]'") from error
    from pytest_legalbench.vectors.models import load_model

    sentence: Any = load_model("sentence", folder)
    encoder = _keyword_encoder(sentence[0].auto_model.eval())
    sample = sentence.tokenizer(["a clause", "the second clause of a contract"], padding=True,
                                return_tensors="pt")
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUT_NAMES, "last_hidden_state")}
    with warnings.catch_warnings(), _quiet("root"), torch.no_grad():
        # The exporter warns about operators it rewrites; the export is still exact.
        warnings.simplefilter("ignore")
        # The TorchScript exporter: it needs no onnxscript and handles BERT-like encoders.
        torch.onnx.export(encoder, tuple(sample[name] for name in INPUT_NAMES), str(target),
                          input_names=list(INPUT_NAMES), output_names=["last_hidden_state"],
                          dynamic_axes=axes, opset_version=17, dynamo=False)


@contextlib.contextmanager
def _quiet(logger: str) -> Iterator[None]:
    """Warnings of the named logger held back while the block runs."""
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def pooling_mode(folder: Path) -> str:
    """How the model pools token vectors ('mean' or 'cls'), from its Pooling module's
    configuration; anything else cannot run on the ONNX backend."""
    modules = _json(folder / "modules.json")
    pooling = next((m for m in modules if isinstance(m, dict)
                    and str(m.get("type", "")).endswith(".Pooling")), None) \
        if isinstance(modules, list) else None
    if pooling is None:
        raise OnnxUnavailable(f"{folder}: modules.json names no Pooling module")
    config = _json(folder / str(pooling.get("path", "")) / "config.json")
    modes = [key for key, value in (config.items() if isinstance(config, dict) else ())
             if key.startswith("pooling_mode_") and value is True]
    if modes == ["pooling_mode_mean_tokens"]:
        return "mean"
    if modes == ["pooling_mode_cls_token"]:
        return "cls"
    raise OnnxUnavailable(f"{folder}: pooling {modes or 'unstated'} is not supported by the "
                          f"ONNX backend (mean or CLS pooling only)")


def _json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise OnnxUnavailable(f"{path}: cannot read it ({error})") from error


def _keyword_encoder(model: Any) -> Any:
    """A torch module calling ``model`` by keyword and returning its token vectors: the
    exporter passes inputs by position, which transformers' forward does not take."""
    import torch

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    return Encoder()
