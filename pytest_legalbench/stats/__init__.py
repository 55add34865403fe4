"""Exact statistics: binomial intervals and tests, and agreement between labellings."""
