"""Document tags: the governing-law jurisdiction and subject-matter topics of a contract."""

from __future__ import annotations

import re
from collections import Counter

# A place name as printed: capitalised words, "of" inside ("District of Columbia") and "and"
# only between capitalised words ("England and Wales", but not "Ontario and the federal ...").
# Gaps may hold one line break, as hard-wrapped filings do.
_GAP = r"(?:[ \t]+\n?[ \t]*|\n[ \t]*)"
_PLACE_WORD = r"[A-Z](?:[\w'’-]|\.(?=[A-Za-z]))*"
_PLACE = rf"({_PLACE_WORD}(?:{_GAP}(?:(?:of|OF|and|AND){_GAP}(?=[A-Z]))?{_PLACE_WORD})*)"
_REGION = r"(?i:state|commonwealth|province|territory|republic)"
# "laws of", "laws and decisions of", "laws, other than choice of law rules, of", "laws in".
_LAWS_OF = (
    r"(?i:laws?(?:\s+and\s+(?:judicial\s+)?decisions)?(?:\s*,[^,.;]{0,80},)?"
    r"\s+(?:of|in\s+force\s+in|in))\s+(?:(?i:the)\s+)?"
    rf"(?:{_REGION}\s+(?i:of)\s+)?"
    rf"|(?i:laws?\s+{_REGION}\s+of)\s+"
)
_GOVERN_WORDS = ("governed", "construed", "interpreted", "enforced", "controlled", "determined",
                 "applied")
_GOVERN_VERB = rf"\b(?i:{'|'.join(_GOVERN_WORDS)})\b"
_THEREOF = r"(?i:laws?\s+(?:thereof|of\s+(?:such|said|that|this)\s+(?:state|jurisdiction|country)))"

# Each pattern captures the place in group 1; only governing-law wording counts, so
# incorporation ("a Delaware corporation", "organized under the laws of") never does.
_JURISDICTION_PATTERNS = (
    re.compile(rf"{_GOVERN_VERB}[^.;]{{0,120}}?\b(?:{_LAWS_OF}){_PLACE}"),
    re.compile(
        rf"{_GOVERN_VERB}[^.;]{{0,60}}?\b(?i:by|with|under)\s+(?:(?i:the)\s+)?"
        rf"(?:(?i:internal|substantive|domestic)\s+)?{_PLACE}\s+(?i:laws?)\b"
    ),
    re.compile(
        rf"\b(?:{_LAWS_OF}){_PLACE}[^.;]{{0,60}}?"
        r"\b(?i:(?:shall|will|must)\s+(?:govern|apply\s+to\s+(?:this|the)\s+(?:agreement|contract))"
        r"|governs?|applies\s+to\s+(?:this|the)\s+(?:agreement|contract))\b"
    ),
    re.compile(rf"\b{_PLACE}\s+(?i:laws?)\s+(?i:(?:shall|will|must)\s+govern|governs)\b"),
    re.compile(rf"\b(?i:governing\s+law)\b[\s\S]{{0,150}}?\b(?:{_LAWS_OF}){_PLACE}"),
    re.compile(
        rf"\b(?i:agreement)\b[^.;]{{0,60}}?\b(?i:subject\s+to)\s+(?:(?i:the)\s+)?"
        rf"(?:{_LAWS_OF}){_PLACE}"
    ),
)
# Words one of which every match of the pattern at the same place above holds, compared with
# the lower-cased text: a pattern is only run over a window that holds one. Lower-casing reads
# a case-insensitive match exactly, except where a character outside ASCII folds to a letter
# (the long s to "s", the dotless and dotted i to "i", the Kelvin sign to "k"); text holding
# one is never gated.
_JURISDICTION_GATES = (
    _GOVERN_WORDS, _GOVERN_WORDS, ("govern", "appl"), ("govern",), ("governing",), ("subject",),
)
_FOLDING_TO_ASCII = "\u017f\u0131\u0130\u212a"
_GOVERNED_BY_THEREOF = re.compile(rf"{_GOVERN_VERB}[^.;]{{0,120}}?\b{_THEREOF}")
_NAMED_REGION = re.compile(rf"\b(?i:state|commonwealth|province|territory)\s+(?i:of)\s+{_PLACE}")
_REGION_PREFIX = re.compile(rf"^(?:(?i:the)\s+)?(?:(?i:federal)\s+)?{_REGION}\s+(?i:of)\s+")
_REGION_SUFFIX = re.compile(r"\s+(?i:state|province)$")
# "construed under the patent laws of the United States" is about a field of law, not a choice.
_FIELD_OF_LAW = re.compile(
    r"\b(?i:patent|trademark|copyright|securities|tax|export|antitrust|bankruptcy|insolvency"
    r"|environmental|labou?r|employment|privacy|competition|immigration)\s+(?i:laws?)\b"
)
# A clause about the contract itself outweighs one about, say, a legal opinion's scope.
_ABOUT_THE_CONTRACT = re.compile(
    r"agreement|contract|governing\s+law|choice\s+of\s+law|here(?:of|to|under|in)\b"
)
_FEDERAL = frozenset({"United States", "United States of America", "U.S", "U.S.A", "USA",
                      "Canada"})
