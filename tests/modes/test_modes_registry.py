"""Mode names: parsing to one canonical spelling, and building modes without the embedding stack."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_legalbench.modes.base import ModeSettings
from pytest_legalbench.modes.inject import InjectMode
from pytest_legalbench.modes.names import (
    DEFAULT_STRATEGY,
    NAVEMBED_STRATEGIES,
    mode_names,
    parse_mode,
)
from pytest_legalbench.modes.navigate import NavindexMode
from pytest_legalbench.modes.registry import build_mode
from tests.support.modes_samples import lease_corpus, reference_client


@pytest.mark.parametrize(("written", "canonical"), [
    ("inject", "inject"), ("navindex", "navindex"), (" NavIndex ", "navindex"),
    ("navembed", f"navembed:{DEFAULT_STRATEGY}"), ("navembed:hybrid", "navembed:hybrid"),
    ("navembed:embed+xref", "navembed:embed+xref"), ("navembed:chunks", "navembed:chunks"),
])
def test_modes_resolve_to_their_canonical_name(written: str, canonical: str) -> None:
    assert parse_mode(written) == canonical
    assert parse_mode(canonical) == canonical


@pytest.mark.parametrize("written", ["", "navembed:", "navembed:bm25", "inject:fast",
                                     "navindex:x", "rag", "navembed:hybrid:x"])
def test_unknown_modes_list_the_valid_ones(written: str) -> None:
    with pytest.raises(ValueError, match="choose one of inject, navindex, navagent, navembed:embed") as error:
        parse_mode(written)
    assert repr(written) in str(error.value)


def test_the_default_strategy_is_a_navembed_strategy() -> None:
    assert DEFAULT_STRATEGY in NAVEMBED_STRATEGIES
    assert f"navembed:{DEFAULT_STRATEGY}" in mode_names()


def test_every_strategy_is_built_by_the_navembed_module() -> None:
    from pytest_legalbench.modes import navembed

    # One table (navembed's) builds the strategies; the names parsed without importing it are
    # its names, in its order (navembed refuses to import otherwise).
    assert tuple(navembed.STRATEGIES) == NAVEMBED_STRATEGIES


def test_the_strategy_names_are_checked_when_navembed_is_imported() -> None:
    script = textwrap.dedent("""
        import pytest_legalbench.modes.names as names
        names.NAVEMBED_STRATEGIES = names.NAVEMBED_STRATEGIES[:-1]
        try:
            import pytest_legalbench.modes.navembed
        except ImportError as error:
            print(error)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=False, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert "differs from the strategies navembed builds" in done.stdout


def test_plain_modes_are_built_on_the_corpus() -> None:
    corpus = lease_corpus()
    assert isinstance(build_mode("inject", corpus, ModeSettings(), None), InjectMode)
    with reference_client() as client:
        assert isinstance(build_mode("navindex", corpus, ModeSettings(), client), NavindexMode)
    with pytest.raises(ValueError, match="pass a ModelClient"):
        build_mode("navindex", corpus, ModeSettings(), None)


def test_inject_and_navindex_never_load_the_embedding_stack() -> None:
    script = textwrap.dedent("""
        import sys
        from tests.support.modes_samples import lease_corpus, reference_client
        from pytest_legalbench.modes.base import ModeSettings
        from pytest_legalbench.modes.registry import build_mode
        corpus = lease_corpus()
        build_mode("inject", corpus, ModeSettings(), None).retrieve("rent")
        with reference_client() as client:
            build_mode("navindex", corpus, ModeSettings(), client).retrieve("rent")
        heavy = sorted(m for m in ("torch", "sentence_transformers", "transformers", "rank_bm25")
                       if m in sys.modules)
        print(",".join(heavy) or "none")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=False, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "none"
