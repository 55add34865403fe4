"""The words that never make a keyword: function words, contract boilerplate and clause
numerals; and what counts as a word when keywords and summaries are scored."""

from __future__ import annotations

import re

_FUNCTION_WORD_TEXT = """
a about above after again against all also am among an and any are as at be because been
before being below between both but by can could did do does doing down during each either
else etc even ever every few for from further had has have having he her here hers him his
how however i if in into is it its itself just may me might more most must my neither no nor
not now of off on once one only or other others otherwise our ours out over own per same she
should so some such than that the their theirs them then there these they this those through
thus to too two under until up upon us very via was we were what when where whether which
while who whom whose why will with within without would yet you your shall
"""
_BOILERPLATE_TEXT = """
hereby herein hereof hereto hereunder hereafter heretofore thereof therein thereto
thereunder thereby therefor therefrom whereas whereby wherein whereof aforesaid said
agreement agreements party parties section sections article articles clause clauses paragraph
paragraphs subsection subsections provision provisions pursuant including include includes
included limitation provided provide provides set forth following applicable accordance
respect respective respectively time times term terms hereinafter extent made make makes
deemed thereafter subject certain case cases manner means mean meaning defined
"""
#: Words that never start or end a capitalised term ("The Borrower" is "borrower").
FUNCTION_WORDS = frozenset(_FUNCTION_WORD_TEXT.split())
#: Function words and contract boilerplate that never make a useful keyword.
STOP_WORDS = FUNCTION_WORDS | frozenset(_BOILERPLATE_TEXT.split())
#: Lower-cased words of three letters or more.
WORD = re.compile(r"[a-z][a-z'’-]+[a-z]")


def _roman(number: int) -> str:
    """Lower-case roman numeral of ``number`` (1-3999)."""
    digits = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
              (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))
    out = ""
    for value, letters in digits:
        count, number = divmod(number, value)
        out += letters * count
    return out


#: Stop words and clause labels: "(iii)", "(xiv)" are no keywords; real words like "mix" or
#: "civil" stay.
NOT_KEYWORDS = STOP_WORDS | {_roman(n) for n in range(1, 60)}
