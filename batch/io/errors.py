"""The errors that are the user's, not ours: the command line says them in one line and exits 2
(anything else escaping a command is a bug: exit 1, with the traceback in a log file)."""

from __future__ import annotations


class InputError(Exception):
    """Input this tool cannot read as asked (a file, a schema, a column's type): the run stops with
    exit 2 and this message; rows with bad values are set aside instead."""


class UsageError(ValueError):
    """An option's value, or options together, that the command cannot use as given (out of range,
    not for this game, one excluding another): exit 2 and this message. A ``ValueError``, so that
    Python callers who catch the options' ``ValueError`` catch it too; the command line raises it
    where it turns its flags into a job's options (:func:`cardbatch.batch.cli.common.usage`), and a
    job may raise it for a refusal it can only make while it runs."""
