"""The shell of a self-contained HTML page: inline style and script, and a JSON data island.

Nothing is fetched: the stylesheet and the script are packaged files copied into the page,
and the data sit in a ``<script type="application/json">`` element the script parses, so the
file reads the same offline, attached to a pull request or opened from disk.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from importlib import resources

REPORT_HTML_FILE = "report.html"


def asset(name: str) -> str:
    """The text of a packaged report asset (``report.css``, ``report.js``)."""
    folder = resources.files("pytest_legalbench.results") / "report_assets"
    return (folder / name).read_text(encoding="utf-8")


def data_island(data: Mapping[str, object]) -> str:
    """``data`` as JSON that cannot end its script element early."""
    # "<" only ever occurs inside JSON strings, where the escape reads back the same.
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def page(title: str, body: str, data: Mapping[str, object], *, script: bool = True) -> str:
    """A whole HTML document: ``body`` (trusted markup) with the style, data and script."""
    code = f"<script>\n{asset('report.js')}\n</script>" if script else ""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>\n{asset('report.css')}\n</style>\n"
            f"</head>\n<body>\n{body}\n"
            f'<script type="application/json" id="report-data">{data_island(data)}</script>\n'
            f"{code}\n</body>\n</html>\n")
