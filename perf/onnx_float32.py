"""Whether a float32 ONNX Runtime graph of the packaged MiniLM runs faster than torch's own
float32 forward pass: the one way left to make the float32 default faster on a CPU.

Run: ``.venv/bin/python perf/onnx_float32.py [--json OUT]``. Measured in one run, each engine
in a process of its own (an onnxruntime session living beside torch in one process slowed
torch's pass 2.5 times on 2 cores, so one process would measure the interference instead):

- torch's float32 forward pass, no tokenizing or pooling, at each of ``SHAPES``, threads =
  available cores (what ``perf/embedding_ceiling.py`` calls the bare pass);
- the same weights exported to a float32 ONNX graph (``vectors.onnx_export.export_float32``,
  the int8 backend's first step) on onnxruntime with every graph optimisation on;
- the largest difference between the two engines' token vectors on one real batch.

A measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from embedding_ceiling import SHAPES

from pytest_legalbench.vectors.embedding import packaged_model_path

#: Seconds each shape is run for, after one untimed call.
SECONDS_PER_SHAPE = 5.0
_TEXTS = ["The Licensee shall pay the royalties within thirty days of the end of each quarter.",
          "This Agreement is governed by the laws of the State of New York.",
          "Either party may terminate this Agreement on ninety days' written notice."]


def _inputs(batch: int, tokens: int) -> dict[str, object]:
    import numpy as np

    ids = np.random.default_rng(0).integers(1000, 20000, size=(batch, tokens)).astype(np.int64)
    return {"input_ids": ids, "attention_mask": np.ones_like(ids),
            "token_type_ids": np.zeros_like(ids)}


def _engine(name: str, exported: Path) -> object:
    """A callable from the three model inputs (numpy) to token vectors (numpy)."""
    threads = len(os.sched_getaffinity(0))
    if name == "torch":
        import torch

        from pytest_legalbench.vectors.models import load_model

        torch.set_num_threads(threads)
        model = load_model("sentence", packaged_model_path())[0].auto_model.eval()

        def run_torch(inputs: dict[str, object]) -> object:
            with torch.inference_mode():
                tensors = {k: torch.from_numpy(v) for k, v in inputs.items()}
                return model(**tensors).last_hidden_state.numpy()
        return run_torch
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = onnxruntime.InferenceSession(str(exported), options,
                                           providers=["CPUExecutionProvider"])
    return lambda inputs: session.run(None, inputs)[0]


def child(name: str, exported: Path, vectors_out: Path) -> None:
    """Time one engine at every shape (printed as JSON) and save its vectors of ``_TEXTS``."""
    import numpy as np
    from tokenizers import Tokenizer

    run = _engine(name, exported)
    rates = []
    for batch, tokens in SHAPES:
        inputs = _inputs(batch, tokens)
        run(inputs)  # type: ignore[operator]
        calls, started = 0, time.perf_counter()
        while time.perf_counter() - started < SECONDS_PER_SHAPE:
            run(inputs)  # type: ignore[operator]
            calls += 1
        rate = batch * tokens * calls / (time.perf_counter() - started)
        rates.append({"batch": batch, "tokens": tokens, "tokens_per_s": round(rate)})
    tokenizer = Tokenizer.from_file(str(packaged_model_path() / "tokenizer.json"))
    tokenizer.enable_padding()
    encoded = tokenizer.encode_batch(_TEXTS)
    real = {"input_ids": np.asarray([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.asarray([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.asarray([e.type_ids for e in encoded], dtype=np.int64)}
    np.save(vectors_out, np.asarray(run(real)))  # type: ignore[operator]
    print(json.dumps(rates))


def main() -> int:
    """Export once, time each engine in its own process, compare their outputs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs=3, metavar=("ENGINE", "EXPORTED", "VECTORS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return 0
    import numpy as np

    from pytest_legalbench.vectors.onnx_export import export_float32

    report: dict[str, object] = {"cpus": len(os.sched_getaffinity(0)),
                                 "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="legalbench-onnx32-") as scratch:
        exported = Path(scratch) / "float32.onnx"
        started = time.perf_counter()
        export_float32(packaged_model_path(), exported)
        report["export_seconds"] = round(time.perf_counter() - started, 1)
        vectors = {}
        rates: dict[str, list[dict[str, int]]] = {}
        for name in ("torch", "onnx-float32"):
            out = Path(scratch) / f"{name}.npy"
            done = subprocess.run([sys.executable, __file__, "--child", name, str(exported),
                                   str(out)], capture_output=True, text=True, check=True)
            rates[name] = report[name] = json.loads(done.stdout.strip().splitlines()[-1])
            vectors[name] = np.load(out)
            print(name, report[name], flush=True)
        report["max_abs_difference"] = float(np.abs(vectors["torch"]
                                                    - vectors["onnx-float32"]).max())
    report["onnx_over_torch"] = [round(o["tokens_per_s"] / t["tokens_per_s"], 2)
                                 for t, o in zip(rates["torch"], rates["onnx-float32"],
                                                 strict=True)]
    report["load_after"] = os.getloadavg()
    print(json.dumps({k: report[k] for k in ("export_seconds", "max_abs_difference",
                                             "onnx_over_torch")}))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
