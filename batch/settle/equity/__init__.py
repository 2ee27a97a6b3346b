"""``--equity``: each all-in's street, expected payouts and equities (:mod:`.allin`), the
analysis that adds them to a settle run (:mod:`.analysis`) and its section of the report
(:mod:`.report`)."""
