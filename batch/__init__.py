"""Everything around the kernels, one folder per job: ``settle`` (also ``audit``), ``phh`` (the
``import`` job), ``simulate``; the ``generate``, ``rank_decks`` and ``precompile`` (``compile``)
modules; ``io`` (reading and writing data, processes, progress: shared by every job) and ``cli``
(the command line: it parses and prints, the jobs take options)."""
