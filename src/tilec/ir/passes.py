"""Passes (placeholder)."""
__all__ = ["Pass", "PassManager", "PassResult"]


class PassResult:
    """What a pass changed and preserved."""


class Pass:
    """A transformation."""


class PassManager:
    """Runs passes."""
