"""The ``cuda`` target: Machine TileIR -> CUDA C++ -> NVRTC (through cuda-core) -> launch.

Modules: ``profile`` (``cuda:sm_90``, ``cuda:sm_80``: limits, atoms, facts),
``prelude`` (scalar semantics as device helpers, no headers), ``access``
(per-thread guarded and vectorized accesses), ``ptx`` (the atom catalog as
inline PTX), ``emitter`` (``CUDAEmitter`` over the shared ``targets.clike``
base) with its printer tables (``tile_printers``, ``memory_printers``,
``atom_printers``), ``forms`` (register arrays), ``kernel_abi`` (parameters and
the grid's host steps), ``wgmma_facts`` (descriptor reuse and accumulator
lifetimes, an analysis over the IR), ``source`` (``CUDASource``, what the
launcher needs), ``compiler`` (NVRTC, resource report, disk cache), ``cudriver``
(the driver API through ``ctypes``), ``launcher`` (a loaded kernel and its launch),
``fast_launch`` (a bound signature's launch as straight-line code), ``runtime``
(device arrays, validation, ``CUDAExecutable`` and its binding cache) and ``backend``
(``make_backend``, ``probe``, launch records).

Nothing here imports ``cuda.core`` at import time: emission works without the
``[cuda]`` extra; compiling needs NVRTC (no GPU), running needs a device and its driver
library, called through ``ctypes`` (``cudriver``): a cached kernel is called without
importing the emitter, the compiler, ``cuda.core`` or ``cuda.bindings``.
"""
