"""Inferring titles, roles and amendment links for documents that come without a manifest."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath

from pytest_legalbench.ingest.document import Document

#: Roles that attach to another document and so are linked to one when a manifest does not.
ATTACHED_ROLES = ("amendment", "side_letter", "schedule", "ancillary")

#: Roles a document must have to be the target of such a link.
TARGET_ROLES = ("base", "conformed")

# Only the opening of a document is read: titles and recitals naming the amended agreement
# come first, and a clause deep inside a contract says nothing about the document's role.
_OPENING_CHARS = 4000
_TITLE_MAX_CHARS = 150
_FALLBACK_CHARS = 80
_LABEL_LOOKAHEAD_LINES = 3


def _caseless(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | flags)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_INSTRUMENT = _caseless(
    r"\b(?:agreements?|amendments?|addendum|contract|lease|licen[cs]e|indenture|deed|"
    r"letter|schedules?|exhibit|annex|appendix|attachment|rider|supplement|plan|note|"
    r"guarant(?:y|ee)|memorandum|charter|bylaws|certificate|consent|waiver|joinder|"
    r"statement of work|terms and conditions|order)\b"
)
# An EDGAR exhibit number has a digit or a parenthesis; "Exhibit A" is a label of its own.
_EDGAR_EXHIBIT = _caseless(r"ex(?:hibit)?[\s.-]*(?=[\w.()'-]*[\d(])[\w.()'-]+")
_NOISE_LINES = (
    _EDGAR_EXHIBIT,  # a filing's exhibit number: "EX-10.1", "Exhibit (k)(1)", "Exhibit s.2"
    _caseless(r"(?:execution|conformed|final|composite)\s+(?:version|copy|form)|draft"),
    _caseless(r".*confidential\s+treatment.*|confidential(?:\W.*)?|"
              r"confidential\s+(?:and\s+proprietary|information|portions?)\b.*"),
    _caseless(r"\S+\.(?:html?|txt|pdf|docx?|rtf)"),  # file names
    _caseless(r"(?:page\s+)?[-\s]*(?:\d+|[ivxlc]+)[-\s]*(?:of\s+\d+)?"),  # page numbers
    re.compile(r"\[.*\]|\W*"),  # "[COMPANY LOGO]" placeholders and rules of dashes or stars
    _caseless(r"(?:agreement|contract)\s+(?:number|no\.?|#)\s*\S+"),
    _caseless(r"table\s+of\s+contents"),
    # Numbered section headings ("Section 2. Amendment of the Agreement") are not titles.
    _caseless(r"(?:(?:section|article|clause)\s+[\dIVX]+|\d+(?:\.\d+)*\.|\(\w+\))\s.*"),
)
# Filing legends that EDGAR exhibits open with, often run into the title on one line.
_LEGEND = _caseless(r"confidential|omitted|redacted|securities\s+and\s+exchange|rule\s+24b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(\[])")
_EXHIBIT_PREFIX = _caseless(r"^" + _EDGAR_EXHIBIT.pattern + r"\s+")
_PARTY_CLAUSE = _caseless(r"\s+(?:by\s+and\s+)?(?:between|among)\s+.*$|,?\s+dated\s+.*$")
_RESTATED_PREFIX = _caseless(r"(?:(?:second|third|fourth|fifth)\s+)?amended\s+and\s+restated")
_CONNECTOR_END = _caseless(r"\b(?:to|to the|of|of the|for|and)$")
_CONNECTOR_START = _caseless(r"^(?:to|of)\b|^for$")
_BARE_LABEL = _caseless(r"(?:schedule|exhibit|annex|appendix|attachment)\s+[\w.()'-]{1,6}")
# "Exhibit D Joint Filing Agreement": a filing's exhibit letter before an instrument's own title
# (an exhibit that is a form, "Exhibit B Form of Note", stays an exhibit).
_FILING_LABEL = _caseless(r"exhibit\s+[\w.()'-]{1,6}\s+(?!form\s+of\b)(?=.*\b(?:agreement|contract|"
                          r"lease|licen[cs]e|indenture|plan|deed|charter)\b)")
# Words that may follow an instrument noun inside one title: "Amendment No. 2 to the ...".
_NUMBER_WORDS = _words("no no. n° nº nr nr. number")
_TITLE_CONTINUES = _caseless(r"#?\d[\w.()-]*|[A-Z](?:-\d+)?|[IVX]+|to|of|and|for|&|between|"
                             r"among|by|" + "|".join(re.escape(w) for w in _NUMBER_WORDS))
_SMALL_WORDS = _words("a an and as at by for in of on or the to with between among")
_SENTENCE_STARTS = _SMALL_WORDS | _words(
    "this that these each any all such if whereas now when upon from under pursuant "
    "notwithstanding subject except neither either reference"
)
_ROMAN = re.compile(r"[IVXLC]{2,}")

_CONFORMED_MARK = _caseless(r"\bconformed\b|\bas\s+amended\s+(?:through|to)\b")
_RESTATED_MARK = _caseless(r"\bamended\s+and\s+restated\b|\brestate(?:d|ment)\b")
_HEAD_SPLIT = _caseless(
    r"\s+(?:to|of|under|relating\s+to|regarding)\s+(?:the\s+|that\s+certain\s+)?"
)
_HEAD_RULES = (
    ("side_letter", _caseless(r"\bside\s+letter\b")),
    ("amendment", _caseless(r"\b(?:amendments?|amending|addendum|supplement(?:al)?)\b")),
    ("side_letter", _caseless(r"\bletter\s+agreement\b")),
    ("schedule", _caseless(r"^(?:disclosure\s+)?(?:schedules?|exhibit|annex|appendix|"
                           r"attachment|rider)\b|\bdisclosure\s+schedules?\b")),
    ("ancillary", _caseless(r"^(?:joinder|consent|waiver|acknowledge?ment|notice|certificate|"
                            r"estoppel)\b")),
)
# Roles a title rule may only give when the document names an agreement it belongs to:
# a letter agreement or a consent on its own is an instrument in its own right.
_NEEDS_REFERENCE = frozenset({"side_letter", "ancillary"})
_THIS_AMENDMENT = _caseless(r"\bthis\s+(?:[\w#.]+\s+){0,3}?amendment\b")
_TEXT_CONFORMED = _caseless(r"^\s*conformed\s+copy\b|\bconformed\s+through\b|"
                            r"\bas\s+amended\s+through\b", re.MULTILINE)
_LETTER = _caseless(r"^\s*dear\b", re.MULTILINE)
# A name of an agreement: capitalised words ending in an instrument noun, after words that
# introduce the agreement a document amends or belongs to.
_REFERENCE = re.compile(
    r"(?i:reference\s+is\s+(?:hereby\s+)?made\s+to|amend(?:s|ing|ed)?|modif(?:y|ies|ying)|"
    r"supplement(?:s|ing)?|entered\s+into|\bre:|\bto|\bunder|\bof)\s+"
    r"(?i:(?:that|the|a|an|said|their|its)\s+)?(?i:certain\s+)?(?i:(?:fully\s+)?executed\s+)?"
    r"((?:(?!(?i:this|the)\b)[A-Z][\w&'’-]*\s+(?:(?:and|of|for|&)\s+)?){1,8}"
    r"(?i:agreement|contract|lease|licen[cs]e|indenture|plan|note|deed|charter))\b"
)
_LEADING_ARTICLE = _caseless(r"^(?:the|that\s+certain)\s+")
_GENERIC_WORDS = _SMALL_WORDS | _words(
    "this that certain no number dated agreement agreements contract amendment amended "
    "restated conformed"
)
# Capitalised words too common in contracts to show that two documents share a party.
_COMMON_CAPITALISED = _GENERIC_WORDS | _words(
    "inc incorporated corp corporation company llc ltd limited plc party parties effective date "
    "whereas now therefore section article exhibit schedule annex recitals state delaware new "
    "york california united states america january february march april may june july august "
    "september october november december first second third fourth fifth agent lender lenders "
    "borrower licensee licensor distributor customer supplier seller buyer purchaser vendor "
    "securities exchange commission act rule confidential treatment terms products services"
)
_STEM_CHARS = 6
_RARE_MIN_DOCS = 5
_RARE_SHARE = 0.02
# One shared rare name happens by chance between unrelated contracts; two rarely do.
_MIN_SHARED_NAMES = 2


@dataclass(frozen=True)
class RoleGuess:
    """An inferred role, the agreement the document refers to, and why."""

    role: str
    amends_title: str | None
    reason: str


@dataclass(frozen=True)
class LinkChoice:
    """The document an attached document was linked to (or None) and why."""

    target: str | None
    reason: str


def _collapse(line: str) -> str:
    return " ".join(line.split())


def _is_noise(line: str) -> bool:
    return any(pattern.fullmatch(line) for pattern in _NOISE_LINES)


def _heading_case(line: str) -> bool:
    letters = [ch for ch in line if ch.isalpha()]
    if not letters:
        return False
    if sum(ch.isupper() for ch in letters) >= 0.8 * len(letters):
        return True
    words = [w for w in re.findall(r"[A-Za-z][\w'’-]*", line) if w.lower() not in _SMALL_WORDS]
    return bool(words) and sum(w[0].isupper() for w in words) >= 0.7 * len(words)


def _tidy_case(title: str) -> str:
    """Title-case an all-capitals title; leave mixed case as the author wrote it."""
    if any(ch.islower() for ch in title):
        return title
    out = []
    for index, word in enumerate(title.split(" ")):
        lower = word.lower()
        if _ROMAN.fullmatch(word) or any(ch.isdigit() for ch in word):
            out.append(word)
        elif index > 0 and lower in _SMALL_WORDS:
            out.append(lower)
        else:
            out.append(lower[:1].upper() + lower[1:])
    return " ".join(out)


def _opening_lines(text: str) -> list[str]:
    lines = (_EXHIBIT_PREFIX.sub("", _collapse(raw)) for raw in text[:_OPENING_CHARS].split("\n"))
    return [line for line in lines if line]


def _leading_title(segment: str) -> str | None:
    """Return the title a run-on line opens with ("SERVICES AGREEMENT This Services ...")."""
    words = _EXHIBIT_PREFIX.sub("", segment).split()
    # A quoted or bracketed opening is a definition or a note, never a title.
    if not words or words[0][0] in "\"'“‘([" or words[0].lower() in _SENTENCE_STARTS:
        return None
    run: list[str] = []
    for word in words:
        bare = word.strip("\"'“”‘’,;:")
        if run and (bare.lower() == "this" or word[0] in "(\"“"):
            break  # the body starts: "... AGREEMENT This Agreement (the "Agreement") ..."
        if not (bare[:1].isupper() or bare[:1].isdigit() or bare[:1] in "#&-"
                or bare.lower() in _SMALL_WORDS | _NUMBER_WORDS):
            break
        run.append(word)
    for index, word in enumerate(run):
        after = run[index + 1].strip("\"'“”‘’,;:") if index + 1 < len(run) else ""
        if _INSTRUMENT.fullmatch(word.strip(",;:")) and not _TITLE_CONTINUES.fullmatch(after):
            title = _PARTY_CLAUSE.sub("", " ".join(run[: index + 1])).strip(" ,;:")
            return title if len(title) <= _TITLE_MAX_CHARS else None
    return None


def _heading_lines(text: str) -> list[tuple[int, str]]:
    """Return (line number, heading) for the opening's headings that name an instrument."""
    lines = _opening_lines(text)
    headings: list[tuple[int, str]] = []
    index = 0
    while index < len(lines):
        start, line = index, lines[index]
        index += 1
        if len(line) <= _TITLE_MAX_CHARS and _is_noise(line):
            continue
        if len(line) > _TITLE_MAX_CHARS or not _heading_case(line):
            # A paragraph that runs the title into the body, as many EDGAR texts do.
            for segment in _SENTENCE.split(line):
                title = None if _LEGEND.search(segment) else _leading_title(segment)
                if title:
                    headings.append((start, title))
                    break
            continue
        if _RESTATED_PREFIX.fullmatch(line) and index < len(lines):
            line, index = f"{line} {lines[index]}", index + 1
        # A heading broken over lines: "SECOND AMENDMENT" / "TO REVOLVING CREDIT AGREEMENT".
        while index < len(lines) and _heading_case(lines[index]) and (
            _CONNECTOR_END.search(line) or _CONNECTOR_START.match(lines[index])
        ):
            line, index = f"{line} {lines[index]}", index + 1
        line = _PARTY_CLAUSE.sub("", line).strip(" ,;:")
        if _INSTRUMENT.search(line) and len(line) <= _TITLE_MAX_CHARS:
            headings.append((start, line))
    return headings


