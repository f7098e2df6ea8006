"""The ``tilec`` command: demo, run, ir, plan, tune, bench, targets, cache.

Every subcommand prints with rich; long work shows a progress bar. Errors in
user programs print as located diagnostics, not tracebacks.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import tilec
from tilec.driver import STAGES

__all__ = ["main"]


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


# ----------------------------------------------------------------- example loading


def _examples_dir() -> Path | None:
    """The repository's ``examples/`` folder when tilec runs from a checkout."""
    here = Path(tilec.__file__).resolve()
    for parent in here.parents:
        cand = parent / "examples"
        if cand.is_dir() and (parent / "pyproject.toml").exists():
            return cand
    return None


@contextlib.contextmanager
def _script_folder(path: Path) -> Iterator[None]:
    """The script's folder first on ``sys.path`` while it runs or loads, as ``python FILE``
    puts it (so a file's sibling modules import)."""
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(folder)


def _target_names() -> str:
    """Every name ``--target`` accepts, for help texts (the registry's names: no target is
    probed, since every command builds the parser)."""
    from tilec.exec import PROFILE_ALIASES, profile_names
    from tilec.runtime import target_names

    names = target_names()
    names += [n for n in (*profile_names(), *PROFILE_ALIASES) if n not in names]
    return ", ".join(names)


def _short(reason: str) -> str:
    """A reason's first clause (``no usable CUDA driver: DynamicLibNotFoundError: ...``
    is ``no usable CUDA driver``)."""
    return reason.split(":", 1)[0].strip()


# ------------------------------------------------------------------- subcommands


def cmd_demo(args: argparse.Namespace) -> int:
    """Run every example kernel on the target and check it against the reference."""
    from tilec.demo import all_cases, run_case

    con = _console()
    target = args.target or tilec.default_target()
    cases = all_cases(_examples_dir())
    if not cases:
        con.print("[red]no demo cases found[/red]")
        return 1
    table = Table(title=f"tilec demo — target {target}")
    for col in ("kernel", "target", "shape", "max error", "tolerance", "time (ms)", "result"):
        table.add_column(col, justify="right" if col in ("max error", "time (ms)") else "left",
                         no_wrap=col in ("kernel", "target", "result"))
    failed = 0
    with Progress(console=con, transient=True) as prog:
        task = prog.add_task("running kernels", total=len(cases))
        for case in cases:
            prog.update(task, description=f"{case.name}")
            res = run_case(case, target, seed=args.seed)
            ok = res.ok
            failed += not ok
            table.add_row(case.name, res.target, res.shape,
                          "-" if res.max_error is None else f"{res.max_error:.3g}",
                          f"{res.tolerance:.1g}", "-" if res.ms is None else f"{res.ms:.2f}",
                          "[green]pass[/green]" if ok else f"[red]FAIL[/red] {res.message}")
            prog.advance(task)
    con.print(table)
    con.print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


def cmd_run(args: argparse.Namespace) -> int:
    """Run a Python file as ``__main__``."""
    path = Path(args.file)
    if not path.exists():
        raise SystemExit(f"tilec: no such file: {path}")
    argv = sys.argv
    sys.argv = [str(path), *args.rest]
    try:
        with _script_folder(path):
            runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.argv = argv
    return 0


def _compiled_cases(args: argparse.Namespace, mod: ModuleType | None = None
                    ) -> list[tuple[Any, Any, list[Any]]]:
    """(case, compiled, inputs) for every demo case of FILE (already loaded as ``mod``, or
    loaded here), optionally filtered by ``--kernel``."""
    cases = _file_cases(args, mod)
    if not cases:
        raise SystemExit(f"tilec: {args.file} declares no kernels with example inputs "
                         "(see docs/guide/cli.md: a module needs DEMOS or make_inputs)")
    out = []
    for case in cases:
        inputs = case.make_inputs(_rng(0))
        compiled = tilec.compile(case.kernel, *inputs, target=getattr(args, "target", None),
                                 **case.constexprs)
        out.append((case, compiled, list(inputs)))
    return out


def _file_module(args: argparse.Namespace) -> ModuleType:
    """FILE imported as a module (its ``__main__`` block does not run), its folder on
    ``sys.path`` while it loads."""
    from tilec.demo import load_file

    path = Path(args.file)
    if not path.exists():
        raise SystemExit(f"tilec: no such file: {path}")
    with _script_folder(path):
        return load_file(path)


