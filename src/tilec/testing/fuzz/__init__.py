"""The differential fuzzer: random DSL kernels on every path, checked against the reference
and an independent numpy model (``docs/design/fuzzing.md``)."""

from .choices import ChoiceStream
from .generator import DEFAULT_WEIGHTS, FAMILIES, generate
from .program import Program

__all__ = ["ChoiceStream", "generate", "Program", "FAMILIES", "DEFAULT_WEIGHTS"]
