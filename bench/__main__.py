"""``python -m bench [--threads 1|all] [--smoke] [--only NAME] [--rounds N]``"""

import sys

from bench.harness import main

sys.exit(main())
