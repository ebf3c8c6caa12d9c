"""python -m mixgraph.experiments: see cli.py (``--help``)."""

import sys

from .cli import main

sys.exit(main())