def _file_cases(args: argparse.Namespace, mod: ModuleType | None = None) -> list[Any]:
    """The demo cases of FILE (``DEMOS`` or ``make_inputs``), only ``--kernel``'s if given."""
    from tilec.demo import cases_of

    cases = cases_of(mod if mod is not None else _file_module(args))
    if args.kernel:
        cases = [c for c in cases if args.kernel in (c.name, c.kernel_name)]
    return cases


def _rng(seed: int) -> Any:
    import numpy as np

    return np.random.default_rng(seed)


_FORM_STAGES = {"candidate": "capture", "scheduled": "schedule", "machine": "machine",
                "tirx": "emit"}
"""``--form`` (the older spelling) as the stage it names; ``tirx`` is the TVMScript the
``tirx:llvm`` target emits (the target is ``tirx:llvm`` unless another ``tirx:*`` is
named)."""


def cmd_ir(args: argparse.Namespace) -> int:
    """Print what a stage of the target's pipeline produced for every kernel in FILE."""
    con = _console()
    stage = args.after or _FORM_STAGES[args.form]
    if args.form == "tirx" and not args.after and not str(args.target).startswith("tirx:"):
        args = argparse.Namespace(**{**vars(args), "target": "tirx:llvm"})
    for case, compiled, _ in _compiled_cases(args):
        text = compiled.after(stage)
        con.rule(f"{case.name} after {stage} for {compiled.target}")
        con.print(text, markup=False, end="" if text.endswith("\n") else "\n")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    """Print (or write as JSON) the plan of every kernel in FILE for a target."""
    from tilec.plan.extract import shapes_from_arrays
    from tilec.plan.report import plan_module

    con = _console()
    reports = {}
    target = args.target or tilec.default_target()
    cases = _compiled_cases(argparse.Namespace(**{**vars(args), "target": "reference"}))
    for case, compiled, inputs in cases:
        fn = compiled.module.lookup(compiled.fn_name)
        # The demo inputs bind the shape symbols, so program counts and trip counts are known.
        shapes = {compiled.fn_name: shapes_from_arrays(fn, inputs)}
        plan = plan_module(compiled.module, target, shapes=shapes)
        reports[case.name] = plan.to_json()
        if not args.json:
            con.rule(f"{case.name} on {target}")
            con.print(plan.render(), markup=False)
    if args.json:
        text = json.dumps(reports, indent=2, sort_keys=True)
        if args.output:
            Path(args.output).write_text(text + "\n")
            con.print(f"wrote {args.output}")
        else:
            print(text)
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    """Tune the kernels of FILE on their example inputs; or export / import records."""
    from tilec.frontend.jit import _as_kernel
    from tilec.runtime.records import export_records, import_records, list_records, records_dir

    con = _console()
    if args.refit is not None:
        from tilec.tuning import refit, sample_sets_from_files

        files = args.refit or [str(p) for p in list_records()]
        sets = sample_sets_from_files(files)
        if not sets:
            raise SystemExit("tilec tune --refit: no measured candidates with score terms in "
                             + (", ".join(args.refit) if args.refit else str(records_dir())))
        con.print(f"{len(sets)} sample sets, {sum(len(s.times) for s in sets)} candidates")
        con.print(refit(sets).render(), markup=False, highlight=False)
        return 0
    if args.import_path:
        n = import_records(args.import_path)
        con.print(f"imported {n} record(s) into {records_dir()}")
        return 0
    if args.export_path and not args.file:
        n = export_records(args.export_path)
        con.print(f"exported {n} record(s) from {records_dir()} to {args.export_path}")
        return 0
    if not args.file:
        raise SystemExit("tilec tune: give a FILE to tune, or --export PATH / --import PATH")
    cases = [c for c in _file_cases(args) if _as_kernel(c.kernel).tunables]
    if not cases:
        raise SystemExit(f"tilec: {args.file} has no kernel with tc.tunable parameters and "
                         f"example inputs" + (f" named {args.kernel}" if args.kernel else ""))
    written = []
    for case in cases:
        k = _as_kernel(case.kernel)
        # The example's constexprs fix everything but the tunables, which are searched.
        fixed = {n: v for n, v in case.constexprs.items() if n not in k.tunables}
        inputs = case.make_inputs(_rng(args.seed))
        con.rule(f"tuning {case.name} on {args.target or tilec.default_target()}")
        result = tilec.tune(k, *inputs, target=args.target, budget=args.budget,
                            progress=lambda s: con.print(f"  {s}", markup=False, highlight=False),
                            **fixed)
        con.print(result.table(), markup=False, highlight=False)
        if result.model_regret is not None:
            con.print(f"model pick {result.model_pick.label}: regret "
                      f"{result.model_regret:+.1%} against the selection")
        if result.record is not None:
            written.append(result.record)
    if args.export_path:
        n = export_records(args.export_path, written)
        con.print(f"exported {n} record(s) to {args.export_path}")
    return 0


