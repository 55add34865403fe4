"""Retrieval on the tuning and test splits, and every rule of it measured with and without it.

Run: ``.venv/bin/python perf/retrieval_splits.py [--families N] [--rules all|none|NAME ...]
[--modes M ...] [--json OUT] [--markdown OUT]`` (corpus from $LEGALBENCH_CORPUS_DIR, else
../shared/corpus; vectors from the usual cache). What it measures, in one process:

- the CUAD span benchmark (``legalbench cuad-spans``, imported here), split by contract family
  into a tuning and a test split (``spans.splits``; ``legalbench spans --split`` is the same
  rule), every test of N families of each split, spread evenly (fixed): character recall and precision at 4,000
  and 32,000 characters, the wrong-document rate and recall per CUAD category, exactly as
  ``legalbench spans`` scores them, every query searching all 510 contracts;
- the QA sets, evidence recall and complete questions exactly as ``legalbench evaluate`` scores
  them: the visible set (``transactions``), a check that nothing it answered is lost, never the
  target, and the QA tuning set (``edgar2023-tune``: EDGAR exhibits that share no filing with
  the held-out ``edgar2023`` profile, which this script never reads);
- the ablation: each rule of ``RULES`` switched off alone (its constant set to what turns it
  off, undone afterwards), everything else as shipped, on the same tests.

navembed runs on CUAD with the ``torch-bf16`` embedding backend (all of CUAD's unit vectors in
bfloat16 are cached once, ``perf/embedding_speed.py --every 1 --backends torch-bf16
--into-cache``), the QA sets with the default ``torch`` backend, as the benchmark runs them.
navindex plays its scan with the reference backend's navigator (no model). A measurement, not
a test: the numbers are printed and written, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from measuring import OUTPUT, commit, corpus_dir, machine_load

from pytest_legalbench.files.locations import question_sets_dir
from pytest_legalbench.files.record_json import to_builtins
from pytest_legalbench.ingest.document import Document
from pytest_legalbench.ingest.questions import Question, load_question_set
from pytest_legalbench.ingest.selection import Selection, load_documents
from pytest_legalbench.llm.backend import configured_backend
from pytest_legalbench.llm.client import ModelClient
from pytest_legalbench.llm.ledger import Ledger
from pytest_legalbench.modes import (
    budget,
    closure,
    fetch,
    navembed,
    navigator,
    node_ranking,
    routing,
    unit_space,
    units,
)
from pytest_legalbench.modes.base import Corpus, ModeSettings, Provision
from pytest_legalbench.modes.names import parse_mode
from pytest_legalbench.modes.registry import build_mode
from pytest_legalbench.navindex.corpus import build_indexes
from pytest_legalbench.navindex.node import DocumentIndex
from pytest_legalbench.plugin.values import resolve_cache_dir
from pytest_legalbench.reference_backend import navigator as played_navigator
from pytest_legalbench.results.evaluation import Scorer, summarise
from pytest_legalbench.run.backend import open_backend
from pytest_legalbench.spans.benchmark_file import Snippet, SpanTest
from pytest_legalbench.spans.cuad_import import import_cuad
from pytest_legalbench.spans.span_runs import (
    ScoredTest,
    score_test,
    summarise_by_tag,
    summarise_run,
)
from pytest_legalbench.spans.splits import SPLITS, default_split, family_of
from pytest_legalbench.tokens import CHARS_PER_TOKEN

MODES = ("navembed:closure", "navindex", "navembed:chunks")
BUDGETS = (4_000, 32_000)
#: As ``legalbench spans``: provisions asked of a mode per this many budget characters.
CHARS_PER_PROVISION = 100
CUAD_BACKEND = "torch-bf16"

Patch = Callable[[contextlib.ExitStack[Any]], None]


@dataclass(frozen=True)
class Rule:
    """One retrieval rule: what it does, the modes it acts in, and how to switch it off."""

    name: str
    does: str
    modes: tuple[str, ...]
    off: Patch
    rebuild: bool = False
    """Whether the rule acts when a mode is built (not per question), so that switching it
    off needs the modes built again."""


def _set(target: object, attribute: str, value: object) -> Patch:
    def apply(stack: contextlib.ExitStack[Any]) -> None:
        if not hasattr(target, attribute):
            raise AttributeError(f"{target!r} has no {attribute!r}: the rule table is stale")
        stack.enter_context(mock.patch.object(target, attribute, value))
    return apply


def _weights(**changed: float) -> Patch:
    def apply(stack: contextlib.ExitStack[Any]) -> None:
        unknown = set(changed) - set(closure.WEIGHTS)
        if unknown:
            raise KeyError(f"no closure link kinds {sorted(unknown)}")
        stack.enter_context(mock.patch.dict(closure.WEIGHTS, changed))
    return apply


def _fusion(**changed: float) -> Patch:
    def apply(stack: contextlib.ExitStack[Any]) -> None:
        stack.enter_context(mock.patch.dict(node_ranking.FUSION_WEIGHTS, changed))
    return apply


def _unrouted(self: routing.Router, question: str) -> routing.Route:
    return routing.Route({}, (), ())


CLOSURE, NAVINDEX = "navembed:closure", "navindex"
BOTH = (CLOSURE, NAVINDEX)

#: Every rule of the default strategy and of navindex, switched off one at a time.
RULES: tuple[Rule, ...] = (
    # navembed without routing embeds, for each question, the eight documents BM25 ranks
    # best: most of CUAD over a run, which this machine could not afford for every variant;
    # so routing is switched off for navindex only (its scan embeds nothing).
    Rule("routing", "questions naming a party or instrument go to that family first "
         "(others keep 30%)", (NAVINDEX,), _set(routing.Router, "route", _unrouted)),
    Rule("flag boosts", "a provision carrying a flag the question asks for (money, date, "
         "cap ...) is worth 25% more per flag", BOTH, _set(routing, "FLAG_BONUS", 0.0)),
    Rule("amendment links", "an amending provision comes with the provision it changes",
         BOTH, _weights(amendment=0.0)),
    Rule("base links", "an amendment's provision brings the base provision it changes",
         BOTH, _weights(base=0.0)),
    Rule("asked definitions", "the definition of a term the question writes comes with a "
         "provision using it", BOTH, _weights(asked_definition=0.0)),
    Rule("used definitions", "the definitions a provision uses, rarest first", BOTH,
         _weights(definition=0.0)),
    Rule("definition rarity", "a definition's weight falls as more provisions use it", BOTH,
         _set(closure.Closure, "_rarity", lambda self, definition: 1.0)),
    Rule("references", "the clauses a provision cites", BOTH,
         _weights(reference=0.0, pointer=0.0)),
    Rule("pointer definitions", "a definition that only points to a clause gives that clause "
         "its whole weight", BOTH, _weights(pointer=closure.WEIGHTS["reference"])),
    Rule("lead-ins", "a sub-clause brings its parent's lead-in", BOTH, _weights(lead_in=0.0)),
    Rule("short amendments whole", "a provision of a short amendment brings its other "
         "operative provisions", BOTH, _weights(amendment_context=0.0)),
    Rule("value per token", "candidates are taken by value per token, not value alone",
         BOTH, _set(budget, "COST_EXPONENT", 0.0)),
    Rule("word matches after the scan", f"the {fetch.WORD_HITS} units of the chosen documents "
         "best matching the question's words are hits ranked after the scan's choice", (NAVINDEX,),
         _set(fetch, "WORD_HITS", 0)),
    Rule("rest of a held provision", "a provision holding one already taken brings its other "
         "parts", (NAVINDEX,), _set(fetch, "OPEN_HELD", False)),
    Rule("descend into large provisions", "a provision too large for what is left brings "
         "its best parts", BOTH, _set(budget, "_descent", lambda node, by_id, relevance: [])),
    Rule("context line in word matching", "BM25 reads each provision with its document "
         "title and headings", BOTH,
         _set(units.UnitContext, "text", lambda self, node: node.text), rebuild=True),
    Rule("names out of word matching", "the words that routed a question leave its BM25 "
         "query (off: the routed parties' names stay too)", (CLOSURE,),
         _set(node_ranking, "without_names", lambda question, route: question)),
    Rule("party names out of word matching", "the words a question capitalises of the routed "
         "instruments' parties' names, in one run with a routing word (\"Alliance Bank\" after "
         "\"Western\"), leave its BM25 query too", (CLOSURE,),
         _set(node_ranking, "PARTY_NAMES_OUT", False)),
    Rule("named definitions first", "a definition of a term the question writes is the "
         "best hit", (CLOSURE,), _set(navembed.ClosureMode, "named_definitions_first", False)),
    Rule("dense similarity", "embedding similarity in the fusion (off: BM25 alone)",
         (CLOSURE,), _fusion(cosine=0.0)),
    Rule("BM25 words", "BM25 in the fusion (off: embedding similarity alone)", (CLOSURE,),
         _fusion(words=0.0)),
    Rule("heading-only units never hit", "a unit saying nothing beyond its headings is "
         "never a hit", (CLOSURE,), _set(unit_space, "heading_only", lambda node, by_id:
                                         False), rebuild=True),
    Rule("instrument openings", "a question asking who made an instrument, when or under "
         "what name reads the named instruments' openings", (CLOSURE,),
         _set(navembed.ClosureMode, "opening_value", 0.0)),
    Rule("siblings", "a scanned clause brings the other clauses of its section", (NAVINDEX,),
         _weights(sibling=0.0)),
    Rule("navigator: names out", "the navigator leaves routing names out of its words",
         (NAVINDEX,), _set(navigator, "ROUTING_NAMES_OUT", False)),
    Rule("navigator: field repeats", "headings and defined terms count 3 times, keywords "
         "2", (NAVINDEX,), _set(navigator, "FIELD_REPEATS",
                                tuple((f, 1) for f, _ in navigator.FIELD_REPEATS))),
    Rule("navigator: section parts", "a section scores a share of its best parts",
         (NAVINDEX,), _set(navigator, "PART_SHARE", 0.0)),
    Rule("navigator: definitions first", "a node defining a term the question writes "
         "scores 1.5 times the best", (NAVINDEX,), _set(navigator, "DEFINITION_FACTOR", 0.0)),
    Rule("navigator: keep share", "nodes under 20% of the best are not chosen", (NAVINDEX,),
         _set(navigator, "KEEP_SHARE", 0.0)),
    Rule("navigator: instrument names out", "the navigator leaves the words a question "
         "capitalises as its instrument's title or parties out of its words", (NAVINDEX,),
         _set(navigator, "TITLE_NAMES_OUT", False)),
    Rule("navigator: named documents first", "another document's node scores 3% of its "
         "words when the question names its instrument (the router's 30% otherwise)",
         (NAVINDEX,), _set(navigator, "OUTSIDE_ROUTE", routing.OFF_ROUTE)),
    Rule("navigator: instrument openings", "a question asking who made an instrument, when or "
         "under what name scores its opening as its best node", (NAVINDEX,),
         _set(navigator, "OPENING_FACTOR", 0.0)),
    Rule("navigator: named title", "a question routed to several transactions reads the "
         "one whose instrument's title it writes (the share of the title's words it holds, "
         "the longer title on a tie, at least 75%)", (NAVINDEX,),
         _set(navigator, "NAMED_TITLE", False)),
    Rule("navigator: amendment partners", "an amendment's node and the original it cites "
         "are chosen together", (NAVINDEX,),
         _set(navigator, "_partners", lambda *args: [])),
    Rule("page furniture out of ranking", "running headers, footers and page numbers are "
         "blanked from the text navembed's units are ranked by", (CLOSURE,),
         _set(units, "RANK_WITHOUT_FURNITURE", False), rebuild=True),
)


#: The QA sets measured, by profile and the key their results are stored under.
QA_SETS = (("transactions", "visible"), ("edgar2023-tune", "tune_qa"))


@dataclass(frozen=True)
class QASet:
    """A question set with its profile's documents and indexes."""

    key: str
    documents: tuple[Document, ...]
    indexes: tuple[DocumentIndex, ...]
    questions: tuple[Question, ...]


