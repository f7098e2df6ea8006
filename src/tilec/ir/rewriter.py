"""IRRewriter (placeholder)."""
__all__ = ["IRRewriter"]


class IRRewriter:
    """Mutations that invalidate analyses."""
