"""Deterministic pre-filter flags of a node."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from pytest_legalbench.navindex.defined_terms import defines_term
from pytest_legalbench.navindex.node import Flags
from pytest_legalbench.navindex.trie_pattern import trie_pattern


# eq=False: cues are told apart by identity, so hashing one is O(1); hashing its triggers
# made building a scanner quadratic in the number of party names a document gives.
@dataclass(frozen=True, eq=False)
class _Cue:
    """Literal trigger words for one flag and the exact pattern that confirms a trigger."""

    flag: str
    """The Flags field the cue sets."""
    triggers: tuple[str, ...]
    """Literals one of which every exact match contains."""
    exact: re.Pattern[str]
    before: int = 0
    """How far before the trigger an exact match may start; 0 anchors it at the trigger."""
    after: int = 0
    """How far past the trigger an exact match may end (windowed cues only)."""

    def found(self, text: str) -> bool:
        """Whether the cue fires anywhere in ``text`` (substring search for each trigger)."""
        for trigger in self.triggers:
            at = text.find(trigger)
            while at >= 0:
                if self.confirms(text, at, len(trigger)):
                    return True
                at = text.find(trigger, at + 1)
        return False

    def confirms(self, text: str, at: int, width: int) -> bool:
        """Whether an exact match sits at or around the trigger occurrence at ``at``."""
        if not self.before:
            return self.exact.match(text, at) is not None
        end = at + width + self.after
        # endpos truncates the string, so never cut a word: "5 daylight" must not read "5 day".
        while end < len(text) and text[end].isalnum():
            end += 1
        return self.exact.search(text, max(at - self.before, 0), end) is not None


#: From this length on, per-trigger substring search beats one regex pass (measured on CUAD).
_SUBSTRING_SEARCH_CHARS = 2000


class _Scanner:
    """Cues of several flags, checked only around occurrences of their trigger words.

    Exact patterns led by word boundaries or many alternatives cost a regex attempt at every
    character; triggers cut that to the few places that matter. Short texts are scanned once by
    a regex of all triggers (one call instead of one substring search per trigger); long texts
    use substring searches, which run at memory speed and stop once a flag is settled.
    """

    def __init__(self, cues: tuple[_Cue, ...]) -> None:
        self._flags = frozenset(cue.flag for cue in cues)
        self._cue_list = cues
        owners: dict[str, list[_Cue]] = {}
        for cue in cues:
            for trigger in cue.triggers:
                owners.setdefault(trigger, []).append(cue)
        # The trie reports the longest literal at a position, so a literal that extends another
        # must also answer for the shorter one's cues. Only the lengths of actual triggers are
        # tried: every prefix of a long literal (a party name read from a one-line document)
        # would cost time quadratic in its length.
        lengths = sorted({len(literal) for literal in owners})
        self._cues = {
            literal: tuple(dict.fromkeys(
                cue for end in lengths if end <= len(literal)
                for cue in owners.get(literal[:end], ())
            ))
            for literal in owners
        }
        self._trigger = re.compile(trie_pattern(set(owners)))

    def scan(self, text: str, found: set[str]) -> set[str]:
        """Add to ``found`` the flags whose cues fire on ``text``; flags already there are settled."""
        if self._flags <= found:
            return found
        if len(text) >= _SUBSTRING_SEARCH_CHARS:
            for cue in self._cue_list:
                if cue.flag not in found and cue.found(text):
                    found.add(cue.flag)
            return found
        for hit in self._trigger.finditer(text):
            for cue in self._cues[hit.group()]:
                if cue.flag in found or not cue.confirms(text, hit.start(), len(hit.group())):
                    continue
                found.add(cue.flag)
                if self._flags <= found:
                    return found
        return found


def _cue(triggers: str, pattern: str, before: int = 0, after: int = 0) -> _Cue:
    """Build a cue (its flag set later by ``_for``) from space-separated triggers and a pattern."""
    return _Cue("", tuple(triggers.split(" ")), re.compile(pattern), before, after)


def _for(flag: str, cues: tuple[_Cue, ...]) -> tuple[_Cue, ...]:
    """Assign ``cues`` to ``flag``."""
    return tuple(replace(cue, flag=flag) for cue in cues)


# Cues on lower-cased text unless marked "cased" (months, capitalised date terms, names).
_NUMBER_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|hundred|thousand|million|billion|trillion)"
)
_NUMBER = rf"\b(?:\d[\d,.]*|{_NUMBER_WORD}(?:[\s-]+(?:{_NUMBER_WORD}|and))*)"
_CODES = r"(?:USD|EUR|GBP|JPY|CAD|AUD|CHF|CNY|RMB|HKD|INR|SGD)"
_CURRENCY_WORD = (
    r"(?:dollars?|euros?|pounds\s+sterling|sterling|yen|cents?|francs?|rupees?|yuan|renminbi)"
)

# An amount with a currency symbol, code or name; redacted amounts ("$[***]") count.
_MONEY = (
    _cue("$", r"\$\s*[\d\[*._]|[\d\]*]\s*(?:us|s|c|a|cdn)?\$", before=5, after=3),
    _cue("€ £ ¥ ₹", r"[€£¥₹]\s*[\d\[*]|\d\s*[€£¥₹]", before=3, after=3),
    _cue("dollar euro sterling yen cent franc rupee yuan renminbi",
         rf"(?:{_NUMBER}\s+(?:\(\s*\$?[\d,.]+\s*\)\s+)?|[\]*]\s*)"
         r"(?:(?:u\.\s?s\.|us|united\s+states|canadian|australian|hong\s+kong|singapore)\s+)?"
         rf"{_CURRENCY_WORD}\b", before=90, after=10),
    _cue("rs.", r"(?<![a-z])rs\.\s?\d"),
)

# cased: currency codes are written in capitals ("USD 2,000", "100 EUR").
_MONEY_CASED = (
    _cue("USD EUR GBP JPY CAD AUD CHF CNY RMB HKD INR SGD",
         rf"(?<![A-Za-z]){_CODES}\s*[\d\[*]|\d\s*{_CODES}(?![A-Za-z])", before=3, after=3),
)

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept?\.?|Oct\.?|Nov\.?|Dec\.?)"
)
# Calendar dates and periods or deadlines ("within thirty (30) days", "on or before").
_DATE_CASED = (
    # Capitalised month names only, so the verb "may" never counts.
    _cue("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
         rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\s*,?\s*\d{{4}}\b"
         rf"|\b{_MONTH}\s*,?\s+(?:19|20)\d\d\b"
         rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?{_MONTH}(?![a-z])"
         rf"|\bday\s+of\s+{_MONTH}", before=25, after=24),
    _cue("Date", r"\b[A-Z][A-Za-z]+\s+Date\b", before=30),
)
_DATE = (
    _cue("day month year week quarter hour",
         rf"{_NUMBER}\s*(?:\(\s*\d+\s*\)\s*)?-?\s*"
         r"(?:(?:business|calendar|banking|working|consecutive|full|trading)\s+)?"
         r"(?:days?|weeks?|months?|years?|quarters?|hours?)\b", before=70, after=8),
    _cue("later earlier", r"\b(?:no|not)\s+(?:later|earlier)\s+than\b", before=8, after=8),
    _cue("before after prior about", r"\bon\s+or\s+(?:before|after|prior\s+to|about)\b",
         before=10, after=6),
    _cue("anniversar", r"anniversar"),
    _cue("hereof", r"\bdate\s+hereof\b", before=8),
    _cue(":", r"\b\d{1,2}:\d\d\s*(?:a\.?\s?m|p\.?\s?m)\b", before=2, after=8),
    _cue("/", r"\b\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})\b", before=5, after=5),
    _cue("19 20", r"\b\d{1,2}[.-]\d{1,2}[.-](?:19|20)\d\d\b|\b(?:19|20)\d\d-\d\d-\d\d\b",
         before=6, after=8),
)

# A percentage or rate; "1.5" alone is not one, a redacted "[***]%" is.
_PERCENT = (
    _cue("%", r"[\d\]*]\s*%", before=3),
    _cue("cent", r"\bper\s?cent(?:age|um)?s?\b", before=4, after=5),
    _cue("basis", r"basis\s+points?\b"),
    _cue("bps", r"(?<![a-z])bps\b"),
    _cue("annum", r"\bper\s+annum\b", before=6),
    _cue("interest", r"interest\s+rates?\b"),
    _cue("rate", r"(?<![a-z])rates?\s+of\s+interest\b"),
)

# Liability caps, exclusions of damages and disclaimers of liability.
_LIABILITY = (
    _cue("liab",
         r"\bin\s+no\s+event\b[^.]{0,200}?\bliab"
         r"|\blimitations?\s+(?:of|on)\s+(?:\w+\s+){0,2}liab"
         r"|\bliability\s+(?:cap|limit|limitation)s?\b"
         r"|\bcap\s+on\s+(?:\w+\s+){0,2}liab"
         r"|\b(?:aggregate|total|cumulative|maximum|entire|collective)\s+(?:\w+\s+){0,2}liab"
         r"[^.]{0,200}?\b(?:exceed|limited\s+to|in\s+excess\s+of|greater\s+than|more\s+than)"
         r"|\bliabilit(?:y|ies)\b[^.]{0,150}?\b(?:not\s+exceed|be\s+limited\s+to)"
         r"|\bnot\s+be\s+(?:held\s+)?liable\b|\bno\s+(?:\w+\s+){0,2}liability\b",
         before=230, after=230),
    _cue("damages", r"\b(?:consequential|incidental|indirect|special|punitive|exemplary)\s+"
                    r"(?:(?:or|and)\s+\w+\s+)?damages\b", before=40),
    _cue("remed", r"\b(?:sole\s+and\s+)?exclusive\s+remed(?:y|ies)\b", before=24, after=4),
)

_IF_EXCEPTIONS = r"(?:any|applicable|necessary|required|appropriate|available|so)"
# Conditions and triggers. Not conditions: a parenthetical ", if any,", a comparison ("as if")
# and a notice address ("If to the Company: ...").
_CONDITION = (
    _cue("if", rf"(?<![a-z])(?<!\bas )if\b(?!\s+{_IF_EXCEPTIONS}\s*[,)])(?!\s+to\b)"),
    _cue("subject", r"subject\s+to\b"),
    _cue("provided", r"provided\s*,?\s*(?:(?:however|further|always)\s*,?\s*)?that\b"),
    _cue("unless", r"(?<![a-z])unless\b"),
    _cue("event case", r"\bin\s+the\s+event\s+(?:that|of)\b|\bin\s+case\s+(?:of|that)\b",
         before=10, after=6),
    _cue("condition",
         r"\bon\s+condition\s+that\b|\bconditions?\s+(?:precedent|subsequent)\b"
         r"|\bconditions?\s+to\s+(?:the\s+)?(?:closing|effectiveness|funding|each|all|initial"
         r"|borrowing|consummation|obligations?)\b|\bcondition(?:al|ed)\s+(?:up)?on\b",
         before=6, after=30),
    _cue("contingent", r"contingent\s+(?:up)?on\b"),
    _cue("occurrence happening", r"\bupon\s+the\s+(?:occurrence|happening)\b", before=12),
    _cue("long", r"\b(?:so|as)\s+long\s+as\b", before=4, after=5),
)

#: Party roles that count as named parties when a contract's own party names are not given.
_PARTY_ROLES = (
    "Licensor", "Licensee", "Sublicensee", "Buyer", "Seller", "Purchaser", "Vendor", "Company",
    "Borrower", "Lender", "Agent", "Administrative Agent", "Guarantor", "Issuer", "Investor",
    "Holder", "Distributor", "Reseller", "Supplier", "Manufacturer", "Customer", "Client",
    "Landlord", "Tenant", "Lessor", "Lessee", "Employee", "Employer", "Executive", "Consultant",
    "Contractor", "Franchisor", "Franchisee", "Developer", "Publisher", "Sponsor", "Provider",
    "Member", "Partner", "Party", "Parties",
)

_LOWER_SCANNER = _Scanner((
    *_for("has_money", _MONEY), *_for("has_date", _DATE), *_for("has_percentage", _PERCENT),
    *_for("has_liability_limit", _LIABILITY), *_for("has_condition", _CONDITION),
))


@lru_cache(maxsize=256)
def _cased_scanner(parties: tuple[str, ...]) -> _Scanner:
    """Cased cues plus whole-word party names (generic roles when none are given)."""
    names = sorted({name.strip() for name in parties if name.strip()}, key=lambda n: (-len(n), n))
    # Generic roles also count in the plural ("Lenders"); given names are matched as written.
    plural = "" if names else "s?"
    names = names or sorted(_PARTY_ROLES, key=lambda n: (-len(n), n))
    alternation = "|".join(map(re.escape, names))
    party = _Cue("has_party", tuple(names), re.compile(rf"(?<!\w)(?:{alternation}){plural}(?!\w)"))
    return _Scanner((*_for("has_money", _MONEY_CASED), *_for("has_date", _DATE_CASED), party))


def extract_flags(
    text: str,
    *,
    defines: bool = False,
    is_toc_entry: bool = False,
    parties: tuple[str, ...] = (),
) -> Flags:
    """Compute a node's flags; ``parties`` names the contract's parties (generic roles if empty)."""
    found = _LOWER_SCANNER.scan(text.lower(), set())
    _cased_scanner(tuple(parties)).scan(text, found)
    return Flags(
        is_definition=defines or defines_term(text),
        has_money="has_money" in found,
        has_date="has_date" in found,
        has_percentage="has_percentage" in found,
        has_liability_limit="has_liability_limit" in found,
        has_condition="has_condition" in found,
        has_party="has_party" in found,
        is_toc_entry=is_toc_entry,
    )
