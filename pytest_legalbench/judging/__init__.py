"""Judging answers: the paired position-swapped judge, its pairing rules and the model-free
key-fact score."""
