"""Halide's smaller scheduling directives, recorded as data: loop partitioning (``partition`` and friends), the
bound/align family, storage alignment and bounds, ``hoist_storage`` and ``allow_race_conditions``.

Arguments are checked here as Halide's bindings and ``Func.cpp`` check them (same messages); what they do is in
analysis/small_directives.py (checks that need the pipeline), analysis/bounds.py (regions), analysis/plan.py
(partitioning), codegen/updates.py (races). docs/directives.md says how each maps.
"""

from __future__ import annotations


import numpy as np

from ..error import HalideError, HalideTypeError
from .expr import Expr
from .schedule import DirectiveKind, LevelKind, LoopLevel, OUTERMOST, Partition, touch
from .source import capture_site, user_site


def _int(v, what: str) -> int:
    """A constant int32 argument (Halide takes an Expr; a non-constant one is not supported here)."""
    if isinstance(v, Expr) and v.kind == "const" and not v.type.is_float():
        v = v.value
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        if isinstance(v, (float, np.floating)) or (isinstance(v, Expr) and v.type.is_float()):
            raise HalideError(f"{user_site()}: Can't represent {what} as int32")
        raise HalideError(f"{user_site()}: {what} must be a constant integer here, got {v!r}")
    return int(v)


def _func_only(self, method: str):
    from .func import Stage

    if isinstance(self, Stage):
        raise HalideError(f"{user_site()}: '{method}' is not available on an update stage of Func '{self._name}'")


def _var_only(self, var) -> None:
    """Halide's bindings take a Var (not an RVar) in the storage and bounds directives: a TypeError there."""
    from .rdom import RVar

    if isinstance(var, RVar):
        raise HalideTypeError(
            f"{user_site()}: In schedule for {self._name}: this directive takes a Var, not the RVar {var.name()}"
        )


def _pure_arg(self, var, message: str) -> str:
    from .func import _var_name

    _var_only(self, var)
    name = _var_name(var)
    if name not in [v.name() for v in self.args()]:
        raise HalideError(f"{user_site()}: {message.format(v=name, f=self._name)}")
    return name


def _stage_name(self) -> str:
    """Halide's name of a stage in its errors: ``f`` or ``f.update(0)``."""
    index = getattr(self, "_index", -1)
    return f"{self._name}.update({index})" if index >= 0 else self._name


def _initial_dims(self) -> list[str]:
    from .func import Stage

    if isinstance(self, Stage) and self._index >= 0:
        d = self._func._update(self._index)
        return [r.name() for r in d.rvars()] + [a.value.name() for a in d.args if a.kind == "var"]
    return [v.name() for v in (self._func if isinstance(self, Stage) else self).args()]


def _stage_dims(self) -> list[str]:
    """The loop names a stage's schedule can name (Halide's ``dims``): its Vars, its RVars, and every Var its
    splits and fuses made (stage_loops checks, when compiling, that the loop still exists)."""
    from .func import Stage

    if isinstance(self, Stage) and self._index >= 0:
        d = self._func._update(self._index)
        names = [r.name() for r in d.rvars()] + [a.value.name() for a in d.args if a.kind == "var"]
    else:
        func = self._func if isinstance(self, Stage) else self
        names = [v.name() for v in func.args()]
    for d in self._stage_schedule().directives:
        if d.kind == DirectiveKind.SPLIT:
            names += [d.args[1], d.args[2]]
        elif d.kind == DirectiveKind.FUSE:
            names.append(d.args[2])
    return list(dict.fromkeys(names))


# --- loop partitioning ---------------------------------------------------------------------------------------


def partition(self, var, partition_policy):
    from .func import _var_name

    if not isinstance(partition_policy, Partition):
        raise HalideTypeError(
            f"{user_site()}: partition() takes a Var or RVar and a hl.Partition, got {partition_policy!r}"
        )
    name = _var_name(var)
    if name not in _stage_dims(self):
        raise HalideError(
            f"{user_site()}: In schedule for {_stage_name(self)}, could not find var {name} to set loop "
            f"partition policy.\nVars: {' '.join(_stage_dims(self))} {OUTERMOST}"
        )
    return self._directive(DirectiveKind.PARTITION, name, partition_policy)


def never_partition(self, vars_):
    for v in _var_list(self, vars_, "never_partition"):
        partition(self, v, Partition.Never)
    return self


def always_partition(self, vars_):
    for v in _var_list(self, vars_, "always_partition"):
        partition(self, v, Partition.Always)
    return self


def never_partition_all(self):
    for v in _current_dims(self):
        partition(self, v, Partition.Never)
    return self


def always_partition_all(self):
    for v in _current_dims(self):
        partition(self, v, Partition.Always)
    return self


def _var_list(self, vars_, method: str) -> list:
    """Halide's bindings take a list of Vars/RVars here (a bare Var is their TypeError)."""
    if not isinstance(vars_, (list, tuple)):
        raise HalideTypeError(
            f"{user_site()}: In schedule for {_stage_name(self)}: {method}() takes a list of Vars or RVars, "
            f"got {vars_!r}"
        )
    return list(vars_)


