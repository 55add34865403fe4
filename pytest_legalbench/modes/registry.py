"""Mode names and what builds them, in one registry: the modes this package ships (the table
below), the modes users register (a ``pytest_legalbench_modes`` hook in a conftest or plugin,
an entry point of the ``pytest_legalbench.modes`` group) and retrievers named by where they
are (``py:MODULE:FACTORY``, ``http://`` and ``https://`` URLs, ``file:PATH.jsonl``, and
``mcp:NAME`` for a configured MCP server).

Each name leads to a ``ModeEntry``: how the mode is built, its traits (what the answering
model is shown, how its cost crosses over with the baseline) and the shape of its calls for
planning. The runner and the results read the traits, never a name: this module's table is
the one place that knows which name is which built-in mode, and which is the baseline.

A user's factory (a class or function called with the ``RetrieverCorpus``) is wrapped by
``retriever_entry`` into a mode (``retriever_mode.RetrieverMode``). A value that is itself a
``ModeEntry`` is taken as it is: that is how the built-in modes register through the same
hook, and how a plugin adds a mode that answers by itself.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_legalbench.defaults import DEFAULT_TIMEOUT_S
from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings, ModeUnavailable
from pytest_legalbench.modes.mcp_servers import MCP_PREFIX, McpServer, server_named
from pytest_legalbench.modes.names import DEFAULT_STRATEGY, NAVEMBED_STRATEGIES
from pytest_legalbench.modes.retriever_failures import RetrieverFailed, one_line
from pytest_legalbench.modes.traits import (
    NAVIGATED,
    RETRIEVED,
    SCANNED,
    WHOLE_CORPUS,
    CallShape,
    ModeTraits,
)

if TYPE_CHECKING:
    from pytest_legalbench.llm.client import ModelClient

#: The mode every other mode is paired with and judged against.
BASELINE = "inject"
#: The entry-point group an installed package names its retriever factories in.
ENTRY_POINT_GROUP = "pytest_legalbench.modes"
#: Where the built-in modes are registered from, as error messages name it.
BUILTIN_SOURCE = "pytest-legalbench"
#: What a registered name may look like (it becomes part of item ids and file names).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+:-]*")


@dataclass(frozen=True)
class ModeBuild:
    """What a mode is built from."""

    name: str
    """The mode's canonical name."""
    corpus: Corpus
    settings: ModeSettings
    client: ModelClient | None
    """The model client; None where no model may be called."""
    timeout_s: float
    """Seconds one call of a user's retriever may take (``--legalbench-timeout``)."""


#: Builds a mode.
Builder = Callable[[ModeBuild], Mode]


@dataclass(frozen=True)
class ModeEntry:
    """One registered mode: how it is built, what it says about itself, how its calls are
    planned, and who registered it."""

    build: Builder
    traits: ModeTraits
    shape: CallShape = field(default_factory=CallShape)
    source: str = ""


def retriever_entry(load: Callable[[], object], *, source: str = "",
                    guarded: bool = True) -> ModeEntry:
    """A mode over a user's retriever: ``load()`` gives its factory (called when the mode is
    first built), which is called with the ``RetrieverCorpus``. ``guarded``: the harness
    enforces the timeout around each call (a retriever with its own timeouts, HTTP, is not
    guarded twice)."""
    def build(context: ModeBuild) -> Mode:
        from pytest_legalbench.modes.retriever_mode import RetrieverMode, retriever_corpus

        factory = load()
        corpus = retriever_corpus(context.corpus, context.settings, context.timeout_s)
        try:
            retriever = factory(corpus)  # type: ignore[operator]
        except RetrieverFailed:
            raise
        except Exception as error:  # noqa: BLE001 - the user's factory may raise anything
            raise RetrieverFailed(context.name, None,
                                  f"its factory raised {type(error).__name__}: "
                                  f"{one_line(str(error))}") from None
        if not callable(getattr(retriever, "retrieve", None)):
            raise RetrieverFailed(context.name, None,
                                  f"its factory returned a {type(retriever).__name__}, which "
                                  f"has no retrieve(question) method")
        return RetrieverMode(context.name, retriever, context.corpus, context.settings,
                             timeout_s=context.timeout_s if guarded else None)

    return ModeEntry(build, RETRIEVED, CallShape(), source)


