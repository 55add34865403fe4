"""The benchmark folder is collected only when pytest is pointed at it (``pytest benchmarks``)."""
