"""pytest-legalbench: retrieval benchmarks over coordinated sets of legal instruments."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
