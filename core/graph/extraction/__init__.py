"""Entity extraction: text units, names, mentions and the drafts the graph is built from."""
