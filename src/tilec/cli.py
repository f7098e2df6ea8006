"""The ``tilec`` command: demo, run, ir, plan, tune, targets, cache.

Every subcommand prints with rich; long work shows a progress bar. Errors in
user programs print as located diagnostics, not tracebacks.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
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


def _compiled_cases(args: argparse.Namespace) -> list[tuple[Any, Any, list[Any]]]:
    """(case, compiled, inputs) for every demo case of FILE, optionally filtered by ``--kernel``."""
    cases = _file_cases(args)
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


def _file_cases(args: argparse.Namespace) -> list[Any]:
    """The demo cases of FILE (``DEMOS`` or ``make_inputs``), only ``--kernel``'s if given."""
    from tilec.demo import cases_of, load_file

    path = Path(args.file)
    if not path.exists():
        raise SystemExit(f"tilec: no such file: {path}")
    with _script_folder(path):
        cases = cases_of(load_file(path))
    if args.kernel:
        cases = [c for c in cases if args.kernel in (c.name, c.kernel_name)]
    return cases


def _rng(seed: int) -> Any:
    import numpy as np

    return np.random.default_rng(seed)


_FORM_STAGES = {"candidate": "capture", "scheduled": "schedule", "machine": "machine"}
"""``--form`` (the older spelling) as the stage it names."""


def cmd_ir(args: argparse.Namespace) -> int:
    """Print what a stage of the target's pipeline produced for every kernel in FILE."""
    con = _console()
    stage = args.after or _FORM_STAGES[args.form]
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
                RECORDS: "tuning records (tilec tune)"}
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
                   help="the same as --after capture / schedule / machine")
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
