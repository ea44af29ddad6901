"""LLVM's OpenMP runtime (libomp, ``__kmpc_*``) for parallel loops (codegen/lowering.py): where it is, how it
is set up.

The cmeel-libomp wheel ships LLVM's libomp under ``site-packages/cmeel.prefix/lib``; the JIT loads it like the
MLIR runtime libraries. GCC's libgomp lacks the ``__kmpc_*`` entry points MLIR's OpenMP translation calls.
"""

from __future__ import annotations

import functools
import os
import sys

from ..error import HalideError

# After a parallel loop libomp's workers spin for KMP_BLOCKTIME ms before they sleep (200 by default). 1 ms keeps
# them hot across back-to-back realizes (measured: same time per call as 200) without holding a core for 200 ms
# after the last one, which slowed other threads of the process (Halide's, in bench/) and other processes.
# Set before libomp initializes (its first parallel loop); a user's KMP_BLOCKTIME or OMP_WAIT_POLICY wins.
BLOCKTIME_MS = "1"


@functools.lru_cache(maxsize=None)
def library() -> str:
    """The path of libomp.so, with the environment set up for it (see BLOCKTIME_MS). Found on sys.path (where
    pip puts cmeel.prefix): importlib.metadata would take ~70 ms, too slow for a disk-cache hit."""
    path = next(
        (
            p
            for p in (os.path.join(d or os.curdir, "cmeel.prefix", "lib", "libomp.so") for d in sys.path)
            if os.path.isfile(p)
        ),
        None,
    )
    if path is None:
        raise HalideError(
            "parallel loops need LLVM's OpenMP runtime: pip install cmeel-libomp (or set "
            "HALIDE_MLIR_PARALLEL_RUNTIME=async, or HL_NUM_THREADS=1)"
        )
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ.setdefault("KMP_BLOCKTIME", BLOCKTIME_MS)
    return path
