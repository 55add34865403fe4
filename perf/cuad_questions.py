"""Generate the cuad question profile from the corpus mirror and report what it holds.

Run: ``.venv/bin/python perf/cuad_questions.py [--out perf/output/cuad_questions.json]``
(corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus). The set is generated twice in this
process, to check that the same inputs give byte-identical files; then written to a scratch
folder, read back with the question loader and the run's preflight checks (every file valid,
every evidence quote found in its document), and sampled with ``--legalbench-sample``'s rule at
300 questions, twice. The output holds the generation report (counts per category, every
excerpt located or reported, every question not generated with its reason), the timings and
the checks, and the targets: at least 500 questions, every excerpt located or reported. A
measurement, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from measuring import OUTPUT, commit, corpus_dir, machine_load, peak_rss_mb

from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.run.preflight import check_evidence, check_question_files
from pytest_legalbench.spans.cuad_questions import generate_cuad_questions, write_question_set
from pytest_legalbench.stats.stratified_sample import stratified_sample

SAMPLE = 300


def main() -> int:
    """Generate, check, sample; write the JSON and print the summary lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUTPUT / "cuad_questions.json")
    args = parser.parse_args()
    corpus = corpus_dir()
    load_before = machine_load()
    started = time.perf_counter()
    first = generate_cuad_questions(corpus)
    first_seconds = time.perf_counter() - started
    started = time.perf_counter()
    second = generate_cuad_questions(corpus)
    second_seconds = time.perf_counter() - started
    report = first.report
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "cuad"
        write_question_set(first, folder)
        started = time.perf_counter()
        checked = check_question_files(folder)
        load_seconds = time.perf_counter() - started
        documents = load_documents(Selection("cuad"), corpus_dir=corpus,
                                   cache_dir=Path(scratch) / "cache")
        evidence_problems = check_evidence(checked.questions,
                                           {d.doc_id: d.text for d in documents})
    units = [entry.sample_unit() for entry in first.catalogue]
    sample = stratified_sample(units, SAMPLE)
    by_id = {entry.id: entry for entry in first.catalogue}
    chosen = [by_id[question_id] for question_id in sample]
    per_category = Counter(entry.category for entry in chosen)
    result = {
        "commit": commit(), "machine_load_before": load_before,
        "machine_load_after": machine_load(), "peak_rss_mb": peak_rss_mb(),
        "corpus": str(corpus),
        "seconds_generate": round(first_seconds, 1),
        "seconds_generate_again": round(second_seconds, 1),
        "deterministic": first.files == second.files and first.digest == second.digest,
        "digest": first.digest,
        "targets": {
            "at_least_500_questions": report.questions >= 500,
            "every_excerpt_located_or_reported":
                report.excerpts == report.located + len(report.unlocated),
        },
        "loaded": {"questions": len(checked.questions), "file_problems": len(checked.problems),
                   "evidence_problems": len(evidence_problems),
                   "seconds_to_load_and_validate": round(load_seconds, 1)},
        "sample": {
            "n": SAMPLE, "same_when_drawn_again": stratified_sample(units, SAMPLE) == sample,
            "controls": sum(entry.control for entry in chosen),
            "controls_in_set_share": round(report.controls / report.questions, 4),
            "families": len({entry.family for entry in chosen}),
            "categories": len(per_category),
            "per_category_min_max": [min(per_category.values()), max(per_category.values())],
        },
        "report": to_builtins(report),
    }
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    for line in report.summary_lines():
        print(line)
    print(f"generated in {first_seconds:.1f} s and again in {second_seconds:.1f} s; identical: "
          f"{result['deterministic']}; loaded {len(checked.questions)} with "
          f"{len(checked.problems)} file problems and {len(evidence_problems)} evidence problems",
          file=sys.stderr)
    print(f"sample of {SAMPLE}: {result['sample']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
