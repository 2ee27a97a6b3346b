"""``python -m cardbatch``: the ``cardbatch`` command line."""

from cardbatch.batch.cli import run

run()
