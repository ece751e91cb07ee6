"""``python -m anomaly``: the command line."""

import sys

from anomaly.cli import main

sys.exit(main())
