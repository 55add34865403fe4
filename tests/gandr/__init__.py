"""Tests of claim-audited answers."""
