"""``python bench/run.py [...]``: the same as ``python -m bench [...]``."""

import os
import sys

if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:
        sys.path.insert(0, root)
    from bench.harness import main

    sys.exit(main())
