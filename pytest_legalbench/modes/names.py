"""Mode names as users write them, resolved to one canonical spelling.

Names only: parsing a mode name never imports a mode (nor the embedding stack), so settings
can be validated at startup for free.
"""

from __future__ import annotations

#: Strategies of the ``navembed`` family, spelled here so that parsing a mode name never
#: imports ``modes.navembed`` (its vector and ranking modules). The table that builds them is
#: ``modes.navembed.STRATEGIES``, which refuses to import unless these are its names, in order.
NAVEMBED_STRATEGIES = ("embed", "embed+xref", "hybrid", "closure", "rerank", "titles", "chunks")

#: What ``navembed`` alone means: the best strategy that runs offline, measured on the
#: transactions question set with ``legalbench evaluate`` (perf/output/question_recall.txt).
#: ``closure`` (hybrid hits plus each hit's amendments, base provisions, definitions,
#: references and lead-in, chosen by value per token under the payload budget) finds the most
#: evidence at the budget; ``rerank`` needs cross-encoder weights that cannot be fetched here
#: and ``titles`` a model call.
DEFAULT_STRATEGY = "closure"

#: The mode whose answering model navigates the index with tools (``modes.navagent``).
NAVAGENT = "navagent"

#: Modes that take no strategy.
PLAIN_MODES = ("inject", "navindex", NAVAGENT)


def mode_names() -> tuple[str, ...]:
    """Every canonical mode name, in the order help texts list them."""
    return (*PLAIN_MODES, *(f"navembed:{s}" for s in NAVEMBED_STRATEGIES))


def parse_mode(spec: str) -> str:
    """Resolve ``inject``, ``navindex``, ``navagent``, ``navembed`` or ``navembed:STRATEGY`` to
    its canonical name; anything else is a ValueError listing the valid names."""
    text = spec.strip().lower() if isinstance(spec, str) else ""
    family, colon, strategy = text.partition(":")
    if family in PLAIN_MODES and not colon:
        return family
    if family == "navembed":
        if not colon:
            return f"navembed:{DEFAULT_STRATEGY}"
        if strategy in NAVEMBED_STRATEGIES:
            return f"navembed:{strategy}"
    raise ValueError(f"unknown mode {spec!r}: choose one of {', '.join(mode_names())} "
                     f"(navembed alone means navembed:{DEFAULT_STRATEGY})")