# -------------------------------------------------------------------------- bench

_BUILTIN_PEERS = {
    "numpy": "the case's DEMOS expected function (a numpy oracle: written to check, not to "
             "be fast)",
    "reference": "tilec's reference interpreter",
}
"""Peers ``tilec bench --peer`` knows without a file's ``PEERS``; both run on the CPU."""


def cmd_bench(args: argparse.Namespace) -> int:
    """Time every kernel of FILE on the target against a peer: a Markdown table on stdout,
    and optionally JSON records, the table as a file and a roofline plot."""
    import datetime

    from tilec.testing.bench import do_bench

    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise SystemExit("tilec bench --plot needs matplotlib: pip install 'tilec[bench]'")
    mod = _file_module(args)
    peers = _declared_peers(args.file, mod)
    if args.peer and args.peer not in peers and args.peer not in _BUILTIN_PEERS:
        raise SystemExit(f"tilec bench: unknown peer {args.peer!r}: {args.file} declares "
                         f"{', '.join(sorted(peers)) or 'no PEERS'}; built in: "
                         f"{', '.join(_BUILTIN_PEERS)}")
    cases = _compiled_cases(args, mod)
    device = args.device or _bench_device(cases[0][1].target)
    timing = {"warmup_ms": args.warmup_ms, "rep_ms": args.rep_ms, "flush_l2": not args.no_flush}
    now = datetime.datetime.now(datetime.timezone.utc)
    base = {"benchmark": "tilec bench", "file": str(args.file), "device": _device_name(device),
            "date": now.date().isoformat(), "time": now.strftime("%H:%M:%SZ"),
            "commit": _git_commit(Path(args.file).resolve().parent),
            "tilec_version": tilec.__version__}
    if not args.peer:
        _say("no --peer: timing tilec only")
    records = []
    for i, (case, compiled, inputs) in enumerate(cases, 1):
        on_device = _on_device(inputs, device)
        _say(f"timing {case.name} ({i}/{len(cases)})...")
        mine = do_bench(lambda c=compiled, a=on_device: c(*a), device=device, **timing)
        peer = _peer_call(args.peer, peers, mod, case, inputs, on_device, device)
        theirs = None
        if isinstance(peer, str):
            _say(peer)
        elif peer is not None:
            _say(f"timing {case.name} ({i}/{len(cases)}): {args.peer}...")
            theirs = do_bench(peer[1], device=peer[2], **timing)
        flops, nbytes, work_from = _bench_work(mod, case, inputs)
        records.append(_bench_record(base, case, compiled, inputs, mine, theirs, args.peer,
                                     peer, flops, nbytes, work_from, timing))
    notes: list[str] = []
    if args.plot:
        notes = _bench_plot(args, records, device)
    table = _bench_markdown(records)
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1) + "\n")
        _say(f"wrote {args.json}")
    if args.md:
        Path(args.md).write_text(table + "".join(f"\n{n}\n" for n in notes))
        _say(f"wrote {args.md}")
    print(table, end="")
    return 0


def _say(text: str) -> None:
    """A progress line, on stderr (stdout carries the table)."""
    print(f"tilec bench: {text}", file=sys.stderr, flush=True)


