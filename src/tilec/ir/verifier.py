"""Verifier (placeholder)."""
__all__ = ["verify", "CANDIDATE_INVARIANTS"]

CANDIDATE_INVARIANTS: dict[str, str] = {}


def verify(ir, form: str = "candidate") -> None:
    """Check invariants."""
    raise NotImplementedError