# --- The built-in modes: the registry's table ----------------------------------------------


def _inject(context: ModeBuild) -> Mode:
    from pytest_legalbench.modes.inject import InjectMode

    if context.settings.inject_scope == "set":
        # A benchmark item knows its question's documents (modes.inject_scope); a mode built
        # for questions asked on their own has no set to read.
        raise ModeUnavailable(context.name, "the inject scope 'set' reads the transaction set "
                                            "of a question's documents, and a question asked "
                                            "on its own names none (use the scope corpus or "
                                            "auto)")
    return InjectMode(context.corpus, context.settings)


def _navindex(context: ModeBuild) -> Mode:
    from pytest_legalbench.modes.navigate import NavindexMode

    if context.client is None:
        raise ValueError(f"mode {context.name!r} calls a model: pass a ModelClient")
    return NavindexMode(context.corpus, context.settings, context.client)


def _navagent(context: ModeBuild) -> Mode:
    from pytest_legalbench.modes import navagent

    return navagent.build(context.corpus, context.settings, context.client)


def _navembed(strategy: str) -> Builder:
    def build(context: ModeBuild) -> Mode:
        # Imported here: the vector and ranking modules (numpy among them) load only when a
        # navembed mode is built; torch itself loads only when texts must be embedded.
        from pytest_legalbench.modes import navembed

        return navembed.build(strategy, context.corpus, context.settings, context.client)

    return build


#: How each navembed strategy's calls are planned: a titles pick before the answer, and
#: payloads of at most k units or k chunks (the others fill the budget).
_NAVEMBED_SHAPES = {
    "embed": CallShape(payload="units"), "hybrid": CallShape(payload="units"),
    "rerank": CallShape(payload="units"), "chunks": CallShape(payload="chunks"),
    "titles": CallShape(before_answer="titles_pick"),
}

#: Names that stand for another: the navembed family alone is its default strategy.
ALIASES = {"navembed": f"navembed:{DEFAULT_STRATEGY}"}


def builtin_modes() -> dict[str, ModeEntry]:
    """The registry's table: every mode this package ships, in the order help texts list
    them."""
    table = {
        BASELINE: ModeEntry(_inject, WHOLE_CORPUS, source=BUILTIN_SOURCE),
        "navindex": ModeEntry(_navindex, SCANNED, CallShape(before_answer="index_scan"),
                              BUILTIN_SOURCE),
        "navagent": ModeEntry(_navagent, NAVIGATED, source=BUILTIN_SOURCE),
    }
    for strategy in NAVEMBED_STRATEGIES:
        table[f"navembed:{strategy}"] = ModeEntry(
            _navembed(strategy), RETRIEVED, _NAVEMBED_SHAPES.get(strategy, CallShape()),
            BUILTIN_SOURCE)
    return table


def builtin_traits(name: str) -> ModeTraits:
    """The traits of a built-in mode, or of a user's retriever for any other name (what a
    record written before records carried traits is read with)."""
    entry = builtin_modes().get(name)
    return RETRIEVED if entry is None else entry.traits


# --- Retrievers named by where they are ------------------------------------------------------


@dataclass(frozen=True)
class Scheme:
    """A way to name a retriever by where it is: the name starts with ``prefix``."""

    prefix: str
    entry: Callable[[str], ModeEntry]
    """The mode a name of this scheme stands for; ValueError saying what is wrong with it
    (called once per name, when the run starts)."""
    usage: str
    """How a name of the scheme is written, for help and error texts."""


def _python_entry(spec: str) -> ModeEntry:
    from pytest_legalbench.modes.python_factory import load_factory

    factory = load_factory(spec[len("py:"):])
    return retriever_entry(lambda: factory, source=spec)


def _http_entry(spec: str) -> ModeEntry:
    from pytest_legalbench.modes.http_retriever import HttpRetriever, check_url

    url = check_url(spec)

    def factory(corpus: object) -> object:
        from pytest_legalbench.modes.retriever_api import RetrieverCorpus

        assert isinstance(corpus, RetrieverCorpus)
        return HttpRetriever(url, corpus, timeout_s=corpus.settings.timeout_s)

    # Each attempt has the timeout; retries would outlast a guard around the whole call.
    return retriever_entry(lambda: factory, source=spec, guarded=False)