def _declared_peers(file: str, mod: ModuleType) -> dict[str, dict[str, Any]]:
    """The file's ``PEERS``: peer name -> {kernel or case name -> callable}."""
    peers = getattr(mod, "PEERS", None) or {}
    if not (isinstance(peers, dict)
            and all(isinstance(k, str) and isinstance(v, dict) for k, v in peers.items())):
        raise SystemExit(f"tilec bench: {file}: PEERS must map a peer name to a dict of "
                         "kernel name -> callable, e.g. PEERS = {'numpy': {'matmul': f}}")
    return peers


def _bench_device(target: str) -> str:
    """Where a target's kernels take their arrays, the default of ``--device``: the ``cuda``
    targets take GPU arrays; every other one (``cpu``, ``reference``, ``simt``) numpy's."""
    return "cuda" if target.partition(":")[0] == "cuda" else "cpu"


def _on_device(values: list[Any], device: str) -> list[Any]:
    """The inputs on ``device``: numpy arrays moved to the GPU with torch, else cupy."""
    import numpy as np

    if device == "cpu":
        return list(values)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        def move(a: Any) -> Any:
            if not isinstance(a, np.ndarray):
                return a
            if a.dtype.name == "bfloat16":  # torch reads no ml_dtypes array; same bits
                return torch.from_numpy(a.view(np.uint16)).view(torch.bfloat16).cuda()
            return torch.from_numpy(np.ascontiguousarray(a)).cuda()

        return [move(a) for a in values]
    try:
        import cupy
    except ImportError:
        raise SystemExit("tilec bench --device cuda puts the inputs on the GPU with torch or "
                         "cupy; neither is importable") from None
    return [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in values]


def _device_name(device: str) -> str:
    """The CPU model, or the GPU's name."""
    if device == "cpu":
        from tilec.testing.host import cpu_name

        return cpu_name()
    try:
        import torch

        return torch.cuda.get_device_name()
    except ImportError:
        import cupy

        return cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()


def _git_commit(folder: Path) -> str | None:
    """The short commit of the repository holding ``folder``, ``-dirty`` when its tracked
    files have changes; None outside a git checkout (or without git)."""
    import subprocess

    def git(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *argv], cwd=folder, capture_output=True, text=True,
                              timeout=10)

    try:
        sha = git("rev-parse", "--short", "HEAD")
        if sha.returncode != 0 or not sha.stdout.strip():
            return None
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return sha.stdout.strip() + ("-dirty" if dirty else "")


def _peer_call(peer: str | None, peers: dict[str, dict[str, Any]], mod: ModuleType, case: Any,
               inputs: list[Any], on_device: list[Any], device: str
               ) -> tuple[str, Any, str] | str | None:
    """``(what, call, device)`` of the peer of ``case``; a sentence when it has none; None
    without ``--peer``. A file's peer takes the inputs where tilec's kernel takes them; the
    built-in ones take numpy copies on the CPU."""
    if not peer:
        return None
    declared = peers.get(peer, {})
    for key in (case.name, case.kernel_name):
        if key in declared:
            return (f"PEERS[{peer!r}][{key!r}]",
                    lambda fn=declared[key]: fn(*on_device), device)
    host = [a.copy() if hasattr(a, "copy") else a for a in inputs]
    if peer == "numpy" and getattr(mod, "DEMOS", None) is not None:
        name = getattr(case.expected, "__name__", "expected")
        return (f"the DemoCase's expected function {name}() (a numpy oracle)",
                lambda: case.expected(*host), "cpu")
    if peer == "reference":
        ref = tilec.compile(case.kernel, *host, target="reference", **case.constexprs)
        return "tilec reference interpreter", lambda: ref(*host), "cpu"
    return f"no {peer} peer for {case.name}: timing tilec only"


