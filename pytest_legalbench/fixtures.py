"""Session fixtures: settings, the corpus and its index, built once per session (per worker).

The corpus and index modules are imported inside the fixtures, so ``pytest --help`` and
sessions that never ask for them do not pay for compiling the parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from .settings import Settings

if TYPE_CHECKING:
    from .ingest.document import Document
    from .navindex.node import DocumentIndex


@pytest.fixture(scope="session")
def legalbench_settings(pytestconfig: pytest.Config) -> Settings:
    """The resolved pytest-legalbench settings of this session."""
    from .plugin import SETTINGS_KEY

    return pytestconfig.stash[SETTINGS_KEY]


@pytest.fixture(scope="session")
def legalbench_documents(legalbench_settings: Settings) -> tuple[Document, ...]:
    """The documents of the selected profile, read from the corpus folder."""
    from .corpus_index import Selection, load_documents
    from .ingest.document import CorpusError

    try:
        return load_documents(Selection(profile=legalbench_settings.profile),
                              corpus_dir=legalbench_settings.corpus_dir,
                              cache_dir=legalbench_settings.cache_dir)
    except CorpusError as error:
        pytest.fail(f"legalbench corpus: {error}", pytrace=False)


@pytest.fixture(scope="session")
def legalbench_index(legalbench_settings: Settings,
                     legalbench_documents: tuple[Document, ...]) -> tuple[DocumentIndex, ...]:
    """The structured index of every document of the profile, from the cache when built before."""
    from .corpus_index import build_indexes

    return build_indexes(legalbench_documents, cache_dir=legalbench_settings.cache_dir)
