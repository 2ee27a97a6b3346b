"""``cardbatch fairness``: is the deal fair? All-in outcomes against their equity, dealt cards
against uniform, three-card categories against their exact odds (docs: Fairness)."""
