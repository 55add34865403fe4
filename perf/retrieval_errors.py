"""Why retrieval misses evidence: every gold quote a mode does not return, classified.

Run: ``.venv/bin/python perf/retrieval_errors.py [--mode M ...] [--json OUT] [--markdown OUT]``
(corpus from $LEGALBENCH_CORPUS_DIR, else ../shared/corpus; the transactions profile and its
question set). For each mode and question, each quote the retrieved provisions do not hold
(scored as ``legalbench evaluate`` scores it) gets the first class that fits:

- ``wrong transaction set``: nothing was retrieved from the quote's set of instruments (its
  document and those it amends or that amend it);
- ``wrong document``: the set was reached, the quote's document was not, and no link explains
  the miss;
- ``right section, wrong granularity``: a retrieved provision overlaps the quote but does not
  hold it, or holds a neighbour in the same top-level section;
- ``missing definition``: the quote is in a definition whose term a retrieved provision or the
  question uses;
- ``missing amendment or base provision``: the quote's provision amends, or is amended by, a
  retrieved one;
- ``missing cross-referenced clause``: a retrieved provision refers to the quote's provision;
- ``ranked but cut by the budget``: the mode ranked the quote's provision in its first
  ``3 * k`` candidates but did not return it (node-ranking strategies only);
- ``not reached``: none of the above.

A measurement, not a test: the numbers are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.ingest.questions import Evidence, Question, load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.modes.amendments import AmendmentLinks
from pytest_legalbench.modes.base import ModeSettings, Provision, Retrieval
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.navindex.node import DocumentIndex, Node
from pytest_legalbench.plugin.values import resolve_cache_dir
from pytest_legalbench.results.evidence import Span, covered_runs, quote_found, quote_spans
from pytest_legalbench.run.query import query_session

MODES = ("navembed:chunks", "navembed:hybrid", "navembed:embed+xref", "navembed:closure",
         "navindex")
CLASSES = ("wrong transaction set", "wrong document", "right section, wrong granularity",
           "missing definition", "missing amendment or base provision",
           "missing cross-referenced clause", "ranked but cut by the budget", "not reached")


class Corpus:
    """The index facts the classifier reads, built once."""

    def __init__(self, indexes: Sequence[DocumentIndex], texts: Mapping[str, str]) -> None:
        self.texts = texts
        self.nodes = {n.node_id: n for i in indexes for n in i.nodes}
        self.by_doc = {i.doc_id: i for i in indexes}
        self.amendments = AmendmentLinks(indexes)
        family: dict[str, set[str]] = {i.doc_id: {i.doc_id} for i in indexes}
        for index in indexes:
            for base in index.amends:
                if base in family:
                    merged = family[index.doc_id] | family[base]
                    for member in merged:
                        family[member] = merged
        self.family = {doc: frozenset(members) for doc, members in family.items()}

    def home(self, evidence: Evidence) -> list[Node]:
        """The smallest nodes holding each place the quote occurs."""
        index = self.by_doc[evidence.doc_id]
        found = []
        for start, end in quote_spans(evidence, self.texts[evidence.doc_id]):
            holders = [n for n in index.nodes if n.start <= start and end <= n.end
                       and n.kind not in ("document",)]
            if holders:
                found.append(min(holders, key=lambda n: (n.end - n.start, n.node_id)))
        return found

    def lineage(self, node: Node) -> list[str]:
        """The node's id and its ancestors' ids."""
        ids = [node.node_id]
        parent = node.parent
        while parent is not None and parent in self.nodes:
            ids.append(parent)
            parent = self.nodes[parent].parent
        return ids

    def top_section(self, node: Node) -> str:
        """The outermost ancestor below the document root."""
        line = self.lineage(node)
        return line[-2] if len(line) >= 2 else line[-1]


def classify(evidence: Evidence, question: Question, provisions: Sequence[Provision],
             corpus: Corpus, ranked: Sequence[str] | None, k: int) -> str:
    """The class of one missed quote (see the module docstring)."""
    homes = corpus.home(evidence)
    retrieved = [corpus.nodes[p.node_id] for p in provisions if p.node_id in corpus.nodes]
    spans = [(p.doc_id, p.start, p.end) for p in provisions]
    places = quote_spans(evidence, corpus.texts[evidence.doc_id])
    docs = {p.doc_id for p in provisions}
    if not docs & corpus.family[evidence.doc_id]:
        return CLASSES[0]
    if any(d == evidence.doc_id and s < e2 and s2 < e for d, s, e in spans
           for s2, e2 in places):
        return CLASSES[2]
    question_words = question.question.lower()
    used = {t for n in retrieved for t in n.uses_definitions}
    for home in homes:
        line = corpus.lineage(home)
        if home.kind == "definition" and (home.node_id in used or any(
                term.lower() in question_words for term in home.defines)):
            return CLASSES[3]
        # The quote amends a retrieved provision, or a retrieved provision amends it.
        amends_retrieved = {a for r in retrieved for a in corpus.amendments.amending(r)}
        amended_by = set(corpus.amendments.amending(home))
        if amends_retrieved & set(line) or any(amended_by & set(corpus.lineage(r))
                                               for r in retrieved):
            return CLASSES[4]
        cited = {c for r in retrieved for c in _subtree_references(r, corpus)}
        if cited & set(line):
            return CLASSES[5]
    if any(corpus.top_section(h) in {corpus.top_section(r) for r in retrieved
                                     if r.doc_id == h.doc_id} for h in homes):
        return CLASSES[2]
    if ranked is not None:
        window = set(ranked[:3 * k])
        if any(set(corpus.lineage(h)) & window for h in homes):
            return CLASSES[6]
    if evidence.doc_id not in docs:
        return CLASSES[1]
    return CLASSES[7]


def _subtree_references(node: Node, corpus: Corpus) -> Iterable[str]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield from current.cross_references
        stack.extend(corpus.nodes[c] for c in current.children if c in corpus.nodes)


def _ranking(mode: object, question: str) -> list[str] | None:
    """The node-ranking strategies' full candidate order (None for other modes)."""
    order = getattr(mode, "order", None)
    nodes = getattr(mode, "nodes", None)
    router = getattr(mode, "router", None)
    if order is None or nodes is None or router is None:
        return None
    positions, _ = order(question, router.route(question))
    return [nodes[i].node_id for i in positions]