_NOT_PLACES = frozenset({
    "state", "states", "country", "jurisdiction", "province", "the", "this", "that", "such", "said",
    "any", "each", "agreement", "party", "parties", "company", "federal", "applicable",
})
_NOT_PLACE_WORDS = frozenset({
    "without", "with", "applicable", "excluding", "except", "as", "in", "to", "that", "which",
    "other", "than", "regard", "giving", "including", "the", "by", "for", "shall", "will", "its",
    "any", "all", "such", "this", "governed", "governing", "construed", "interpreted", "enforced",
    "relating", "principles", "conflict", "conflicts", "choice", "law", "laws", "rules",
    "accordance", "agreement", "and/or", "or", "notwithstanding", "excepting",
})
#: Adjectives a governing-law clause uses for a place ("governed by English law").
_PLACE_ADJECTIVES = {
    "English": "England", "Scottish": "Scotland", "Irish": "Ireland", "German": "Germany",
    "French": "France", "Swiss": "Switzerland", "Dutch": "Netherlands", "Italian": "Italy",
    "Spanish": "Spain", "Swedish": "Sweden", "Japanese": "Japan", "Chinese": "China",
    "Canadian": "Canada", "Israeli": "Israel", "Indian": "India", "Australian": "Australia",
}
# Every pattern reads "law" within this many characters of its ends.
_LAW_REACH = 320


def _normalise_place(raw: str) -> str | None:
    """Turn a captured place into its name ("the State of New York" -> "New York"), or None."""
    place = _REGION_PREFIX.sub("", " ".join(raw.split()).strip(" .,;:'’-"))
    # All-capital clauses give no case to stop at ("NEW YORK WITHOUT REGARD TO ..."), so a
    # place ends at the first word that cannot belong to one.
    kept: list[str] = []
    for word in place.split(" "):
        if word.lower().strip(".,;:()") in _NOT_PLACE_WORDS:
            break
        kept.append(word)
    while kept and kept[-1].lower() in ("and", "of"):
        kept.pop()
    place = _REGION_SUFFIX.sub("", " ".join(kept)).strip(" .,;:'’-")
    if not place or place.lower() in _NOT_PLACES or place.endswith(("'s", "’s")):
        return None
    if place.isupper() and len(place) > 3:
        place = " ".join(_title_word(word) for word in place.split(" "))
    return _PLACE_ADJECTIVES.get(place, place)


def _title_word(word: str) -> str:
    """Title-case one word of a place written in capitals ("OF" -> "of"; "U.S.A." stays)."""
    if "." in word:
        return word
    return word.lower() if word.lower() in ("of", "and") else word.capitalize()


def _law_windows(text: str, lower: str) -> list[tuple[int, int]]:
    """Merged spans around each "law" (``lower`` is ``text`` lower-cased): every governing-law
    pattern falls inside one."""
    windows: list[tuple[int, int]] = []
    if len(lower) != len(text):
        # Rare characters change length when lower-cased; positions would not line up.
        return [(0, len(text))]
    at = lower.find("law")
    while at >= 0:
        start, end = max(at - _LAW_REACH, 0), min(at + _LAW_REACH, len(text))
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], end)
        else:
            windows.append((start, end))
        at = lower.find("law", at + 3)
    return windows


