"""Packaged price cards (JSON); ``default.json`` holds the SPEC §7 prices."""
