"""The ``cpu`` target: TileIR -> C -> the system C compiler -> ctypes, with a disk cache.

Modules: ``emitter`` (``CEmitter``, over the shared ``backends.clike`` base),
``access`` (views and copy loops), ``mma`` (register-blocked micro-kernels),
``prelude`` (scalar semantics in C), ``compiler`` (probing and the cached
compile function), ``interop`` (numpy / DLPack arguments, pre-launch checks)
and ``backend`` (``make_backend``, ``probe``, ``CExecutable``).

Numerical contract (docs/design/tileir.md): everything is bit-identical to
the reference interpreter except where a policy or a documented tolerance
says otherwise:

* ``unordered_tree`` reductions use 8- or 16-lane partial accumulators and a
  pairwise merge (the reference uses another tree): results agree within the
  regrouping error of the sum (about ``n * eps * sum(|x|)``);
* ``unordered_tree`` ``mma`` uses fused multiply-add where the CPU has it;
* f32 ``exp``/``sigmoid`` use a vectorizable double-precision exponential, so
  they agree with the reference's f64-evaluated value except in the rare case
  where ``exp(x)`` is within ~1e-15 relative of an f32 rounding boundary
  (1 ulp at most); other transcendental functions call the C library in f64
  (bit-identical to numpy on glibc, at most 1 ulp elsewhere);
* ``strict_fold`` reductions and ``mma`` run in source order without
  contraction (``-ffp-contract=off``): bit-identical, NaN payloads aside.
"""
