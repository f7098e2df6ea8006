"""``tune``: measured selection over a kernel's tunables and its plan variants.

The steps (``docs/guide/tuning.md``): enumerate and shortlist the space
(``space``), build the shortlisted candidates in parallel processes, validate
each against the reference on fresh inputs (``validate``), time the valid ones
here one at a time, replay the best three in every order (``measure``), and
store the record (``tilec.runtime.records``) that later calls resolve their
tunables from. Every candidate and every rejection is kept, with its reason.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import tilec.ir as ir
from tilec.frontend.jit import Kernel, _as_kernel
from tilec.frontend.signature import ArraySpec
from tilec.frontend.tunables import defaults, shape_bucket
from tilec.support import OFF, Task, progress

from .measure import Timer, median_spread, replay
from .space import Candidate, Rejection, enumerate_space, label, shortlist
from .validate import compare, make_inputs

__all__ = ["tune", "TuneResult", "refine_candidates"]


@dataclass
class TuneResult:
    """What a tuning run did."""

    kernel: str
    """The kernel's name."""
    target: str
    """The target name."""
    selected: Candidate | None
    """The replay's choice (None: no candidate validated)."""
    candidates: list[Candidate]
    """Every shortlisted candidate, in the model's order, with its outcome."""
    rejections: list[Rejection]
    """Every configuration or candidate left out, with the stage and the reason."""
    record: Path | None = None
    """The record file written (None: not stored)."""
    model_pick: Candidate | None = None
    """The model's first choice among the shortlisted candidates."""
    configurations: int = 0
    """How many configurations the tunables give."""
    seconds: dict[str, float] = field(default_factory=dict)
    """Wall time per step (space, build, validate, measure, replay)."""

    @property
    def model_regret(self) -> float | None:
        """The model pick's search time over the selection's, minus 1 (None: not both
        measured)."""
        a, b = self.model_pick, self.selected
        if a is None or b is None or a.search_ms is None or b.search_ms is None:
            return None
        return a.search_ms / b.search_ms - 1.0

    def table(self) -> str:
        """The candidates as a text table: model score and rank, validation, times and the
        residual of the measured time against the model's scale."""
        measured = [c for c in self.candidates if c.search_ms and c.score]
        scale = float(np.median([c.search_ms / c.score for c in measured])) if measured else None
        head = f"{'candidate':<44} {'score':>10} {'rank':>4} {'valid':<8} {'search ms':>10} " \
               f"{'replay ms':>10} {'host ms':>9} {'resid':>6}"
        rows = [head, "-" * len(head)]
        for c in self.candidates:
            resid = "" if scale is None or not (c.search_ms and c.score) \
                else f"{c.search_ms / (scale * c.score) - 1:+.2f}"
            mark = " *" if c is self.selected else ""
            rows.append(f"{(c.label + mark)[:44]:<44} "
                        f"{'-' if c.score is None else f'{c.score:.4g}':>10} "
                        f"{'-' if c.model_rank is None else c.model_rank:>4} "
                        f"{('ok' if c.ok else 'FAILED' if c.validation else '-'):<8} "
                        f"{_ms(c.search_ms):>10} {_ms(c.replay_ms):>10} {_ms(c.host_ms):>9} "
                        f"{resid:>6}")
        if self.rejections:
            rows.append(f"{len(self.rejections)} rejected:")
            for r in self.rejections[:20]:
                rows.append(f"  [{r.stage}] {label(r.config, r.variant)}: {r.reason[:160]}")
            if len(self.rejections) > 20:
                rows.append(f"  ... {len(self.rejections) - 20} more in the record")
        return "\n".join(rows)

    def to_json(self) -> dict[str, Any]:
        """The record body (without the key)."""
        sel = self.selected
        pick = self.model_pick
        return {
            "selected": None if sel is None else {**sel.to_json(), "label": sel.label},
            "model_pick": None if pick is None else {"label": pick.label,
                                                     "config": pick.to_json()["config"],
                                                     "variant": dict(pick.variant)},
            "model_regret": self.model_regret,
            "configurations": self.configurations,
            "candidates": [c.to_json() for c in self.candidates],
            "rejections": [r.to_json() for r in self.rejections],
            "seconds": dict(self.seconds),
        }


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v:.4f}"


# --------------------------------------------------------------------------- building


