"""The titles pick without a language model: provisions whose headings share the question's
rarest words.

It reads only the request: the ``<titles>`` listing and ``<question>`` of the last user turn
(one ``node_id | doc_id | clause | title`` line per provision) and the cap in the forced
tool's schema. A line scores by the rarity-weighted question terms its clause and title
carry; lines that share none are never picked; ties go to the smaller node id.
"""

from __future__ import annotations

import json
import math
from collections import Counter

from pytest_legalbench.reference_backend.lexical import content_terms
from pytest_legalbench.reference_backend.prompt_parts import question_of, tagged_text
from pytest_legalbench.reference_backend.wire import MessagesRequest, invalid

SELECT_TITLES = "select_titles"
#: Picks made when the tool's schema sets no cap.
DEFAULT_PICKS = 10
_PRECISION = 6


def select_titles_input(request: MessagesRequest) -> dict[str, object]:
    """The ``select_titles`` input for ``request``: the best-matching node ids, capped."""
    user_text = request.last_user_text
    listing = tagged_text(user_text, "titles")
    if listing is None:
        raise invalid("messages: a select_titles request needs a <titles> listing in its last "
                      "user turn")
    lines = []
    for number, line in enumerate(listing.splitlines(), start=1):
        if not line.strip():
            continue
        # Split on the first three bars only: a title may itself hold one.
        parts = [part.strip() for part in line.split("|", 3)]
        if len(parts) != 4 or not parts[0]:
            raise invalid(f"messages: <titles> line {number} is not 'node_id | doc_id | clause "
                          f"| title': {line[:80]!r}")
        lines.append((parts[0], set(content_terms(f"{parts[2]} {parts[3]}"))))
    wanted = set(content_terms(question_of(user_text)))
    frequency = Counter(term for _, terms in lines for term in terms & wanted)
    scored = []
    for node_id, terms in lines:
        score = sum(math.log(1.0 + len(lines) / frequency[t]) for t in terms & wanted)
        if score > 0:
            scored.append((-round(score, _PRECISION), node_id))
    cap = _schema_cap(request)
    return {"node_ids": [node_id for _, node_id in sorted(scored)[:cap]]}


def _schema_cap(request: MessagesRequest) -> int:
    """The ``maxItems`` of ``node_ids`` in the forced tool's schema, else the default."""
    for segment in request.segments[:len(request.tool_names)]:
        try:
            shown = json.loads(segment.text)
        except json.JSONDecodeError:
            continue
        if not isinstance(shown, dict) or shown.get("name") != SELECT_TITLES:
            continue
        schema = shown.get("input_schema")
        properties = schema.get("properties") if isinstance(schema, dict) else None
        field = properties.get("node_ids") if isinstance(properties, dict) else None
        limit = field.get("maxItems") if isinstance(field, dict) else None
        if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0:
            return limit
    return DEFAULT_PICKS
