"""Guessing a document's title from the headings its opening shows."""

from __future__ import annotations

import re

# Only the opening of a document is read: titles and recitals naming the amended agreement
# come first, and a clause deep inside a contract says nothing about the document's role.
OPENING_CHARS = 4000
_TITLE_MAX_CHARS = 150
_FALLBACK_CHARS = 80
_LABEL_LOOKAHEAD_LINES = 3


def caseless(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """Compile ``pattern`` to match regardless of case."""
    return re.compile(pattern, re.IGNORECASE | flags)


def word_set(text: str) -> frozenset[str]:
    """Return the set of whitespace-separated words in ``text``."""
    return frozenset(text.split())


INSTRUMENT = caseless(
    r"\b(?:agreements?|amendments?|addendum|contract|lease|licen[cs]e|indenture|deed|"
    r"letter|schedules?|exhibit|annex|appendix|attachment|rider|supplement|plan|note|"
    r"guarant(?:y|ee)|memorandum|charter|bylaws|certificate|consent|waiver|joinder|"
    r"statement of work|terms and conditions|order)\b"
)
# An EDGAR exhibit number has a digit or a parenthesis; "Exhibit A" is a label of its own.
_EDGAR_EXHIBIT = caseless(r"ex(?:hibit)?[\s.-]*(?=[\w.()'-]*[\d(])[\w.()'-]+")
_NOISE_LINES = (
    _EDGAR_EXHIBIT,  # a filing's exhibit number: "EX-10.1", "Exhibit (k)(1)", "Exhibit s.2"
    caseless(r"(?:execution|conformed|final|composite)\s+(?:version|copy|form)|draft"),
    caseless(r".*confidential\s+treatment.*|confidential(?:\W.*)?|"
             r"confidential\s+(?:and\s+proprietary|information|portions?)\b.*"),
    caseless(r"\S+\.(?:html?|txt|pdf|docx?|rtf)"),  # file names
    caseless(r"(?:page\s+)?[-\s]*(?:\d+|[ivxlc]+)[-\s]*(?:of\s+\d+)?"),  # page numbers
    re.compile(r"\[.*\]|\W*"),  # "[COMPANY LOGO]" placeholders and rules of dashes or stars
    caseless(r"(?:agreement|contract)\s+(?:number|no\.?|#)\s*\S+"),
    caseless(r"table\s+of\s+contents"),
    # Numbered section headings ("Section 2. Amendment of the Agreement") are not titles.
    caseless(r"(?:(?:section|article|clause)\s+[\dIVX]+|\d+(?:\.\d+)*\.|\(\w+\))\s.*"),
)
# Filing legends that EDGAR exhibits open with, often run into the title on one line.
_LEGEND = caseless(r"confidential|omitted|redacted|securities\s+and\s+exchange|rule\s+24b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(\[])")
_EXHIBIT_PREFIX = caseless(r"^" + _EDGAR_EXHIBIT.pattern + r"\s+")
PARTY_CLAUSE = caseless(r"\s+(?:by\s+and\s+)?(?:between|among)\s+.*$|,?\s+dated\s+.*$")
_RESTATED_PREFIX = caseless(r"(?:(?:second|third|fourth|fifth)\s+)?amended\s+and\s+restated")
_CONNECTOR_END = caseless(r"\b(?:to|to the|of|of the|for|and)$")
_CONNECTOR_START = caseless(r"^(?:to|of)\b|^for$")
_BARE_LABEL = caseless(r"(?:schedule|exhibit|annex|appendix|attachment)\s+[\w.()'-]{1,6}")
# "Exhibit D Joint Filing Agreement": a filing's exhibit letter before an instrument's own title
# (an exhibit that is a form, "Exhibit B Form of Note", stays an exhibit).
_FILING_LABEL = caseless(r"exhibit\s+[\w.()'-]{1,6}\s+(?!form\s+of\b)(?=.*\b(?:agreement|contract|"
                         r"lease|licen[cs]e|indenture|plan|deed|charter)\b)")
# Words that may follow an instrument noun inside one title: "Amendment No. 2 to the ...".
_NUMBER_WORDS = word_set("no no. n° nº nr nr. number")
_TITLE_CONTINUES = caseless(r"#?\d[\w.()-]*|[A-Z](?:-\d+)?|[IVX]+|to|of|and|for|&|between|"
                            r"among|by|" + "|".join(re.escape(w) for w in _NUMBER_WORDS))
SMALL_WORDS = word_set("a an and as at by for in of on or the to with between among")
_SENTENCE_STARTS = SMALL_WORDS | word_set(
    "this that these each any all such if whereas now when upon from under pursuant "
    "notwithstanding subject except neither either reference"
)
_ROMAN = re.compile(r"[IVXLC]{2,}")


def collapse_spaces(line: str) -> str:
    """Return ``line`` with every run of whitespace made one space, ends trimmed."""
    return " ".join(line.split())


def _is_noise(line: str) -> bool:
    return any(pattern.fullmatch(line) for pattern in _NOISE_LINES)


def _heading_case(line: str) -> bool:
    letters = [ch for ch in line if ch.isalpha()]
    if not letters:
        return False
    if sum(ch.isupper() for ch in letters) >= 0.8 * len(letters):
        return True
    words = [w for w in re.findall(r"[A-Za-z][\w'’-]*", line) if w.lower() not in SMALL_WORDS]
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
        elif index > 0 and lower in SMALL_WORDS:
            out.append(lower)
        else:
            out.append(lower[:1].upper() + lower[1:])
    return " ".join(out)


def _opening_lines(text: str) -> list[str]:
    lines = (_EXHIBIT_PREFIX.sub("", collapse_spaces(raw))
             for raw in text[:OPENING_CHARS].split("\n"))
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
                or bare.lower() in SMALL_WORDS | _NUMBER_WORDS):
            break
        run.append(word)
    for index, word in enumerate(run):
        after = run[index + 1].strip("\"'“”‘’,;:") if index + 1 < len(run) else ""
        if INSTRUMENT.fullmatch(word.strip(",;:")) and not _TITLE_CONTINUES.fullmatch(after):
            title = PARTY_CLAUSE.sub("", " ".join(run[: index + 1])).strip(" ,;:")
            return title if len(title) <= _TITLE_MAX_CHARS else None
    return None


def heading_lines(text: str) -> list[tuple[int, str]]:
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
        line = PARTY_CLAUSE.sub("", line).strip(" ,;:")
        if INSTRUMENT.search(line) and len(line) <= _TITLE_MAX_CHARS:
            headings.append((start, line))
    return headings


def guess_title(text: str) -> str:
    """Return the first heading-like line that names an instrument, else the first line."""
    headings = heading_lines(text)
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
