"""The ``cpu`` target: TileIR -> C -> the system C compiler -> ctypes, with a disk cache.

Modules: ``profile`` (the ``cpu`` profile and its facts), ``plan`` (the
realization plan), ``emitter`` (``CEmitter``, over the shared ``targets.clike``
base), ``values`` (the forms tiles take while emitting), ``access`` (views and
copy loops), ``reductions``, ``mma`` and ``reindex`` (aggregation;
register-blocked micro-kernels; copies with bounds), ``source`` (``CSource``),
``prelude`` (scalar semantics in C), ``compiler`` (probing and the cached
compile function), ``interop`` (numpy / DLPack arguments, pre-launch checks),
``runtime`` (``CExecutable``, its launch description and binding cache) and ``backend``
(``make_backend``, ``probe``, launch records).

Numerical contract (docs/design/tileir.md). Everything is bit-identical to the
reference interpreter (NaN payloads aside) except where a policy or one of
these documented tolerances applies:

* ``unordered_tree`` reductions accumulate 8 or 16 lane partials merged
  pairwise (the reference uses another tree): sums agree within their
  regrouping error (about ``n * eps * sum(|x|)``), max/min exactly;
* ``unordered_tree`` ``mma`` uses fused multiply-add where the CPU has FMA
  (the reference folds strictly): within ``K * eps * (|A| @ |B|)``;
* transcendental functions are the f64 result rounded to the type, as in the
  reference: the C library's f64 functions (bit-identical to numpy on glibc
  in our tests except f64 ``tanh``, which numpy computes itself: 1 ulp). f32
  ``exp``/``sigmoid`` use a vectorizable double-precision exponential whose
  f32 rounding can differ from the reference only when ``exp(x)`` lies within
  about 1e-15 relative of an f32 rounding boundary (1 ulp at most; none seen
  in 8M samples).

Every translation unit is compiled with ``-ffp-contract=off``: no fused
multiply-add the IR did not ask for, so elementwise arithmetic and
``strict_fold`` ``mma``/``reduce`` (separate multiply and add, in k order)
are bit-identical; the ``unordered_tree`` micro-kernels use FMA explicitly
(intrinsics). ``-fwrapv`` gives numpy's wrapping integer overflow.
``-fno-trapping-math`` lets GCC vectorize the branchy helpers, but also lets it
rewrite a float -> integer -> float round trip as ``trunc`` (which keeps the
sign of a zero): the float -> integer helper converts a value that truncates
to 0 as ``+0.0``, so the rewrite cannot change a result. ``-fno-builtin-pow``
keeps ``pow`` the C library's C99 ``pow``: GCC's vectorizer would otherwise
turn ``pow(x, 0.5)`` into ``sqrt(x)``, which differs at ``-0.0`` and ``-inf``.

Execution is decided by the realization plan (``plan``, from the profile's
facts, shown in the plan report): the outermost ``parallel`` is an OpenMP loop
over its programs in dynamic chunks, only when the programs hold enough
estimated work (``parallel_work``) to pay for waking threads; nested ones are
plain loops; ``mma`` runs in register micro-tiles; tree reductions in lane
partials. ``OMP_NUM_THREADS`` sets the thread count. libgomp's thread pool does
not survive ``fork``: use the ``spawn`` start method for worker processes.
Tiles are static-shape local arrays; a function whose tiles exceed the
profile's ``stack_budget`` keeps them in thread-local storage instead (OpenMP
worker stacks can be small).

Runtime errors (integer division by zero, ``reindex`` out of range without
``fill``, an access leaving a ``total`` view, a failed ``assert``) are tested
before they happen, claim a status word and leave like a failed check; the
launcher turns the status into ``KernelArithmeticError`` /
``KernelIndexError`` / ``KernelAssertionError`` naming the operation's
source location. Operations the backend cannot translate
(``call``, ``br``, ``atom.call``, a grid-scope ``sync`` inside a program,
atomics on f16/bf16/i1 memory, loop-carried memories or tuples) are rejected
at compile time with their location.
"""
