"""Dominance (placeholder)."""
__all__ = ["DominanceInfo"]


class DominanceInfo:
    """Lexical dominance across regions."""