def _kernel_ref(k: Kernel) -> tuple[str, str | None, str] | None:
    """How a worker process finds ``k``: (module, file, qualified name), or None when it
    cannot (a kernel defined in a function or typed at a prompt)."""
    qual = getattr(k.fn, "__qualname__", "")
    mod = getattr(k.fn, "__module__", None)
    if not mod or "<locals>" in qual:
        return None
    file = getattr(sys.modules.get(mod), "__file__", None)
    if mod == "__main__" or _importable(mod):
        if mod == "__main__" and not file:
            return None
        return mod, file, qual
    return ("__main__", file, qual) if file else None  # loaded from a file: load it again


def _importable(mod: str) -> bool:
    """True when a fresh interpreter finds ``mod``'s top-level package on ``sys.path``."""
    import importlib.machinery

    return importlib.machinery.PathFinder.find_spec(mod.split(".")[0]) is not None


def _load_kernel(ref: tuple[str, str | None, str]) -> Kernel:
    import importlib
    import importlib.util

    mod_name, file, qual = ref
    if mod_name != "__main__":
        module: Any = importlib.import_module(mod_name)
    else:
        spec = importlib.util.spec_from_file_location("_tilec_tuned_script", file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    obj: Any = module
    for part in qual.split("."):
        obj = getattr(obj, part)
    return _as_kernel(obj)


def _build_one(ref: tuple[str, str | None, str], arg_specs: list[Any], target: str,
               variant: dict[str, Any], constexprs: dict[str, Any]) -> tuple[float, str | None]:
    """A worker: build one candidate (its binary lands in the compile cache)."""
    t0 = time.perf_counter()
    try:
        k = _load_kernel(ref)
        k.compile(*arg_specs, target=target, variant=variant, **constexprs).executable()
    except Exception as e:  # reported as the candidate's build failure
        return time.perf_counter() - t0, f"{type(e).__name__}: {e}"
    return time.perf_counter() - t0, None


def _arg_specs(k: Kernel, args: Sequence[Any], static_shapes: Any) -> list[Any]:
    """Arguments a worker can compile from: array specs (symbolic extents unless static)
    and the scalars themselves."""
    from tilec.frontend.dtypes import dtype_from_numpy, numpy_dtype

    rt = k.runtime_params
    statics = {p.name for p in rt} if static_shapes is True else set(static_shapes or ())
    out = []
    for p, a in zip(rt, args):
        if hasattr(a, "shape") and hasattr(a, "dtype"):
            dt = dtype_from_numpy(a.dtype)
            shape = tuple(int(e) for e in a.shape) if p.name in statics else \
                (None,) * len(a.shape)
            out.append(ArraySpec(shape, numpy_dtype(dt) if dt is not None else a.dtype))
        else:
            out.append(a)
    return out


def _quiet_worker() -> None:
    """A build worker shows no progress of its own: the parent's row counts its builds."""
    os.environ["TILEC_PROGRESS"] = "0"


def _prebuild(k: Kernel, cands: list[Candidate], args: Sequence[Any], target: str,
              constexprs: dict[str, Any], static_shapes: Any, jobs: int,
              say: Callable[[str], None], row: Callable[[str, int], Task]) -> None:
    """Build the candidates in ``jobs`` worker processes, so that their binaries are in the
    compile cache when this process builds them (a cache hit). A worker's failure is not
    the candidate's: this process builds it again and reports what it raises."""
    ref = _kernel_ref(k)
    if jobs <= 1 or len(cands) <= 1 or ref is None:
        if ref is None and jobs > 1:
            say(f"{k.__name__} is not importable by a worker; building here, one at a time")
        return
    import concurrent.futures as cf
    import multiprocessing as mp

    specs = _arg_specs(k, args, static_shapes)
    try:
        with cf.ProcessPoolExecutor(jobs, mp_context=mp.get_context("spawn"),
                                    initializer=_quiet_worker) as pool, \
                row(f"building in {jobs} workers", len(cands)) as shown:
            futs = {pool.submit(_build_one, ref, specs, target, dict(c.variant),
                                {**constexprs, **c.config}): i for i, c in enumerate(cands)}
            for n, fut in enumerate(cf.as_completed(futs), start=1):
                i = futs[fut]
                secs, err = fut.result()
                cands[i].compile_s = round(secs, 3)
                say(f"built {n}/{len(cands)}: {cands[i].label} ({secs:.1f} s)"
                    + (f"; the worker reports {err[:120]}" if err else ""))
                shown.advance()
    except (cf.process.BrokenProcessPool, OSError) as e:
        say(f"the build workers stopped ({type(e).__name__}); building here, one at a time")


# --------------------------------------------------------------------------- devices


def _device_args(target: str, args: Sequence[Any]) -> tuple[list[Any], bool]:
    """The arguments to time with, and whether they are torch tensors. On ``cuda`` host
    arrays are copied to the device (with torch)."""
    if not target.startswith("cuda"):
        return list(args), False
    import torch

    from tilec.testing.fuzz.paths import to_device

    out = [to_device(torch, a) if isinstance(a, np.ndarray) else a for a in args]
    return out, any(isinstance(a, torch.Tensor) for a in out)


def _run_checked(target: str, compiled: Any, host: list[Any]) -> list[Any]:
    """Run ``compiled`` on copies of ``host`` (on the device for ``cuda``); the outputs."""
    if not target.startswith("cuda"):
        got = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
        compiled.run(got)
        return got
    import torch

    from tilec.testing.fuzz.paths import to_device, to_host

    dev = [to_device(torch, a) if isinstance(a, np.ndarray) else a for a in host]
    compiled.run(dev)
    torch.cuda.synchronize()
    return [to_host(torch, d) if isinstance(a, np.ndarray) else a for a, d in zip(host, dev)]


def _counted(items: Sequence[Any], shown: Task) -> Iterator[Any]:
    """``items``, advancing ``shown`` as each one's loop body ends (``continue`` included)."""
    for x in items:
        yield x
        shown.advance()


class _Run:
    """The build, validation and timing steps of one search, over lists of candidates."""

    def __init__(self, k: Kernel, args: Sequence[Any], target: str, constexprs: dict[str, Any],
                 static_shapes: Any, result: TuneResult, say: Callable[[str], None],
                 validate: bool, seed: int, jobs: int | None, show: bool = True) -> None:
        self.k, self.args, self.target = k, args, target
        self.show = show  # progress rows on the terminal (tune(progress=False): none)
        self.constexprs, self.static_shapes = constexprs, static_shapes
        self.result, self.say, self.check = result, say, validate
        self.jobs = jobs
        self.shrink = static_shapes is False
        self.rng = np.random.default_rng(seed)
        self.refs: dict[str, list[Any]] = {}
        self.host: list[Any] | None = None
        self.dev, self.uses_torch = _device_args(target, args)
        self.timer: Timer | None = None

    def _reject(self, c: Candidate, stage: str) -> None:
        self.result.rejections.append(Rejection(c.config, c.variant, stage, c.validation))

    def row(self, what: str, total: int) -> Task:
        """A progress row for one step over ``total`` candidates (``OFF`` when quiet)."""
        return progress(f"tune {self.k.__name__}: {what}", total=total) if self.show else OFF

    def _add(self, step: str, t0: float) -> None:
        self.result.seconds[step] = round(self.result.seconds.get(step, 0.0)
                                          + time.perf_counter() - t0, 3)

    def build(self, cands: list[Candidate]) -> list[tuple[Candidate, Any]]:
        """Build in worker processes (into the cache), then here; failures are rejections."""
        t0 = time.perf_counter()
        jobs = self.jobs if self.jobs is not None else min(len(cands), os.cpu_count() or 1)
        _prebuild(self.k, cands, self.args, self.target, self.constexprs, self.static_shapes,
                  jobs, self.say, self.row)
        built = []
        with self.row("building", len(cands)) as shown:
            for c in _counted(cands, shown):
                t1 = time.perf_counter()
                try:
                    compiled = self.k.compile(*self.args, target=self.target,
                                              variant=c.variant,
                                              static_shapes=self.static_shapes,
                                              **{**self.constexprs, **c.config})
                    compiled.executable()
                except Exception as e:  # a build failure is this candidate's, not the search's
                    c.validation = f"build failed: {type(e).__name__}: {e}"
                    self._reject(c, "compile")
                    continue
                if c.compile_s is None:
                    c.compile_s = round(time.perf_counter() - t1, 3)
                built.append((c, compiled))
        self._add("build", t0)
        return built

    def validate(self, built: list[tuple[Candidate, Any]], specs: list[Any]
                 ) -> list[tuple[Candidate, Any]]:
        """The candidates whose outputs match the reference on fresh inputs."""
        t0 = time.perf_counter()
        if built and self.host is None:
            fn = built[0][1].module.lookup(built[0][1].fn_name)
            self.host = make_inputs(fn, specs, self.args, self.rng, self.shrink)
        valid = []
        with self.row("validating", len(built)) if self.check else OFF as shown:
            for c, compiled in _counted(built, shown):
                if not self.check:
                    c.validation = "not validated"
                    valid.append((c, compiled))
                    continue
                ck = repr(sorted(c.config.items()))
                try:
                    if ck not in self.refs:
                        want = [a.copy() if isinstance(a, np.ndarray) else a for a in self.host]
                        self.k.compile(*want, target="reference",
                                       static_shapes=self.static_shapes,
                                       **{**self.constexprs, **c.config}).run(want)
                        self.refs[ck] = want
                    got = _run_checked(self.target, compiled, self.host)
                except Exception as e:  # an error raised by the candidate (or its reference)
                    c.validation = f"error: {type(e).__name__}: {e}"
                    self._reject(c, "run")
                    self.say(f"validate {c.label}: {c.validation[:160]}")
                    continue
                check = compare([p.name for p in self.k.runtime_params], got, self.refs[ck])
                c.validation = "ok" if check.ok else f"mismatch: {check.detail}"
                if not check.ok:
                    self._reject(c, "validate")
                    self.say(f"validate {c.label}: {c.validation[:160]}")
                    continue
                valid.append((c, compiled))
        self._add("validate", t0)
        return valid

    def measure(self, valid: list[tuple[Candidate, Any]], batches: int, batch_ms: float
                ) -> list[tuple[Candidate, Callable[[], Any], int]]:
        """Time each candidate: (candidate, its call, calls per batch)."""
        t0 = time.perf_counter()
        if self.timer is None:
            self.timer = Timer(self.target, batch_ms, self.uses_torch)
        runs = []
        with self.row("measuring", len(valid)) as shown:
            for n, (c, compiled) in enumerate(_counted(valid, shown), start=1):
                exe = compiled.executable()
                dev = self.dev

                def run(exe: Any = exe, dev: list[Any] = dev) -> Any:
                    return exe(*dev)

                try:
                    compiled.check_args(dev)
                    calls = self.timer.calls_per_batch(run)
                    samples = [self.timer.batch(run, calls) for _ in range(batches)]
                except Exception as e:  # a launch failure at the timing shape
                    c.validation = f"error at the timing shape: {type(e).__name__}: {e}"
                    self._reject(c, "run")
                    continue
                c.search_ms, c.search_spread = median_spread([s.device_ms for s in samples])
                c.host_ms = float(np.median([s.host_ms for s in samples]))
                runs.append((c, run, calls))
                self.say(f"measured {n}/{len(valid)}: {c.label}: {c.search_ms:.4f} ms")
        self._add("measure", t0)
        return runs


# --------------------------------------------------------------------------- the search


def tune(kernel: Any, *args: Any, target: str | None = None, budget: int | str | None = None,
         threads_per_config: int = 2, jobs: int | None = None, batches: int = 10,
         replay_rounds: int = 2, batch_ms: float = 20.0, seed: int = 0, store: bool = True,
         progress: bool | Callable[[str], None] = True, static_shapes: Any = False,
         validate: bool = True, refine: int = 3, **constexprs: Any) -> TuneResult:
    """Search ``kernel``'s tunables and plan variants for the call ``kernel(*args)`` on
    ``target`` and store the choice; see ``docs/guide/tuning.md``.

    ``budget``: how many candidates (best by the model) are built and measured: an int,
    ``"all"``, or None for the default (8 when the target's model prices them, else all).
    ``constexprs`` fix parameters (a tunable given here is not searched). ``args`` are the
    timing inputs (host arrays are copied to the device on ``cuda``; outputs are
    overwritten). ``validate=False`` skips the reference check, for measurement studies of
    configurations validated before: such a run stores no record (an unvalidated candidate
    is never a choice). ``refine``: how many of the best configurations are measured again
    with each of the target's own variants (``Backend.tuning_variants``: the cpu's register
    micro-tiles); 0 skips that stage."""
    from tilec.runtime import default_target, load_backend, require
    from tilec.runtime.records import store_record

    k = _as_kernel(kernel)
    tgt = target or default_target()
    require(tgt)
    space_t = k.tunables
    if not space_t:
        raise ir.ArgumentError(f"{k.__name__} has no tc.tunable parameters to tune")
    say = progress if callable(progress) else (_printer() if progress else (lambda s: None))
    fixed = {n: v for n, v in constexprs.items() if n in space_t}
    t_start = time.perf_counter()
    _, specs, _ = k.specialize(args, {**constexprs, **defaults(space_t, fixed)},
                                        static_shapes)
    buckets = shape_bucket(specs, args)

    def module_of(cfg: dict[str, Any]) -> tuple[ir.Module, str]:
        kk, sp, vals = k.specialize(args, {**constexprs, **cfg}, static_shapes)
        return k.module_for(kk, sp, vals), k.fn.__name__

    space = enumerate_space(module_of, tgt, space_t, fixed, buckets, threads_per_config)
    priced = any(c.score is not None for c in space.candidates)
    if budget == "all" or (budget is None and not priced):
        keep = None
    elif budget is None:
        keep = 8
    elif isinstance(budget, int) and budget >= 1:
        keep = budget
    else:
        raise ir.ArgumentError(f"tune(): budget must be a positive int or 'all', got {budget!r}")
    short, dropped = shortlist(space, keep)
    result = TuneResult(k.__name__, tgt, None, short, [*space.rejections, *dropped],
                        configurations=space.configurations)
    result.model_pick = next((c for c in short if c.model_rank == 0), None)
    say(f"{k.__name__} on {tgt}: {space.configurations} configurations, "
        f"{len(space.candidates)} legal candidates, {len(space.rejections)} rejected; "
        f"measuring {len(short)}")
    result.seconds["space"] = round(time.perf_counter() - t_start, 3)

    steps = _Run(k, args, tgt, constexprs, static_shapes, result, say, validate, seed, jobs,
                 show=progress is not False)
    runs = steps.measure(steps.validate(steps.build(short), specs), batches, batch_ms)
    variants = getattr(load_backend(tgt), "tuning_variants", None)
    extra = variants(*module_of(runs[0][0].config)) if variants is not None and refine \
        and runs else []
    if extra:
        # Stage 2: the target's own variants (cpu: register micro-tiles) of the best
        # configurations, each against the same protocol.
        best = sorted(runs, key=lambda r: r[0].search_ms)[:refine]
        more = refine_candidates([c for c, _, _ in best], extra)
        say(f"refining the best {len(best)}: {len(more)} candidates with the target's "
            f"variants")
        result.candidates.extend(more)
        runs += steps.measure(steps.validate(steps.build(more), specs), batches, batch_ms)

    t0 = time.perf_counter()
    finalists = sorted(runs, key=lambda r: r[0].search_ms)[:3]
    if finalists:
        times = replay(steps.timer, [(call, calls) for _, call, calls in finalists],
                       replay_rounds)
        for (c, _, _), t in zip(finalists, times, strict=True):
            c.replay_batches.extend(t)
            c.replay_ms = float(np.median(c.replay_batches))
        result.selected = min((f[0] for f in finalists), key=lambda c: c.replay_ms)
    result.seconds["replay"] = round(time.perf_counter() - t0, 3)

    if result.selected is not None:
        say(f"selected {result.selected.label}: {result.selected.replay_ms:.4f} ms "
            f"(replay median of {len(result.selected.replay_batches)} batches)")
        if store and validate:
            key = k.record_key(args, constexprs, buckets, tgt, static_shapes)
            body = result.to_json()
            body["created"] = datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds")
            body["protocol"] = {"batches": batches, "replay_rounds": replay_rounds,
                                "batch_ms": batch_ms, "validation_seed": seed,
                                "validation_shrunk": steps.shrink,
                                "device_timer": "cuda events" if steps.uses_torch
                                else "host clock"}
            result.record = store_record(key, body)
            k.forget_resolutions()  # later calls resolve from the new record
            say(f"record: {result.record}")
    else:
        say("no candidate validated; nothing stored")
    return result


def refine_candidates(best: Sequence[Candidate], variants: Sequence[dict[str, Any]]
                      ) -> list[Candidate]:
    """The candidates of tuning's refine stage: each of ``best`` with each of the target's
    ``variants`` laid over its own (a ``split_k`` variant replaces a split the candidate
    had), except a split that would leave a split fewer than
    ``split_price.MIN_STEPS_PER_SPLIT`` K steps."""
    return [Candidate(dict(c.config), {**c.variant, **v}, c.score, c.plan,
                      terms={} if "split_k" in v else c.terms, k_steps=c.k_steps)
            for c in best for v in variants if _splits_fit(c, v)]


def _splits_fit(c: Candidate, variant: dict[str, Any]) -> bool:
    """Whether ``variant`` leaves every split of ``c``'s K loop its fewest steps
    (``split_price.MIN_STEPS_PER_SPLIT``; True when the loop's trip count is not known or
    the variant does not split)."""
    from tilec.plan.split_price import MIN_STEPS_PER_SPLIT

    s = variant.get("split_k")
    return not s or c.k_steps is None or c.k_steps >= s * MIN_STEPS_PER_SPLIT


def _printer() -> Callable[[str], None]:
    def say(text: str) -> None:
        print(f"[tune] {text}", file=sys.stderr, flush=True)

    return say
