import os
import sys

# Make `import halide_mlir` work from a source checkout, with or without `pip install -e .`.
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_func_names():
    """Each test names its Funcs as a fresh process would (Halide's Func names are unique per process: a second
    Func("f") is f$1), so a test's expected names do not depend on the tests that ran before it."""
    from halide_mlir.lang import func
    func._name_counts.clear()
    yield
