"""Tests of the model client, cassettes, ledger and prices."""
