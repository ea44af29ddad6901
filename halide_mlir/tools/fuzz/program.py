"""A fuzz example: a random pipeline (pipelines.py) with a random schedule (schedules.py), rendered as standalone
Python source whose ``build(hl, schedule)`` takes the module, so the same program runs under real Halide
(``import halide``) and under halide_mlir."""

from __future__ import annotations

import dataclasses

import numpy as np

from .pipelines import PAD, H, PipelineGen, W
from .schedules import ScheduleGen


@dataclasses.dataclass
class Program:
    inputs: list  # (name, numpy dtype, seed, raw)
    algorithm: list  # lines of build()
    schedule: list  # lines of build() under `if schedule:`
    output: str
    description: str  # one line: stage kinds and types
    header: list = dataclasses.field(default_factory=list)  # module-level lines (Param values, GPU = True)

    def source(self) -> str:
        out = ["import numpy as np", "", f"W, H = {W}, {H}", ""]
        for name, dtype, seed, raw in self.inputs:
            shape = f"(H + {2 * PAD}, W + {2 * PAD})" if raw else "(H, W)"
            arr = name.upper()
            if np.dtype(dtype).kind == "f":
                out.append(f"{arr} = np.random.default_rng({seed}).uniform(-4, 4, {shape}).astype(np.{dtype})")
            else:
                info = np.iinfo(dtype)
                out.append(
                    f"{arr} = np.random.default_rng({seed}).integers({info.min}, {info.max}, {shape}, "
                    f"endpoint=True).astype(np.{dtype})"
                )
        if self.header:
            out += [""] + self.header
        out += ["", "", "def build(hl, schedule=True):"]
        body = ['x, y = hl.Var("x"), hl.Var("y")']
        body += self.algorithm
        if self.schedule:
            body.append("if schedule:")
            body += ["    " + l for l in self.schedule]
        body.append(f"return {self.output}")
        out += ["    " + l for l in body]
        return "\n".join(out) + "\n"


def draw_program(draw) -> Program:
    import hypothesis.strategies as st

    g = PipelineGen(draw, st)
    g.gpu = g.integer(0, 7) == 7  # GPU schedules: compiled to PTX, values from the kernels run on the host
    inputs = g.inputs()
    n = g.integer(1, 4)
    prev = [g.choice(inputs)] if len(inputs) == 1 or not g.flag() else list(inputs)
    src = None
    for i in range(n):
        src = g.stage(i, prev, inputs)
        prev = [src]
    out = f"f{n - 1}"
    sg = ScheduleGen(draw, st, g.funcs, g.order)
    if g.gpu:
        return Program(g.inputs_spec, g.alg, sg.gpu_schedules(out), out, " ".join(g.kinds), ["GPU = True"])
    sg.inputs = [(n, d) for n, d, _, _ in g.inputs_spec]
    sched = sg.schedules(out)
    alg = list(g.alg)
    for name, dtype, _, _ in g.inputs_spec:  # prefetched inputs are ImageParams (real Halide's bindings' rule)
        if name in sg.prefetched:
            k = alg.index(f'{name} = hl.Buffer({name.upper()}, "{name}")')
            ty = {"uint8": "hl.UInt(8)", "uint16": "hl.UInt(16)", "int16": "hl.Int(16)", "float32": "hl.Float(32)"}
            alg[k : k + 1] = [
                f'{name} = hl.ImageParam({ty[dtype]}, 2, "{name}")',
                f'{name}.set(hl.Buffer({name.upper()}, "{name}_buf"))',
            ]
    return Program(g.inputs_spec, alg, sched, out, " ".join(g.kinds), sg.header)


def programs():
    """The Hypothesis strategy of programs."""
    import hypothesis.strategies as st

    return st.composite(lambda draw: draw_program(draw))()
