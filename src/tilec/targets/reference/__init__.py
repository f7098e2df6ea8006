"""The reference target: a numpy interpreter of Candidate TileIR, the semantic oracle.

``numerics`` defines the scalar semantics (shared with other backends'
tests), ``interpreter`` runs TileIR with one registered implementation per
opcode over the memory values of ``memref``, ``backend`` binds kernel arguments
and is what the ``reference`` target in ``tilec.runtime.targets`` loads.
"""

from .backend import ReferenceBackend, ReferenceExecutable, bind_arguments, make_backend
from .interpreter import IMPLEMENTATIONS, Interpreter, InterpretError, implements
from .memref import MemRef

__all__ = ["ReferenceBackend", "ReferenceExecutable", "bind_arguments", "make_backend",
           "IMPLEMENTATIONS", "InterpretError", "Interpreter", "MemRef", "implements"]
