"""One PHH hand's fields to a :class:`~.replay.Hand`, whatever its variant: the games with a board
through :mod:`.replay`, stud, razz and the draw games through :mod:`.studdraw` (built on it)."""

from __future__ import annotations

from typing import Any

from cardbatch.batch.phh import replay as board_games
from cardbatch.batch.phh import schema, studdraw
from cardbatch.batch.phh.replay import OWN_CARDS_OF, Hand


def replay(fields: dict[str, Any], factor: int = 1) -> Hand:
    """The :class:`~.replay.Hand` of one PHH hand's fields, amounts times ``factor``; raises
    :class:`~.replay.Rejected` for a hand it cannot follow (an unsupported variant included)."""
    variant = schema.variant_of(fields)  # missing or not a string: malformed
    if variant in OWN_CARDS_OF:
        return studdraw.replay(fields, factor, variant, OWN_CARDS_OF[variant])
    return board_games.replay(fields, factor)
