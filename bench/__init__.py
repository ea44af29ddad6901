"""Benchmarks of halide_mlir against Halide 21 (issue 5).

Each benchmark in :mod:`bench.suite` is written once, as a function of the ``hl`` module, and runs under both
the real ``halide`` package and ``halide_mlir`` on the same numpy inputs. ``python -m bench`` (or
``python bench/run.py``) runs the suite; see :mod:`bench.harness` for what is measured and how.
"""
