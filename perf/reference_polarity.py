"""When may the reference backend's extractive answer open with "Yes"? The polarity rule of
``reference_backend.polarity`` measured on CUAD's yes/no questions, decided on the tuning
families and reported on the test families.

Run: ``.venv/bin/python perf/reference_polarity.py [--per-split 600] [--out FILE]`` (corpus
from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus; the cuad question set is generated into
the cache on first use). Writes ``perf/output/reference_polarity.json``.

For each sampled yes/no question of the generated cuad set, the extractive answerer reads the
question's family as inject would (every document whole) and ranks its passages. The question
is *present* (CUAD's annotators found the clause: the right answer is Yes) or a *control*
(they found none: a Yes is false). For each candidate rule the script counts how often it says
Yes on present questions (the true-yes rate) and on controls (the false-yes rate), and picks on
the tuning split the rule with the largest difference between the two (Youden's J; at equal
J, the one whose Yes is right more often). Families
are split by filer (``spans.splits.hashed_split``); the filers whose answers were read while
the rule was written are pinned to the tuning split. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from measuring import OUTPUT, commit, corpus_dir, machine_load

from pytest_legalbench.files.locations import default_cache_dir
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.questions import Question, load_question
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.inject_context import inject_context
from pytest_legalbench.reference_backend.answering import passages, rank
from pytest_legalbench.reference_backend.polarity import affirms, asks_yes_or_no
from pytest_legalbench.reference_backend.prompt_parts import find_documents
from pytest_legalbench.spans.cuad_categories import CATEGORIES
from pytest_legalbench.spans.cuad_question_set import cuad_question_set
from pytest_legalbench.spans.cuad_questions import CatalogueEntry, read_catalogue
from pytest_legalbench.spans.splits import SPLITS, family_of, hashed_split
from pytest_legalbench.stats.stratified_sample import stratified_sample

#: Filers whose answers were read while the rule was written (a first cuad run): tuning only.
PINNED = frozenset({"abilityinc", "atmosenergycorp", "healthgatedatacorp",
                    "hyperionsoftwarecorp", "senmiaotechnologyltd", "watchitmediainc"})
#: The candidate rules: no polarity; Yes whenever passages pass the ranking; Yes unless a
#: passage denies an asked word; and that, with passages holding a least share of the
#: question's predicate terms.
RULES: dict[str, dict[str, Any]] = {
    "never": {}, "always": {},
    **{f"negation+share>={share:g}": {"least_share": share}
       for share in (0.0, 0.2, 0.25, 0.34, 0.5)},
}
YES_NO = {category.column for category in CATEGORIES if category.answer == "yes_no"}


def split_of(entry: CatalogueEntry) -> str:
    """The entry's split by its filer; pinned filers are tuning."""
    filer = family_of(entry.family)
    return "tune" if filer in PINNED else hashed_split(filer)


def says_yes(rule: str, question: str, chosen: Sequence[str]) -> bool:
    """Whether ``rule`` opens the answer made of ``chosen`` with Yes."""
    if rule == "never" or not chosen:
        return False
    if rule == "always":
        return asks_yes_or_no(question)
    return affirms(question, chosen, **RULES[rule])


def chosen_passages(question: Question, documents: dict[str, Document]) -> list[str]:
    """The passages the extractive answerer picks over the question's documents, whole."""
    context = inject_context([documents[doc] for doc in question.documents], 10**9)
    prompt = f"{context.instructions}\n{context.corpus}"
    titles = {d.doc_id: d.title for d in find_documents(prompt)}
    return [p.text for p in rank(question.question, list(passages(prompt)), titles)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-split", type=int, default=600,
                        help="present questions, and as many controls, sampled per split "
                             "(default: %(default)s)")
    parser.add_argument("--out", type=Path, default=OUTPUT / "reference_polarity.json")
    args = parser.parse_args()
    corpus = corpus_dir()
    load_before = machine_load()
    found = cuad_question_set(corpus, default_cache_dir())
    entries = [e for e in read_catalogue(found.folder) if e.category in YES_NO]
    documents = {d.doc_id: d for d in load_documents(
        Selection(profile="cuad"), corpus_dir=corpus, cache_dir=default_cache_dir())}
    started = time.monotonic()
    outcomes: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    for split in SPLITS:
        members = [e for e in entries if split_of(e) == split]
        # As many present questions as controls: the set holds far more controls.
        picked = {question_id for control in (False, True)
                  for question_id in stratified_sample(
                      [e.sample_unit() for e in members if e.control == control],
                      args.per_split)}
        for entry in (e for e in members if e.id in picked):
            question = load_question(found.folder / f"{entry.id}.yaml")
            chosen = chosen_passages(question, documents)
            outcomes[split].append({
                "id": entry.id, "control": entry.control, "found_passages": bool(chosen),
                "yes": {rule: says_yes(rule, question.question, chosen) for rule in RULES}})
    seconds = time.monotonic() - started

    def score(split: str, rule: str) -> tuple[float, float]:
        """Youden's J, then the Yes's precision, unrounded: what the choice ranks by."""
        row = table[split][rule]
        tpr = row["true_yes"] / row["present"] if row["present"] else 0.0
        fpr = row["false_yes"] / row["controls"] if row["controls"] else 0.0
        return tpr - fpr, row["yes_precision"] or 0.0

    def rates(split: str, rule: str) -> dict[str, Any]:
        found_here = outcomes[split]
        present = [o for o in found_here if not o["control"]]
        controls = [o for o in found_here if o["control"]]
        true_yes = sum(o["yes"][rule] for o in present)
        false_yes = sum(o["yes"][rule] for o in controls)
        tpr = true_yes / len(present) if present else 0.0
        fpr = false_yes / len(controls) if controls else 0.0
        return {"present": len(present), "controls": len(controls), "true_yes": true_yes,
                "false_yes": false_yes, "true_yes_rate": round(tpr, 4),
                "false_yes_rate": round(fpr, 4), "youden_j": round(tpr - fpr, 4),
                "yes_precision": (round(true_yes / (true_yes + false_yes), 4)
                                  if true_yes + false_yes else None)}

    table = {split: {rule: rates(split, rule) for rule in RULES} for split in SPLITS}
    candidates = [rule for rule in RULES if rule != "never"]
    chosen_rule = max(candidates, key=lambda rule: score("tune", rule))
    result = {
        "commit": commit(), "machine_load_before": load_before,
        "machine_load_after": machine_load(), "question_set": found.digest,
        "seconds": round(seconds, 1), "per_split": args.per_split,
        "pinned_filers": sorted(PINNED), "rules": list(RULES),
        "chosen_on_tune": chosen_rule, "reported_on_test": table["test"][chosen_rule],
        "by_split": table,
        "passages_found": {split: sum(o["found_passages"] for o in outcomes[split])
                           for split in SPLITS},
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for split in SPLITS:
        for rule in RULES:
            row = table[split][rule]
            print(f"{split:5} {rule:24} true yes {row['true_yes']:>4}/{row['present']:<4} "
                  f"false yes {row['false_yes']:>4}/{row['controls']:<4} J {row['youden_j']:+.3f}")
    print(f"chosen on tune: {chosen_rule}; on test: {table['test'][chosen_rule]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
