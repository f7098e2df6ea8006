"""Memory effects (placeholder)."""
__all__ = ["MemoryEffects"]


class MemoryEffects:
    """Memory effects per operation."""
