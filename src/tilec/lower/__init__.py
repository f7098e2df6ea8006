"""Lowering: Candidate -> Scheduled -> Machine TileIR (see docs/design/lowering.md)."""