def _sentence_before(text: str, position: int) -> str:
    """The text from the last full stop before ``position`` (at most 300 characters)."""
    start = max(text.rfind(".", max(position - 300, 0), position) + 1, position - 300, 0)
    return text[start:position]


def _holds(window: str | None, words: tuple[str, ...]) -> bool:
    """Whether the lower-cased ``window`` holds one of ``words`` (always, ungated: None)."""
    return window is None or any(word in window for word in words)


def _candidates(text: str, start: int, end: int, window: str | None) -> list[tuple[int, str]]:
    """Governing-law places named in ``text[start:end]``, with their positions; ``window`` is
    that span lower-cased to gate the patterns, or None to run them all."""
    found: list[tuple[int, str]] = []
    if _holds(window, _GOVERN_WORDS):
        for match in _GOVERNED_BY_THEREOF.finditer(text, start, end):
            regions = _NAMED_REGION.findall(text, max(match.start() - 300, start), match.end())
            place = _normalise_place(regions[-1]) if regions else None
            if place:
                found.append((match.start(), place))
    for pattern, gate in zip(_JURISDICTION_PATTERNS, _JURISDICTION_GATES, strict=True):
        if not _holds(window, gate):
            continue
        for match in pattern.finditer(text, start, end):
            if _FIELD_OF_LAW.search(text, match.start(), match.start(1)):
                continue
            place = _normalise_place(match.group(1))
            if place in _FEDERAL:
                # "the laws of the United States and the State of Florida": the state decides.
                region = _NAMED_REGION.search(text, match.end(1), min(match.end(1) + 120, end))
                if region and "." not in text[match.end(1):region.start()]:
                    place = _normalise_place(region.group(1)) or place
            if place:
                found.append((match.start(), place))
    return found


def jurisdiction(text: str) -> str | None:
    """Return the governing-law jurisdiction ("New York"), or None without a governing-law clause."""
    weights: dict[str, int] = {}
    lower = text.lower()
    gated = len(lower) == len(text) and not any(char in text for char in _FOLDING_TO_ASCII)
    for start, end in _law_windows(text, lower):
        window = lower[start:end] if gated else None
        for position, place in sorted(_candidates(text, start, end, window)):
            about = _ABOUT_THE_CONTRACT.search(_sentence_before(text, position).lower())
            weights[place] = weights.get(place, 0) + (3 if about else 1)
    if not weights:
        return None
    # The place with most weight wins; dicts keep insertion order, so a tie goes to the first.
    return max(weights, key=lambda place: weights[place])


