"""Whether two stored runs can be compared: the warnings said before any comparison.

Runs on different backends, corpora or question sets, or judged by different protocols, are
still compared (that can be the point), but only after a warning that says what differs. A
change of model or price card is a note: comparing two models is what the command is for.
"""

from __future__ import annotations

from pytest_legalbench.results.results_file import StoredRun
from pytest_legalbench.results.run_header import UNKNOWN


def _questions(run: StoredRun) -> dict[str, tuple[str, str | None]]:
    return {r.question_id: (r.question, r.reference) for r in run.records}


def run_warnings(a: StoredRun, b: StoredRun) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(warnings, notes) about comparing run A with run B."""
    warnings: list[str] = []
    notes: list[str] = []
    one, two = a.header, b.header
    if one.backend != two.backend:
        warnings.append(f"different backends: A ran on {one.backend}, B on {two.backend}")
    if one.corpus.profile != two.corpus.profile:
        warnings.append(f"different corpora: A read profile {one.corpus.profile}, B profile "
                        f"{two.corpus.profile}")
    elif UNKNOWN in (one.corpus.digest.split(" ")[0], two.corpus.digest.split(" ")[0]):
        warnings.append("the corpus of a run is not recorded (a results file of before the "
                        "run header): the two may have read different texts")
    elif one.corpus.digest != two.corpus.digest:
        warnings.append(f"different corpora: profile {one.corpus.profile} with different "
                        f"texts (sha256 {one.corpus.digest[:12]} in A, {two.corpus.digest[:12]} "
                        f"in B)")
    asked, other = _questions(a), _questions(b)
    only_a, only_b = sorted(set(asked) - set(other)), sorted(set(other) - set(asked))
    changed = sorted(q for q in set(asked) & set(other) if asked[q] != other[q])
    if only_a or only_b or changed:
        parts = [f"{len(only_a)} questions only in A" if only_a else "",
                 f"{len(only_b)} only in B" if only_b else "",
                 f"{len(changed)} asked or answered differently ({', '.join(changed[:5])})"
                 if changed else ""]
        warnings.append("different question sets: " + "; ".join(p for p in parts if p)
                        + "; the paired tests use the questions both runs share")
    if one.judge != two.judge:
        warnings.append(f"judged by different protocols: {one.judge} in A, {two.judge} in B")
    if dict(one.models) != dict(two.models):
        notes.append("models: A " + ", ".join(f"{k} {v}" for k, v in one.models.items())
                     + "; B " + ", ".join(f"{k} {v}" for k, v in two.models.items()))
    if one.price_card != two.price_card:
        notes.append(f"price cards: {one.price_card} in A, {two.price_card} in B")
    return tuple(warnings), tuple(notes)
