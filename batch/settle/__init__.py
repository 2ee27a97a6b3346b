"""The ``settle`` and ``audit`` job: recorded hands in, settled results, set-aside rows and a
report out.

- ``job``: the run (the output folder's rules, the engine, the summary) and the same units in
  memory for the DataFrame API; ``plan``: inputs to units of work; ``parts``: one unit read,
  settled and written (or kept in memory), run on an engine of
  :mod:`cardbatch.batch.io.engines`; ``by_game``: one Arrow table settled, split by its games
  (:func:`~cardbatch.batch.settle.by_game.settle_table`).
- ``options``: the job's options and the inputs' required columns; ``counters``: what every
  batch, part, input and run adds up.
- ``poker``: settling Hold'em and Zha Jin Hua tables; ``team2v2``: 2v2 games; ``cardtext``:
  text cards in Arrow columns; ``recorded``: the recorded result beside ours; ``rejects``:
  reason codes for set-aside rows.
- ``outputs``: the fixed schemas of ``results/`` and ``errors/``; ``manifest``: what a rerun
  may reuse, and the folder's lock; ``warmup``: compiling before the workers start;
  ``report``: ``report.html``; ``hand_ids``: ids that repeat across a run's inputs.
"""