#: Topic vocabulary: label, weight, and the phrases that signal it (lower case, singular).
#: Subject-matter topics weigh more than clause topics that nearly every contract carries.
TOPIC_VOCABULARY: tuple[tuple[str, float, tuple[str, ...]], ...] = (
    ("credit facility", 1.0, ("loan", "lender", "borrower", "revolving", "credit facility",
                              "credit agreement", "letter of credit", "promissory note",
                              "borrowing", "collateral", "maturity date", "interest rate")),
    ("securities", 1.0, ("common stock", "preferred stock", "warrant", "private placement",
                         "registration statement", "accredited investor", "unit purchase",
                         "stock purchase", "subscription", "purchased shares", "purchased units",
                         "underwriter", "offering")),
    ("acquisition", 1.0, ("merger", "acquisition", "asset purchase", "purchased assets",
                          "acquired company", "business combination", "earn-out", "earnout")),
    ("license", 1.0, ("license", "licensee", "licensor", "sublicense", "royalty", "royalties",
                      "licensed product", "licensed property")),
    ("intellectual property", 1.0, ("intellectual property", "patent", "trademark",
                                    "copyright", "trade secret", "know-how", "source code")),
    ("distribution", 1.0, ("distributor", "distribution", "reseller", "resale", "dealer",
                           "territory")),
    ("supply", 1.0, ("supply", "supplier", "purchase order", "forecast", "shipment")),
    ("manufacturing", 1.0, ("manufacture", "manufacturing", "manufacturer", "specifications")),
    ("services", 1.0, ("services", "service provider", "statement of work", "consultant",
                       "consulting", "outsourcing", "service level")),
    ("employment", 1.0, ("employment", "employer", "salary", "severance", "base salary",
                         "vacation")),
    ("agency", 1.0, ("agency agreement", "sales agent", "sales representative", "sales agency",
                     "commission rate")),
    ("lease", 1.0, ("lease", "landlord", "tenant", "premises", "rent", "lessee", "lessor",
                    "sublease")),
    ("franchise", 1.0, ("franchise", "franchisee", "franchisor")),
    ("joint venture", 1.0, ("joint venture", "strategic alliance", "collaboration")),
    ("marketing", 1.0, ("marketing", "advertising", "promotion", "co-branding", "co-branded",
                        "sponsorship", "endorsement")),
    ("software and hosting", 1.0, ("software", "hosting", "website", "web site",
                                   "maintenance and support", "support services")),
    ("research and development", 1.0, ("research", "clinical", "regulatory approval",
                                       "development program")),
    ("confidentiality", 0.5, ("confidential information", "confidentiality", "non-disclosure",
                              "proprietary information")),
    ("indemnification", 0.5, ("indemnify", "indemnification", "indemnified", "hold harmless")),
    ("termination", 0.5, ("terminate", "termination", "expiration", "renewal")),
    ("payment", 0.5, ("payment", "fee", "invoice", "price", "payable")),
    ("warranty", 0.5, ("warranty", "warranties", "warrants")),
    ("dispute resolution", 0.5, ("arbitration", "arbitrator", "mediation",
                                 "dispute resolution")),
    ("non-competition", 0.5, ("non-compete", "noncompetition", "non-competition",
                              "non-solicitation", "exclusivity")),
    ("insurance", 0.5, ("insurance", "insurer", "insured")),
    ("taxes", 0.5, ("tax", "taxes", "withholding")),
)
_TITLE_WEIGHT = 5.0
_MIN_SCORE = 2.0
#: A topic scoring under this share of the best one is background, not subject matter.
_MIN_SHARE = 0.1


def _forms() -> tuple[dict[str, int], dict[str, int]]:
    """Map single words (with plurals) and multi-word phrases to their topic's index."""
    words: dict[str, int] = {}
    phrases: dict[str, int] = {}
    for index, (_, _, signals) in enumerate(TOPIC_VOCABULARY):
        for signal in signals:
            if " " in signal:
                phrases.setdefault(signal, index)
            else:
                for form in (signal, signal + "s", signal + "es"):
                    words.setdefault(form, index)
    return words, phrases


_WORD_FORMS, _PHRASE_FORMS = _forms()
_NOT_WORD = re.compile(r"[^a-z-]+")


def _topic_counts(text: str) -> Counter[int]:
    """Count vocabulary words and phrases in ``text`` by topic index."""
    # One normalised copy ("  a word  ") lets counting use dict lookups and str.count, both far
    # faster than a regex of every phrase.
    normalised = f" {_NOT_WORD.sub(' ', text.lower())} "
    counts: Counter[int] = Counter()
    for word, seen in Counter(normalised.split()).items():
        if word in _WORD_FORMS:
            counts[_WORD_FORMS[word]] += seen
    for phrase, index in _PHRASE_FORMS.items():
        # No closing space, so plurals count too ("letters of credit" aside).
        counts[index] += normalised.count(f" {phrase}")
    return counts


def topics(text: str, *, title: str = "", limit: int = 6) -> tuple[str, ...]:
    """Return up to ``limit`` topic labels from TOPIC_VOCABULARY, best scored first."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    in_text, in_title = _topic_counts(text), _topic_counts(title)
    scores = {
        index: weight * (in_text[index] + _TITLE_WEIGHT * in_title[index])
        for index, (_, weight, _) in enumerate(TOPIC_VOCABULARY)
    }
    floor = max(_MIN_SCORE, _MIN_SHARE * max(scores.values()))
    ranked = sorted((i for i in scores if scores[i] >= floor), key=lambda i: (-scores[i], i))
    return tuple(TOPIC_VOCABULARY[i][0] for i in ranked[:limit])
