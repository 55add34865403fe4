"""Tests of the item runners, journal and process exit."""
