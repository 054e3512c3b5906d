"""Search over the index: global search (map-reduce over community reports)."""
