"""Parser (placeholder)."""
__all__ = ["parse"]


def parse(text: str):
    """Read the textual form."""
    raise NotImplementedError