def _bench_work(mod: ModuleType, case: Any, inputs: list[Any]
                ) -> tuple[float | None, float | None, str]:
    """``(flops, bytes, source)`` of one call: the file's ``WORK`` entry for the kernel, else
    bytes = the array arguments' total size (each read or written once: a lower bound, so
    the intensity is an upper bound) and, for a kernel named ``*matmul*`` whose first two
    arrays are M x K and K x N, flops = 2 M N K (otherwise unknown)."""
    import numpy as np

    work = getattr(mod, "WORK", None) or {}
    for key in (case.name, case.kernel_name):
        if key in work:
            value = work[key](*inputs) if callable(work[key]) else work[key]
            if not (isinstance(value, (tuple, list)) and len(value) == 2):
                raise SystemExit(f"tilec bench: WORK[{key!r}] must be (flops, bytes) or a "
                                 f"function of the inputs returning them, got {value!r}")
            return value[0], value[1], "WORK"
    arrays = [a for a in inputs if isinstance(a, np.ndarray)]
    flops = None
    if ("matmul" in case.kernel_name and len(arrays) >= 2 and arrays[0].ndim == 2
            and arrays[1].ndim == 2 and arrays[0].shape[1] == arrays[1].shape[0]):
        (m, k), n = arrays[0].shape, arrays[1].shape[1]
        flops = 2 * m * n * k
    return flops, sum(a.nbytes for a in arrays), "default"


def _bench_record(base: dict[str, Any], case: Any, compiled: Any, inputs: list[Any],
                  mine: Any, theirs: Any, peer: str | None, peer_call: Any,
                  flops: float | None, nbytes: float | None, work_from: str,
                  timing: dict[str, Any]) -> dict[str, Any]:
    """One kernel's record, in the schema of ``benchmarks/results/*.json``."""
    import numpy as np

    from tilec.frontend.dtypes import dtype_from_numpy

    arrays = [a for a in inputs if isinstance(a, np.ndarray)]
    dtypes = list(dict.fromkeys(str(dtype_from_numpy(a.dtype)) for a in arrays))
    t_ms = mine.median_ms
    p_ms = theirs.median_ms if theirs is not None else None
    return {**base, "kernel": case.name, "shape": [list(a.shape) for a in arrays],
            "dtype": ",".join(dtypes), "target": compiled.target, "tilec_ms": t_ms,
            "tilec_min_ms": mine.min_ms, "tilec_reps": mine.reps,
            "peer": peer if theirs is not None else None,
            "peer_what": peer_call[0] if theirs is not None else None,
            "peer_device": peer_call[2] if theirs is not None else None,
            "peer_ms": p_ms, "peer_min_ms": theirs.min_ms if theirs is not None else None,
            "ratio": p_ms / t_ms if p_ms is not None else None,
            "flops": flops, "bytes": nbytes, "work_from": work_from,
            "tilec_gflops": flops / t_ms / 1e6 if flops else None,
            "tilec_gbs": nbytes / t_ms / 1e6 if nbytes else None,
            "peer_gflops": flops / p_ms / 1e6 if flops and p_ms else None,
            "constexprs": {k: v for k, v in case.constexprs.items()
                           if isinstance(v, (bool, int, float, str))},
            "timing": timing}


def _bench_markdown(records: list[dict[str, Any]]) -> str:
    """The records as a Markdown table (ratio = peer ms / tilec ms: above 1, tilec is faster)."""
    def num(v: float | None, fmt: str = ".4g") -> str:
        return "-" if v is None else format(v, fmt)

    lines = ["| kernel | shape | dtype | target | tilec ms | peer | peer ms | ratio | "
             "tilec GFLOP/s | tilec GB/s |", "| --- |" + " --- |" * 9]
    for r in records:
        shape = ", ".join("x".join(map(str, s)) for s in r["shape"])
        lines.append(f"| {r['kernel']} | {shape} | {r['dtype']} | {r['target']} | "
                     f"{num(r['tilec_ms'])} | {r['peer'] or '-'} | {num(r['peer_ms'])} | "
                     f"{num(r['ratio'], '.2f')} | {num(r['tilec_gflops'])} | "
                     f"{num(r['tilec_gbs'])} |")
    return "\n".join(lines) + "\n"


