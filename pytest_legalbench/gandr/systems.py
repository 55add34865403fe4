"""GANDR benchmark mode names: ``gandr`` and its baselines ``gandr:b1`` ... ``gandr:b5``."""

from __future__ import annotations

GANDR = "gandr"
#: Every system in the order summaries list them; B2 is the head-to-head comparator.
SYSTEMS = (GANDR, "gandr:b1", "gandr:b2", "gandr:b3", "gandr:b4", "gandr:b5")
COMPARATOR = "gandr:b2"
#: ``--mode gandr:all`` stands for every system.
ALL = "gandr:all"


def is_system(name: str) -> bool:
    """True for a canonical GANDR system name."""
    return name in SYSTEMS


def parse_systems(spec: str) -> tuple[str, ...] | None:
    """The systems ``spec`` names (``gandr:all`` names all six); None when it names none."""
    text = spec.strip().lower() if isinstance(spec, str) else ""
    if text == ALL:
        return SYSTEMS
    if text in SYSTEMS:
        return (text,)
    if text.startswith(GANDR + ":") or text == GANDR:
        raise ValueError(f"unknown GANDR system {spec!r}: choose one of {', '.join(SYSTEMS)} "
                         f"or {ALL}")
    return None


def baseline_of(system: str) -> str | None:
    """The baseline key (``b1``...) of a system; None for GANDR itself."""
    return system.partition(":")[2] or None
