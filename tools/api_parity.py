"""``dir()`` parity between halide_mlir and Halide 21's Python bindings, class by class (issue 15).

    python tools/api_parity.py [--write] [--check]

Imports both ``halide`` (the oracle, from the ``test`` extra) and ``halide_mlir``; for the module and each public
class of Halide's bindings (plus ``BoundaryConditions`` and ``imageio``) compares the public names: those not
starting with ``_``, plus the operator dunders Halide defines and users call (``__getitem__``, ``__pow__``...).
Classes are compared on an instance where one is cheap to make (some names are instance attributes). Prints a
Markdown table (class, ours/Halide counts, missing names); ``--write`` also writes ``docs/api-parity.md`` with a
one-line reason per missing name (``REASONS`` below; a name with no reason is "not yet"). ``--check`` exits 1
when a name is missing without a reason.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.append(str(REPO))  # (after PYTHONPATH: a checkout given there is the one compared)

# operator dunders a user calls (directly or through an operator); the rest of a class's dunders are Python's own
USER_DUNDERS = {
    f"__{n}__"
    for n in (
        "getitem setitem call pow rpow add radd sub rsub mul rmul truediv rtruediv floordiv rfloordiv mod rmod "
        "lshift rlshift rshift rrshift and rand or ror xor rxor invert neg pos abs lt le gt ge eq ne "
        "req rne rlt rle rgt rge bool nonzero int float len iter array enter exit buffer"
    ).split()
}

INTERNAL = "internal"
GPU = "GPU/Hexagon-only"
DEPRECATED = "deprecated"
NOT_YET = "not yet"
PYBIND = "pybind11 artefact"

# "Class.name" (or "name" for the module): (category, why). Refusals raise HalideError saying the same.
REASONS: dict[str, tuple[str, str]] = {
    "halide_": (INTERNAL, "Halide's compiled extension module; halide_mlir is pure Python over MLIR"),
    "user_context_value": (NOT_YET, "the JIT passes no user_context; refuses with HalideError"),
    "compile_standalone_runtime": (NOT_YET, "AOT objects link halide_mlir's own small runtime; refuses"),
    "Func.copy_to_device": (GPU, "explicit device copies; refuses with HalideError"),
    "Func.copy_to_host": (GPU, "explicit device copies; refuses with HalideError"),
    "Func.compile_to_conceptual_stmt": (NOT_YET, "no Halide IR Stmt to print; refuses with HalideError"),
    "Pipeline.compile_to_conceptual_stmt": (NOT_YET, "no Halide IR Stmt to print; refuses with HalideError"),
    "Stage.dump_argument_list": (NOT_YET, "Halide's debug listing of a stage's dims; refuses with HalideError"),
    "require": (NOT_YET, "conditions of Params and constants (checked before each run); of Vars or Funcs refuse"),
    "ImageParam.store_in": (GPU, "GPU memory types; MemoryType.Auto/Heap accepted, others refuse"),
    "Generator.__abstractmethods__": (INTERNAL, "Python's abc bookkeeping, not API"),
}
for _cls in ("Expr", "Var", "RVar", "RDom", "Param", "FuncRef", "FuncTupleElementRef", "Realization"):
    for _op in ("req", "rne", "rlt", "rle", "rgt", "rge"):
        REASONS.setdefault(f"{_cls}.__{_op}__", (PYBIND, "Python never calls reflected comparisons"))


def _instances(H, M):
    """(halide object, halide_mlir object) per class name, where making one is cheap."""
    out = {}

    def both(name, make):
        try:
            out[name] = (make(H), make(M))
        except Exception:  # a class one side cannot make this way: compared on the class alone
            pass

    both("Target", lambda m: m.get_host_target())
    both("Type", lambda m: m.Int(32))
    both("Buffer", lambda m: m.Buffer(m.Int(32), [2, 2]))
    both("Var", lambda m: m.Var("x"))
    both("Expr", lambda m: m.Expr(1))
    both("Func", lambda m: m.Func("f"))
    both("RDom", lambda m: m.RDom([m.Range(0, 2)]))
    both("RVar", lambda m: m.RDom([m.Range(0, 2)]).x)
    both("Param", lambda m: m.Param(m.Int(32), "p"))
    both("ImageParam", lambda m: m.ImageParam(m.Int(32), 2, "ip"))
    both("Range", lambda m: m.Range(0, 2))
    both("Tuple", lambda m: m.Tuple([m.Expr(1), m.Expr(2)]))
    both("Argument", lambda m: m.Argument(m.Param(m.Int(32), "a")) if m is H else _our_argument(m))
    both("AutoschedulerParams", lambda m: m.AutoschedulerParams("Mullapudi2016"))
    both("ArgInfo", lambda m: m.ArgInfo())
    both("ArgumentEstimates", lambda m: m.ArgumentEstimates())
    both("VarOrRVar", lambda m: m.VarOrRVar(m.Var("x")))
    both(
        "AutoSchedulerResults",
        lambda m: m.AutoSchedulerResults() if m is H else m.AutoSchedulerResults(m.get_host_target(), None, ""),
    )
    both("OutputImageParam", lambda m: m.ImageParam(m.Int(32), 2, "oip"))
    for cname in _class_names(H):  # enums: compared on a member (name, value, int() live there)
        members = getattr(getattr(H, cname), "__members__", None)
        ours = getattr(M, cname, None)
        if members and ours is not None:
            first = next(iter(members))
            both(cname, lambda m, c=cname, f=first: getattr(getattr(m, c), f))
    return out


def _our_argument(M):
    from halide_mlir.aot.arguments import argument_of

    return argument_of(M.Param(M.Int(32), "a"))


def _names(obj) -> set[str]:
    names = set()
    for n in dir(obj):
        if not n.startswith("_") or n in USER_DUNDERS:
            names.add(n)
    return names


def _defined(obj, name: str) -> bool:
    """``name`` defined on ``obj`` though ``dir()`` does not list it (Python's enums filter their members' dir);
    a dunder counts only when a class other than ``object`` defines it."""
    if not name.startswith("__"):
        try:
            return hasattr(obj, name)
        except Exception:  # a property that raises (RDom.y of a 1-D RDom) exists
            return True
    mro = obj.__mro__ if inspect.isclass(obj) else type(obj).__mro__
    return any(name in vars(k) for k in mro if k is not object)


def _class_names(H) -> list[str]:
    return sorted(n for n in dir(H) if not n.startswith("_") and inspect.isclass(getattr(H, n)))


def _ours(M, name):
    if name == "Stage":  # not a module name in halide_mlir before issue 15
        from halide_mlir.lang.func import Stage

        return getattr(M, "Stage", Stage)
    return getattr(M, name, None)


def compare():
    """[(row name, ours count, halide count, sorted missing names)]."""
    import halide as H

    import halide_mlir as M
    import halide_mlir.imageio as mio

    import halide.imageio as hio

    rows = []
    hmod = _names(H) - USER_DUNDERS
    rows.append(("module", len(hmod & _names(M)), len(hmod), sorted(hmod - _names(M))))
    inst = _instances(H, M)
    for cname in _class_names(H):
        hcls, mcls = getattr(H, cname), _ours(M, cname)
        hn = _names(hcls) | (_names(inst[cname][0]) if cname in inst else set())
        if mcls is None:
            rows.append((cname, 0, len(hn), ["(the class itself)"]))
            continue
        mobj = inst[cname][1] if cname in inst else mcls
        mn = _names(mcls) | _names(mobj) | {n for n in hn if _defined(mobj, n)}
        rows.append((cname, len(hn & mn), len(hn), sorted(hn - mn)))
    for label, h, m in (("BoundaryConditions", H.BoundaryConditions, M.BoundaryConditions), ("imageio", hio, mio)):
        hn = {n for n in dir(h) if not n.startswith("_")} - {"np", "imageio"}
        mn = {n for n in dir(m) if not n.startswith("_")}
        rows.append((label, len(hn & mn), len(hn), sorted(hn - mn)))
    return rows


def reason(row: str, name: str) -> tuple[str, str]:
    key = name if row == "module" else f"{row}.{name}"
    return REASONS.get(key) or REASONS.get(f"{row}.*") or (NOT_YET, "")


def table(rows) -> str:
    lines = ["| class | ours / Halide | missing |", "|---|---|---|"]
    for cname, ours, theirs, missing in rows:
        lines.append(f"| `{cname}` | {ours} / {theirs} | {', '.join(f'`{n}`' for n in missing) or '-'} |")
    tot_o, tot_h = sum(r[1] for r in rows), sum(r[2] for r in rows)
    lines.append(f"| **total** | **{tot_o} / {tot_h}** | |")
    return "\n".join(lines)


def document(rows) -> str:
    out = [
        "# API parity with Halide 21's Python bindings",
        "",
        "Generated by `python tools/api_parity.py --write` (do not edit by hand). Per class of Halide's bindings: how",
        "many of its public names (plus the operator dunders users call) halide_mlir has, and what is missing.",
        "Every name listed below that halide_mlir *does* define but cannot honour raises `hl.HalideError` saying why",
        "(never an AttributeError, never a silent no-op); the names missing outright are below with their reason.",
        "",
        table(rows),
        "",
        "## Missing names and why",
        "",
    ]
    any_missing = False
    for cname, _, _, missing in rows:
        for n in missing:
            cat, why = reason(cname, n)
            out.append(f"- `{n if cname == 'module' else cname + '.' + n}`: {cat}{': ' + why if why else ''}")
            any_missing = True
    if not any_missing:
        out.append("None.")
    missing = {n if c == "module" else f"{c}.{n}" for c, _, _, ms in rows for n in ms}
    out += ["", "## Defined, but refused with a HalideError saying why", ""]
    for key, (cat, why) in sorted(REASONS.items()):
        if key not in missing and "*" not in key and cat != PYBIND and cat != INTERNAL:
            out.append(f"- `{key}`: {cat}: {why}")
    out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write docs/api-parity.md")
    ap.add_argument("--check", action="store_true", help="exit 1 if a missing name has no reason")
    args = ap.parse_args(argv)
    rows = compare()
    print(table(rows))
    if args.write:
        (REPO / "docs" / "api-parity.md").write_text(document(rows))
    if args.check:
        unexplained = [(c, n) for c, _, _, ms in rows for n in ms if not reason(c, n)[1]]
        for c, n in unexplained:
            print(f"no reason given: {c}.{n}", file=sys.stderr)
        return 1 if unexplained else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
