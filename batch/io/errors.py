"""The one error a job raises for input it cannot read as asked (exit 2 at the command line)."""

from __future__ import annotations


class InputError(Exception):
    """Input this tool cannot read as asked (a file, a schema, a column's type): the run stops with
    exit 2 and this message; rows with bad values are set aside instead."""
