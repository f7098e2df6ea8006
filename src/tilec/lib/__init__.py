"""Library kernels: compositions of the Candidate TileIR core, with no dedicated opcodes.

Every kernel here is an ordinary ``@tc.kernel`` a user could have written:
matmul (plus ``A @ W.T``, batched and a GEMM with a bias + activation epilogue), einsum,
softmax (one-tile and online), layer norm, RMS norm, flash-style attention,
row reductions and transpose. ``DEMOS`` lists a checked invocation of each
(``tilec demo`` runs them).
"""

from __future__ import annotations

from .attention import DEMOS as _attention_demos
from .attention import flash_attention
from .einsum import DEMOS as _einsum_demos
from .einsum import einsum_matmul, outer, row_dot
from .masks import prefix_mask
from .matmul import DEMOS as _matmul_demos
from .matmul import batched_matmul, gemm_bias_act, linear, matmul, pipelined_matmul
from .norms import DEMOS as _norms_demos
from .norms import layernorm, rmsnorm
from .reductions import DEMOS as _reductions_demos
from .reductions import row_max, row_mean_strict, row_sum
from .softmax import DEMOS as _softmax_demos
from .softmax import online_softmax, softmax
from .transpose import DEMOS as _transpose_demos
from .transpose import transpose

DEMOS = [*_matmul_demos, *_einsum_demos, *_softmax_demos, *_norms_demos, *_attention_demos,
         *_reductions_demos, *_transpose_demos]
"""Every library demo case (``tilec.demo.DemoCase``)."""

__all__ = ["DEMOS", "flash_attention", "einsum_matmul", "outer", "row_dot", "prefix_mask",
           "batched_matmul", "gemm_bias_act", "linear", "matmul", "pipelined_matmul", "transpose",
           "layernorm", "rmsnorm", "row_max", "row_mean_strict", "row_sum", "online_softmax",
           "softmax"]
