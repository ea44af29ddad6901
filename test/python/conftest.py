import os
import sys

# Make `import halide_mlir` work from a source checkout, with or without `pip install -e .`.
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)
