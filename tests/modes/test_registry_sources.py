"""The mode registry: the built-in table, what users register (hooks, entry points) and the
schemes that name a retriever by where it is; every bad name is refused in one line naming
where it came from."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_legalbench.modes.inject import InjectMode
from pytest_legalbench.modes.names import mode_names
from pytest_legalbench.modes.navagent import NavagentMode
from pytest_legalbench.modes.navigate import NavindexMode
from pytest_legalbench.modes.registry import (
    BASELINE,
    BUILTIN_SOURCE,
    ModeEntry,
    ModeRegistry,
    builtin_modes,
    builtin_traits,
    default_registry,
    entry_point_sources,
    retriever_entry,
)
from pytest_legalbench.modes.retriever_api import Passage
from pytest_legalbench.modes.traits import NAVIGATED, RETRIEVED, SCANNED, WHOLE_CORPUS, CallShape


def _registry(**added: object) -> ModeRegistry:
    return ModeRegistry.registered([(BUILTIN_SOURCE, builtin_modes()), ("conftest.py", added)])


def test_the_table_lists_every_built_in_mode_with_what_its_class_says() -> None:
    table = builtin_modes()
    assert tuple(table) == mode_names()
    assert BASELINE == "inject" and table[BASELINE].traits == WHOLE_CORPUS
    assert table["inject"].traits == InjectMode.traits
    assert table["navindex"].traits == NavindexMode.traits == SCANNED
    assert table["navagent"].traits == NavagentMode.traits == NAVIGATED
    from pytest_legalbench.modes.chunks import ChunksMode
    from pytest_legalbench.modes.node_ranking import NodeRanking
    from pytest_legalbench.modes.titles import TitlesMode

    for cls in (ChunksMode, TitlesMode, NodeRanking):
        assert cls.traits == RETRIEVED
    assert all(table[f"navembed:{s}"].traits == RETRIEVED for s in
               ("embed", "embed+xref", "hybrid", "closure", "rerank", "titles", "chunks"))
    assert table["navindex"].shape == CallShape(before_answer="index_scan")
    assert table["navembed:titles"].shape == CallShape(before_answer="titles_pick")
    assert table["navembed:chunks"].shape.payload == "chunks"
    assert table["navembed:hybrid"].shape.payload == "units"
    assert table["navembed:closure"].shape == CallShape()
    assert {entry.source for entry in table.values()} == {BUILTIN_SOURCE}
    # What a record without traits is read with: the built-in's, or a retriever's.
    assert builtin_traits("navagent") == NAVIGATED and builtin_traits("paragraphs") == RETRIEVED


def test_names_resolve_by_case_alias_and_registration() -> None:
    registry = _registry(paragraphs=lambda corpus: None)
    assert registry.resolve(" NavIndex ") == "navindex"
    assert registry.resolve("navembed") == "navembed:closure"
    assert registry.resolve("paragraphs") == registry.resolve("Paragraphs") == "paragraphs"
    assert registry.names()[:3] == ("inject", "navindex", "navagent")
    assert registry.names()[-1] == "paragraphs"
    with pytest.raises(ValueError) as unknown:
        registry.resolve("rag")
    message = str(unknown.value)
    assert message.startswith("unknown mode 'rag': choose one of inject, navindex, navagent, "
                              "navembed:embed")
    assert "paragraphs (navembed alone means navembed:closure)" in message
    assert message.endswith("or name a retriever: py:MODULE:FACTORY, http://HOST:PORT/PATH, "
                            "https://HOST/PATH, file:PATH.jsonl, mcp:NAME")


@pytest.mark.parametrize(("added", "problem"), [
    ({"inject": lambda c: None}, ("mode 'inject' of conftest.py is registered already, by "
                                 "pytest-legalbench")),
    ({"NAVINDEX": lambda c: None}, "mode 'NAVINDEX' of conftest.py is registered already"),
    ({"my mode": lambda c: None}, "conftest.py: mode name 'my mode' must be letters, digits"),
    ({"": lambda c: None}, "conftest.py: mode name '' must be"),
    ({"py:mine": lambda c: None}, "conftest.py: mode name 'py:mine' is reserved"),
    ({"navembed": lambda c: None}, "conftest.py: mode name 'navembed' is reserved"),
    ({"file:x": lambda c: None}, "conftest.py: mode name 'file:x' is reserved"),
])
def test_a_bad_or_repeated_name_is_refused_naming_its_source(added: dict[str, object],
                                                              problem: str) -> None:
    with pytest.raises(ValueError, match="^" + problem.replace("(", r"\(").replace(")", r"\)")):
        _registry(**added)


def test_a_hook_must_return_factories_in_a_dict() -> None:
    with pytest.raises(TypeError, match="mode 'x' is a str, not a factory"):
        _registry(x="paragraphs")
    with pytest.raises(TypeError, match=r"^conftest.py: pytest_legalbench_modes\(\) must return "
                                        r"a dict of mode name to factory, not list"):
        ModeRegistry.registered([("conftest.py", ["paragraphs"])])


def test_an_entry_given_as_such_is_taken_as_it_is() -> None:
    entry = retriever_entry(lambda: (lambda corpus: None))
    registry = _registry(answering=ModeEntry(entry.build, NAVIGATED))
    assert registry.traits("answering") == NAVIGATED
    assert registry.entry("answering").source == "conftest.py"


@pytest.fixture
def on_path(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("own_retrievers")]:
            del sys.modules[name]


def test_py_names_a_factory_on_the_import_path(on_path: Path) -> None:
    (on_path / "own_retrievers.py").write_text(textwrap.dedent("""
        from pytest_legalbench import Passage

        class Fixed:
            def __init__(self, corpus):
                self.doc = corpus.doc_ids[0]
            def retrieve(self, question):
                return [Passage(self.doc, "anything")]

            @classmethod
            def create(cls, corpus):
                return cls(corpus)

        NOT_A_FACTORY = 3
        """), encoding="utf-8")
    registry = default_registry()
    assert registry.resolve("py:own_retrievers:Fixed") == "py:own_retrievers:Fixed"
    assert registry.traits("py:own_retrievers:Fixed.create") == RETRIEVED
    for spec, problem in [
            ("py:own_retrievers", "does not name a factory: write py:package.module:factory"),
            ("py:no_such_module:f", "cannot import 'no_such_module' (ModuleNotFoundError"),
            ("py:own_retrievers:Missing", "'own_retrievers' has no 'Missing'"),
            ("py:own_retrievers:NOT_A_FACTORY", "is a int, not a callable factory")]:
        with pytest.raises(ValueError, match=f"^{spec}: "):
            registry.resolve(spec)
        with pytest.raises(ValueError) as refused:
            registry.resolve(spec)
        assert problem in str(refused.value)


@pytest.mark.parametrize(("spec", "problem"), [
    ("http://", "is not an http:// or https:// URL with a host"),
    ("https://user:secret@example.com/r", "carries credentials; a retrieval service is sent none"),
    ("http://localhost:port/r", "Port could not be cast to integer value"),
    ("file:", "file: needs a path"),
    ("file:/no/such/retrievals.jsonl", "cannot read the retrieval file"),
])
def test_a_scheme_name_is_checked_when_it_is_resolved(spec: str, problem: str) -> None:
    with pytest.raises(ValueError) as refused:
        default_registry().resolve(spec)
    assert str(refused.value).startswith(f"{spec}: ") and problem in str(refused.value)


def test_installed_packages_register_factories_by_entry_point(on_path: Path) -> None:
    (on_path / "own_retrievers.py").write_text(textwrap.dedent("""
        from pytest_legalbench import Passage

        def make(corpus):
            return None
        """), encoding="utf-8")
    info = on_path / "own_retrievers-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: own-retrievers\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[pytest_legalbench.modes]\n"
                                           "installed-one = own_retrievers:make\n",
                                           encoding="utf-8")
    sources = dict(entry_point_sources())
    source = "entry point installed-one = own_retrievers:make of own-retrievers"
    assert set(sources[source]) == {"installed-one"}
    # Loaded when the mode is first built, not when it is listed.
    assert "own_retrievers" not in sys.modules
    registry = default_registry()
    assert registry.resolve("installed-one") == "installed-one"
    assert registry.entry("installed-one").source == source
    assert Passage("d", "t").doc_id == "d"
