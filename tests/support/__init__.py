"""Helpers the tests share: sample corpora, fake servers, benchmark projects, replayed runs."""
