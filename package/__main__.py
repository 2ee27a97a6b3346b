"""``python -m cardbatch``: the ``cardbatch`` command line."""

import sys

from cardbatch.batch.cli import main

sys.exit(main())
