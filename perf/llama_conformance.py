"""The full conformance run against a real Messages-API server: llama.cpp's, with
SmolLM2-135M-Instruct from its wheel (``conformance/``).

1. Build (or reuse) the server; the cold build's time is the stamp's, the warm one is timed.
2. Start it on loopback (random port, ``--jinja``, 8,192 tokens, one slot) with the model's
   own chat template, which has no tool use (the kind ``llama.cpp-no-tools``).
3. Probe the wire directly (``conformance/wire_probes.py``): what it accepts and reports.
4. ``legalbench ask`` under inject, navembed and navindex over the tiny deal.
5. ``pytest benchmarks`` over three of the tiny deal's questions under navembed and navindex,
   each paired with inject and judged.
6. GANDR's pass: ``gandr`` (Drafter, claim audit, rubric, Critic) and ``gandr:b1`` on one
   question, one repeat, graded by the correctness judge, under ``GANDR_LIMITS``.
7. The same server with ``conformance/chatml_tools.jinja``, a chat template with tool use (the
   kind ``llama.cpp``): the tool probes (``conformance/tool_probes.py``) and one question under
   navembed paired with inject and judged, structured output by forced tool use.

Every ``pytest benchmarks`` run has ``--disable-recording`` (nothing under ``cassettes/`` is
read or written; checked). Writes ``perf/output/llama_conformance.json`` and ``.md``. Numbers
are printed, never asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from conformance.llama_build import ensure_server
from conformance.llama_server import LlamaServer, prepared
from conformance.suite_runs import GANDR_LIMITS, ask, bench
from conformance.tool_probes import run_tool_probes
from conformance.wire_probes import run_probes

OUTPUT = REPO / "perf" / "output"
BENCH_QUESTIONS = "tiny-amended-price or tiny-late-interest or tiny-exclusivity"
ONE_QUESTION = "tiny-amended-price"


def _probe_table(found: list[dict[str, Any]]) -> list[str]:
    out = ["| probe | sent | status | observed |", "| --- | --- | --- | --- |"]
    for probe in found:
        observed = json.dumps(probe["observed"], ensure_ascii=False)
        out.append(f"| {probe['probe']} | {probe['sent']} | {probe['status']} | "
                   f"{observed[:700].replace('|', '/')} |")
    return out


def _bench_lines(title: str, run: dict[str, Any]) -> list[str]:
    errors = ["", "Errors:", "", "```", *run["errors"], "```"] if run.get("errors") else []
    return ["", f"## {title}", "", (f"exit {run['exit']}, {run['seconds']} s, cassettes "
            f"unchanged: {run['cassettes_unchanged']}"), "", "```",
            *(run["summary"] or run["tail"]), "```", *errors]


def _gandr_lines(run: dict[str, Any]) -> list[str]:
    out = ["", ("Every call of each repeat (raw output: what the model wrote where a "
                "structured output did not conform, cut to 120 characters):"), "",
           "| system | stage | valid | output tokens | s | raw output |",
           "| --- | --- | --- | --- | --- | --- |"]
    for repeat in run["gandr"]:
        for call in repeat["calls"]:
            raw = (call["raw_output"] or "")[:120].replace("\n", " ").replace("|", "/")
            out.append(f"| {repeat['system']} | {call['stage']} | {call['valid']} | "
                       f"{call['output_tokens']} | {call['latency_s']} | {raw} |")
    out += ["", *(f"- {r['system']}: score {r['score']} (judged {r['judged']}), passed "
                  f"{r['passed']}, rounds {r['rounds']}, audit labels {r['audit_labels']}; "
                  f"{r['rationale']}" for r in run["gandr"])]
    return out


def markdown(result: dict[str, Any]) -> str:
    """The run as a short report."""
    build = result["build"]
    out = ["# llama.cpp conformance run", "",
           (f"llama-cpp-python {build['llama_cpp_python']} (vendored llama.cpp), "
           f"{build['model_package']}; cold build {build['build_seconds']:.0f} s, warm "
           f"(stamp reused) {result['warm_seconds']:.2f} s."), "",
           "## Wire probes (the model's own chat template: no tool use)", "",
           *_probe_table(result["probes"]), "", "## legalbench ask", ""]
    for entry in result["asks"]:
        if entry["exit"] != 0:
            out.append(f"- {entry['mode']}: exit {entry['exit']}: {entry['stderr'][-300:]}")
            continue
        stages = ", ".join(f"{c['stage']} (valid {c['valid']})" for c in entry["calls"])
        out.append(f"- {entry['mode']} ({entry['seconds']} s): {stages}; answer: "
                   f"{entry['answer'].strip()[:200]!r}")
    out += _bench_lines("pytest benchmarks", result["bench"])
    out += _bench_lines(f"GANDR (--legalbench-gandr {' '.join(GANDR_LIMITS)}, "
                        f"--legalbench-repeats 1)", result["gandr"])
    out += _gandr_lines(result["gandr"])
    out += ["", "## A chat template with tool use (conformance/chatml_tools.jinja)", "",
            f"Identified as: {result['tools']['identity']}", "",
            *_probe_table(result["tools"]["probes"])]
    out += _bench_lines("pytest benchmarks with the tool-capable template",
                        result["tools"]["bench"])
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run everything and write the output files."""
    from pytest_legalbench.llm.server_identity import resolve_identity

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=OUTPUT)
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite the .md from the .json of an earlier run; run nothing")
    args = parser.parse_args(argv)
    if args.report_only:
        saved = json.loads((args.out / "llama_conformance.json").read_text(encoding="utf-8"))
        (args.out / "llama_conformance.md").write_text(markdown(saved), encoding="utf-8")
        return 0
    settings, build = prepared(args.cache_dir)
    started = time.monotonic()
    ensure_server(args.cache_dir)  # the warm path: the stamp matches, nothing is built
    warm = time.monotonic() - started
    with tempfile.TemporaryDirectory(prefix="llama-conformance-") as scratch:
        folder = Path(scratch)
        with LlamaServer(settings, log=folder / "server.log") as server:
            url = server.base_url
            print(f"server at {url}", flush=True)
            probes = [dataclasses.asdict(f) for f in run_probes(url)]
            asks = [ask(url, mode, folder / "cache")
                    for mode in ("inject", "navembed", "navindex")]
            print("asks done", flush=True)
            benched = bench(url, folder / "cache", folder / "qa",
                            modes=("navembed", "navindex"), selection=BENCH_QUESTIONS)
            print("benchmarks done", flush=True)
            gandr = bench(url, folder / "cache", folder / "gandr",
                          modes=("gandr", "gandr:b1"), selection=ONE_QUESTION,
                          extra=("--legalbench-repeats=1", *(
                              f"--legalbench-gandr={limit}" for limit in GANDR_LIMITS)))
            print("GANDR done", flush=True)
        with LlamaServer(settings.with_tools(), log=folder / "tools.log") as server:
            url = server.base_url
            tools = {"identity": dataclasses.asdict(resolve_identity(url)),
                     "probes": [dataclasses.asdict(f) for f in run_tool_probes(url)],
                     "bench": bench(url, folder / "cache", folder / "tools",
                                    modes=("navembed",), selection=ONE_QUESTION)}
            print("tool-capable template done", flush=True)
    result = {"build": build, "warm_seconds": round(warm, 3), "probes": probes, "asks": asks,
              "bench": benched, "gandr": gandr, "tools": tools}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "llama_conformance.json").write_text(
        json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    report = markdown(result)
    (args.out / "llama_conformance.md").write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