def guess_title(text: str) -> str:
    """Return the first heading-like line that names an instrument, else the first line."""
    headings = _heading_lines(text)
    if headings:
        start, title = headings[0]
        # A label on its own line ("SCHEDULE 2") belongs to the heading right below it.
        if _BARE_LABEL.fullmatch(title) and len(headings) > 1:
            next_start, next_title = headings[1]
            if next_start - start <= _LABEL_LOOKAHEAD_LINES:
                title = f"{title} {next_title}"
        return _tidy_case(_FILING_LABEL.sub("", title, count=1))
    lines = _opening_lines(text)
    first = next((line for line in lines if not _is_noise(line)), lines[0] if lines else "")
    if len(first) > _FALLBACK_CHARS:
        first = first[: _FALLBACK_CHARS - 3].rstrip() + "..."
    return first


def _clean_reference(name: str) -> str | None:
    name = _PARTY_CLAUSE.sub("", _collapse(name)).strip(" ,;:()")
    name = _LEADING_ARTICLE.sub("", name)
    return name if _INSTRUMENT.search(name) and _stems(name) else None


def referenced_agreement(text: str) -> str | None:
    """Return the name of the agreement the opening of ``text`` refers to, if it names one."""
    for match in _REFERENCE.finditer(_collapse(text[:_OPENING_CHARS])):
        name = _clean_reference(match.group(1))
        if name is not None:
            return name
    return None