@dataclass
class Material:
    """What every variant is measured on, loaded once."""

    cuad_documents: tuple[Document, ...]
    cuad_indexes: tuple[DocumentIndex, ...]
    paths: dict[str, str]
    tests: dict[str, list[SpanTest]]
    qa: dict[str, QASet]
    """The QA sets by profile, in the order they are reported."""
    cache: Path
    built: dict[tuple[str, int | str], Any] = dataclasses.field(default_factory=dict)
    """Modes built once (per name and budget, or per name and QA profile) and reused by every
    variant whose rule acts per question."""

    def mode(self, name: str, budget_chars: int | str, model: ModelClient, fresh: bool) -> Any:
        """The mode ``name`` at a CUAD budget of characters, or on a QA profile (named) with
        its defaults, built on first use or, when ``fresh``, now (under the variant's
        patches)."""
        key = (name, budget_chars)
        if fresh or key not in self.built:
            if isinstance(budget_chars, int):
                corpus = Corpus(self.cuad_documents, self.cuad_indexes, self.cache)
                settings = cuad_settings(budget_chars)
            else:
                qa = self.qa[budget_chars]
                corpus = Corpus(qa.documents, qa.indexes, self.cache)
                settings = ModeSettings()
            made = build_mode(parse_mode(name), corpus, settings, model)
            if fresh:
                return made
            self.built[key] = made
        return self.built[key]