def _bench_plot(args: argparse.Namespace, records: list[dict[str, Any]], device: str
                ) -> list[str]:
    """Measure the roofs, place every kernel whose flops and bytes are known, write the PNG;
    returns the notes on what was left out (also printed under the plot)."""
    from tilec.testing.roofline import RoofPoint, measure_roofs, plot_roofline

    _say("measuring the roofs (a large copy, a large matmul)...")
    roofs = measure_roofs(device, rep_ms=args.rep_ms)
    points, notes = [], []
    for r in records:
        r["roof_copy_gbs"], r["roof_matmul_gflops"] = roofs.copy_gbs, roofs.matmul_gflops
        if not (r["flops"] and r["bytes"]):
            gbs = f"; tilec moved {r['tilec_gbs']:.3g} GB/s" if r["tilec_gbs"] else ""
            notes.append(f"not placed: {r['kernel']} (flops unknown: declare WORK){gbs}")
            continue
        ai = r["flops"] / r["bytes"]
        points.append(RoofPoint(r["kernel"], ai, r["tilec_gflops"], "tilec"))
        if r["peer_gflops"] and r["peer_device"] == device:
            points.append(RoofPoint(f"{r['kernel']} ({r['peer']})", ai, r["peer_gflops"], "peer"))
        elif r["peer_gflops"]:
            notes.append(f"peer of {r['kernel']} not placed: it ran on {r['peer_device']}")
    for n in notes:
        _say(n)
    first = records[0]  # _compiled_cases refuses a file without kernels
    plot_roofline(args.plot, roofs, points, notes=notes,
                  title=f"{Path(args.file).name} on {first['target']} ({first['device']})")
    _say(f"wrote {args.plot}")
    return notes


