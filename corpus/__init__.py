"""Profile manifests, shipped inside the package as ``pytest_legalbench.manifests``."""
