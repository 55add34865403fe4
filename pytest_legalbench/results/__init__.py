"""What a run produces: item records, the typed summary, report files, evidence recall,
evaluation and the crossover rule."""
