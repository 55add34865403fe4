"""Retrieval modes: what each strategy puts in front of the answering model."""
