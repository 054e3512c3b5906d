"""The hierarchical lexical graph (issue 31): statements, topics and facts next to the element tables.

* :mod:`core.hlg.extract`: the offline tier, read from a document's elements (pure text).
* :mod:`core.ingest.tiers`: bringing a collection's tiers up to date with its elements, incrementally.
* The tables are behind the store's door (``core.store.hlg_tables``, SQL in ``core.sql.hlg``); the ``statements``
  retrieval strategy is :mod:`core.retrieval.statement_search`.
"""