def _split_title(title: str) -> tuple[str, str]:
    """Split "Second Amendment to the Credit Agreement" into head and referenced name."""
    match = _HEAD_SPLIT.search(title)
    if match is None:
        return title, ""
    return title[: match.start()], title[match.end():]


def infer_role(title: str, text: str) -> RoleGuess:
    """Infer a document's role from its title, then from the opening of its text."""
    title = _collapse(title)
    opening = text[:_OPENING_CHARS]
    if _CONFORMED_MARK.search(title):
        return RoleGuess("conformed", None, f'title "{title}" marks a conformed text')
    head, rest = _split_title(title)
    if _RESTATED_MARK.search(head):
        return RoleGuess("conformed", None, f'title "{title}" marks a restated agreement')
    reference = (_clean_reference(rest) if rest else None) or referenced_agreement(opening)
    for role, pattern in _HEAD_RULES:
        if pattern.search(head) and (role not in _NEEDS_REFERENCE or reference):
            return RoleGuess(role, reference, f'title "{title}"')
    if _THIS_AMENDMENT.search(opening):
        return RoleGuess("amendment", reference, 'opening text says "this amendment"')
    if _TEXT_CONFORMED.search(opening):
        return RoleGuess("conformed", None, "opening text marks a conformed copy")
    if _LETTER.search(opening) and reference:
        return RoleGuess("side_letter", reference, f'a letter about "{reference}"')
    return RoleGuess("base", None,
                     f'title "{title}" and opening name no amendment, schedule or side letter')


