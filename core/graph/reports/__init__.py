"""Community reports: their context, the extractive and LLM writers, and what makes them read as themes."""
