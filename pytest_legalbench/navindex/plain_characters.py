"""The characters the parser reads as plain ones: Unicode spaces as a space, rare hyphens as
a hyphen-minus.

Filings and converted PDFs separate a number from its heading with a no-break, narrow
no-break, figure, thin or ideographic space ("Section\u202f5.2\u2007Fees"), or glue words with
zero-width spaces, and write "Exhibit A\u20111" with a non-breaking hyphen. Numbering patterns
are written for the plain characters, so the parser reads each line through this table; the
mapping is one character to one, so every offset in the plain text is the offset in the
source, and node texts stay verbatim. En and em dashes are kept: the patterns know them.
"""

from __future__ import annotations

import re
import sys

#: Hyphens read as "-": hyphen, non-breaking hyphen, figure dash, minus sign, small and
#: full-width hyphen-minus; the horizontal bar reads as an em dash.
_HYPHENS = {"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2212": "-", "\ufe63": "-",
            "\uff0d": "-", "\u2015": "\u2014"}
#: Invisible characters read as a space: zero-width space, word joiner, byte-order mark.
_INVISIBLE = "\u200b\u2060\ufeff"


def _table() -> dict[str, str]:
    # Tabs stay: every pattern reads them as blanks already.
    table = {chr(code): " " for code in range(sys.maxunicode + 1)
             if chr(code).isspace() and chr(code) not in " \n\t"}
    table.update((c, " ") for c in _INVISIBLE)
    table.update(_HYPHENS)
    return table


#: Each character ``plain_text`` replaces, and what with.
PLAIN = _table()
# The replaced characters are rare: finding them with one character class and replacing
# only them costs a fraction of translating every character of a document.
_RARE = re.compile("[" + "".join(re.escape(c) for c in sorted(PLAIN)) + "]")


def plain_text(text: str) -> str:
    """``text`` with its spaces and hyphens plain, the same length."""
    return _RARE.sub(lambda match: PLAIN[match.group()], text)
