"""The ``simulate`` job: a room's coin economy over many rounds.

- ``job``: the rounds (seating, dealing, betting, settling) and the comparison of rooms.
- ``room``: a room's rules; ``behaviour``: the betting model, and its fit to recorded hands.
"""
