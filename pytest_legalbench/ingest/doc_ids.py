"""Document ids derived from file paths, identical for a manifest profile and a bare folder."""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePosixPath

_OUTSIDE = re.compile(r"[^a-z0-9_-]+")


def doc_id_for(relative_path: str) -> str:
    """Map a path relative to the corpus root to a doc id in ``[a-z0-9_-]``.

    The extension is dropped, the rest lower-cased, and every run of other characters
    (path separators included) becomes one ``-``.
    """
    stem = str(PurePosixPath(relative_path.replace("\\", "/")).with_suffix(""))
    folded = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    doc_id = _OUTSIDE.sub("-", folded.lower()).strip("-")
    if not doc_id:
        raise ValueError(f"{relative_path!r} yields an empty doc id")
    return doc_id
