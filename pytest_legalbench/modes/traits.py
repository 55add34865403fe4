"""What differs between modes, as far as the harness is concerned: what the answering model is
shown, how the mode's cost crosses over with the baseline, and which calls it makes.

The runner and the results read these, never a mode's name: a mode says what it is. A user's
retriever is ``RETRIEVED`` (its passages are answered from like any provisions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: What the answering model is shown: the provisions the mode retrieved, the whole corpus as
#: a cached prefix (the baseline), or nothing more, because the mode answered as it navigated.
Shown = Literal["provisions", "corpus", "answer"]
#: How the mode's warm cost is set against the baseline's (``results.crossover``): it is the
#: baseline; its payload sent uncached; a cached index read by a scan plus the payload; or
#: every turn of a conversation as measured.
Crossover = Literal["baseline", "payload", "index", "conversation"]


@dataclass(frozen=True)
class ModeTraits:
    """What the harness needs to know of a mode, written into each item record."""

    shown: Shown
    """What the answering model is shown: ``provisions``, ``corpus`` or ``answer``."""
    crossover: Crossover
    """How its cost crosses over with the baseline: ``baseline``, ``payload``, ``index`` or
    ``conversation``."""

    def __post_init__(self) -> None:
        if self.shown not in ("provisions", "corpus", "answer"):
            raise ValueError(f"a mode shows provisions, corpus or answer, not {self.shown!r}")
        if self.crossover not in ("baseline", "payload", "index", "conversation"):
            raise ValueError(f"a mode's crossover is baseline, payload, index or "
                             f"conversation, not {self.crossover!r}")

    @property
    def baseline(self) -> bool:
        """Whether this is the baseline itself (no pairing, no crossover)."""
        return self.crossover == "baseline"


#: Provisions retrieved, then answered in a call of their own: navembed, a user's retriever.
RETRIEVED = ModeTraits("provisions", "payload")
#: Provisions chosen by a model scanning a cached index, then answered: navindex.
SCANNED = ModeTraits("provisions", "index")
#: The whole corpus as a cached prefix: the inject baseline.
WHOLE_CORPUS = ModeTraits("corpus", "baseline")
#: An answer the model gave as it navigated with tools: navagent.
NAVIGATED = ModeTraits("answer", "conversation")


@dataclass(frozen=True)
class CallShape:
    """How a mode's calls are planned before a run (``run.plan_calls``): what precedes the
    answer, and what its payload is made of."""

    before_answer: Literal["nothing", "index_scan", "titles_pick"] = "nothing"
    """A model call choosing what to retrieve: navindex's scan, the titles pick."""
    payload: Literal["budget", "units", "chunks"] = "budget"
    """The payload fills the budget, or is at most k retrieval units, or k fixed chunks."""