def analyse(modes: Sequence[str], corpus_dir: Path, cache: Path,
            settings: ModeSettings) -> dict[str, object]:
    """Run every mode over the question set and classify each missed quote."""
    documents = load_documents(Selection(profile="transactions"), corpus_dir=corpus_dir,
                               cache_dir=cache)
    indexes = build_indexes(documents, cache_dir=cache)
    texts = {d.doc_id: d.text for d in documents}
    corpus = Corpus(indexes, texts)
    questions = [q for q in load_question_set(question_sets_dir() / "transactions")
                 if q.evidence]
    report: dict[str, object] = {"questions": len(questions),
                                 "quotes": sum(len(q.evidence) for q in questions), "modes": {}}
    for mode_name in modes:
        counts: Counter[str] = Counter()
        misses: list[dict[str, object]] = []
        found = complete = 0
        payloads: list[int] = []
        with query_session(documents, indexes, mode=mode_name, backend="reference",
                           base_url=None, settings=settings, cache_dir=cache) as session:
            for question in questions:
                retrieval: Retrieval = session.mode.retrieve(question.question,
                                                             question_id=question.id)
                payloads.append(retrieval.payload_tokens)
                runs = covered_runs([Span(p.doc_id, p.start, p.end)
                                     for p in retrieval.provisions], texts)
                ranking = _ranking(session.mode, question.question)
                held = 0
                for evidence in question.evidence:
                    if quote_found(evidence, runs):
                        held += 1
                        continue
                    kind = classify(evidence, question, retrieval.provisions, corpus, ranking,
                                    settings.k)
                    counts[kind] += 1
                    misses.append({"question_id": question.id, "doc_id": evidence.doc_id,
                                   "quote": evidence.quote[:80], "class": kind})
                found += held
                complete += held == len(question.evidence)
        report["modes"][mode_name] = {  # type: ignore[index]
            "found": found, "complete": complete, "classes": dict(counts), "misses": misses,
            "payload_mean": round(sum(payloads) / len(payloads), 1),
            "payload_max": max(payloads)}
    return report


def markdown(report: Mapping[str, object]) -> str:
    """The classification as a markdown table, one row per mode."""
    modes: Mapping[str, Mapping[str, object]] = report["modes"]  # type: ignore[assignment]
    header = ("| mode | quotes found | complete | payload mean / max | "
              + " | ".join(CLASSES) + " |")
    lines = [header, "|---" * (4 + len(CLASSES)) + "|"]
    total = report["quotes"]
    for name, entry in modes.items():
        classes: Mapping[str, int] = entry["classes"]  # type: ignore[assignment]
        lines.append(f"| {name} | {entry['found']}/{total} | {entry['complete']}/"
                     f"{report['questions']} | {entry['payload_mean']:,.0f} / "
                     f"{entry['payload_max']:,} | "
                     + " | ".join(str(classes.get(c, 0)) for c in CLASSES) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    """Classify the misses of each mode; print the table, save JSON and markdown if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", action="append", dest="modes")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    corpus_dir = Path(os.environ.get("LEGALBENCH_CORPUS_DIR")
                      or Path(__file__).resolve().parents[2] / "shared" / "corpus")
    cache = resolve_cache_dir(os.environ.get("LEGALBENCH_CACHE_DIR"))
    report = analyse(args.modes or MODES, corpus_dir, cache, ModeSettings())
    table = markdown(report)
    print(table)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
