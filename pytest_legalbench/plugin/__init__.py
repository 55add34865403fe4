"""The pytest plugin: hooks (wiring only), fixtures and the settings resolved once."""
