"""``search``: the corpus's best retriever asked for provisions, which are named with snippets,
never shown whole (reading them is ``read_provision``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from pytest_legalbench.modes.base import Corpus, Mode, ModeSettings, ModeUnavailable, Provision
from pytest_legalbench.modes.index_tools.bounds import (
    SEARCH_DEFAULT,
    SEARCH_MOST,
    ToolError,
    ToolResult,
    finished,
    text_argument,
    whole_number,
)
from pytest_legalbench.modes.index_tools.lookup import CorpusLookup
from pytest_legalbench.modes.names import DEFAULT_STRATEGY

#: What answers a search: a query to provisions, best first (the default navembed strategy).
Searcher = Callable[[str], Sequence[Provision]]


def search(lookup: CorpusLookup, searcher: Searcher | None, query: object,
           limit: object = None, offset: object = None) -> ToolResult:
    """The best provisions for ``query`` from rank ``offset``, at most ``limit``: ids,
    clauses, headings and snippets."""
    asked = text_argument(query, "query")
    most = whole_number(limit, "limit", SEARCH_DEFAULT, 1, SEARCH_MOST)
    if searcher is None:
        raise ToolError("search is unavailable on this server (no retriever could be built); "
                        "use outline and define_term")
    found = [p for p in searcher(asked) if p.node_id in lookup.nodes]
    start = whole_number(offset, "offset", 0, 0, len(found))
    hits = [_hit(lookup, p.node_id) for p in found[start:start + most]]
    left = len(found) - start - len(hits)
    notes = ([(f"{left} more hits; call again with offset={start + len(hits)} for the next "
               f"ones")] if left > 0 else [])
    data = {"query": asked, "offset": start, "hits": hits}
    return finished("search", data, notes)


def _hit(lookup: CorpusLookup, node_id: str) -> dict[str, object]:
    """A hit: its id, clause, where it sits (document title and headings), size, snippet."""
    node = lookup.nodes[node_id]
    sketch = lookup.sketch(node)
    # The context line ends with the heading: it is not repeated.
    del sketch["heading"]
    return {**sketch, "context": lookup.context(node)}


def default_searcher(corpus: Corpus, settings: ModeSettings) -> Searcher:
    """The default navembed strategy as a searcher, built on the first search (embedding a
    corpus takes a while; the other tools answer at once); ToolError when it cannot run."""
    built: list[Mode] = []
    lock = threading.Lock()

    def search_with(query: str) -> Sequence[Provision]:
        with lock:
            if not built:
                from pytest_legalbench.modes import navembed

                try:
                    built.append(navembed.build(DEFAULT_STRATEGY, corpus, settings, None))
                except ModeUnavailable as error:
                    raise ToolError(f"search is unavailable: {error.reason}") from None
        return built[0].retrieve(query).provisions

    return search_with
