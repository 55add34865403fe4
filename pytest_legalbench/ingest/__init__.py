"""Reading legal instruments from a corpus folder, a manifest or their public source."""
