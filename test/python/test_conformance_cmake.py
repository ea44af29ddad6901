"""tools/conformance.py's emulation of Halide's CMake builds (tools/conformance_cmake.py), end to end on an app
laid out as Halide's ``python_bindings/apps`` (a blur Generator and its ``*_app.py``, written here): the
generator runs through ``hl.main()`` with CMake's flags for both real Halide and halide_mlir, each side's
extension module is built as ``add_halide_python_extension_library`` builds it, the app runs with CMake's
arguments, and the two PNGs it writes are compared."""

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("halide")
pytest.importorskip("PIL")

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))

GENERATOR = '''
import halide as hl

x, y = hl.Var("x"), hl.Var("y")


@hl.generator(name="blur")
class Blur(hl.Generator):
    input_buf = hl.InputBuffer(hl.UInt(16), 2)
    blur_y = hl.OutputBuffer(hl.UInt(16), 2)

    def generate(self):
        clamped = hl.BoundaryConditions.repeat_edge(self.input_buf)
        bx = hl.Func("blur_x")
        bx[x, y] = (clamped[x - 1, y] + clamped[x, y] + clamped[x + 1, y]) / 3
        self.blur_y[x, y] = (bx[x, y - 1] + bx[x, y] + bx[x, y + 1]) / 3
        self.input_buf.set_estimates([(0, 96), (0, 64)])
        self.blur_y.set_estimates([(0, 96), (0, 64)])
        if not self.using_autoscheduler():
            self.blur_y.vectorize(x, 8).parallel(y)
            bx.compute_at(self.blur_y, y).vectorize(x, 8)


if __name__ == "__main__":
    hl.main()
'''

APP = '''
import sys
import numpy as np
import halide.imageio
from blur import blur

img = halide.imageio.imread(sys.argv[1]).astype(np.uint16)
out = np.empty(img.shape, np.uint16)
blur(img, out)
halide.imageio.imwrite(sys.argv[2], (out // 256).astype(np.uint8))
'''


@pytest.mark.slow  # (44 s on the shared 2-core machine: two generator runs and two c++ builds a side)
def test_blur_app_built_as_cmake_builds_it(tmp_path):
    from PIL import Image

    apps = tmp_path / "src" / "python_bindings" / "apps"
    apps.mkdir(parents=True)
    (apps / "blur_generator.py").write_text(GENERATOR)
    (apps / "blur_app.py").write_text(APP)
    images = tmp_path / "src" / "apps" / "images"
    images.mkdir(parents=True)
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 256, (64, 96), dtype=np.uint8), "L").save(images / "gray.png")
    r = subprocess.run(
        [sys.executable, os.path.join(REPO, "tools", "conformance.py"), str(tmp_path / "src"), "--reference",
         "--only", "apps/blur", "-j", "2"],
        capture_output=True, text=True, timeout=300,
    )
    out = r.stdout
    assert r.returncode == 0, out + r.stderr
    assert "pass apps/blur_generator.py" in out and "halide=pass" in out, out
    app = next(ln for ln in out.splitlines() if "apps/blur_app.py" in ln)
    assert app.startswith("pass") and "halide=pass" in app and "out.png identical to halide's" in app, out
    assert "conformance: 2/2 pass (real halide: 2/2; ours on those: 2/2)" in out, out
