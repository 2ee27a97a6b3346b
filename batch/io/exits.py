"""Every exit status of the command line, named once: the jobs return them through their summary,
the command line prints :data:`EXIT_CODES` under every ``--help``. Standard library only."""

from __future__ import annotations

EXIT_OK = 0  # done: rows set aside in DIR/errors/ are not a failure
EXIT_INTERNAL = 1  # a bug of ours: the message names a log file with the traceback
EXIT_USAGE = 2  # the command or its input cannot be used as given
EXIT_AUDIT = 3  # audit: some recomputed payout differs from the recorded one
EXIT_FAIRNESS = 4  # fairness: a test rejected the deal at the stated level
EXIT_INTERRUPTED = 130  # Ctrl-C: the same command resumes
EXIT_TERMINATED = 143  # SIGTERM: the same command resumes

EXIT_CODES = f"""exit codes:
  {EXIT_OK}    done (rows that could not be settled are in DIR/errors/, which is not a failure)
  {EXIT_INTERNAL}    internal error: a bug of ours; the message names a log file with the traceback
  {EXIT_USAGE}    the command or its input cannot be used as given (bad option, unreadable file, column type)
  {EXIT_AUDIT}    audit only: some recomputed payout differs from the recorded one
  {EXIT_FAIRNESS}    fairness only: a test rejected the deal at the stated level
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C); {EXIT_TERMINATED} terminated (SIGTERM): the same command again resumes"""
