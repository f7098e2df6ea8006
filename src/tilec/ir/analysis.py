"""AnalysisManager (placeholder until the analysis work lands)."""
__all__ = ["Analysis", "AnalysisManager"]


class Analysis:
    """Base of cached analyses."""


class AnalysisManager:
    """Caches analyses keyed by IR identity."""
