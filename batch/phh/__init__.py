"""The ``import`` job: PHH hand histories (the pokerkit authors' TOML format) to the settle format.

- ``job``: the run (the chip factor's first pass, units of work, workers, the output file and
  the rejected hands beside it).
- ``notation``: a hand's text to its fields; ``replay``: its actions to per-street contributions,
  cards, folds and the recorded result.
"""