def _current_dims(self) -> list[str]:
    """The loops the stage has now (Halide's ``*_partition_all`` sets the policy of its current dims): a split
    Var or the two halves of a fuse are gone."""
    names = [n for n in _stage_dims(self) if n in _initial_dims(self)]
    for d in self._stage_schedule().directives:
        if d.kind == DirectiveKind.SPLIT and d.args[0] in names:
            i = names.index(d.args[0])
            names[i : i + 1] = [d.args[2], d.args[1]]
        elif d.kind == DirectiveKind.FUSE and d.args[0] in names and d.args[1] in names:
            names = [n for n in names if n not in (d.args[0], d.args[1])] + [d.args[2]]
    return list(dict.fromkeys(names))


# --- the computed region ---------------------------------------------------------------------------------------


def bound_extent(self, var, extent):
    _func_only(self, "bound_extent")
    name = _pure_arg(
        self, var, "Can't bound variable {v} of function {f} because {v} is not one of the pure variables of {f}."
    )
    ext = _int(extent, "extent")
    if ext <= 0:
        raise HalideError(f"{user_site()}: bound_extent of Func '{self._name}' in {name} must be positive, got {ext}")
    return self._directive(DirectiveKind.BOUND_EXTENT, name, ext)


def align_bounds(self, var, modulus, remainder=0):
    _func_only(self, "align_bounds")
    m, r = _int(modulus, "modulus"), _int(remainder, "remainder")
    name = _pure_arg(
        self,
        var,
        "Can't align bounds of variable {v} of function {f} because {v} is not one of the pure variables of {f}.",
    )
    if m <= 0:  # Halide computes garbage bounds then (a division by a non-positive modulus)
        raise HalideError(
            f"{user_site()}: align_bounds of Func '{self._name}' in {name}: the modulus must be positive, got {m}"
        )
    return self._directive(DirectiveKind.ALIGN, name, m, r % m)  # Halide reduces the remainder


def align_extent(self, var, modulus):
    _func_only(self, "align_extent")
    m = _int(modulus, "modulus")
    name = _pure_arg(
        self,
        var,
        "Can't align extent of variable {v} of function {f} because {v} is not one of the pure variables of {f}.",
    )
    if m <= 0:
        raise HalideError(
            f"{user_site()}: align_extent of Func '{self._name}' in {name}: the modulus must be positive, got {m}"
        )
    return self._directive(DirectiveKind.ALIGN, name, m, None)


# --- storage -----------------------------------------------------------------------------------------------------


def _storage_var(self, var, what: str) -> str:
    from .func import _var_name

    _var_only(self, var)
    name = _var_name(var)
    names = [v.name() for v in self.args()]
    if name not in names:
        raise HalideError(
            f"{user_site()}: In schedule for {self._name}, could not find var {name} to {what}.\n"
            f"Vars: {' '.join(names)}"
        )
    return name


def align_storage(self, dim, alignment):
    _func_only(self, "align_storage")
    name = _storage_var(self, dim, "align the storage of")
    a = _int(alignment, "alignment")
    if a <= 0:
        raise HalideError(
            f"{user_site()}: align_storage of Func '{self._name}' in {name}: the alignment must be positive, got {a}"
        )
    # applied by the plan (analysis/store_in.py plan_aligned_storage), which warns where it can't pad
    old = self._schedule.storage.get(name, (None, None))
    self._schedule.storage[name] = (a, old[1])
    self._schedule.sites[("align_storage", name)] = capture_site()
    touch()
    return self


def bound_storage(self, dim, bound):
    _func_only(self, "bound_storage")
    name = _storage_var(self, dim, "bound the storage of")
    b = _int(bound, "bound")
    old = self._schedule.storage.get(name, (None, None))
    self._schedule.storage[name] = (old[0], b)
    self._schedule.sites[("bound_storage", name)] = capture_site()
    touch()
    return self


def hoist_storage(self, *args):
    """``hoist_storage(f, var)`` or ``hoist_storage(loop_level)``."""
    from .func import Func, _var_name

    _func_only(self, "hoist_storage")
    if len(args) == 1 and isinstance(args[0], LoopLevel):
        level = args[0]
    elif len(args) == 2 and isinstance(args[0], Func):
        level = LoopLevel(LevelKind.AT, args[0], _var_name(args[1]), capture_site())
    else:
        raise HalideTypeError(f"{user_site()}: hoist_storage takes (Func, Var or RVar) or a LoopLevel, got {args!r}")
    self._schedule.hoist = level
    touch()
    return self


def hoist_storage_root(self):
    _func_only(self, "hoist_storage_root")
    self._schedule.hoist = LoopLevel(LevelKind.ROOT, site=capture_site())
    touch()
    return self


# --- races ----------------------------------------------------------------------------------------------------


def allow_race_conditions(self):
    self._stage_schedule().race = True
    touch()
    return self


NAMES = (
    "partition",
    "never_partition",
    "always_partition",
    "never_partition_all",
    "always_partition_all",
    "bound_extent",
    "align_bounds",
    "align_extent",
    "align_storage",
    "bound_storage",
    "hoist_storage",
    "hoist_storage_root",
    "allow_race_conditions",
)


def install(cls: type) -> None:
    g = globals()
    for name in NAMES:
        setattr(cls, name, g[name])
