"""``python -m tabletop_core.cli``: the same as the ``tabletop`` command."""

import sys

from tabletop_core.cli import main

sys.exit(main())
