"""``python -m halide_mlir STAGE FILE.py``: the same as the ``halide-mlir`` command."""

import sys

from .cli import main

sys.exit(main())
