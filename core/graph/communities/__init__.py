"""The entity graph and its communities (Leiden), the structural communities and their layout."""
