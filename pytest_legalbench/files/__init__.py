"""Files on disk: atomic writes, safe names, and where the cache and packaged data live."""
