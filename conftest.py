"""Repository-wide pytest configuration: offline by default."""

from __future__ import annotations

import os

# Hub look-ups fail here and in CI; failing fast beats a long network timeout.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
