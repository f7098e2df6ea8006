"""Liveness (placeholder)."""
__all__ = ["Liveness"]


class Liveness:
    """Liveness across regions."""
