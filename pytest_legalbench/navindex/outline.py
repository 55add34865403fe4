"""Building a document's provision tree from its numbering.

Each line is read as a structural heading (schedules, articles, sections, decimal clauses,
definitions), an enumeration item, a definition or running text, and placed on the open path
by ``navindex.outline_builder``, which holds the ranking and sequence rules. Tables of contents
are kept apart; text without usable numbering gets a paragraph outline.
"""

from __future__ import annotations

import re

from pytest_legalbench.navindex.defined_terms import definition_head
from pytest_legalbench.navindex.draft import (
    Draft,
    Outline,
    add_lead_ins,
    close_spans,
    document_order,
)
from pytest_legalbench.navindex.headings import split_title
from pytest_legalbench.navindex.lines import Line, split_lines
from pytest_legalbench.navindex.markers import (
    LIST_KINDS,
    STRUCTURAL_RANKS,
    Marker,
    classify,
    is_filing_number,
)
from pytest_legalbench.navindex.outline_builder import LIST_RANK, OutlineBuilder
from pytest_legalbench.navindex.term_rows import term_rows
from pytest_legalbench.navindex.toc import TocRegion, find_toc_regions

_SHORT_DOCUMENT = 4000
_UPPER_HEADING = re.compile(r"^[^a-z]*[A-Z]{3}[^a-z]*$")
_DEFINITIONS_TITLE = re.compile(r"\bdefin|\binterpretation\b", re.IGNORECASE)
# Inside a definitions section every paragraph that opens with a quoted term defines it,
# whatever verb follows ("shall occur if", "and the sign $ mean").
_QUOTED_OPENING = re.compile(r"[“\"]([^”\"\n]{1,80})[”\"]")
# The words with which the parties pass from their recitals to what they agree. The recitals
# end there: the numbered provisions after them are the agreement, not recitals, even when
# no ARTICLE heading outranks them.
_OPERATIVE_WORDS = re.compile(
    r"^\W*now,?\s+therefore\b|\bagree[sd]?\s+as\s+follows\b|\bhereby\s+agree[sd]?\s*:",
    re.IGNORECASE)


def _has_operative_words(text: str) -> bool:
    """``_OPERATIVE_WORDS.search(text)``, skipping the regex where it cannot match.

    The regex has no literal prefix, so it is tried at every character of every line. Each
    alternative holds "therefore", "follow" or "hereby" ("agree" is in most lines, as
    "Agreement"), and no character outside ASCII matches any of their letters
    case-insensitively (only i, k and s have such partners: the dotless and dotted i, the
    Kelvin sign, the long s), so every match leaves one of them in the lower-cased text.
    """
    lowered = text.lower()
    if "therefore" not in lowered and "follow" not in lowered and "hereby" not in lowered:
        return False
    return _OPERATIVE_WORDS.search(text) is not None


def _level_reference(number: tuple[int, ...], label: str) -> str:
    parens = "".join(re.findall(r"\([A-Za-z0-9]{1,4}\)", label))
    return ".".join(str(part) for part in number) + parens


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48] or "x"


def build_outline(text: str) -> Outline:
    """Parse ``text`` into drafts; every span satisfies ``draft text == text[start:end]``."""
    lines = split_lines(text)
    regions = find_toc_regions(lines)
    builder = OutlineBuilder(text)
    in_region = {i: region for region in regions for i in range(region.first, region.last + 1)}
    rows = term_rows(lines)
    index = 0
    while index < len(lines):
        region = in_region.get(index)
        if region is not None:
            _add_toc(builder, lines, region)
            index = region.last + 1
            continue
        if index in rows and not _in_signatures(builder):
            _add_row(builder, lines[index], rows[index])
        else:
            _add_line(builder, lines, index)
        index += 1
    # A long text with one or two numbered lines is still unstructured for navigation.
    if builder.accepted == 0 or (builder.accepted < 3 and len(text) > _SHORT_DOCUMENT):
        builder = _paragraph_outline(text, lines, regions)
    close_spans(builder.root, text)
    add_lead_ins(builder.root, list(builder.order), text, builder.unique)
    spans = tuple((lines[r.first].start, lines[r.last].end) for r in regions)
    return Outline(tuple(document_order(builder.root)), spans)


#: Running text is at least this long; signature lines are short even when run together.
_PROSE_CHARS = 200
_WORD = re.compile(r"[A-Za-z]+")
_SIGNATURE_CUE = re.compile(r"\bBy:|\bName:|\bTitle:|/s/|\bIts:")


def _is_prose(text: str) -> bool:
    """Whether a line reads as a paragraph of sentences: long, mostly lower-case words, no
    signature lines run into it."""
    if len(text) < _PROSE_CHARS or _SIGNATURE_CUE.search(text):
        return False
    words = _WORD.findall(text)
    return len(words) >= 30 and sum(w.islower() for w in words) >= 0.6 * len(words)


