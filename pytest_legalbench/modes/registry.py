"""Mode names as users write them, resolved to one canonical spelling, and built on a corpus."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings

if TYPE_CHECKING:
    from pytest_legalbench.llm.client import ModelClient

#: Strategies of the ``navembed`` family; ``navembed.STRATEGIES`` must list the same names
#: (kept here too so that parsing a mode name never imports the embedding stack).
NAVEMBED_STRATEGIES = ("embed", "embed+xref", "hybrid", "rerank", "titles", "chunks")

#: What ``navembed`` alone means: the best strategy that runs offline. ``rerank`` needs
#: cross-encoder weights that cannot be fetched here, and ``titles`` needs a model call.
#: Chosen on the transactions question set (``legalbench evaluate``): hybrid found as much of
#: the evidence as embed+xref (recall 0.640 against 0.638) at a smaller payload (4,283
#: against 4,679 tokens); both beat the chunk baseline at equal payload (about 0.60).
DEFAULT_STRATEGY = "hybrid"

#: Modes that take no strategy.
PLAIN_MODES = ("inject", "navindex")


def mode_names() -> tuple[str, ...]:
    """Every canonical mode name, in the order help texts list them."""
    return (*PLAIN_MODES, *(f"navembed:{s}" for s in NAVEMBED_STRATEGIES))


def parse_mode(spec: str) -> str:
    """Resolve ``inject``, ``navindex``, ``navembed`` or ``navembed:STRATEGY`` to its canonical
    name; anything else is a ValueError listing the valid names."""
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


def build_mode(spec: str, corpus: Corpus, settings: ModeSettings,
               client: ModelClient | None) -> Mode:
    """Build the mode ``spec`` names on ``corpus``; modes that call a model need ``client``."""
    name = parse_mode(spec)
    if name == "inject":
        from pytest_legalbench.modes.inject import InjectMode

        return InjectMode(corpus, settings)
    if name == "navindex":
        from pytest_legalbench.modes.navigate import NavindexMode

        return NavindexMode(corpus, settings, _needs(client, name))
    # Imported here: the embedding stack (torch) loads only when a navembed mode is built.
    from pytest_legalbench.modes import navembed

    return navembed.build(name.partition(":")[2], corpus, settings, client)


def _needs(client: ModelClient | None, name: str) -> ModelClient:
    if client is None:
        raise ValueError(f"mode {name!r} calls a model: pass a ModelClient")
    return client
