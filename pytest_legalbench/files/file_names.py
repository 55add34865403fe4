"""File names made from item ids: safe on every filesystem, stable, and still readable."""

from __future__ import annotations

import hashlib
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")
# Longer names are shortened and made unique by a hash: most filesystems cap a name at 255 bytes.
_MAX_NAME = 150


def safe_name(text: str) -> str:
    """``text`` as one path component: unsafe characters (``:``, ``/``, spaces) become ``_``,
    never a hidden name, at most 150 characters (a digest keeps long names distinct)."""
    safe = _UNSAFE.sub("_", text)
    if safe.startswith("."):
        safe = "_" + safe[1:]  # never ".", ".." or a hidden name
    if len(safe) > _MAX_NAME:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        safe = f"{safe[:_MAX_NAME - 17]}-{digest}"
    return safe