def _file_entry(spec: str) -> ModeEntry:
    from pytest_legalbench.modes.file_retriever import FileRetriever, RetrievalFile

    path = spec[len("file:"):].strip()
    if not path:
        raise ValueError("file: needs a path: file:PATH.jsonl")
    retrievals = RetrievalFile.read(Path(path).expanduser())
    return retriever_entry(lambda: lambda corpus: FileRetriever(retrievals), source=spec,
                           guarded=False)


def mcp_scheme(servers: Mapping[str, McpServer]) -> Scheme:
    """``mcp:NAME``: navagent's loop over the tools of the configured MCP server ``NAME``
    (``modes.mcp_mode``)."""
    def entry(spec: str) -> ModeEntry:
        server = server_named(spec, servers)

        def build(context: ModeBuild) -> Mode:
            from pytest_legalbench.modes import mcp_mode

            return mcp_mode.build(context.name, server, context.corpus, context.settings,
                                  context.client, timeout_s=context.timeout_s)

        return ModeEntry(build, NAVIGATED, CallShape(), f"{spec} ({server.describe()})")

    return Scheme(MCP_PREFIX, entry, "mcp:NAME")


#: The schemes, tried in order; a plugin of this package adds its own here.
SCHEMES: tuple[Scheme, ...] = (
    Scheme("py:", _python_entry, "py:MODULE:FACTORY"),
    Scheme("http://", _http_entry, "http://HOST:PORT/PATH"),
    Scheme("https://", _http_entry, "https://HOST/PATH"),
    Scheme("file:", _file_entry, "file:PATH.jsonl"),
    mcp_scheme({}),
)


def schemes_with(servers: Mapping[str, McpServer]) -> tuple[Scheme, ...]:
    """The schemes, ``mcp:NAME`` naming the servers in ``servers``."""
    return tuple(mcp_scheme(servers) if s.prefix == MCP_PREFIX else s for s in SCHEMES)


def scheme_of(spec: str, schemes: Iterable[Scheme] = SCHEMES) -> Scheme | None:
    """The scheme ``spec`` is written in, if any (prefixes are matched case-insensitively)."""
    lowered = spec.strip().lower()
    return next((s for s in schemes if lowered.startswith(s.prefix)), None)


# --- The registry ----------------------------------------------------------------------------


