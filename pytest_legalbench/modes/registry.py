"""Modes built on a corpus from their names (``modes.names`` parses the names)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings, ModeUnavailable
from pytest_legalbench.modes.names import parse_mode

if TYPE_CHECKING:
    from pytest_legalbench.llm.client import ModelClient

def build_mode(spec: str, corpus: Corpus, settings: ModeSettings,
               client: ModelClient | None) -> Mode:
    """Build the mode ``spec`` names on ``corpus``; modes that call a model need ``client``."""
    name = parse_mode(spec)
    if name == "inject":
        from pytest_legalbench.modes.inject import InjectMode

        if settings.inject_scope == "set":
            # A benchmark item knows its question's documents (modes.inject_scope); a mode
            # built for questions asked on their own has no set to read.
            raise ModeUnavailable(name, "the inject scope 'set' reads the transaction set of "
                                        "a question's documents, and a question asked on its "
                                        "own names none (use the scope corpus or auto)")
        return InjectMode(corpus, settings)
    if name == "navindex":
        from pytest_legalbench.modes.navigate import NavindexMode

        return NavindexMode(corpus, settings, _needs(client, name))
    if name == "navagent":
        from pytest_legalbench.modes import navagent

        return navagent.build(corpus, settings, client)
    # Imported here: the vector and ranking modules (numpy among them) load only when a
    # navembed mode is built; torch itself loads only when texts must be embedded.
    from pytest_legalbench.modes import navembed

    return navembed.build(name.partition(":")[2], corpus, settings, client)


def _needs(client: ModelClient | None, name: str) -> ModelClient:
    if client is None:
        raise ValueError(f"mode {name!r} calls a model: pass a ModelClient")
    return client
