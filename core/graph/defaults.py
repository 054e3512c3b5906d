"""Default knobs of the index, in a module with no imports so the CLI parser can show them cheaply."""

DEFAULT_UNIT_TOKENS = 600  # text unit size
DEFAULT_MAX_CLUSTER_SIZE = 10  # hierarchical Leiden, as GraphRAG
DEFAULT_SEED = 0xDEADBEEF  # Leiden seed, as GraphRAG
DEFAULT_GLEANINGS = 1  # LLM extraction follow-up rounds
DEFAULT_CONCURRENCY = 4  # parallel LLM calls
