"""2v2 team settlement (docs: Rules, 2v2 team games): doubling, win cap, bankruptcy, AFK compensation, fee.

Seats 0 & 2 are team 0, seats 1 & 3 team 1. Per game: the table fee comes off
each balance first (clamped to it); each seat gets a cap (what it may win or
must pay); the game's transfer ``s`` is the smaller of the two teams' cap
sums; each team splits ``s`` between its two seats. Everything is exact
integer arithmetic: the seed's halves are carried as doubled values and each
cap is floored to whole coins once.

``model="seed"``: the seed's final algorithm (its slip fixed: D's cap uses
d). ``model="proportional"``: the seed's cases 1-4 (no AFK): demands
``Y * x_i * (sum of opposing x) / 2``, shares in proportion to x,
water-filled at the caps. In both, the lower seat of a team takes the
rounded-up half (seed) or the rounding remainder (proportional).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import ArrayLike

from .reasons import BAD_MULTIPLIER, BAD_STAKE, BAD_WINNER, NEGATIVE_BALANCE, NEGATIVE_FEE, OK, REASONS
from .twins import twin

MODELS = ("seed", "proportional")


@njit(cache=True, inline="always")
def _split(s, p, q, xp, xq, proportional):
    """Share of ``s`` for the lower seat (cap p) and the higher (cap q) of one team."""
    if proportional:
        second = (s * xq) // (xp + xq)
        first = s - second
        if first > p:
            first = p
        elif second > q:
            first = s - q
        return first, s - first
    first = min(p, max(s - s // 2, s - q))
    return first, s - first


@twin
@njit(cache=True, parallel=True)
def _settle_kernel(
    balance,
    multiplier,
    afk,
    winner,
    base,
    double,
    fee,
    proportional,
    caps,
    afk_rule,
    detail,
    delta,
    fee_out,
    cap_out,
    transfer,
    status,
):
    """Settle every game; ``cap_out`` and ``transfer`` are written only with ``detail``."""
    G = balance.shape[0]
    for c0 in prange((G + 1023) // 1024):
        t = np.zeros(4, np.int64)
        left = np.empty(4, np.int64)
        cap = np.empty(4, np.int64)
        for g in range(c0 * 1024, min(G, (c0 + 1) * 1024)):
            s = _settle_game(
                g,
                balance,
                multiplier,
                afk,
                winner,
                base,
                double,
                fee,
                proportional,
                caps,
                afk_rule,
                delta,
                fee_out,
                status,
                t,
                left,
                cap,
            )
            if detail:
                transfer[g] = s
                for i in range(4):
                    cap_out[g, i] = cap[i]


@njit(cache=True, inline="always")
def _settle_game(
    g,
    balance,
    multiplier,
    afk,
    winner,
    base,
    double,
    fee,
    proportional,
    caps,
    afk_rule,
    delta,
    fee_out,
    status,
    t,
    left,
    cap,
):
    """One game; returns its transfer (scratch ``t``, ``left``; each seat's cap lands in ``cap``)."""
    bd = base[g if base.shape[0] > 1 else 0] * double[g if double.shape[0] > 1 else 0]
    f = fee[g if fee.shape[0] > 1 else 0]
    w = winner[g]
    code = OK
    if bd <= 0:
        code = BAD_STAKE
    if f < 0:
        code = NEGATIVE_FEE
    if w != 0 and w != 1:
        code = BAD_WINNER
    for i in range(4):
        if multiplier[g, i] < 1:
            code = BAD_MULTIPLIER
        if balance[g, i] < 0:
            code = NEGATIVE_BALANCE
    status[g] = code
    if code != OK:
        for i in range(4):
            delta[g, i] = 0
            fee_out[g, i] = 0
            cap[i] = 0
        return np.int64(0)
    for i in range(4):
        t[i] = 0
    if afk_rule and not proportional:
        for i in range(2):
            if afk[g, i] != afk[g, i + 2]:
                t[i] = np.int64(afk[g, i])
                t[i + 2] = np.int64(afk[g, i + 2])
    for i in range(4):
        paid = min(f, balance[g, i])
        fee_out[g, i] = paid
        left[i] = balance[g, i] - paid
    x = multiplier[g]
    for i in range(4):
        wins = (i & 1) == w
        o1 = (i + 1) & 3
        o2 = (i + 3) & 3
        p = (i + 2) & 3
        if proportional:
            twice = bd * x[i] * (x[o1] + x[o2])
        elif wins:
            twice = bd * (2 * x[i] + x[o1] + x[o2] - t[o1] - t[o2] - 2) * (1 - t[i])
        else:
            twice = bd * (2 * x[i] + 2 * t[i] + x[o1] + x[o2] - 2 - t[o1] - t[o2]) * (1 - t[p])
        c = twice // 2
        if caps:
            c = min(c, left[i])
        cap[i] = c
    win_sum = cap[w] + cap[w + 2]
    lose_sum = cap[1 - w] + cap[3 - w]
    s = min(win_sum, lose_sum)
    a, b = _split(s, cap[w], cap[w + 2], x[w], x[w + 2], proportional)
    c2, d2 = _split(s, cap[1 - w], cap[3 - w], x[1 - w], x[3 - w], proportional)
    delta[g, w] = a
    delta[g, w + 2] = b
    delta[g, 1 - w] = -c2
    delta[g, 3 - w] = -d2
    return s


@dataclasses.dataclass
class TeamSettlement:
    """Per game: ``delta`` and ``fee`` ``[G, 4]``, each seat's ``cap`` ``[G, 4]``, the transfer ``s``
    ``[G]``, ``status``."""

    delta: np.ndarray
    fee: np.ndarray
    cap: np.ndarray | None  # None unless the detail was asked for
    transfer: np.ndarray | None
    status: np.ndarray


def _games_array(value: Any, G: int, name: str) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype.kind not in "ui":
        raise ValueError(f"{name} must be integers, got dtype {arr.dtype}")
    if arr.ndim == 0:
        return arr.reshape(1).astype(np.int64)
    if arr.shape != (G,):
        raise ValueError(f"{name} must be a scalar or [G] = [{G}], got shape {arr.shape}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def settle_2v2_detailed(
    balance: ArrayLike,
    multiplier: ArrayLike,
    afk: ArrayLike,
    winner: ArrayLike,
    base: ArrayLike,
    double: ArrayLike,
    fee: ArrayLike = 0,
    model: str = "seed",
    caps: bool = True,
    afk_rule: bool = True,
    raise_on_error: bool = True,
    detail: bool = True,
    out: tuple[np.ndarray, np.ndarray] | None = None,
) -> TeamSettlement:
    """:func:`settle_2v2` with each seat's cap and the transfer, for explaining a result.

    ``detail=False`` leaves ``cap`` and ``transfer`` out (``None``), which
    :func:`settle_2v2` uses: they are two more arrays to fill. ``out``: a
    ``(delta, fee)`` pair of ``int64[G, 4]`` arrays to write into (reuse them
    across batches; fresh arrays cost page faults on a memory-bound kernel).
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    bal = np.asarray(balance)
    if bal.ndim != 2 or bal.shape[1] != 4 or bal.dtype.kind not in "ui":
        raise ValueError(f"balance must be integers [G, 4], got {bal.dtype} {bal.shape}")
    G = bal.shape[0]
    mult = np.asarray(multiplier)
    if mult.shape != (G, 4) or mult.dtype.kind not in "ui":
        raise ValueError(f"multiplier must be integers [G, 4], got {mult.dtype} {mult.shape}")
    af = np.asarray(afk)
    if af.shape != (G, 4) or af.dtype.kind not in "bui":
        raise ValueError(f"afk must be booleans [G, 4], got {af.dtype} {af.shape}")
    win = _games_array(winner, G, "winner")
    if win.shape != (G,):
        win = np.broadcast_to(win, (G,)).copy()
    if out is None:
        out = (np.empty((G, 4), np.int64), np.empty((G, 4), np.int64))
    for a in out:
        if not isinstance(a, np.ndarray) or a.dtype != np.int64 or a.shape != (G, 4) or not a.flags.c_contiguous:
            raise ValueError(f"out must be two contiguous int64[{G}, 4] arrays")
    delta_out, fee_out = out
    res = TeamSettlement(
        delta=delta_out,
        fee=fee_out,
        cap=(cap := np.empty((G, 4) if detail else (1, 4), np.int64)),
        transfer=(transfer := np.empty(G if detail else 1, np.int64)),
        status=np.empty(G, np.uint8),
    )
    _settle_kernel(
        np.ascontiguousarray(bal, dtype=np.int64),
        np.ascontiguousarray(mult, dtype=np.int64),
        np.ascontiguousarray(af if af.dtype == np.bool_ else af != 0),
        win,
        _games_array(base, G, "base"),
        _games_array(double, G, "double"),
        _games_array(fee, G, "fee"),
        model == "proportional",
        bool(caps),
        bool(afk_rule),
        detail,
        res.delta,
        res.fee,
        cap,
        transfer,
        res.status,
    )
    if not detail:
        res.cap = res.transfer = None
    if raise_on_error and res.status.any():
        g = int(np.flatnonzero(res.status)[0])
        raise ValueError(
            f"settle_2v2: game {g} is invalid ({REASONS[res.status[g]]}): balance "
            f"{bal[g].tolist()}, multiplier {mult[g].tolist()}, winner {int(win[g])}"
        )
    return res


def settle_2v2(
    balance: ArrayLike,
    multiplier: ArrayLike,
    afk: ArrayLike,
    winner: ArrayLike,
    base: ArrayLike,
    double: ArrayLike,
    fee: ArrayLike = 0,
    model: str = "seed",
    caps: bool = True,
    afk_rule: bool = True,
    out: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Coin changes of 2v2 games: ``(delta int64[G, 4], fee int64[G, 4])``.

    ``balance``, ``multiplier`` (x >= 1), ``afk``: ``[G, 4]``; ``winner``: team
    0 (seats 0, 2) or 1 (seats 1, 3), scalar or ``[G]``; ``base``, ``double``,
    ``fee``: scalars or ``[G]``. ``delta`` sums to 0 per game; the fee is the
    house's take, outside it (the balance change is ``delta - fee``). Raises
    ``ValueError`` naming the first invalid game.

    >>> delta, fee = settle_2v2([[1000, 1000, 1000, 1000]], [[1, 1, 1, 1]], [[False] * 4], 0, 10, 1)
    >>> delta.tolist(), fee.tolist()
    ([[10, -10, 10, -10]], [[0, 0, 0, 0]])
    """
    r = settle_2v2_detailed(
        balance, multiplier, afk, winner, base, double, fee, model, caps, afk_rule, detail=False, out=out
    )
    return r.delta, r.fee


def validate_2v2(
    balance: ArrayLike,
    multiplier: ArrayLike,
    afk: ArrayLike,
    winner: ArrayLike,
    base: ArrayLike,
    double: ArrayLike,
    fee: ArrayLike = 0,
) -> np.ndarray:
    """Reason code per game (index into :data:`REASONS`; 0 = ok), without raising."""
    return settle_2v2_detailed(
        balance, multiplier, afk, winner, base, double, fee, raise_on_error=False, detail=False
    ).status
