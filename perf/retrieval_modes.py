"""Payload size, footprint reduction and query latency of every retrieval mode on a profile.

Run: ``.venv/bin/python perf/retrieval_modes.py [--profile transactions] [--cache DIR]
[--cross-encoder DIR] [--json OUT]`` (corpus from $LEGALBENCH_CORPUS_DIR, else
../shared/corpus). Reported: the index build time, the node and chunk embedding build times
(cold, into an empty cache, then warm, from it), and for each mode the mean payload tokens
over a fixed list of questions about the ``transactions`` documents, the footprint reduction
against inject's payload (inject tokens / mode tokens), and the mean and worst query latency.
Model-calling modes (navindex, navembed:titles) run against the embedded reference backend.
A measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from measuring import corpus_dir

from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.llm.client import ClientConfig, ModelClient
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings, ModeUnavailable
from pytest_legalbench.modes.names import mode_names
from pytest_legalbench.modes.registry import build_mode
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.reference_backend import ReferenceBackend

#: Questions written for the transactions profile (credit agreement, unit purchase,
#: distributor agreement and content licence, each with its amendments).
QUESTIONS = (
    "What Territory does the NETGEAR distributor agreement cover after Amendment #2?",
    "What commitment fee does the Borrower pay on the unused revolving commitments?",
    "When is the maturity date of the Stone Point revolving credit facility?",
    "What royalty does Sorrent pay Fox under the wireless content license?",
    "How long is the term of the Fox wireless content license as amended?",
    "What is the purchase price per unit in the Guerrilla RF unit purchase agreement?",
    "Which state's law governs the unit purchase agreement?",
    "How may either party terminate the distributor agreement?",
)


def _timed_build(spec: str, corpus: Corpus, settings: ModeSettings,
                 client: ModelClient) -> tuple[Mode | str, float]:
    started = time.perf_counter()
    try:
        mode = build_mode(spec, corpus, settings, client)
    except ModeUnavailable as error:
        return f"unavailable: {error.reason}", time.perf_counter() - started
    return mode, time.perf_counter() - started


def _measure(mode: Mode) -> dict[str, Any]:
    payloads, latencies, provisions = [], [], []
    notes: tuple[str, ...] = ()
    for number, question in enumerate(QUESTIONS, start=1):
        started = time.perf_counter()
        result = mode.retrieve(question, question_id=f"perf-{number}")
        latencies.append(time.perf_counter() - started)
        payloads.append(result.payload_tokens)
        provisions.append(len(result.provisions))
        notes = result.notes
    return {"payload_tokens_mean": statistics.fmean(payloads),
            "payload_tokens_max": max(payloads),
            "provisions_mean": statistics.fmean(provisions),
            "latency_s_mean": statistics.fmean(latencies), "latency_s_max": max(latencies),
            "notes": list(notes)}


def main() -> None:
    """Measure every mode and print a table (and JSON when asked)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="transactions")
    parser.add_argument("--cache", type=Path, default=None,
                        help="cache folder; default: a fresh temporary one (cold build)")
    parser.add_argument("--cross-encoder", default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    cache = args.cache or Path(tempfile.mkdtemp(prefix="legalbench-perf-"))

    documents = load_documents(Selection(profile=args.profile), corpus_dir=corpus_dir(),
                               cache_dir=cache)
    started = time.perf_counter()
    indexes = build_indexes(documents, cache_dir=None)
    index_build_s = time.perf_counter() - started
    corpus = Corpus(documents, indexes, cache)
    settings = ModeSettings(cross_encoder=args.cross_encoder)
    report: dict[str, Any] = {"profile": args.profile, "documents": len(documents),
                              "questions": len(QUESTIONS), "index_build_s": index_build_s,
                              "modes": {}}
    with ReferenceBackend() as backend, ModelClient(
            ClientConfig(base_url=backend.base_url), Ledger()) as client:
        for spec in mode_names():
            mode, build_s = _timed_build(spec, corpus, settings, client)
            entry: dict[str, Any] = {"build_s": build_s}
            if isinstance(mode, str):
                entry["status"] = mode
            else:
                # A second build reads every vector from the cache: the warm start.
                _, entry["warm_build_s"] = _timed_build(spec, corpus, settings, client)
                entry.update(_measure(mode))
            report["modes"][spec] = entry
            print(f"{spec:22} {json.dumps(entry, default=str)[:300]}", flush=True)
    inject = report["modes"].get("inject", {}).get("payload_tokens_mean")
    print(f"\nindex build {index_build_s:.1f} s; inject payload {inject} tokens")
    print(f"{'mode':22} {'payload':>9} {'reduction':>9} {'latency':>9} {'worst':>8} "
          f"{'build':>8} {'warm':>7}")
    for spec, entry in report["modes"].items():
        if "payload_tokens_mean" not in entry:
            print(f"{spec:22} {entry['status']}")
            continue
        payload = entry["payload_tokens_mean"]
        entry["reduction_vs_inject"] = inject / payload if inject and payload else None
        reduction = entry["reduction_vs_inject"]
        print(f"{spec:22} {payload:9.0f} "
              f"{(f'{reduction:.1f}x' if reduction else '-'):>9} "
              f"{entry['latency_s_mean']:8.3f}s {entry['latency_s_max']:7.3f}s "
              f"{entry['build_s']:7.1f}s {entry.get('warm_build_s', 0.0):6.1f}s")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