def cmd_targets(args: argparse.Namespace) -> int:
    """List every target and whether it can run here: one row each, a long reason shortened
    in the table and given whole once below it."""
    from tilec.runtime import available_targets, default_target

    con = _console()
    default = default_target()
    table = Table(title="tilec targets")
    for col in ("target", "runs here", "what"):
        table.add_column(col, no_wrap=col != "what")
    notes: dict[str, int] = {}
    for info, reason in available_targets():
        if reason is None:
            here = "[green]yes[/green]" + (" (default)" if info.name == default else "")
        else:
            n = notes.setdefault(reason, len(notes) + 1)
            here = f"no: {_short(reason)} [{n}]"
        table.add_row(info.name, here, info.summary)
    con.print(table)
    for reason, n in notes.items():
        con.print(f"[{n}] {reason}", markup=False)
    con.print("names tilec plan takes (targets and planning profiles): " + _target_names(),
              markup=False)
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    """Show or clear the on-disk cache."""
    from tilec.runtime.cache import RECORDS, cache_root, cache_usage, clear_cache

    con = _console()
    root = cache_root()
    if args.action == "clear":
        files, size = clear_cache(records=args.records)
        kept = "" if args.records else f" (tuning records in {RECORDS}/ kept: --records " \
                                        "removes them too)"
        con.print(f"removed {files} file(s), {_size(size)} from {root}{kept}", markup=False)
        return 0
    usage = cache_usage()
    con.print(f"cache: {root}" + ("" if usage else " (empty)"), markup=False)
    if usage:
        table = Table()
        for col in ("directory", "files", "size", "holds"):
            table.add_column(col, justify="right" if col in ("files", "size") else "left")
        what = {"c": "C kernels built for cpu", "cuda": "CUDA binaries",
                "warm": "launch records for warm starts", RECORDS: "tuning records (tilec tune)"}
        for e in usage:
            table.add_row(e.name, str(e.files), _size(e.bytes), what.get(e.name, ""))
        con.print(table)
    con.print("set TILEC_CACHE_DIR to move it; `tilec cache clear` removes the binaries",
              markup=False)
    return 0


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024
        if n < 1024 or unit == "GiB":
            break
    return f"{n:.1f} {unit}"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tilec`` command."""
    p = argparse.ArgumentParser(prog="tilec", description="tilec: a tile-level kernel compiler")
    p.add_argument("--version", action="version", version=f"tilec {tilec.__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("demo", help="run the example kernels and check them against the reference")
    d.add_argument("--target", default=None,
                   help="target (default: the best available here; see tilec targets)")
    d.add_argument("--seed", type=int, default=0, help="random seed for the inputs")
    d.set_defaults(func=cmd_demo)

    r = sub.add_parser("run", help="run a Python file")
    r.add_argument("file")
    r.add_argument("rest", nargs=argparse.REMAINDER)
    r.set_defaults(func=cmd_run)

    i = sub.add_parser("ir", help="print the TileIR of the kernels in a file")
    i.add_argument("file")
    i.add_argument("--after", default=None, choices=list(STAGES),
                   help="print what this stage of the target's pipeline produced (default: "
                        "capture, the Candidate TileIR); `tilec ir --after build` compiles")
    i.add_argument("--form", default="candidate", choices=list(_FORM_STAGES),
                   help="the same as --after capture / schedule / machine; tirx: the Apache "
                        "TVM tvm.tirx PrimFunc (TVMScript) of target tirx:llvm")
    i.add_argument("--kernel", default=None, help="only this kernel")
    i.add_argument("--target", default="cuda:sm_90",
                   help="target whose pipeline runs (default cuda:sm_90, which needs no GPU "
                        "up to --after build); one of: " + _target_names())
    i.set_defaults(func=cmd_ir)

    pl = sub.add_parser("plan", help="print the planner's report for the kernels in a file")
    pl.add_argument("file")
    pl.add_argument("--target", default=None,
                    help="target or profile to plan for (default: the default target, "
                         "TILEC_TARGET or the best available here; planning needs no GPU, so "
                         "any of these works anywhere): " + _target_names())
    pl.add_argument("--kernel", default=None, help="only this kernel")
    pl.add_argument("--json", action="store_true", help="print JSON instead of tables")
    pl.add_argument("--output", "-o", default=None, help="write the JSON here")
    pl.set_defaults(func=cmd_plan)

    tu = sub.add_parser("tune", help="measured selection of the tunable kernels in a file")
    tu.add_argument("file", nargs="?", default=None)
    tu.add_argument("--kernel", default=None, help="only this kernel (or demo case)")
    tu.add_argument("--target", default=None, help="target (default: the best available here)")
    tu.add_argument("--budget", type=int, default=None,
                    help="candidates to build and time, best by the model (default 8 where the "
                         "model prices them, else all)")
    tu.add_argument("--seed", type=int, default=0, help="random seed for the example inputs")
    tu.add_argument("--export", dest="export_path", default=None,
                    help="write the records (of this run, or all without FILE) to one file")
    tu.add_argument("--import", dest="import_path", default=None,
                    help="read a file written by --export into the record directory")
    tu.add_argument("--refit", nargs="*", default=None, metavar="RECORD",
                    help="fit the cost basis's term weights to measured candidates (the given "
                         "record or benchmark files, else every record) and print the "
                         "leave-one-out regret before and after")
    tu.set_defaults(func=cmd_tune)

    be = sub.add_parser("bench", help="time the kernels of a file against a peer; table, "
                                      "JSON records, roofline plot")
    be.add_argument("file")
    be.add_argument("--kernel", default=None, help="only this kernel (or demo case)")
    be.add_argument("--target", default=None, help="target (default: the best available here)")
    be.add_argument("--device", default=None, choices=("cpu", "cuda"),
                    help="where the inputs live and the clock runs (default: cuda for the cuda "
                         "targets, else cpu)")
    be.add_argument("--peer", default=None,
                    help="what to compare with: a name of the file's PEERS, or numpy (the "
                         "DEMOS' expected functions) or reference (the interpreter)")
    be.add_argument("--json", default=None, metavar="PATH", help="write the records here")
    be.add_argument("--md", default=None, metavar="PATH", help="write the Markdown table here")
    be.add_argument("--plot", default=None, metavar="PATH.png",
                    help="write a roofline plot here (measures the copy bandwidth and matmul "
                         "throughput too; needs matplotlib)")
    be.add_argument("--warmup-ms", type=float, default=25.0, help="do_bench warm-up (ms)")
    be.add_argument("--rep-ms", type=float, default=100.0,
                    help="do_bench timed budget per kernel (ms)")
    be.add_argument("--no-flush", action="store_true",
                    help="do not flush the caches before each repetition")
    be.set_defaults(func=cmd_bench)

    t = sub.add_parser("targets", help="list targets and whether they can run here")
    t.set_defaults(func=cmd_targets)

    ca = sub.add_parser("cache", help="show or clear the on-disk cache ($TILEC_CACHE_DIR)")
    ca.add_argument("action", nargs="?", default="info", choices=("info", "clear"))
    ca.add_argument("--records", action="store_true",
                    help="with clear: remove the tuning records too (measurements)")
    ca.set_defaults(func=cmd_cache)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tilec`` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except tilec.UserError as e:  # located syntax errors, unknown targets and stages...
        print(f"tilec: {e}" if not isinstance(e, tilec.TileSyntaxError) else str(e),
              file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
