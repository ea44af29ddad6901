"""Run Halide's own Python files (correctness tests, tutorials, apps) against halide_mlir.

    python tools/conformance.py HALIDE_SRC [--rev REV [--fallback-rev REV2]] [--reference] [--only SUBSTR]
                                [--timeout S] [--jobs N]

HALIDE_SRC is a Halide source checkout (the directory holding ``python_bindings/``), or a bare git directory
with ``--rev REV`` (its ``python_bindings/`` and the images the files read are extracted to a temporary
directory). Each file runs in its own subprocess, in a fresh working directory, with a package named
``halide`` that re-exports ``halide_mlir`` first on ``PYTHONPATH``: only the import changes, as for a user.
``--reference`` also runs each file with the real ``halide`` package, side by side; with ``--fallback-rev``
(e.g. ``--rev HEAD --fallback-rev v21.0.0``), a file that real Halide fails at REV is taken from REV2 when real
Halide passes it there (files written for a newer API than the installed halide's). Prints one line per file
(with the last line of a failure's stderr, usually the exception) and ``conformance: P/N pass`` last. A
``*_run.py`` runs after its ``*_generate.py`` and the build of the extension it writes (lesson 10).

What Halide's CMake builds from Generators before its tests run is done here as its CMake does it, on each side
(tools/conformance_cmake.py: the generators through ``hl.main()`` with CMake's flags, the runtimes, the extension
modules with the system ``c++``, the C++ generators and their PYSTUB modules for real Halide), all of it before
the files run, ``--jobs`` at a time; then the apps, lessons 16 and 21 and the correctness tests on generator
modules run with CMake's PYTHONPATH, arguments and environment. A generator source (``*_generator.py``,
``lesson_15_generators.py``, ``lesson_16_rgb_generate.py``, ``lesson_21_auto_scheduler_generate.py``) passes when
every library CMake builds from it builds (with the extension modules made of it); lesson 15's test is that
build. A file that needs a C++ Generator is ``excl`` on halide_mlir's side ("needs a C++ Generator (excluded by
issue 15)"), not a failure. Images the source lacks get a stand-in named in a ``note:`` line (both sides read
it), and an app's ``out.png`` is compared with real Halide's. Nothing here copies Halide's files into this
repository; they are read where they are.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import conformance_cmake as cm  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
GROUPS = ("python_bindings/test/correctness", "python_bindings/tutorial", "python_bindings/apps")
# what the files read besides python_bindings/ (extracted from a bare git directory)
DATA = (
    "tutorial/images",
    "apps/images/rgb_small.png",
    "apps/images/gray_small.png",
    "apps/images/gray.png",
    "apps/images/rgb.png",
    "apps/images/rgba.png",
)

SHIM_INIT = '''\
"""halide -> halide_mlir: every public name of halide_mlir, as ``import halide`` would give Halide's."""
import halide_mlir as _impl
from halide_mlir import *  # noqa: F401,F403