def cuad_settings(budget_chars: int) -> ModeSettings:
    """A mode's settings at a budget of characters, as ``legalbench spans`` makes them."""
    return ModeSettings(k=math.ceil(budget_chars / CHARS_PER_PROVISION),
                        payload_budget_tokens=math.ceil(budget_chars / CHARS_PER_TOKEN),
                        embedding_backend=CUAD_BACKEND)


def load(families: int, every: int = 1, splits: Sequence[str] = SPLITS) -> Material:
    """The CUAD benchmark and its splits' samples, both corpora and their indexes."""
    corpus = corpus_dir()
    cache = resolve_cache_dir(os.environ.get("LEGALBENCH_CACHE_DIR"))
    benchmark, _ = import_cuad(corpus)
    split = default_split()
    tests = {name: _by_family(split.select(benchmark.tests, name), families, every)
             for name in splits}
    cuad = load_documents(Selection("cuad"), corpus_dir=corpus, cache_dir=cache)
    qa = {}
    for profile, key in QA_SETS:
        documents = load_documents(Selection(profile), corpus_dir=corpus, cache_dir=cache)
        qa[profile] = QASet(key, documents, build_indexes(documents, cache_dir=cache),
                            load_question_set(question_sets_dir() / profile))
    root = (corpus / "cuad" / "contracts").resolve()
    paths = {d.doc_id: f"cuad/contracts/{Path(d.path).resolve().relative_to(root).as_posix()}"
             for d in cuad}
    return Material(cuad, build_indexes(cuad, cache_dir=cache), paths, tests, qa, cache)


