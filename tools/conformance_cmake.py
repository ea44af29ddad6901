"""What Halide's CMake build does before its Python tests run, emulated for real Halide and for halide_mlir.

Halide's ``python_bindings/{apps,tutorial,test/generators,test/correctness}/CMakeLists.txt`` build modules from
Generators with the helpers of its CMake package (``HalideGeneratorHelpers.cmake``); the tables below are those
files' calls, and ``Builder`` runs the commands the helpers generate:

- ``add_halide_library(T FROM gen GENERATOR G FUNCTION_NAME FN [PARAMS..] [FEATURES..] [AUTOSCHEDULER
  Halide::A] [PLUGINS Halide::..] [USE_RUNTIME RT] [PYTHON_EXTENSION _])`` runs the generator as
  ``python gen.py -n T -d 0 -g G -f FN -e c_header,object[,python_extension] [-p plugin.so,..] -o DIR
  target=host[-FEATURES]-no_runtime [autoscheduler=A] PARAMS`` (a C++ generator: its executable, linked with
  GenGen), and its runtime (``USE_RUNTIME``'s, else ``T.runtime``) as ``GenRT -r RT -o DIR -e object
  target=host`` (the features ``user_context``, ``no_runtime``... removed);
- ``add_halide_python_extension_library(E MODULE_NAME M HALIDE_LIBRARIES T..)`` writes the module definition
  (``GenRT -r E_module_definition -e python_extension target=host``) and compiles, with the system ``c++``
  (``-std=c++17``, CMake's Release flags), each library's ``T.py.cpp`` with it, defining
  ``HALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION``, ``HALIDE_PYTHON_EXTENSION_MODULE_NAME=M`` and
  ``HALIDE_PYTHON_EXTENSION_FUNCTIONS= X(FN)..``, linked with the libraries' objects, their runtime,
  ``-lpthread -ldl``, exporting only ``PyInit_M`` (a version script): ``DIR/M<EXT_SUFFIX>``;
- ``add_halide_generator(.. PYSTUB G)`` (C++ generators only): ``HALIDE_GENERATOR_PYSTUB(G, G_pystub)`` with the
  generator's source, ``libHalidePyStubs.a`` and ``libHalide.so``: the module ``G_pystub``.

Real Halide's side uses the halide wheel's ``gengen`` (GenRT), headers, ``libHalide_GenGen.a`` and plugins
(``lib64/libautoschedule_*.so``); halide_mlir's side runs the same commands, its GenRT being ``hl.main()`` with
``-r`` (aot/standalone.py), and passes the same plugin paths (its autoscheduler names map to its own). C++
generators can't be built on halide_mlir's side: what needs one is reported "needs a C++ Generator (excluded by
issue 15)". The Python files are then run as ``add_python_test`` does: with the build directory (and the source
directories CMake adds) on ``PYTHONPATH``, ``HL_TARGET=HL_JIT_TARGET=host``, the apps' ``ARGS_*`` and
``TEST_TMPDIR`` / ``TEST_IMAGES_DIR``. Each side builds in its own directories, one per CMake directory, as CMake's
binary directories.
"""

from __future__ import annotations

import concurrent.futures
import os
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass, field
from pathlib import Path

PLUGINS = ("Adams2019", "Li2018", "Mullapudi2016")  # the apps' and test/generators' PLUGINS
# features add_halide_runtime removes from a runtime's target
RUNTIME_DROP = {"user_context", "no_asserts", "no_bounds_query", "no_runtime", "profile"}
EXCLUDED = "needs a C++ Generator (excluded by issue 15)"