globals().update({_k: getattr(_impl, _k) for _k in dir(_impl) if not _k.startswith("__")})
'''
# submodules Halide's package has; each re-exports halide_mlir's module of the same name
SHIM_SUBMODULES = ("imageio",)


def make_shim(root: Path) -> Path:
    pkg = root / "halide"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(SHIM_INIT)
    for sub in SHIM_SUBMODULES:
        (pkg / f"{sub}.py").write_text(f"from halide_mlir.{sub} import *  # noqa: F401,F403\n")
    return root


def extract(gitdir: str, rev: str, dest: Path) -> Path:
    """``git show`` file by file: a mirror may lack some large blobs, which only those files need."""
    paths = subprocess.run(
        ["git", "--git-dir", gitdir, "ls-tree", "-r", "--name-only", rev, "python_bindings", *DATA],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for p in paths:
        out = dest / p
        out.parent.mkdir(parents=True, exist_ok=True)
        blob = subprocess.run(["git", "--git-dir", gitdir, "show", f"{rev}:{p}"], check=False, capture_output=True)
        if blob.returncode == 0:
            out.write_bytes(blob.stdout)
    return dest


def files(src: Path, only: list[str]) -> list[Path]:
    found = []
    for g in GROUPS:
        found += sorted(p for p in (src / g).glob("*.py"))
    if only:
        found = [p for p in found if any(o in str(p.relative_to(src)) for o in only)]
    return found


# A tutorial's ``*_run.py`` imports the module its ``*_generate.py`` writes (lesson 10): as Halide's CMake build
# does, the generate file runs first in the same directory, then each ``NAME.py.cpp`` it wrote is built with its
# ``NAME.o`` / ``NAME.a`` into the extension ``NAME`` (ours by halide_mlir.aot.build_python_extension, real
# Halide's with c++ against the wheel's headers).
BUILD_OURS = """import sys, glob, os
from halide_mlir.aot import build_python_extension
for src in glob.glob('*.py.cpp'):
    name = src[: -len('.py.cpp')]
    lib = next(p for p in (name + '.a', name + '.o') if os.path.exists(p))
    build_python_extension(src, lib, '.')
"""
BUILD_HALIDE = """import sys, glob, os, subprocess, sysconfig, halide
inc = os.path.join(os.path.dirname(halide.__file__), 'include')
for src in glob.glob('*.py.cpp'):
    name = src[: -len('.py.cpp')]
    lib = next(p for p in (name + '.a', name + '.o') if os.path.exists(p))
    so = name + sysconfig.get_config_var('EXT_SUFFIX')
    subprocess.run(['c++', '-O2', '-fPIC', '-shared', '-std=c++17', '-I', inc, '-I', sysconfig.get_paths()['include'],
                    '-DHALIDE_PYTHON_EXTENSION_MODULE_NAME=' + name, src, lib, '-lpthread', '-ldl', '-o', so],
                   check=True)
"""


def generate_file(path: Path) -> Path | None:
    """The ``*_generate.py`` whose module ``path`` (a ``*_run.py``) imports, if any."""
    if not path.name.endswith("_run.py"):
        return None
    gen = path.with_name(path.name[: -len("_run.py")] + "_generate.py")
    return gen if gen.exists() else None


def run_one(
    path: Path, shim: Path | None, timeout: float, extra_pp=(), args=(), extra_env=None, cmake=False
) -> tuple[bool, str, float]:
    """Runs ``path`` in a fresh directory; ``extra_pp``, ``args`` and ``extra_env``: add_python_test's (``cmake``:
    the modules were built as Halide's CMake does, so no lesson-10 build here)."""
    env = dict(os.environ, **(extra_env or {}))
    # the shim must win over an installed halide; the file's own directory holds its helper modules
    pp = ([str(shim), str(REPO)] if shim else []) + list(extra_pp) + [path.parent.as_posix()]
    env["PYTHONPATH"] = os.pathsep.join(pp + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("MPLBACKEND", "Agg")
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="hl-conf-") as cwd:
        gen = None if cmake else generate_file(path)
        steps = (
            [[sys.executable, str(gen)], [sys.executable, "-c", BUILD_OURS if shim else BUILD_HALIDE]] if gen else []
        )
        for argv in steps:
            r = subprocess.run(argv, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
            if r.returncode != 0:
                lines = [ln for ln in (r.stderr or r.stdout).splitlines() if ln.strip()]
                return False, "building the module: " + (lines[-1].strip() if lines else "failed")[:180], 0.0
        if gen:  # (the module is in cwd)
            env = {**env, "PYTHONPATH": os.pathsep.join([cwd, env["PYTHONPATH"]])}
        try:
            r = subprocess.run(
                [sys.executable, str(path), *args],
                check=False,
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return False, f"timeout after {timeout:.0f} s", time.time() - t0
    dt = time.time() - t0
    if r.returncode == 0:
        return True, "", dt
    lines = [ln for ln in (r.stderr or r.stdout).splitlines() if ln.strip()]
    return False, (lines[-1].strip() if lines else f"exit code {r.returncode}")[:200], dt


def compare_outputs(tmp: Path, name: str) -> str:
    """Ours vs Halide's ``out.png`` of an app (both sides passed): a note when they differ."""
    a, b = (tmp / f"out-{side}" / Path(name).stem / "out.png" for side in ("ours", "halide"))
    if not (a.exists() and b.exists()):
        return ""
    import numpy as np
    from PIL import Image

    x, y = (np.asarray(Image.open(f)).astype(np.int64) for f in (a, b))
    if x.shape != y.shape:
        return f"out.png: shape {x.shape} vs halide's {y.shape}"
    d = np.abs(x - y)
    if not d.any():
        return "out.png identical to halide's"
    return f"out.png vs halide's: max |diff| {d.max()}, {100 * np.mean(d > 0):.3f}% of values differ"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("halide_src", help="Halide source checkout, or a bare git dir with --rev")
    ap.add_argument("--rev", help="extract this revision from a git directory (e.g. v21.0.0, HEAD)")
    ap.add_argument(
        "--fallback-rev",
        help="with --rev and --reference: where real Halide fails a file at REV, "
        "use this revision's version if real Halide passes it",
    )
    ap.add_argument("--reference", action="store_true", help="also run each file with the real halide package")
    ap.add_argument("--only", action="append", default=[], help="only files whose path contains this")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per file (default 900)")
    ap.add_argument("--jobs", "-j", type=int, default=1)
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="hl-conformance-") as tmp:
        tmp = Path(tmp)
        src = Path(args.halide_src)
        if args.rev:
            src = extract(args.halide_src, args.rev, tmp / "src")
        if not (src / "python_bindings").is_dir():
            ap.error(f"{src} has no python_bindings/ (a bare git directory needs --rev)")
        fallback = (
            extract(args.halide_src, args.fallback_rev, tmp / "fallback")
            if args.rev and args.fallback_rev and args.reference
            else None
        )
        shim = make_shim(tmp / "shim")
        todo = files(src, args.only)
        # what Halide's CMake builds from Generators before the files that need it run (conformance_cmake.py)
        images, notes = cm.make_images(src, tmp / "images")
        for note in notes:
            print(f"note: {note} (both sides read it)", flush=True)
        builders = {"ours": cm.Builder(src, tmp / "build-ours", shim, REPO, args.timeout)}
        if args.reference:
            builders["halide"] = cm.Builder(src, tmp / "build-halide", None, REPO, args.timeout)
        rels = [str(p.relative_to(src / "python_bindings")) for p in todo]
        t0 = time.time()
        cm.build_all(list(builders.values()), rels, args.jobs)
        if any(cm.test_of(r) or cm.is_generator_source(r) for r in rels):
            print(f"(CMake's builds: {time.time() - t0:.0f} s)", flush=True)

        def attempt(p, side) -> tuple:
            """(ok, why, seconds, excluded) of file ``p`` on one side."""
            rel = str(p.relative_to(src / "python_bindings")) if p.is_relative_to(src) else ""
            b, sh = builders[side], (shim if side == "ours" else None)
            t = cm.test_of(rel)
            if cm.is_generator_source(rel) or (t is not None and t.build_only):
                r = b.source(rel)
                return r.ok, r.why, 0.0, r.excluded
            if t is None:
                return (*run_one(p, sh, args.timeout), False)
            r = b.prepare(t)
            if not r.ok:
                return False, r.why, 0.0, r.excluded
            out = tmp / f"out-{side}" / Path(rel).stem
            out.mkdir(parents=True, exist_ok=True)
            pp, argv = cm.test_env(t, b, src, images, out)
            env = {"HL_TARGET": "host", "HL_JIT_TARGET": "host"}
            if rel.startswith("apps/"):
                env.update(TEST_TMPDIR=str(out), TEST_IMAGES_DIR=str(images))
            return (*run_one(p, sh, args.timeout, pp, argv, env, cmake=True), False)

        def job(p):
            ref = attempt(p, "halide") if args.reference else None
            if ref is not None and not ref[0] and fallback is not None and not ref[3]:
                old = fallback / p.relative_to(src)
                plain = cm.test_of(str(p.relative_to(src / "python_bindings"))) is None
                if plain and old.exists() and old.read_bytes() != p.read_bytes():
                    old_ref = run_one(old, None, args.timeout)
                    if old_ref[0]:
                        p, ref = old, (True, f"({args.fallback_rev})", old_ref[2], False)
            ours = attempt(p, "ours")
            return p, ours, ref

        passed = ref_passed = both = excluded = 0
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for p, (ok, why, dt, excl), ref in pool.map(job, todo):
                base = src if p.is_relative_to(src) else fallback
                name = str(p.relative_to(base / "python_bindings"))
                name += f" @{args.fallback_rev}" if base != src else ""
                passed += ok
                excluded += excl
                col = ""
                if ref is not None:
                    ref_passed += ref[0]
                    both += ok and ref[0]
                    col = f" halide={'pass' if ref[0] else 'FAIL'}"
                    if not ref[0]:
                        why = f"{why} | halide: {ref[1]}"
                    elif ok:
                        why = compare_outputs(tmp, name)
                detail = f"  {why}" if why else ""
                status = "pass" if ok else "excl" if excl else "FAIL"
                print(f"{status} {name:55s} {dt:6.1f}s{col}{detail}", flush=True)
        print(
            f"conformance: {passed}/{len(todo)} pass"
            + (f", {excluded} need a C++ Generator (excluded by issue 15)" if excluded else "")
            + (
                f" (real halide: {ref_passed}/{len(todo)}; ours on those: {both}/{ref_passed})"
                if args.reference
                else ""
            )
        )
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if passed + excluded == len(todo) else 1


if __name__ == "__main__":
    sys.exit(main())