def _in_signatures(builder: OutlineBuilder) -> bool:
    return any(d.kind == "signature" for d in builder.stack)


def _add_row(builder: OutlineBuilder, line: Line, label: str) -> None:
    """A row of a table of terms: a node under the provision the table sits in, titled with
    the row's label."""
    while builder.stack[-1].rank == LIST_RANK:
        builder.stack.pop()
    if builder.stack[-1] is builder.root:
        builder.open(Draft("front_matter", "front_matter", LIST_RANK - 1, "", (), "",
                           line.start, local_id="front"), builder.root)
    parent = builder.stack[-1]
    base = parent.local_id if parent is not builder.root else ""
    builder.open(Draft("row", "row", LIST_RANK, "", (), label, line.start,
                       local_id=f"{base}-row-{_slug(label)}".lstrip("-")), parent)
    builder.accepted += 1


def _add_toc(builder: OutlineBuilder, lines: list[Line], region: TocRegion) -> None:
    builder.truncate(1)
    container = Draft("toc", "toc", 0, "", (), "Table of Contents", lines[region.first].start,
                      local_id="toc")
    builder.open(container, builder.root)
    for line in lines[region.first:region.last + 1]:
        if line.marker is None or line.index == region.heading:
            continue
        # The citation key is kept so references to unfiled attachments can be told apart;
        # it never enters the lookup table of real provisions.
        entry = Draft("toc_entry", "toc_entry", LIST_RANK, line.marker.label, line.marker.number,
                      line.marker.title, line.start, local_id="toc-entry",
                      full_reference=_names(line.marker)[1], is_toc_entry=True)
        builder.truncate(2)
        builder.open(entry, container)
    container.end = lines[region.last].end
    builder.truncate(1)


def _add_line(builder: OutlineBuilder, lines: list[Line], index: int) -> None:
    _place_line(builder, lines, index)
    # After the line is placed: the words of agreement often end the last numbered
    # paragraph's own line.
    if builder.numbered_preamble() and _has_operative_words(lines[index].text):
        builder.agreement_begins = True


def _place_line(builder: OutlineBuilder, lines: list[Line], index: int) -> None:
    line = lines[index]
    marker = line.marker
    if (marker is not None and marker.kind == "schedule" and len(builder.order) == 1
            and marker.label.lower().startswith("exhibit")
            and is_filing_number(marker.label.partition(" ")[2])):
        # "Exhibit 10.1 SUPPLY AGREEMENT This Agreement ..." opening a document is the
        # filing's exhibit number before the instrument's title: the opening, not an exhibit.
        marker = None
    if _has_operative_words(line.text) and any(d.kind == "recitals" for d in builder.stack):
        builder.recitals_ended = True
    head = None
    if marker is None or marker.kind in LIST_KINDS:
        body = line.text if marker is None else line.text[len(marker.label):].lstrip(" \t|")
        head = definition_head(body) or (_quoted_opening(body) if _in_definitions(builder) else None)
    if (marker is not None and marker.kind not in ("toc_heading", "whereas")) or head is not None:
        draft = _open_marker(builder, lines, index, marker, head)
        if draft is not None:
            builder.accepted += 1
            if head is not None:
                draft.defines.append(head)
            elif marker is not None:
                _open_run_in_item(builder, line, marker)
            return
    if (marker is None and head is None and _in_signatures(builder)
            and _is_prose(line.text) and builder.stack[-1].kind != "paragraph"):
        # A paragraph of running text ends the signature block: what follows the signatures
        # without a heading of its own (a guarantee, an unlabelled attachment) is no
        # signature, and must stay reachable.
        builder.truncate(1)
        builder.open(Draft("paragraph", "paragraph", 0, "", (), split_title(line.text),
                           line.start, local_id="after-signatures"), builder.root)
        return
    if marker is not None and marker.kind == "whereas":
        builder.place_structural(marker, line.start, STRUCTURAL_RANKS["whereas"], "whereas",
                                 kind="recital", local_id="recital")
        return
    if builder.stack[-1] is builder.root:
        # Front matter yields to the first heading of any rank.
        builder.open(Draft("front_matter", "front_matter", LIST_RANK - 1, "", (), "",
                           line.start, local_id="front"), builder.root)
    elif builder.stack[-1].kind == "row":
        # Text after a table of terms is not the last row's: it is a paragraph of its own.
        row = builder.stack.pop()
        assert row.parent is not None
        builder.open(Draft("paragraph", "row", LIST_RANK, "", (), split_title(line.text),
                           line.start, local_id=f"{row.local_id}-after"), row.parent)