@dataclass(frozen=True)
class Lib:
    """One ``add_halide_library``."""

    target: str
    source: str  # the generator's source, relative to python_bindings/
    generator: str
    function: str = ""  # FUNCTION_NAME (default: the target's name)
    params: tuple = ()
    features: tuple = ()
    autoscheduler: str = ""
    plugins: bool = False  # PLUGINS Halide::Adams2019 Halide::Li2018 Halide::Mullapudi2016
    pyext: bool = False  # PYTHON_EXTENSION
    runtime: str = ""  # USE_RUNTIME (a shared add_halide_runtime), else "<target>.runtime"

    @property
    def fn(self) -> str:
        return self.function or self.target

    @property
    def rt(self) -> str:
        return self.runtime or f"{self.target}.runtime"

    @property
    def cpp(self) -> bool:
        return self.source.endswith(".cpp")


@dataclass(frozen=True)
class Ext:
    """One ``add_halide_python_extension_library``."""

    target: str
    module: str
    libs: tuple  # Lib targets


@dataclass(frozen=True)
class Test:
    """An ``add_python_test`` whose file needs modules built from Generators."""

    file: str  # relative to python_bindings/
    builddir: str  # the CMake directory whose build goes on PYTHONPATH
    needs: tuple  # module names (Ext modules, "<G>_pystub")
    args: tuple = ()  # TEST_ARGS; "{images}" and "{tmp}" are TEST_IMAGES_DIR and TEST_TMPDIR
    pythonpath: tuple = ()  # source directories CMake adds, relative to python_bindings/
    build_only: bool = False  # lesson 15: the test is the build of its libraries