def _by_family(tests: Sequence[SpanTest], count: int, every: int = 1) -> list[SpanTest]:
    """Every test of ``count`` families spread evenly over the split's families in name
    order (all tests of a family or none: a contract's vectors are built once for all of
    its questions, and a family is what the split keeps apart); with ``every``, only every
    such family of those (a smaller sample inside the same one)."""
    families = sorted({family_of(t.snippets[0].file_path) for t in tests})
    if count < len(families):
        families = [families[i * len(families) // count] for i in range(count)]
    kept = set(families[::every])
    return [t for t in tests if family_of(t.snippets[0].file_path) in kept]


@contextlib.contextmanager
def client() -> Iterator[ModelClient]:
    """A client of the embedded reference backend (navindex's scans)."""
    config = configured_backend("reference", os.environ)
    with open_backend(config, ModeSettings().context_window) as live, \
            ModelClient(live, Ledger()) as made:
        yield made


def _ranked(mode: Any, query: str, limit: int) -> Sequence[Provision]:
    ranking = getattr(mode, "ranking", None)
    if ranking is not None:
        found: Sequence[Provision] = ranking(query, limit)
        return found
    return tuple(mode.retrieve(query).provisions)


def cuad_runs(material: Material, mode_name: str, model: ModelClient,
              progress: Callable[[str], None], budgets: Sequence[int] = BUDGETS,
              fresh: bool = False) -> dict[str, dict[str, dict[str, Any]]]:
    """The mode on both splits at both budgets, per split and budget: the summary and its
    per-category figures."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for budget_chars in budgets:
        settings = cuad_settings(budget_chars)
        mode = material.mode(mode_name, budget_chars, model, fresh)
        for split, tests in material.tests.items():
            started = time.perf_counter()
            scored: list[ScoredTest] = []
            for test in tests:
                ranked = [Snippet(material.paths.get(p.doc_id, f"<{p.doc_id}>"), p.start, p.end)
                          for p in _ranked(mode, test.query, settings.k)]
                scored.append(score_test(ranked, test.snippets, budget_chars=budget_chars,
                                         tags=test.tags))
            summary = summarise_run(scored).to_dict()
            summary["seconds"] = round(time.perf_counter() - started, 1)
            summary["by_tag"] = {t: s.to_dict() for t, s in summarise_by_tag(scored).items()}
            found.setdefault(split, {})[str(budget_chars)] = summary
            progress(f"  {mode_name} {split} {budget_chars:,}: recall {summary['recall']:.4f}, "
                     f"wrong doc {summary['wrong_document_rate']}, {summary['seconds']} s")
    return found


def qa_run(material: Material, profile: str, mode_name: str, model: ModelClient,
           fresh: bool = False) -> dict[str, Any]:
    """The mode on a QA set, scored as ``legalbench evaluate`` scores it."""
    mode = material.mode(mode_name, profile, model, fresh)
    qa = material.qa[profile]
    scorer = Scorer({d.doc_id: d.text for d in qa.documents}, qa.indexes)
    scores = []
    for question in qa.questions:
        retrieval = mode.retrieve(question.question, question_id=question.id)
        scores.append(scorer.score(question, retrieval.mode, retrieval.provisions,
                                   retrieval.payload_tokens, retrieval.scan_tokens))
    summary = to_builtins(summarise([s for s in scores if s.recall is not None], None))
    return {key: summary[key] for key in ("recall", "complete", "questions", "payload_tokens",
                                          "payload_max", "wrong_document_rate")}


def variant(material: Material, rule: Rule | None, modes: Sequence[str], model: ModelClient,
            progress: Callable[[str], None], budgets: Sequence[int] = BUDGETS) -> dict[str, Any]:
    """Every mode the rule acts in, with the rule off (all rules on for None)."""
    chosen = [m for m in modes if rule is None or m in rule.modes]
    result: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        if rule is not None:
            rule.off(stack)
        # The played scan prepares its navigator once per system prompt: a navigator built
        # under another variant must not answer this one.
        played_navigator._navigator.cache_clear()
        for mode_name in chosen:
            fresh = rule is not None and rule.rebuild
            entry: dict[str, Any] = {"cuad": cuad_runs(material, mode_name, model, progress,
                                                       budgets, fresh)}
            for profile, qa in material.qa.items():
                entry[qa.key] = qa_run(material, profile, mode_name, model, fresh)
                progress(f"  {mode_name} {profile}: recall {entry[qa.key]['recall']}, "
                         f"complete {entry[qa.key]['complete']}")
            result[mode_name] = entry
        played_navigator._navigator.cache_clear()
    return result


def main() -> int:
    """Measure the variants asked for; write the JSON and the Markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", type=int, default=25,
                        help="contract families per split, spread evenly; every test of each "
                             "(default: 25)")
    parser.add_argument("--every", type=int, default=1,
                        help="keep every N-th of those families (a smaller sample inside the "
                             "same one, for the ablation)")
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    parser.add_argument("--modes", nargs="+", default=list(MODES))
    parser.add_argument("--splits", nargs="+", default=list(SPLITS), choices=SPLITS,
                        help="the CUAD splits to measure (default: both); while a rule is being "
                             "decided, the tuning split alone")
    parser.add_argument("--rules", nargs="+", default=["none"],
                        help="'none': all rules on only; 'all': also every rule off in turn; "
                             "or rule names")
    parser.add_argument("--json", type=Path, default=OUTPUT / "retrieval_splits.json")
    parser.add_argument("--markdown", type=Path,
                        help="also write the tables (ablation, per category) here")
    parser.add_argument("--render", action="store_true",
                        help="measure nothing: write --markdown from the existing --json")
    parser.add_argument("--merge", type=Path, nargs="+",
                        help="with --render: first merge these reports (one per mode, run side "
                             "by side on the same sample) into --json")
    args = parser.parse_args()
    if args.render:
        if args.merge:
            args.json.write_text(json.dumps(merged(args.merge), indent=1) + "\n",
                                 encoding="utf-8")
        args.markdown.write_text(render(json.loads(args.json.read_text(encoding="utf-8"))),
                                 encoding="utf-8")
        return 0
    chosen = _chosen_rules(args.rules)

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    material = load(args.families, args.every, args.splits)
    progress(f"loaded in {time.perf_counter() - started:.0f} s: "
             + ", ".join(f"{k} {len(v)} tests" for k, v in material.tests.items()))
    report: dict[str, Any] = {
        "commit": commit(), "load_before": machine_load(), "families_per_split": args.families,
        "every": args.every,
        "split_rule": "spans.splits.default_split (family = file name up to the first "
                      "underscore; salted SHA-256; the visible set's CUAD families tuning)",
        "tests": {k: len(v) for k, v in material.tests.items()},
        "cuad_embedding_backend": CUAD_BACKEND, "budgets": args.budgets,
        "variants": {}}
    names: list[str | None] = [None, *chosen] if "none" in args.rules or "all" in args.rules \
        else list(chosen)
    with client() as model:
        for name in names:
            rule = next((r for r in RULES if r.name == name), None)
            progress(f"variant: {'all rules on' if rule is None else 'without ' + rule.name}")
            report["variants"]["all rules on" if rule is None else rule.name] = {
                "does": None if rule is None else rule.does,
                "results": variant(material, rule, args.modes, model, progress, args.budgets)}
    report["load_after"] = machine_load()
    report["seconds"] = round(time.perf_counter() - started)
    args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    progress(f"wrote {args.json}")
    if args.markdown:
        args.markdown.write_text(render(report), encoding="utf-8")
    return 0


def merged(paths: Sequence[Path]) -> dict[str, Any]:
    """Reports of the same sample and budgets, one per mode, as one report."""
    reports: list[dict[str, Any]] = [json.loads(path.read_text(encoding="utf-8"))
                                     for path in paths]
    first = reports[0]
    # A mode measured again replaces its earlier figures; each mode keeps the commit it was
    # measured at, so a merge of reports from different commits says which figure is whose.
    measured_at: dict[str, str] = {}
    for report in reports:
        for mode in report["variants"].get("all rules on", {}).get("results", {}):
            measured_at[mode] = report.get("measured_at", {}).get(mode, report["commit"])
    for other in reports[1:]:
        if (other["tests"], other["budgets"]) != (first["tests"], first["budgets"]):
            raise SystemExit("the reports were measured on different samples or budgets")
        for name, found in other["variants"].items():
            entry = first["variants"].setdefault(name, {"does": found["does"], "results": {}})
            entry["results"].update(found["results"])
        first["seconds"] = max(first["seconds"], other["seconds"])
        first["load_after"] = other["load_after"]
    first["measured_at"] = measured_at
    return first


def render(report: dict[str, Any]) -> str:
    """The report as Markdown: the splits' figures per mode, the ablation (each rule's
    change to every figure when it is switched off), and recall per CUAD category."""
    variants = report["variants"]
    base = variants["all rules on"]["results"]
    budgets = [str(b) for b in report["budgets"]]
    splits = [s for s in SPLITS if s in report["tests"]]
    columns = [(split, budget) for budget in budgets for split in splits]
    names = [f"{split} {int(budget) // 1000}k" for split, budget in columns]
    first_entry = next(iter(base.values()))
    qa_keys = [key for _, key in QA_SETS if key in first_entry]
    # Rows merged from runs of different commits may have scored different question sets:
    # each row's "complete" cell names its own count.
    qa_sets = ", ".join(
        f"{_QA_NAMES[k]} "
        + " or ".join(str(n) for n in sorted({e[k]["questions"] for e in base.values()}))
        + " document-bound questions" for k in qa_keys)
    commits: dict[str, list[str]] = {}
    for mode, commit_id in report.get("measured_at", {}).items():
        commits.setdefault(commit_id, []).append(mode)
    where = "; ".join(f"{c} ({', '.join(m)})" for c, m in commits.items()) \
        if len(commits) > 1 else report["commit"]
    lines = [(f"Measured at {where}: "
              + " and ".join(f"{report['tests'][s]} {_SPLIT_NAMES[s]}" for s in splits)
              + " CUAD span tests (every test of "
              f"{report['families_per_split']} contract families per split, spread evenly"
              + (f", every {report['every']}th of them" if report.get("every", 1) > 1 else "")
              + f"), CUAD vectors {report['cuad_embedding_backend']}; {qa_sets}."), ""]
    qa_columns = [f"{_QA_NAMES[k]} {what}" for k in qa_keys
                  for what in ("recall", "complete", "wrong doc")]
    lines += ["| mode | " + " | ".join(f"recall {n}" for n in names) + " | "
              + " | ".join(f"wrong doc {n}" for n in names) + " | "
              + " | ".join(qa_columns) + " |",
              "|---|" + "---|" * (2 * len(columns) + len(qa_columns))]
    for mode, entry in base.items():
        cuad = entry["cuad"]
        qa_cells = [cell for k in qa_keys for cell in (
            f"{entry[k]['recall']:.3f}", f"{entry[k]['complete']}/{entry[k]['questions']}",
            _rate(entry[k]["wrong_document_rate"]))]
        lines.append(f"| {mode} | " + " | ".join(_cell(cuad, s, b) for s, b in columns) + " | "
                     + " | ".join(_wrong(cuad, s, b) for s, b in columns) + " | "
                     + " | ".join(qa_cells) + " |")
    if len(variants) > 1:
        lines += ["", ("Ablation: each rule switched off alone; the change in recall against "
                       "all rules on (negative: the rule helps, positive: it hurts)."), ""]
        ablated = [m for m in base if m != "navembed:chunks" and any(
            m in found["results"] for name, found in variants.items() if name != "all rules on")]
        for mode in ablated:
            lines += [f"**{mode}**", "", "| rule off | what the rule does | "
                      + " | ".join(names + [_QA_NAMES[k] for k in qa_keys]) + " |",
                      "|---|---|" + "---|" * (len(columns) + len(qa_keys))]
            for name, found in variants.items():
                if name == "all rules on" or mode not in found["results"]:
                    continue
                entry = found["results"][mode]
                deltas = [_delta(entry["cuad"], base[mode]["cuad"], s, b) for s, b in columns]
                deltas += [f"{entry[k]['recall'] - base[mode][k]['recall']:+.3f}"
                           for k in qa_keys]
                lines.append(f"| {name} | {found['does']} | {' | '.join(deltas)} |")
            lines.append("")
    first_budget = budgets[0]
    lines += ["", (f"Recall per CUAD category at {int(first_budget):,} characters "
                   f"({' / '.join(splits)})."), ""]
    modes = list(base)
    lines += [f"| category | tests {' / '.join(splits)} | " + " | ".join(modes) + " |",
              "|---|---|" + "---|" * len(modes)]
    first = base[modes[0]]["cuad"]
    tags = sorted({tag for s in splits for tag in first[s][first_budget]["by_tag"]})
    for tag in tags:
        counts = " / ".join(str(first[s][first_budget]["by_tag"].get(tag, {}).get("tests", 0))
                            for s in splits)
        cells = [" / ".join(_tag(base[m]["cuad"], s, first_budget, tag)
                            for s in splits) for m in modes]
        lines.append(f"| {tag} | {counts} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


_SPLIT_NAMES = {"tune": "tuning", "test": "test"}
_QA_NAMES = {"visible": "visible", "tune_qa": "edgar2023-tune"}


def _cell(cuad: dict[str, Any], split: str, budget: str) -> str:
    return f"{cuad[split][budget]['recall']:.3f}"


def _wrong(cuad: dict[str, Any], split: str, budget: str) -> str:
    return _rate(cuad[split][budget]["wrong_document_rate"])


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.3f}"


def _delta(found: dict[str, Any], base: dict[str, Any], split: str, budget: str) -> str:
    return f"{found[split][budget]['recall'] - base[split][budget]['recall']:+.3f}"


def _tag(cuad: dict[str, Any], split: str, budget: str, tag: str) -> str:
    entry = cuad[split][budget]["by_tag"].get(tag)
    return "-" if entry is None else f"{entry['recall']:.2f}"


def _chosen_rules(asked: Sequence[str]) -> list[str]:
    if "all" in asked:
        return [rule.name for rule in RULES]
    known = {rule.name for rule in RULES}
    unknown = [a for a in asked if a != "none" and a not in known]
    if unknown:
        raise SystemExit(f"unknown rules {unknown}: choose from {sorted(known)}")
    return [a for a in asked if a != "none"]


if __name__ == "__main__":
    raise SystemExit(main())
