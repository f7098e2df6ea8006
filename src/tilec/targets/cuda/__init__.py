"""The ``cuda`` target: Machine TileIR -> CUDA C++ -> NVRTC (through cuda-core) -> launch.

Modules: ``prelude`` (scalar semantics as device helpers, no headers),
``access`` (per-thread guarded and vectorized accesses), ``ptx`` (the atom
catalog as inline PTX), ``emitter`` (``CUDAEmitter`` over the shared
``targets.clike`` base), ``compiler`` (NVRTC, resource report, disk cache),
``runtime`` (device arrays, validation, launch) and ``backend``
(``make_backend``, ``probe``, ``CUDAExecutable``).

Nothing here imports ``cuda.core`` at import time: emission works without the
``[cuda]`` extra; compiling needs NVRTC (no GPU), running needs a device.
"""