def _open_run_in_item(builder: OutlineBuilder, line: Line, marker: Marker) -> None:
    """Open the first item of a list that starts on its parent's line ("(b) (i) Funding by
    Lenders. ...", "Section 2.1 (a) the Borrower ..."), so that the items after it, each on
    a line of its own, continue a list that has begun."""
    at = marker.body_offset
    inner = classify(line.text, at)
    if inner is None or inner.kind not in LIST_KINDS or inner.label == marker.label:
        return
    start = line.start + len(line.text) - len(line.text[at:].lstrip(" \t|"))
    if builder.place_list(inner, start) is not None:
        builder.accepted += 1


def _in_definitions(builder: OutlineBuilder) -> bool:
    """Whether the innermost open section is a definitions section."""
    section = next((d for d in reversed(builder.stack) if d.stack_key.startswith("level")
                    or d.kind in ("article", "schedule")), None)
    return section is not None and bool(_DEFINITIONS_TITLE.search(section.title))


def _quoted_opening(text: str) -> str | None:
    """The term of a paragraph that opens with a quoted term ("X" shall occur if ...)."""
    match = _QUOTED_OPENING.match(text)
    return match.group(1).strip().rstrip(",;:.").strip() if match else None


def _open_marker(builder: OutlineBuilder, lines: list[Line], index: int, marker: Marker | None,
                 head: str | None) -> Draft | None:
    line = lines[index]
    if marker is None:
        assert head is not None
        return builder.place_structural(
            Marker("definition", "", (), head, 0), line.start, STRUCTURAL_RANKS["definition"],
            "definition", local_id=f"def-{_slug(head)}")
    if marker.kind in LIST_KINDS:
        draft = builder.place_list(marker, line.start)
        if draft is not None and head is not None:
            draft.kind = "definition"
        return draft
    if marker.kind in ("section", "decimal1", "decimal2", "decimal3", "decimal4"):
        depth = min(len(marker.number), 4)
        style = "section" if marker.kind == "section" else "decimal"
        if not builder.level_fits(depth, marker.number, style):
            if depth == 1 and style == "decimal":
                as_list = Marker("num_list", marker.label, marker.number, marker.title,
                                 marker.body_offset)
                return builder.place_list(as_list, line.start)
            return None
        reference = _level_reference(marker.number, marker.label)
        draft = builder.place_structural(
            marker, line.start, 1 + depth, f"level{depth}",
            kind="section" if depth <= 2 else "clause", local_id=reference, reference=reference)
        draft.style = style
    else:
        local_id, reference = _names(marker)
        draft = builder.place_structural(marker, line.start, STRUCTURAL_RANKS[marker.kind],
                                         marker.kind, local_id=local_id, reference=reference)
    _title_from_next_line(draft, lines, index)
    return draft


def _names(marker: Marker) -> tuple[str, str]:
    """Local id and citation key of a non-numeric structural heading."""
    if marker.kind == "article":
        return f"art-{marker.number[0]}", f"article:{marker.number[0]}"
    if marker.kind == "schedule":
        word, _, num = marker.label.partition(" ")
        num = re.sub(r"\s+", "", num).lower()
        return _slug(marker.label), (f"{word.lower()}:{num}" if num else "")
    return {"signature": "signatures", "recitals": "recitals"}.get(marker.kind, marker.kind), ""


def _title_from_next_line(draft: Draft, lines: list[Line], index: int) -> None:
    """Take "ARTICLE I" / "DEFINITIONS" style titles printed on the following line."""
    if draft.title or index + 1 >= len(lines):
        return
    following = lines[index + 1]
    own_rest = lines[index].text[len(draft.label):].strip(" \t.:|-")
    # "ARTICLE I ARTICLE I": the number printed twice says nothing more.
    if own_rest.casefold() == draft.label.casefold():
        own_rest = ""
    if own_rest or following.marker is not None or len(following.text) > 80:
        return
    if split_title(following.text) == following.text.strip().rstrip(".:"):
        draft.title = following.text.strip().rstrip(".:")


def _paragraph_outline(text: str, lines: list[Line], regions: list[TocRegion]) -> OutlineBuilder:
    """Fallback for text without usable numbering: upper-case headings and paragraphs."""
    builder = OutlineBuilder(text)
    starts = {region.first: region for region in regions}
    skip = {i for region in regions for i in range(region.first, region.last + 1)}
    heading: Draft | None = None
    for line in lines:
        if line.index in starts:
            _add_toc(builder, lines, starts[line.index])
            heading = None
        if line.index in skip:
            continue
        if len(line.text) <= 80 and _UPPER_HEADING.match(line.text):
            heading = Draft("section", "heading", 1, "", (), line.text.strip().rstrip(":."),
                            line.start, local_id=f"h-{_slug(line.text)}")
            builder.truncate(1)
            builder.open(heading, builder.root)
            continue
        parent = heading or builder.root
        builder.truncate(2 if heading is not None else 1)
        builder.open(Draft("paragraph", "paragraph", 2, "", (), split_title(line.text),
                           line.start, local_id=f"p{len(builder.order)}"), parent)
    return builder