def _stems(name: str) -> frozenset[str]:
    # A crude prefix stem lets "Distribution Agreement" match "Distributor Agreement".
    words = re.findall(r"[a-z0-9]+", name.lower())
    return frozenset(w[:_STEM_CHARS] for w in words if w not in _GENERIC_WORDS)


def _party_words(text: str) -> frozenset[str]:
    words = re.findall(r"\b[A-Z][A-Za-z]{2,}\b", text[:_OPENING_CHARS])
    return frozenset(w.lower() for w in words) - _COMMON_CAPITALISED


def _folder(document: Document) -> str:
    return str(PurePath(document.path).parent)


def _name_match(reference: str, names: list[str]) -> tuple[float, str]:
    """Return the share of the reference's words a candidate's best name has, and that name."""
    wanted = _stems(reference)
    best = max(names, key=lambda name: len(wanted & _stems(name)))
    return len(wanted & _stems(best)) / max(len(wanted), 1), best


def _choose(document: Document, candidates: Sequence[Document],
            names: dict[str, list[str]], parties: dict[str, frozenset[str]],
            rare: frozenset[str]) -> LinkChoice:
    folder = _folder(document)
    reference = (infer_role(document.title, document.text).amends_title
                 or referenced_agreement(document.text))
    local = [c for c in candidates if _folder(c) == folder]
    if reference is None:
        if len(local) == 1:
            return LinkChoice(local[0].doc_id, "names no agreement; the only base document "
                                               "in its folder")
        return LinkChoice(None, "names no agreement, and its folder has no single base document")
    own_parties = parties[document.doc_id] & rare
    ranked = []
    for candidate in candidates:
        score, matched = _name_match(reference, names[candidate.doc_id])
        shared = len(own_parties & parties[candidate.doc_id])
        if score > 0 and shared >= _MIN_SHARED_NAMES:
            ranked.append(((_folder(candidate) == folder, score, shared), candidate, matched))
    ranked.sort(key=lambda item: item[0], reverse=True)
    if ranked and (len(ranked) == 1 or ranked[0][0] != ranked[1][0]):
        key, target, matched = ranked[0]
        where = "the same folder" if key[0] else "another folder"
        return LinkChoice(target.doc_id, f'refers to "{reference}", matching "{matched}" '
                                         f"in {where}, {key[2]} shared names")
    if ranked:
        tied = ", ".join(item[1].doc_id for item in ranked if item[0] == ranked[0][0])
        return LinkChoice(None, f'refers to "{reference}", which {tied} match equally')
    if len(local) == 1 and _name_match(reference, names[local[0].doc_id])[0] > 0:
        return LinkChoice(local[0].doc_id, f'refers to "{reference}", like the only base '
                                           "document in its folder")
    return LinkChoice(None, f'refers to "{reference}", which no base document matches')


