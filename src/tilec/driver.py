"""The compile driver: runs a target's declared pipeline of stages, one pass per stage.

Every target's backend names its pipeline as a tuple of stage names
(``Backend.pipeline``), a subsequence of ``STAGES``:

* ``plan`` (Candidate TileIR in, the planner's ``ModulePlan`` out: every group's legal
  candidates, scores and selection for the backend's hardware ``profile``);
* ``schedule`` (Candidate -> Scheduled TileIR: the plan's choices committed into the IR);
* ``machine`` (Scheduled -> Machine TileIR: explicit per-lane operations);
* ``allocate`` (Machine TileIR with every group's shared buffers placed: ``offset`` on
  each, ``shared_bytes`` on the group; ``ir.allocation``);
* ``emit`` (the target's source: CUDA C++, C);
* ``build`` (the target's executable: a cubin, a shared object, an interpreter).

The driver runs the stages as ``ir.Pass`` objects through an ``ir.PassManager`` over a
``Compilation`` (the state they transform), verifies the IR after every stage that yields
IR (in the form that stage produces) and keeps what each stage produced as a
``StageRecord``, printed on demand (``Compiled.stages``, ``tilec ir --after STAGE``).
A compilation can stop after any stage and be resumed later: ``tilec ir --after machine``
never builds, and the source of a CUDA kernel needs NVRTC but no GPU driver.

Layering: the frontend calls the driver; the driver calls the planner, lowering and the
target's backend, in that order; none of them calls back.

Warm start (``docs/design/warm_start.md``): a target whose backend keeps *launch records*
(``launch_record``/``load_launch``: the binary's cache key and what calling it needs, as
JSON) lets the frontend skip every stage for a kernel it compiled before. The driver says
what such a record depends on besides the captured module and the options
(``target_identity``: the backend's build identity, the planner overrides it applies, the
device) and translates between a finished compilation and its record; the frontend keys
and stores the records.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import tilec.ir as ir
from tilec.support import OFF, progress, progress_enabled

_log = logging.getLogger(__name__)

__all__ = ["STAGES", "StageRecord", "Compilation", "UnknownStage", "begin", "compile_module",
           "default_options", "lower_for", "target_identity", "launch_record", "load_launch"]

STAGES = ("capture", "plan", "schedule", "machine", "allocate", "emit", "build")
"""Every stage name, in pipeline order (``capture`` is the frontend's, always first)."""

_FORMS = {"capture": "candidate", "plan": "plan", "schedule": "scheduled",
          "machine": "machine", "allocate": "machine", "emit": "source", "build": "binary"}
"""What each stage's record holds."""

LARGE_MODULE = 10_000
"""A module of at least this many operations (a long ``tc.static_range`` unrolled) shows
its stages as progress on the terminal (``tilec.support.progress``); the stages' time
grows with it. ``TILEC_LOG=info`` logs every stage's time whatever the size."""


class UnknownStage(ir.UserError, ValueError):
    """A stage name that the target's pipeline does not have."""

    __module__ = "tilec"


@dataclass
class StageRecord:
    """What one stage produced."""

    name: str
    """The stage (one of ``STAGES``)."""
    form: str
    """What it holds: ``candidate``, ``plan``, ``scheduled``, ``machine``, ``source`` or
    ``binary``."""
    value: Any
    """The product: a module, a ``ModulePlan``, the emitted source object, an executable."""
    seconds: float
    """Wall time of the stage (verification excluded)."""
    render: Callable[[], str] = field(repr=False, default=str)
    """Prints ``value`` (called once, on first use of ``text``)."""
    _text: str | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        """The printed product: IR text, the plan report, the source, the build summary."""
        if self._text is None:
            self._text = self.render()
        return self._text


class Compilation:
    """One function of one module on its way through a target's pipeline.

    The stage passes read and replace ``module`` and fill ``plan``, ``source`` and
    ``executable``; ``records`` keeps every stage's product in order."""

    def __init__(self, module: ir.Module, fn_name: str, target: str, backend: Any,
                 options: Any = None) -> None:
        if module.lookup(fn_name) is None:
            known = ", ".join(f"@{f.name}" for f in module)
            raise KeyError(f"no function @{fn_name} in the module (it has {known})")
        self.target = target
        """The target name."""
        self.backend = backend
        """The target's backend (declares ``pipeline``, ``profile``; provides ``emit``,
        ``build`` and, optionally, ``planner_overrides``)."""
        self.fn_name = fn_name
        """The entry function's name."""
        self.module = module
        """The current module (Candidate, then Scheduled, then Machine TileIR)."""
        self.pipeline: tuple[str, ...] = tuple(backend.pipeline)
        """The stages this target runs after capture."""
        unknown = [s for s in self.pipeline if s not in STAGES[1:]]
        if unknown:
            raise ValueError(f"target {target!r} declares unknown stages {unknown}; "
                             f"known: {', '.join(STAGES[1:])}")
        self.options: Any = options
        """The lowering options (with the planner's): ``default_options(backend)`` unless
        given."""
        self.plan: Any = None
        """The planner's ``ModulePlan`` (after ``plan``)."""
        self.groups: list[Any] = []
        """Per group, the scheduling decisions (after ``schedule``)."""
        self.resources: list[dict[str, Any]] = []
        """Per group of the Machine form, threads and shared bytes (after ``machine``)."""
        self.source: Any = None
        """The emitted source object (after ``emit``); its ``text`` is the source."""
        self.executable: Any = None
        """The built executable (after ``build``)."""
        self.records: list[StageRecord] = [
            StageRecord("capture", "candidate", module, 0.0, lambda: ir.print_module(module))]
        """What each stage produced, in order, starting with the captured module."""
        self._done = 0  # stages of ``pipeline`` run so far
        self.shown: Any = OFF
        """The terminal's progress row while ``run`` runs (``OFF`` otherwise); each stage
        names itself on it."""
        self.skipped: tuple[str, ...] = ()
        """Stages not run because the module came in a later form (Machine TileIR written
        or lowered elsewhere enters after ``machine``)."""
        if module.lookup(fn_name).attributes.get("form") == "machine" \
                and "machine" in self.pipeline:
            self._done = self.pipeline.index("machine") + 1
            self.skipped = self.pipeline[:self._done]

    @property
    def stages(self) -> dict[str, StageRecord]:
        """The records of the stages run so far, by name."""
        return {r.name: r for r in self.records}

    @property
    def complete(self) -> bool:
        """True when every stage of the pipeline has run."""
        return self._done == len(self.pipeline)

    def check_stage(self, name: str) -> None:
        """Raise ``UnknownStage`` unless this target's pipeline has stage ``name``."""
        if name != "capture" and name not in self.pipeline:
            have = ", ".join(("capture",) + self.pipeline)
            why = "" if name in STAGES else f"; stages are {', '.join(STAGES)}"
            raise UnknownStage(f"target {self.target!r} has no stage {name!r} (its pipeline: "
                               f"{have}){why}")
        if name in self.skipped:
            raise UnknownStage(f"@{self.fn_name} came as Machine TileIR: stages "
                               f"{', '.join(self.skipped)} did not run")

    def run(self, until: str | None = None) -> Compilation:
        """Run the stages not run yet, up to and including ``until`` (None: all)."""
        stop = len(self.pipeline)
        if until is not None:
            self.check_stage(until)
            stop = 0 if until == "capture" else self.pipeline.index(until) + 1
        if stop <= self._done:
            return self
        passes = [_PASSES[name]() for name in self.pipeline[self._done:stop]]
        shown = self._progress(len(passes))

        def after(p: ir.Pass, comp: Any) -> None:
            self._done += 1
            shown.advance()

        with shown:
            self.shown = shown
            try:
                ir.PassManager(passes, after=after).run(self)
            finally:
                self.shown = OFF
        return self

    def _progress(self, stages: int) -> Any:
        """A progress row over ``stages`` stages when progress is on and the module is large
        (counting stops at ``LARGE_MODULE``); else ``OFF``."""
        if not progress_enabled():
            return OFF
        ops = (op for f in self.module for op in f.body.walk())
        if next(itertools.islice(ops, LARGE_MODULE - 1, None), None) is None:
            return OFF
        return progress(f"compiling @{self.fn_name} for {self.target}", total=stages)

    def after(self, name: str) -> str:
        """The printed product of stage ``name`` (running the pipeline that far)."""
        self.run(name)
        return self.stages[name].text

    def record(self, name: str, value: Any, seconds: float, render: Callable[[], str]) -> None:
        """Keep stage ``name``'s product (called by the stage passes)."""
        self.records.append(StageRecord(name, _FORMS[name], value, seconds, render))
        _log.info("@%s %s for %s: %.1f ms", self.fn_name, name, self.target, seconds * 1e3)

    def __repr__(self) -> str:
        done = ", ".join(r.name for r in self.records)
        return f"<Compilation @{self.fn_name} for {self.target}: {done}>"


# ------------------------------------------------------------------ the stage passes


class _Stage(ir.Pass):
    """A stage: runs ``step`` over the compilation and records its product."""

    in_place = False
    """True when the stage changes the current module itself: the records holding that
    module are printed first, so each keeps what its stage produced."""

    def run(self, comp: Any, am: Any) -> ir.PassResult:
        if self.in_place:
            for r in comp.records:
                if r.value is comp.module:
                    r.text  # noqa: B018 - printed now, before this stage changes the module
        comp.shown.describe(f"compiling @{comp.fn_name} for {comp.target}: {self.name}")
        start = time.perf_counter()
        value, render = self.step(comp)
        comp.record(self.name, value, time.perf_counter() - start, render)
        if isinstance(value, ir.Module):
            ir.verify(value, _FORMS[self.name])
        return ir.PassResult.modified()

    def step(self, comp: Compilation) -> tuple[Any, Callable[[], str]]:
        raise NotImplementedError


def default_options(backend: Any) -> Any:
    """The ``LowerOptions`` a target compiles with: the defaults, with the planner options
    the backend overrides for its device (``planner_overrides``)."""
    from dataclasses import replace

    from tilec.lower import LowerOptions

    opts = LowerOptions()
    overrides = backend.planner_overrides() if hasattr(backend, "planner_overrides") else {}
    return replace(opts, planner=replace(opts.planner, **overrides)) if overrides else opts


def _options(comp: Compilation) -> Any:
    if comp.options is None:
        comp.options = default_options(comp.backend)
    return comp.options


class _Plan(_Stage):
    name = "plan"

    def step(self, comp: Compilation) -> tuple[Any, Callable[[], str]]:
        from tilec.lower import rewrite_for_planning
        from tilec.plan import plan_module

        opts = _options(comp)
        shapes = dict(opts.shapes) if opts.shapes else None
        # shared values first: recomputed copies and materialized buffers are what the
        # matrix planner and the target's realization plan then see
        shared: list[Any] = []
        swapped: list[str] = []
        if opts.planner.enabled:  # without the planner every value stays as captured
            comp.module, shared, swapped = rewrite_for_planning(
                comp.module, comp.backend.profile, opts.planner)
        comp.plan = plan_module(comp.module, comp.backend.profile, opts.planner, shapes)
        comp.plan.shared_values = shared
        comp.plan.rewrites = swapped
        realize = getattr(comp.backend, "realization_plan", None)
        if realize is not None:  # the target plans what the matrix family does not cover
            comp.plan.realization = realize(comp.module, comp.fn_name, opts.target_facts)
        return comp.plan, comp.plan.render


class _Schedule(_Stage):
    name = "schedule"

    def step(self, comp: Compilation) -> tuple[Any, Callable[[], str]]:
        from tilec.lower.schedule import schedule_module

        comp.module, comp.groups = schedule_module(comp.module, comp.backend.profile,
                                                   _options(comp), comp.plan)
        for g in comp.groups:  # what was decided and why (a variant that did not apply ...)
            for note in g.notes:
                _log.info("@%s schedule for %s: %s", comp.fn_name, comp.target, note)
        module = comp.module
        return module, lambda: ir.print_module(module)


class _Machine(_Stage):
    name = "machine"

    def step(self, comp: Compilation) -> tuple[Any, Callable[[], str]]:
        from tilec.lower.machine import lower_scheduled_module

        comp.module, comp.resources = lower_scheduled_module(comp.module, _options(comp))
        for k, info in enumerate(comp.resources):
            sites = info["group_barrier_sites"]
            _log.info("@%s machine for %s: group %d has %d group barrier sites (%d before "
                      "coalescing)", comp.fn_name, comp.target, k, sites["after"],
                      sites["before"])
            proof = info.get("independent_subgroups")
            if proof is not None:
                _log.info("@%s machine for %s: group %d independent subgroups: %d barrier "
                          "sites stay, %d become subgroup barriers, %d go", comp.fn_name,
                          comp.target, k, proof["group"], proof["subgroup"], proof["none"])
        module = comp.module
        return module, lambda: ir.print_module(module)


class _Allocate(_Stage):
    name = "allocate"
    in_place = True

    def step(self, comp: Compilation) -> tuple[Any, Callable[[], str]]:
        from tilec.exec import get_profile

        profile = get_profile(comp.backend.profile)
        align = profile.shared_alignment
        if align is None:
            raise ValueError(f"profile {comp.backend.profile} has no shared memory to place; "
                             f"target {comp.target!r} should not declare an allocate stage")
        ir.allocate_shared(comp.module, align, profile.shared_bytes_per_group)
        module = comp.module
        return module, lambda: ir.print_module(module)


class _Emit(_Stage):
    name = "emit"

    def step(self, comp: Compilation) -> tuple[Any, Callable[[], str]]:
        realization = None if comp.plan is None else comp.plan.realization
        comp.source = comp.backend.emit(comp.module, comp.fn_name) if realization is None \
            else comp.backend.emit(comp.module, comp.fn_name, plan=realization)
        text = comp.source.text
        return comp.source, lambda: text


class _Build(_Stage):
    name = "build"

    def step(self, comp: Compilation) -> tuple[Any, Callable[[], str]]:
        from tilec.runtime import require

        require(comp.target, run=False)
        exe = comp.backend.build(comp.module, comp.fn_name, comp.source)
        comp.executable = exe
        return exe, lambda: _describe(exe)


def _describe(exe: Any) -> str:
    lines = [repr(exe)]
    res = getattr(exe, "resources", None)
    if res is not None:
        lines.append(f"resources: {res}")
    return "\n".join(lines) + "\n"


_PASSES: dict[str, type[_Stage]] = {p.name: p for p in (_Plan, _Schedule, _Machine, _Allocate,
                                                          _Emit, _Build)}


# ------------------------------------------------------------------ entry points


def begin(module: ir.Module, fn_name: str, target: str, options: Any = None) -> Compilation:
    """A compilation of ``@fn_name`` for ``target`` with no stage run yet; ``options``
    (``LowerOptions``) replace the target's ``default_options``.

    Every stage before ``build`` runs anywhere; ``build`` first asks the registry whether
    the target can build kernels here (a C compiler; NVRTC, but no GPU driver, for CUDA)."""
    from tilec.runtime import load_backend

    return Compilation(module, fn_name, target, load_backend(target), options)


def compile_module(module: ir.Module, fn_name: str, target: str, until: str | None = None,
                   options: Any = None) -> Compilation:
    """Run ``target``'s pipeline over ``@fn_name`` of ``module`` (up to ``until``)."""
    return begin(module, fn_name, target, options).run(until)


def lower_for(module: ir.Module, fn_name: str, target: str, options: Any = None) -> ir.Module:
    """The Machine TileIR ``target``'s pipeline makes of ``@fn_name`` (a new module)."""
    return compile_module(module, fn_name, target, "machine", options).module



# ------------------------------------------------------------------ warm start


def target_identity(target: str) -> str | None:
    """Everything a compiled kernel of ``target`` depends on besides its Candidate module and
    its variant: the backend's build identity (``compile_identity``: compiler, flags,
    architecture, versions), the planner overrides ``default_options`` applies for this
    device, and the device's identity. None when the target keeps no launch records (or
    cannot say: then every compile takes the full pipeline)."""
    from tilec.runtime import load_backend

    try:
        backend = load_backend(target)
        ident = getattr(backend, "compile_identity", None)
        if ident is None or not hasattr(backend, "load_launch"):
            return None
        overrides = backend.planner_overrides() if hasattr(backend, "planner_overrides") \
            else {}
        device = backend.device_identity() if hasattr(backend, "device_identity") else ""
        return "\0".join((target, str(backend.profile), ident(),
                          repr(sorted(overrides.items())), str(device)))
    except ir.UserError:  # no compiler, no NVRTC ...: the full pipeline says why
        return None


def launch_record(comp: Compilation) -> dict[str, Any] | None:
    """The launch record of a finished compilation (JSON: what ``load_launch`` needs to call
    its executable in another process), or None when its target keeps none."""
    if not comp.complete or comp.executable is None:
        return None
    make = getattr(comp.backend, "launch_record", None)
    return None if make is None else make(comp.executable)


def load_launch(target: str, record: dict[str, Any]) -> Any:
    """The executable ``record`` describes (no stage runs), or None when it cannot be loaded
    (another format, the binary gone): then compile."""
    from tilec.runtime import load_backend

    backend = load_backend(target)
    load = getattr(backend, "load_launch", None)
    return None if load is None else load(record)