def _tables():
    libs, exts, tests = [], [], []
    # python_bindings/apps/CMakeLists.txt
    apps = {
        "bilateral_grid": (
            ["bilateral_grid", "bilateral_grid_Adams2019", "bilateral_grid_Li2018", "bilateral_grid_Mullapudi2016"],
            ("{images}/gray.png", "0.1", "{tmp}/out.png"),
        ),
        "blur": (["blur"], ("{images}/gray.png", "{tmp}/out.png")),
        "identity": (["identity"], ("",)),  # ARGS_identity "": one empty argument
        "interpolate": (["interpolate", "interpolate_Mullapudi2016"], ("{images}/rgba.png", "{tmp}/out.png")),
        "local_laplacian": (
            ["local_laplacian", "local_laplacian_Mullapudi2016"],
            ("{images}/rgba.png", "8", "1", "1", "{tmp}/out.png"),
        ),
    }
    for app, (gens, args) in apps.items():
        for g in gens:
            libs.append(Lib(f"app_aot_{g}", f"apps/{app}_generator.py", g, g, plugins=True, pyext=True))
            exts.append(Ext(f"app_ext_{g}", g, (f"app_aot_{g}",)))
        tests.append(Test(f"apps/{app}_app.py", "apps", tuple(gens), args))
    # python_bindings/tutorial/CMakeLists.txt
    l15 = "tutorial/lesson_15_generators.py"
    libs.append(Lib("python_my_first_generator", l15, "my_first_generator"))
    for i, params in enumerate(
        [
            ("parallel=false", "scale=3.0", "rotation=ccw", "output.type=uint16"),
            ("scale=9.0", "rotation=ccw", "output.type=float32"),
            ("parallel=false", "output.type=float64"),
        ],
        1,
    ):
        libs.append(Lib(f"python_my_second_generator_{i}", l15, "my_second_generator", params=params))
    tests.append(Test(l15, "tutorial", (), build_only=True))
    for layout in ("planar", "interleaved", "either", "specialized"):
        libs.append(
            Lib(
                f"python_brighten_{layout}",
                "tutorial/lesson_16_rgb_generate.py",
                "brighten",
                f"brighten_{layout}",
                params=(f"layout={layout}",),
                pyext=True,
            )
        )
        exts.append(Ext(f"python_ext_brighten_{layout}", f"brighten_{layout}", (f"python_brighten_{layout}",)))
    tests.append(
        Test(
            "tutorial/lesson_16_rgb_run.py",
            "tutorial",
            tuple(f"brighten_{x}" for x in ("planar", "interleaved", "either", "specialized")),
        )
    )
    l21 = "tutorial/lesson_21_auto_scheduler_generate.py"
    libs.append(Lib("python_auto_schedule_false", l21, "auto_schedule_gen", "auto_schedule_false", pyext=True))
    libs.append(
        Lib(
            "python_auto_schedule_true",
            l21,
            "auto_schedule_gen",
            "auto_schedule_true",
            params=(
                "autoscheduler.parallelism=32",
                "autoscheduler.last_level_cache_size=16777216",
                "autoscheduler.balance=40",
            ),
            autoscheduler="Mullapudi2016",
            pyext=True,
        )
    )
    for v in ("false", "true"):
        exts.append(Ext(f"python_ext_auto_schedule_{v}", f"auto_schedule_{v}", (f"python_auto_schedule_{v}",)))
    tests.append(
        Test("tutorial/lesson_21_auto_scheduler_run.py", "tutorial", ("auto_schedule_false", "auto_schedule_true"))
    )
    # python_bindings/test/generators/CMakeLists.txt
    complex_params = (
        "simple_input.type=uint8",
        "tuple_output.type=float32,float32",
        "untyped_buffer_input.type=uint8",
        "untyped_buffer_output.type=uint8",
        "untyped_buffer_output.dim=3",
    )
    gens = [
        (
            "addconstantcpp_generator.cpp",
            ["addconstantcpp", "addconstantcpp_with_offset_42", "addconstantcpp_with_negative_offset"],
        ),
        ("bitcpp_generator.cpp", ["bitcpp"]),
        ("complexcpp_generator.cpp", ["complexcpp"]),
        ("simplecpp_generator.cpp", ["simplecpp"]),
        ("user_context_generator.cpp", ["user_context"]),
        (
            "addconstantpy_generator.py",
            ["addconstantpy", "addconstantpy_with_offset_42", "addconstantpy_with_negative_offset"],
        ),
        ("bitpy_generator.py", ["bitpy"]),
        ("complexpy_generator.py", ["complexpy"]),
        ("simplepy_generator.py", ["simplepy"]),
    ]
    for src, names in gens:
        for g in names:
            libs.append(
                Lib(
                    f"py_aot_{g}",
                    f"test/generators/{src}",
                    g,
                    g,
                    params=complex_params if g in ("complexcpp", "complexpy") else (),
                    features=("user_context",) if g == "user_context" else (),
                    plugins=True,
                    pyext=True,
                    runtime="multi_lib_runtime" if g in ("simplecpp", "user_context") else "",
                )
            )
            exts.append(Ext(f"pyext_{g}", g, (f"py_aot_{g}",)))
    exts.append(Ext("pyext_multi_method_module", "multi_method_module", ("py_aot_simplecpp", "py_aot_user_context")))
    # python_bindings/test/correctness/CMakeLists.txt (its PYPATH_*; the generators' build directory holds the
    # modules and the pystubs, "${PY_GENERATORS}" is test/generators' sources)
    gsrc = ("test/generators",)
    for name, needs, pp in [
        (
            "addconstant_test",
            (
                "addconstantcpp",
                "addconstantpy",
                "addconstantcpp_with_offset_42",
                "addconstantpy_with_offset_42",
                "addconstantcpp_with_negative_offset",
                "addconstantpy_with_negative_offset",
            ),
            (),
        ),
        ("bit_test", ("bitcpp", "bitpy"), ()),
        ("callable", ("simplecpp_pystub",), gsrc),
        ("multi_method_module_test", ("multi_method_module",), ()),
        ("pystub", ("simplecpp_pystub", "complexcpp_pystub"), gsrc),
        ("user_context_test", ("user_context",), gsrc),
    ]:
        tests.append(Test(f"test/correctness/{name}.py", "test/generators", needs, pythonpath=pp))
    return libs, exts, tests


LIBS, EXTS, TESTS = _tables()
LIB = {lib.target: lib for lib in LIBS}
BUILDDIR = {"apps": "apps", "tutorial": "tutorial", "test": "test/generators"}


