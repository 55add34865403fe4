"""The fastest this machine runs the embedding model, and the least time all of CUAD's units
would take at that rate.

Run: ``.venv/bin/python perf/embedding_ceiling.py [--json OUT]`` (corpus from
$LEGALBENCH_CORPUS_DIR, else ../shared/corpus). Measured in one run:

- the bare torch forward pass of the packaged MiniLM (no tokenizing, pooling or copying), one
  batch shape at a time, threads = available cores: tokens per second, and the same as
  GFLOP/s from the model's configuration (two FLOPs per multiply-add: the dense layers plus
  attention at that length);
- every CUAD contract's unit texts (what navembed embeds, context lines included) counted in
  the model's own tokens, windows included;
- the lower bound on embedding all of them: tokens over the best bare rate. Real builds also
  tokenize, pad and pool, so they are slower than this bound, never faster;
- the real pipeline (``Embedder.embed_weighted``, as navembed runs it) on the units of every
  40th contract: its rate in the texts' own tokens, and the share of its time spent inside
  the model's forward pass (the rest is tokenizing, windows and pooling).

Both the bare pass and the pipeline are measured in float32 (``torch``) and with bfloat16
matrix products (``torch-bf16``, torch's CPU autocast).

A measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from embedding_speed import cuad_groups

from pytest_legalbench.vectors.embedding import packaged_model_path

#: (batch, tokens) shapes timed; 256 is the packaged model's window.
SHAPES = ((64, 64), (32, 128), (16, 256))
_REPEATS = 4


def flops_per_token(config: dict[str, int], length: int) -> float:
    """FLOPs one token costs in a forward pass of ``length`` tokens: the projections and
    feed-forward layers, plus attention scores and their weighted sum."""
    hidden, inner, layers = (config["hidden_size"], config["intermediate_size"],
                             config["num_hidden_layers"])
    macs = layers * (4 * hidden * hidden + 2 * hidden * inner + 2 * length * hidden)
    return 2.0 * macs


def bare_rates(folder: Path, bfloat16: bool = False) -> list[dict[str, float]]:
    """Tokens per second of the bare forward pass at each of ``SHAPES``."""
    import contextlib

    import torch
    from transformers import AutoModel

    torch.set_num_threads(len(os.sched_getaffinity(0)))
    model = AutoModel.from_pretrained(str(folder)).eval()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    rates = []
    precision = (torch.autocast("cpu", dtype=torch.bfloat16) if bfloat16
                 else contextlib.nullcontext())
    with torch.inference_mode(), precision:
        for batch, length in SHAPES:
            ids = torch.randint(1000, 20000, (batch, length))
            mask = torch.ones_like(ids)
            model(input_ids=ids, attention_mask=mask)  # warm-up
            started = time.perf_counter()
            for _ in range(_REPEATS):
                model(input_ids=ids, attention_mask=mask)
            seconds = (time.perf_counter() - started) / _REPEATS
            tokens_per_s = batch * length / seconds
            rates.append({"batch": batch, "tokens": length,
                          "tokens_per_s": round(tokens_per_s),
                          "gflops": round(tokens_per_s * flops_per_token(config, length) / 1e9,
                                          1)})
    return rates


def cuad_tokens(folder: Path) -> dict[str, int]:
    """All CUAD unit texts in the model's tokens, each window counted as run."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    window = 256
    texts = [piece.own_text for group in cuad_groups(1) for piece in group]
    total = run = 0
    for start in range(0, len(texts), 512):
        for ids in tokenizer(texts[start:start + 512], add_special_tokens=False)["input_ids"]:
            total += len(ids)
            # Windows of the model's length less its two special tokens, as many as needed.
            windows = max(1, -(-len(ids) // (window - 2)))
            run += len(ids) + 2 * windows
    return {"texts": len(texts), "tokens": total, "tokens_run": run}


def pipeline_rate(folder: Path, backend: str, every: int = 40) -> dict[str, float]:
    """The embedding pipeline's rate on the units of every ``every``-th CUAD contract."""
    import torch
    from transformers import AutoTokenizer

    from pytest_legalbench.vectors.embedding import Embedder

    texts = [piece.own_text for group in cuad_groups(every) for piece in group]
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    tokens = sum(len(ids) for ids in tokenizer(texts, add_special_tokens=False,
                                               verbose=False)["input_ids"])
    embedder = Embedder(folder, backend)
    embedder.embed(["a clause"])  # the model loads outside the timed part
    model = embedder.engine()._model()  # type: ignore[attr-defined]
    forward = [0.0]

    def timed(module: object, args: object, kwargs: object, output: object) -> None:
        forward[0] += time.perf_counter() - forward_started[0]

    forward_started = [0.0]
    # The first module of the sentence model runs the transformer on tokenized features.
    transformer = next(iter(model.children()))
    before = transformer.register_forward_pre_hook(
        lambda *_: forward_started.__setitem__(0, time.perf_counter()))
    after = transformer.register_forward_hook(timed, with_kwargs=True)
    started = time.perf_counter()
    embedder.embed_weighted(texts)
    seconds = time.perf_counter() - started
    before.remove()
    after.remove()
    return {"texts": len(texts), "tokens": tokens, "seconds": round(seconds, 1),
            "tokens_per_s": round(tokens / seconds),
            "forward_share": round(forward[0] / seconds, 3), "threads": torch.get_num_threads()}


def main() -> int:
    """Measure, print and optionally save the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    folder = packaged_model_path()
    corpus = cuad_tokens(folder)
    report: dict[str, object] = {"cpus": len(os.sched_getaffinity(0)),
                                 "load_before": os.getloadavg(), "cuad_units": corpus,
                                 "target_minutes": 20,
                                 "rate_needed_for_target_tokens_per_s":
                                     round(corpus["tokens_run"] / 1200)}
    for backend in ("torch", "torch-bf16"):
        rates = bare_rates(folder, bfloat16=backend == "torch-bf16")
        pipeline = pipeline_rate(folder, backend)
        best = max(rate["tokens_per_s"] for rate in rates)
        report[backend] = {
            "bare_forward": rates,
            "cuad_lower_bound_minutes": round(corpus["tokens_run"] / best / 60, 1),
            "pipeline_sample": pipeline,
            "cuad_minutes_at_pipeline_rate": round(
                corpus["tokens"] / pipeline["tokens_per_s"] / 60, 1)}
        print(json.dumps({backend: report[backend]}), flush=True)
    report["load_after"] = os.getloadavg()
    text = json.dumps(report, indent=1)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