class ModeRegistry:
    """Every mode a run can name: registered entries by name, and the schemes."""

    def __init__(self, entries: Mapping[str, ModeEntry], *,
                 schemes: tuple[Scheme, ...] = SCHEMES,
                 timeout_s: float | None = None) -> None:
        self._entries = dict(entries)
        self.schemes = schemes
        self.timeout_s = DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s
        self._named: dict[str, ModeEntry] = {}
        """Entries of scheme names, made when each was first resolved."""

    @classmethod
    def registered(cls, sources: Iterable[tuple[str, object]], *,
                   schemes: tuple[Scheme, ...] = SCHEMES,
                   timeout_s: float | None = None) -> ModeRegistry:
        """A registry of what each source registered, ``(where, {name: factory or
        ModeEntry})``; ValueError (TypeError for a value of the wrong type) naming the
        source of a bad or repeated name."""
        entries: dict[str, ModeEntry] = {}
        for source, table in sources:
            if not isinstance(table, Mapping):
                raise TypeError(f"{source}: pytest_legalbench_modes() must return a dict of "
                                 f"mode name to factory, not {type(table).__name__}")
            for name, value in table.items():
                _check_name(name, source, schemes)
                clash = next((known for known in entries
                              if known.lower() == str(name).lower()), None)
                if clash is not None:
                    raise ValueError(f"mode {name!r} of {source} is registered already, by "
                                     f"{entries[clash].source}")
                entries[name] = (dataclasses.replace(value, source=value.source or source)
                                 if isinstance(value, ModeEntry)
                                 else _factory_entry(name, value, source))
        return cls(entries, schemes=schemes, timeout_s=timeout_s)

    def names(self) -> tuple[str, ...]:
        """The registered names, in registration order."""
        return tuple(self._entries)

    def resolve(self, spec: str) -> str:
        """The canonical name of ``spec``: a registered name (any case; an alias), or a
        scheme name checked now; ValueError listing what can be named otherwise."""
        text = spec.strip() if isinstance(spec, str) else ""
        if text in self._entries or text in self._named:
            return text
        scheme = scheme_of(text, self.schemes)
        if scheme is not None:
            try:
                self._named[text] = scheme.entry(text)
            except (TypeError, ValueError) as error:
                raise ValueError(f"{text}: {error}") from None
            return text
        lowered = ALIASES.get(text.lower(), text.lower())
        found = [name for name in self._entries if name.lower() == lowered]
        if len(found) == 1:
            return found[0]
        aliases = "; ".join(f"{a} alone means {b}" for a, b in ALIASES.items()
                            if b in self._entries)
        raise ValueError(
            f"unknown mode {spec!r}: choose one of {', '.join(self._entries)}"
            + (f" ({aliases})" if aliases else "")
            + f", or name a retriever: {', '.join(s.usage for s in self.schemes)}")

    def entry(self, name: str) -> ModeEntry:
        """The entry of a canonical name (resolving it first when it is not one)."""
        found = self._entries.get(name) or self._named.get(name)
        return found if found is not None else self.entry(self.resolve(name))

    def traits(self, name: str) -> ModeTraits:
        """What the mode says about itself."""
        return self.entry(name).traits

    def shape(self, name: str) -> CallShape:
        """How the mode's calls are planned."""
        return self.entry(name).shape

    def build(self, name: str, corpus: Corpus, settings: ModeSettings,
              client: ModelClient | None) -> Mode:
        """Build the mode ``name`` on ``corpus``; modes that call a model need ``client``."""
        canonical = self.resolve(name)
        return self.entry(canonical).build(
            ModeBuild(canonical, corpus, settings, client, self.timeout_s))


def _check_name(name: object, source: str, schemes: Iterable[Scheme]) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"{source}: mode name {name!r} must be letters, digits and _ . + : - "
                         f"(starting with a letter or digit)")
    if scheme_of(name, schemes) is not None or name.lower() in ALIASES:
        raise ValueError(f"{source}: mode name {name!r} is reserved (a scheme or an alias)")


def _factory_entry(name: str, value: object, source: str) -> ModeEntry:
    if not callable(value):
        raise TypeError(f"{source}: mode {name!r} is a {type(value).__name__}, not a factory "
                         f"(a class or function called with the corpus)")
    return retriever_entry(lambda: value, source=source)


def entry_point_sources() -> list[tuple[str, dict[str, ModeEntry]]]:
    """The retriever factories installed packages name in the ``pytest_legalbench.modes``
    entry-point group, each loaded when its mode is first built."""
    found = []
    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        owner = f" of {point.dist.name}" if point.dist is not None else ""
        source = f"entry point {point.name} = {point.value}{owner}"
        found.append((source, {point.name: retriever_entry(point.load, source=source)}))
    return found


def default_registry(timeout_s: float | None = None,
                     added: Iterable[tuple[str, object]] = (),
                     mcp_servers: Mapping[str, McpServer] | None = None) -> ModeRegistry:
    """The built-in modes, installed packages' modes and ``added`` sources (``(where,
    {name: factory})``), as a registry outside a pytest session (the ``legalbench``
    command); ``mcp_servers``: what ``mcp:NAME`` may name."""
    return ModeRegistry.registered([(BUILTIN_SOURCE, builtin_modes()), *entry_point_sources(),
                                    *added], timeout_s=timeout_s,
                                   schemes=schemes_with(mcp_servers or {}))


def build_mode(spec: str, corpus: Corpus, settings: ModeSettings,
               client: ModelClient | None) -> Mode:
    """Build the mode ``spec`` names on ``corpus`` from the default registry; modes that call
    a model need ``client``."""
    return default_registry().build(spec, corpus, settings, client)
