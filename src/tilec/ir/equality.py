"""Structural equality (placeholder)."""
__all__ = ["structurally_equal"]


def structurally_equal(a, b) -> bool:
    """True when two IR objects have the same structure."""
    raise NotImplementedError
