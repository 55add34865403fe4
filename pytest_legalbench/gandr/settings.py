"""GANDR's settings, as in the study, each one a field a user can change."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_legalbench.defaults import DEFAULT_PASSAGE_CHARS


@dataclass(frozen=True)
class GandrSettings:
    """Sampling, limits, the Critic's PASS policy and retrieval sizes."""

    generator_temperature: float = 0.7
    """The Drafter and every single-call baseline."""
    max_tokens: int = 2048
    critic_temperature: float = 0.7
    tool_temperature: float = 0.0
    """The claim audit and the rubric."""
    tool_max_tokens: int = 2048
    max_rounds: int = 3
    verified_bar: float = 0.95
    """The Critic's stated PASS policy: share of audited claims SUPPORTED ..."""
    rubric_mean_bar: float = 4.0
    """... rubric mean at least this ..."""
    rubric_min_bar: float = 3.0
    """... and no rubric dimension below this."""
    rewrite_threshold: float = 0.50
    """On the rewrite path (after a failed round 1) a draft commits when its structure passes
    and at least this share of its audited claims is SUPPORTED."""
    top_k: int = 8
    b3_pool: int = 20
    b3_keep: int = 5
    passage_chars: int = DEFAULT_PASSAGE_CHARS
    judge_max_tokens: int = 512

    def __post_init__(self) -> None:
        for name in ("generator_temperature", "critic_temperature", "tool_temperature",
                     "verified_bar", "rewrite_threshold"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"GandrSettings.{name} must be between 0 and 1, got {value}")
        for name in ("max_tokens", "tool_max_tokens", "max_rounds", "top_k", "b3_pool",
                     "b3_keep", "passage_chars", "judge_max_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"GandrSettings.{name} must be at least 1, "
                                 f"got {getattr(self, name)}")
        if self.b3_keep > self.b3_pool:
            raise ValueError(f"GandrSettings.b3_keep ({self.b3_keep}) cannot exceed b3_pool "
                             f"({self.b3_pool})")


def with_overrides(pairs: Sequence[str], base: GandrSettings | None = None) -> GandrSettings:
    """``base`` (default: the study's settings) with ``NAME=VALUE`` pairs applied; a
    ValueError names the pair that is malformed, unknown or out of range."""
    settings = base or GandrSettings()
    kinds = {f.name: f.type for f in dataclasses.fields(GandrSettings)}
    changes: dict[str, int | float] = {}
    for pair in pairs:
        name, equals, raw = pair.partition("=")
        name = name.strip()
        if not equals or name not in kinds:
            raise ValueError(f"{pair!r}: expected NAME=VALUE with NAME one of "
                             f"{', '.join(sorted(kinds))}")
        try:
            changes[name] = int(raw) if kinds[name] in (int, "int") else float(raw)
        except ValueError:
            raise ValueError(f"{pair!r}: {raw.strip()!r} is not a "
                             f"{'whole number' if kinds[name] in (int, 'int') else 'number'}"
                             ) from None
    try:
        return dataclasses.replace(settings, **changes)  # type: ignore[arg-type]
    except ValueError as error:
        raise ValueError(f"{', '.join(pairs)}: {error}") from None