def builddir_of(source: str) -> str:
    return BUILDDIR[source.split("/")[0]]


def test_of(rel: str) -> Test | None:
    return next((t for t in TESTS if t.file == rel), None)


def is_generator_source(rel: str) -> bool:
    return any(lib.source == rel for lib in LIBS)


def stubs_needed(tests) -> list:
    """The C++ generators whose PYSTUB modules the tests import (CMake builds every C++ generator's; only
    these are built here)."""
    return sorted({n[: -len("_pystub")] for t in tests for n in t.needs if n.endswith("_pystub")})


@dataclass
class Result:
    ok: bool
    why: str = ""
    excluded: bool = False  # needs a C++ Generator (halide_mlir's side)


def _last_line(r) -> str:
    lines = [ln for ln in ((r.stderr or "") + "\n" + (r.stdout or "")).splitlines() if ln.strip()]
    errs = [ln for ln in (r.stderr or "").splitlines() if ln.strip()]
    return ((errs or lines or [f"exit code {r.returncode}"])[-1]).strip()[:180]


@dataclass
class Builder:
    """Builds what CMake would, for one side (``shim``: halide_mlir's halide package, else real Halide's), in
    ``root/<cmake dir>``, each thing at most once (results memoized)."""

    src: Path  # the directory holding python_bindings/
    root: Path
    shim: Path | None
    repo: Path
    timeout: float = 600.0
    results: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self):
        if self.shim is None:
            import halide  # noqa: F401 (the reference side needs the real package)

            self.hl = Path(halide.__file__).parent

    # -- environment
    def env(self) -> dict:
        env = dict(os.environ)
        pp = [str(self.shim), str(self.repo)] if self.shim else [str(self.hl.parent)]
        env["PYTHONPATH"] = os.pathsep.join(pp + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env.setdefault("MPLBACKEND", "Agg")
        return env

    def dir(self, key: str) -> Path:
        d = self.root / key
        d.mkdir(parents=True, exist_ok=True)
        return d

    def run(self, argv, cwd) -> Result:
        try:
            r = subprocess.run(
                [str(a) for a in argv],
                cwd=cwd,
                env=self.env(),
                capture_output=True,
                text=True,
                timeout=self.timeout,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return Result(False, f"timeout after {self.timeout:.0f} s: {' '.join(map(str, argv[:4]))}")
        return Result(True) if r.returncode == 0 else Result(False, _last_line(r))

    def plugin_paths(self) -> list:
        """Halide::<A>'s file: the wheel's plugins (halide_mlir's side is given the same paths; without the wheel,
        their names)."""
        try:
            import halide

            lib = Path(halide.__file__).parent / "lib64"
        except ImportError:
            lib = Path("lib64")
        return [str(lib / f"libautoschedule_{a.lower()}.so") for a in PLUGINS]

    def genrt(self) -> list:
        if self.shim is None:
            return [str(self.hl / "bin" / "gengen")]
        return [sys.executable, "-c", "import halide_mlir as hl; hl.main()"]

    # -- memoized steps
    def once(self, key, make) -> Result:
        with self.lock:
            ev = self.results.get(key)
            if ev is None:
                ev = self.results[key] = [threading.Event(), None]
                mine = True
            else:
                mine = False
        if mine:
            try:
                ev[1] = make()
            except Exception as e:  # noqa: BLE001 (reported as the build's failure)
                ev[1] = Result(False, f"{type(e).__name__}: {e}")
            ev[0].set()
        ev[0].wait()
        return ev[1]

    def generator_exe(self, source: str) -> Result:
        """A C++ generator's executable (add_halide_generator: linked with Halide::Generator)."""

        def make():
            if self.shim is not None:
                return Result(False, EXCLUDED, excluded=True)
            d = self.dir(builddir_of(source))
            stem = Path(source).stem
            obj = d / f"{stem}.o"
            inc, lib = self.hl / "include", self.hl / "lib64"
            r = self.run(
                [
                    "c++",
                    "-std=c++17",
                    "-O3",
                    "-DNDEBUG",
                    "-fPIC",
                    "-I",
                    inc,
                    "-c",
                    self.src / "python_bindings" / source,
                    "-o",
                    obj,
                ],
                d,
            )
            if not r.ok:
                return r
            return self.run(
                [
                    "c++",
                    obj,
                    lib / "libHalide_GenGen.a",
                    "-L",
                    lib,
                    "-lHalide",
                    f"-Wl,-rpath,{lib}",
                    "-lpthread",
                    "-ldl",
                    "-o",
                    d / stem,
                ],
                d,
            )

        return self.once(("exe", source), make)

    def pystub(self, gen: str) -> Result:
        """add_halide_generator(.. PYSTUB gen): the module ``gen_pystub``."""
        lib = next(x for x in LIBS if x.generator == gen)

        def make():
            r = self.generator_exe(lib.source)
            if not r.ok:
                return r
            d = self.dir(builddir_of(lib.source))
            module = f"{gen}_pystub"
            stub = d / f"py_gen_{gen}.{gen}.{module}.py_stub_generated.cpp"
            stub.write_text(f'#include <Python.h>\n#include "Halide.h"\nHALIDE_GENERATOR_PYSTUB({gen}, {module})\n')
            script = d / f"{module}.ldscript"
            script.write_text(f"{{ global: PyInit_{module}; local: *; }};\n")
            # the wheel's libHalidePyStubs.a was compiled by a newer GCC whose libstdc++ has
            # __cxa_call_terminate (called when an exception leaves a noexcept function); an older system
            # libstdc++ lacks it: the module gets what that libstdc++ does (weak: a libstdc++ having it wins)
            shim = d / "cxa_call_terminate.cpp"
            shim.write_text(
                "#include <cxxabi.h>\n#include <exception>\n"
                'extern "C" __attribute__((weak, noreturn)) void __cxa_call_terminate(void *e) noexcept {\n'
                "    if (e) __cxxabiv1::__cxa_begin_catch(e);\n    std::terminate();\n}\n"
            )
            hlib = self.hl / "lib64"
            return self.run(
                [
                    "c++",
                    "-std=c++17",
                    "-O3",
                    "-DNDEBUG",
                    "-fPIC",
                    "-shared",
                    "-fvisibility=hidden",
                    "-fvisibility-inlines-hidden",
                    "-I",
                    self.hl / "include",
                    "-I",
                    sysconfig.get_paths()["include"],
                    stub,
                    shim,
                    d / f"{Path(lib.source).stem}.o",
                    hlib / "libHalidePyStubs.a",
                    "-L",
                    hlib,
                    "-lHalide",
                    f"-Wl,-rpath,{hlib}",
                    f"-Wl,--version-script={script}",
                    "-o",
                    d / (module + _ext_suffix()),
                ],
                d,
            )

        return self.once(("stub", gen), make)

    def runtime(self, rt: str, d: Path, features=()) -> Result:
        """add_halide_runtime: ``GenRT -r RT -o . -e object target=host`` (a runtime's features removed)."""
        target = "-".join(["host", *(f for f in features if f not in RUNTIME_DROP)])
        return self.once(
            ("rt", rt), lambda: self.run([*self.genrt(), "-r", rt, "-o", ".", "-e", "object", f"target={target}"], d)
        )

    def library(self, target: str) -> Result:
        lib = LIB[target]

        def make():
            d = self.dir(builddir_of(lib.source))
            if lib.cpp:
                r = self.generator_exe(lib.source)
                if not r.ok:
                    return r
                cmd = [d / Path(lib.source).stem]
            else:
                cmd = [sys.executable, self.src / "python_bindings" / lib.source]
            outputs = ["c_header", "object"] + (["python_extension"] if lib.pyext else [])
            plugins = self.plugin_paths() if lib.plugins else []
            params = list(lib.params)
            if lib.autoscheduler:  # AUTOSCHEDULER Halide::A: its plugin, and autoscheduler=A first
                plugins.append(self.plugin_paths()[PLUGINS.index(lib.autoscheduler)])
                params.insert(0, f"autoscheduler={lib.autoscheduler}")
            plugins = list(dict.fromkeys(plugins))
            argv = [*cmd, "-n", lib.target, "-d", "0", "-g", lib.generator, "-f", lib.fn, "-e", ",".join(outputs)]
            argv += ["-p", ",".join(plugins)] if plugins else []
            argv += ["-o", ".", "target=" + "-".join(["host", *lib.features, "no_runtime"]), *params]
            r = self.run(argv, d)
            if not r.ok:
                return r
            r = self.runtime(lib.rt, d, lib.features)
            if not r.ok:
                return Result(False, f"its runtime: {r.why}")
            if not lib.pyext:  # a STATIC library target of the object
                return self.run(["ar", "rcs", f"lib{lib.target}.a", f"{lib.target}.o"], d)
            return Result(True)

        return self.once(("lib", target), make)

    def extension(self, ext: Ext) -> Result:
        def make():
            libs = [LIB[t] for t in ext.libs]
            for lib in libs:
                r = self.library(lib.target)
                if not r.ok:
                    return Result(False, f"{lib.target}: {r.why}", r.excluded)
            d = self.dir(builddir_of(libs[0].source))
            mdef = f"{ext.target}_module_definition"
            r = self.run([*self.genrt(), "-r", mdef, "-e", "python_extension", "-o", ".", "target=host"], d)
            if not r.ok:
                return Result(False, f"its module definition: {r.why}")
            script = d / f"{ext.target}.PyInit_{ext.module}.ldscript"
            script.write_text(f"{{ global: PyInit_{ext.module}; local: *; }};\n")
            inc = ["-I", self.hl / "include"] if self.shim is None else []  # Halide::Runtime's headers
            fns = "".join(f" X({lib.fn.split('::')[-1]})" for lib in libs)
            rts = list(dict.fromkeys(f"{lib.rt}.o" for lib in libs))
            return self.run(
                [
                    "c++",
                    "-std=c++17",
                    "-O3",
                    "-DNDEBUG",
                    "-fPIC",
                    "-shared",
                    *inc,
                    "-I",
                    sysconfig.get_paths()["include"],
                    "-DHALIDE_PYTHON_EXTENSION_OMIT_MODULE_DEFINITION",
                    f"-DHALIDE_PYTHON_EXTENSION_MODULE_NAME={ext.module}",
                    f"-DHALIDE_PYTHON_EXTENSION_FUNCTIONS={fns}",
                    *[f"{lib.target}.py.cpp" for lib in libs],
                    f"{mdef}.py.cpp",
                    *[f"{lib.target}.o" for lib in libs],
                    *rts,
                    f"-Wl,--version-script={script}",
                    "-lpthread",
                    "-ldl",
                    "-o",
                    ext.module + _ext_suffix(),
                ],
                d,
            )

        return self.once(("ext", ext.target), make)

    def module(self, name: str) -> Result:
        if name.endswith("_pystub"):
            return self.pystub(name[: -len("_pystub")])
        return self.extension(next(e for e in EXTS if e.module == name))

    def source(self, rel: str) -> Result:
        """A generator source file passes when every library CMake builds from it builds (with the extension
        modules made of its libraries alone)."""
        bad = []
        for lib in (x for x in LIBS if x.source == rel):
            r = self.library(lib.target)
            if r.ok and lib.pyext:
                ext = next((e for e in EXTS if e.libs == (lib.target,)), None)
                r = self.extension(ext) if ext else r
            if not r.ok:
                bad.append(f"{lib.target}: {r.why}")
        return Result(not bad, "; ".join(bad)[:300])

    def prepare(self, test: Test) -> Result:
        """The modules ``test`` imports; the first failure (or the C++ Generator exclusion)."""
        if test.build_only:
            return self.source(test.file)
        for name in test.needs:
            r = self.module(name)
            if not r.ok:
                return Result(False, EXCLUDED if r.excluded else f"building {name}: {r.why}", r.excluded)
        return Result(True)

    def things(self, rels) -> list:
        """Callables building everything ``rels`` (python_bindings/-relative files) need, for a thread pool."""
        todo = []
        for rel in rels:
            t = test_of(rel)
            if is_generator_source(rel):
                todo += [lambda x=x: self.library(x.target) for x in LIBS if x.source == rel]
            elif t is not None:
                if t.build_only:
                    todo += [lambda x=x: self.library(x.target) for x in LIBS if x.source == rel]
                todo += [lambda n=n: self.module(n) for n in t.needs]
        return todo


def _ext_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def build_all(builders, rels, jobs: int) -> None:
    """Runs every build step the files need on every side, ``jobs`` at a time (libraries first: they are most)."""
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        libs = [f for b in builders for rel in rels for f in _libs_of(b, rel)]
        list(pool.map(lambda f: f(), libs))
        list(pool.map(lambda f: f(), [f for b in builders for f in b.things(rels)]))


def _libs_of(b: Builder, rel: str) -> list:
    t = test_of(rel)
    names = set()
    if is_generator_source(rel):
        names |= {x.target for x in LIBS if x.source == rel}
    if t is not None:
        for n in t.needs:
            if not n.endswith("_pystub"):
                names |= set(next(e for e in EXTS if e.module == n).libs)
    return [lambda n=n: b.library(n) for n in sorted(names)]


def test_env(test: Test, builder: Builder, src: Path, images: Path, tmp: Path) -> tuple[list, list]:
    """(extra PYTHONPATH entries, argv after the file) add_python_test gives ``test``."""
    pp = [str(builder.dir(test.builddir))] + [str(src / "python_bindings" / p) for p in test.pythonpath]
    args = [a.format(images=images, tmp=tmp) for a in test.args]
    return pp, args


def make_images(src: Path, dest: Path) -> tuple[Path, list]:
    """TEST_IMAGES_DIR: Halide's ``apps/images``, with a stand-in for each image the tests read that the source
    lacks (a mirror may lack large blobs): ``rgba.png`` is ``rgb.png`` plus an alpha plane of 255, and where
    ``rgb.png`` is absent too, ``rgb_small.png`` repeated 8 times along each axis (``gray.png``'s 1536x2560,
    the size of Halide's images and of the apps' estimates) plus that alpha plane. Returns the directory and
    a note per stand-in; both sides read the same files."""
    import numpy as np
    from PIL import Image

    have = src / "apps" / "images"
    dest.mkdir(parents=True, exist_ok=True)
    for p in have.glob("*") if have.is_dir() else []:
        (dest / p.name).symlink_to(p.resolve())
    notes = []
    if not (dest / "rgba.png").exists():
        if (dest / "rgb.png").exists():
            rgb, how = np.asarray(Image.open(dest / "rgb.png").convert("RGB")), "rgb.png"
        elif (dest / "rgb_small.png").exists():
            small = np.asarray(Image.open(dest / "rgb_small.png").convert("RGB"))
            rgb, how = small.repeat(8, axis=0).repeat(8, axis=1), "rgb_small.png repeated 8x8"
        else:
            return dest, ["apps/images/rgba.png is absent and there is no rgb image to make a stand-in from"]
        rgba = np.concatenate([rgb, np.full(rgb.shape[:2] + (1,), 255, np.uint8)], axis=2)
        Image.fromarray(rgba, "RGBA").save(dest / "rgba.png")
        h, w = rgba.shape[:2]
        notes.append(f"apps/images/rgba.png is not in the source: a stand-in ({how} + alpha 255, {w}x{h})")
    return dest, notes
