"""The full conformance run against a real Messages-API server: llama.cpp's, with
SmolLM2-135M-Instruct from its wheel (``conformance/``).

1. Build (or reuse) the server; the cold build's time is the stamp's, the warm one is timed.
2. Start it on loopback (random port, ``--jinja``, 8,192 tokens, one slot).
3. Probe the wire directly (``conformance/wire_probes.py``): what it accepts and reports.
4. ``legalbench ask`` under inject, navembed and navindex over the tiny deal.
5. ``pytest benchmarks`` over three of the tiny deal's questions under navembed and navindex,
   each paired with inject and judged, with ``--disable-recording`` (nothing under
   ``cassettes/`` is read or written; checked).

Writes ``perf/output/llama_conformance.json`` and ``.md``. Numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from conformance.llama_build import ensure_server
from conformance.llama_server import LlamaServer, prepared
from conformance.wire_probes import run_probes

TINY = REPO / "conformance" / "tiny_deal"
OUTPUT = REPO / "perf" / "output"
QUESTION = "What price per tonne does Quillon Foods pay for the Products after the First Amendment?"
BENCH_QUESTIONS = "tiny-amended-price or tiny-late-interest or tiny-exclusivity"


def _environment(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LEGALBENCH_", "ANTHROPIC_", "PYTEST_"))}
    env.update(ANTHROPIC_API_KEY="local", LEGALBENCH_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1")
    return env


def ask(base_url: str, mode: str, cache: Path) -> dict[str, Any]:
    """``legalbench ask --json`` under ``mode``; its report, or the failure's output."""
    command = [str(Path(sys.executable).with_name("legalbench")), "ask", "--json", "-q",
               "--backend", "anthropic", "--base-url", base_url, "--docs", str(TINY),
               "--context-window", "8192", "--mode", mode, QUESTION]
    started = time.monotonic()
    done = subprocess.run(command, env=_environment(cache), capture_output=True, text=True,
                          timeout=900, check=False)
    seconds = round(time.monotonic() - started, 1)
    if done.returncode != 0:
        return {"mode": mode, "exit": done.returncode, "stderr": done.stderr[-3000:],
                "seconds": seconds}
    report: dict[str, Any] = json.loads(done.stdout)
    return {"mode": mode, "exit": 0, "seconds": seconds, "answer": report["answer"],
            "model": report["model"], "server": report.get("server"),
            "provisions": [p.get("node_id") for p in report["provisions"]],
            "calls": [{k: c.get(k) for k in ("stage", "model", "usage", "backend", "server",
                                              "unreported", "valid", "raw_output")}
                      for c in report["calls"]], "total": report["total"]}


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def bench(base_url: str, cache: Path, folder: Path) -> dict[str, Any]:
    """``pytest benchmarks`` over the tiny deal: exit status, summary lines and records."""
    before = _tree_digest(REPO / "cassettes")
    junit = folder / "junit.xml"
    command = [sys.executable, "-m", "pytest", "benchmarks", "-q", "-p", "no:cacheprovider",
               "-p", "no:randomly", "-n", "0", f"--legalbench-docs={TINY}",
               f"--legalbench-questions={TINY / 'questions'}", "--mode=navembed",
               "--mode=navindex", "-k", BENCH_QUESTIONS, "--legalbench-backend=anthropic",
               f"--legalbench-base-url={base_url}", "--legalbench-context-window=8192",
               "--disable-recording", f"--junitxml={junit}"]
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=_environment(cache), capture_output=True,
                          text=True, timeout=1800, check=False)
    seconds = round(time.monotonic() - started, 1)
    lines = done.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line == "legalbench summary"), len(lines))
    records = []
    if junit.is_file():
        for case in ElementTree.parse(junit).iter("testcase"):
            for prop in case.iter("property"):
                if prop.get("name") == "legalbench_record":
                    record = ast.literal_eval(str(prop.get("value")))["record"]
                    records.append({k: record[k] for k in (
                        "question_id", "mode", "verdict", "raw_forward", "raw_reverse",
                        "inject_answer", "mode_answer", "node_ids", "evidence_recall")}
                        | {"judge_raw_outputs": [c.get("raw_output") for c in
                                                 record["judge_calls"] if c.get("raw_output")],
                           "scan_valid": [c["valid"] for c in record["mode_calls"]
                                          if ".scan" in c["stage"]]})
    return {"exit": done.returncode, "seconds": seconds, "command": command[3:],
            "summary": lines[start:], "tail": lines[-3:], "records": records,
            "cassettes_unchanged": _tree_digest(REPO / "cassettes") == before}


def markdown(result: dict[str, Any]) -> str:
    """The run as a short report."""
    build = result["build"]
    out = ["# llama.cpp conformance run", "",
           (f"llama-cpp-python {build['llama_cpp_python']} (vendored llama.cpp), "
           f"{build['model_package']}; cold build {build['build_seconds']:.0f} s, warm "
           f"(stamp reused) {result['warm_seconds']:.2f} s."), "", "## Wire probes", "",
           "| probe | sent | status | observed |", "| --- | --- | --- | --- |"]
    for found in result["probes"]:
        observed = json.dumps(found["observed"], ensure_ascii=False)
        out.append(f"| {found['probe']} | {found['sent']} | {found['status']} | "
                   f"{observed[:400].replace('|', '/')} |")
    out += ["", "## legalbench ask", ""]
    for entry in result["asks"]:
        if entry["exit"] != 0:
            out.append(f"- {entry['mode']}: exit {entry['exit']}: {entry['stderr'][-300:]}")
            continue
        stages = ", ".join(f"{c['stage']} (valid {c['valid']})" for c in entry["calls"])
        out.append(f"- {entry['mode']} ({entry['seconds']} s): {stages}; answer: "
                   f"{entry['answer'].strip()[:200]!r}")
    out += ["", "## pytest benchmarks", "", (f"exit {result['bench']['exit']}, "
            f"{result['bench']['seconds']} s, cassettes unchanged: "
            f"{result['bench']['cassettes_unchanged']}"), "", "```",
            *(result["bench"]["summary"] or result["bench"]["tail"]), "```", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Run everything and write the output files."""
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
            print(f"server at {server.base_url}", flush=True)
            probes = [dataclasses.asdict(f) for f in run_probes(server.base_url)]
            print(f"{len(probes)} probes", flush=True)
            asks = [ask(server.base_url, mode, folder / "cache")
                    for mode in ("inject", "navembed", "navindex")]
            print("asks done", flush=True)
            benched = bench(server.base_url, folder / "cache", folder)
    result = {"build": build, "warm_seconds": round(warm, 3), "probes": probes, "asks": asks,
              "bench": benched}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "llama_conformance.json").write_text(
        json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    report = markdown(result)
    (args.out / "llama_conformance.md").write_text(report, encoding="utf-8")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
