"""Building the index: the pipeline that runs the stages (text units, extraction, the graph, communities, reports)
and writes them in one transaction, and what an LLM run will cost before it runs."""