def link_choices(documents: Sequence[Document]) -> dict[str, LinkChoice]:
    """Say, for each attached document, which base document it would be linked to and why.

    A candidate (a base or conformed document) must share a word of the referenced
    agreement's name and two names rare across the documents (parties, products); among those
    the same folder wins, then the closer name, then more shared names. Failing that, the
    only base document in the same folder is taken if its name fits (or nothing is named).
    Existing ``amends`` are not consulted.
    """
    parties = {d.doc_id: _party_words(d.text) for d in documents}
    counts: dict[str, int] = {}
    for words in parties.values():
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    # A name found in many documents (a month, a state, a defined role) links nothing.
    limit = max(_RARE_MIN_DOCS, int(_RARE_SHARE * len(documents)))
    rare = frozenset(word for word, count in counts.items() if count <= limit)
    candidates = [d for d in documents if d.role in TARGET_ROLES]
    names = {d.doc_id: [d.title, *(h for _, h in _heading_lines(d.text)[:3])] for d in candidates}
    return {
        d.doc_id: _choose(d, [c for c in candidates if c.doc_id != d.doc_id], names, parties, rare)
        for d in documents if d.role in ATTACHED_ROLES
    }


def link_amendments(documents: Iterable[Document]) -> tuple[Document, ...]:
    """Link each attached document without ``amends`` to its most likely base document."""
    docs = tuple(documents)
    choices = link_choices(docs)
    linked = []
    for document in docs:
        choice = choices.get(document.doc_id)
        if choice is not None and choice.target is not None and not document.amends:
            document = replace(document, amends=(choice.target,))
        linked.append(document)
    return tuple(linked)
