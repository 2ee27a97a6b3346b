"""Checked wrappers of the settlement kernel: arguments in, one call into the core, results out.

Every rule travels as one frozen, validated :class:`Options` (the way
:class:`cardbatch.kernels.threecard.Rules` does for hands); ``settle(...,
**options)`` builds it from keywords, or takes a ready one as
``options=``. Per-table inputs (``no_flop_no_drop``, ``special``) are data,
not rules, so they travel with the arrays.
"""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from cardbatch.constants import ODD_CHIPS, ORPHAN_CHIPS_RULES, OddChips, OrphanChips

from ..reasons import REASONS
from .driver import settle_rows_kernel, settle_standard_kernel, settle_streets_kernel
from .policies import POLICIES, KernelRules, Policy, per_street_code

MAX_SEATS = 64

_MAX64 = np.iinfo(np.int64).max
_KWARGS = ("rake_pct", "rake_cap", "chip_unit", "odd_chips", "orphan_chips")


def _as_fraction(pct: Fraction | float | int | str) -> Fraction:
    try:
        frac = Fraction(str(pct)) if isinstance(pct, float) else Fraction(pct)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"rake_pct must be a number in 0..1, got {pct!r}") from None
    if frac < 0 or frac > 1:
        raise ValueError(f"rake_pct must be in 0..1, got {pct}")
    if frac.denominator >= MAX_RAKE_DENOMINATOR:  # the kernels multiply chips by it exactly, in int64 halves
        raise ValueError(f"rake_pct must be exact to 9 decimal places (a denominator below 2**32), got {pct}")
    return frac


MAX_RAKE_DENOMINATOR = 2**32
MAX_CHIP_UNIT = 2**40  # a split's shares and odd chips are counted in units: larger ones overflow int64 there


@dataclasses.dataclass(frozen=True)
class Options:
    """How to settle: an immutable, hashable, validated rule set.

    ``policy``: a :class:`Policy` or its name (``standard``, ``presence``,
    ``ratio_rank``, ``hybrid``). ``rake_pct``: an exact fraction of the
    raked chips (``0.05`` and ``"0.05"`` are 1/20; ``None`` or 0: no rake;
    standard policy only) with ``rake_cap`` per hand. ``chip_unit``: equal
    splits in multiples of the smallest chip. ``odd_chips``: ``"button"``
    (one per winner from the first seat left of the button) or
    ``"first_winner"`` (all to that winner). ``orphan_chips``: ``"error"``
    (the table is invalid) or ``"refund"``.

    >>> Options(policy="ratio_rank").policy
    <Policy.RATIO_RANK: 2>
    >>> Options(rake_pct=0.05, rake_cap=3).rake_pct
    Fraction(1, 20)
    >>> Options(policy="presence", rake_pct="0.05")
    Traceback (most recent call last):
    ...
    ValueError: rake is defined for the standard policy only
    """

    policy: Policy = Policy.STANDARD
    rake_pct: Fraction = Fraction(0)
    rake_cap: int | None = None
    chip_unit: int = 1
    odd_chips: OddChips = "button"
    orphan_chips: OrphanChips = "error"

    def __post_init__(self) -> None:
        policy = self.policy
        if not isinstance(policy, Policy):
            if policy not in POLICIES:
                raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
            object.__setattr__(self, "policy", Policy[policy.upper()])
        object.__setattr__(self, "rake_pct", Fraction(0) if self.rake_pct is None else _as_fraction(self.rake_pct))
        if self.rake_pct and self.policy != Policy.STANDARD:
            raise ValueError("rake is defined for the standard policy only")
        if self.rake_cap is not None:
            if isinstance(self.rake_cap, bool) or not isinstance(self.rake_cap, (int, np.integer)):
                raise ValueError(f"rake_cap must be an integer, got {self.rake_cap!r}")
            if not 0 <= self.rake_cap < 2**63:
                raise ValueError(f"rake_cap must be in 0..2**63-1, got {self.rake_cap}")
            object.__setattr__(self, "rake_cap", int(self.rake_cap))
            if not self.rake_pct:  # a cap on no rake would take nothing, in silence
                raise ValueError("rake_cap caps a rake: give rake_pct too (--rake-pct)")
        unit = self.chip_unit
        if isinstance(unit, bool) or not isinstance(unit, (int, np.integer)) or not 1 <= unit <= MAX_CHIP_UNIT:
            raise ValueError(f"chip_unit must be a whole number in 1..2**40, got {unit!r}")
        object.__setattr__(self, "chip_unit", int(unit))
        if self.odd_chips not in ODD_CHIPS:
            raise ValueError(f"odd_chips must be 'button' or 'first_winner', got {self.odd_chips!r}")
        if self.orphan_chips not in ORPHAN_CHIPS_RULES:
            raise ValueError(f"orphan_chips must be 'error' or 'refund', got {self.orphan_chips!r}")

    @classmethod
    def of(cls, policy: str | Policy = Policy.STANDARD, **options: Any) -> Options:
        """From ``settle``'s keywords: ``options=`` a ready :class:`Options`, or the fields by name."""
        ready = options.pop("options", None)
        unknown = set(options) - set(_KWARGS)
        if unknown:
            raise TypeError(f"unknown settlement option(s): {', '.join(sorted(unknown))}")
        if ready is None:
            return cls(policy=cast(Policy, policy), **options)  # a name becomes a Policy in __post_init__
        if not isinstance(ready, cls):
            raise ValueError(f"options must be a pots.Options, got {type(ready).__name__}")
        if options:
            raise ValueError("give options= or the options by name, not both")
        return ready

    def lower(self, use_special: bool, trips_floor: int, detail: bool) -> KernelRules:
        """The kernel's ``rules`` tuple (see :mod:`.policies`)."""
        rake = self.rake_pct
        return KernelRules(
            use_special,
            np.int64(trips_floor),
            np.int64(self.chip_unit),
            self.odd_chips == "first_winner",
            self.orphan_chips == "refund",
            np.int64(rake.numerator),
            np.int64(rake.denominator),
            np.int64(-1 if self.rake_cap is None else self.rake_cap),
            detail,
        )

    def replace(self, **changes: Any) -> Options:
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass
class Settlement:
    """Everything a settlement computed, for audits and display.

    ``payout[T, S]``; ``rake[T]``; ``pots[T]`` (number of pots, all streets);
    per street k and pot p (``[T, K, S]``, K = 1 for ``standard``; pots beyond
    ``pot_count`` are unused): ``pot_amount`` (after rake), ``pot_rake``,
    ``pot_eligible`` and ``pot_winners`` (seat bitmasks: bit s = seat s; an
    orphan pot's eligible mask is its contributors), ``pot_kind`` (0 normal,
    1 uncalled bet, 2 refunded orphan layer), ``pot_levels`` ``[T, K, S, 2]``.
    """

    payout: np.ndarray
    rake: np.ndarray
    pots: np.ndarray
    pot_count: np.ndarray | None  # None without the detail
    pot_amount: np.ndarray | None  # None without the detail
    pot_rake: np.ndarray | None  # None without the detail
    pot_eligible: np.ndarray | None  # None without the detail
    pot_winners: np.ndarray | None  # None without the detail
    pot_kind: np.ndarray | None  # None without the detail
    pot_levels: np.ndarray | None  # None without the detail
    status: np.ndarray

    @property
    def net(self) -> np.ndarray:
        if self._contrib_total is None:
            raise ValueError("net needs the detail: settle_detailed(..., detail=True)")
        return self.payout - self._contrib_total

    _contrib_total: np.ndarray | None = dataclasses.field(default=None, repr=False)


def rows_beyond_int64(c: np.ndarray) -> np.ndarray:
    """Rows of ``c[T, N]`` whose non-negative values sum beyond int64 (exact: Python integers, only
    for the rows whose float sum comes near)."""
    rows = np.zeros(c.shape[0], bool)
    if c.size == 0:
        return rows
    near = np.flatnonzero(np.clip(c, 0, None).astype(np.float64).sum(axis=1) >= 2.0**62)
    rows[near] = [sum(max(int(x), 0) for x in c[t]) > int(_MAX64) for t in near]
    return rows


def _prepare(contrib: ArrayLike, live: ArrayLike, score: ArrayLike, button: ArrayLike):
    c = np.asarray(contrib)
    if c.dtype.kind not in "ui" and not (c.dtype.kind == "f" and c.size == 0):
        raise ValueError(f"contrib must be integers (chips), got dtype {c.dtype}")
    if c.ndim == 2:
        c = c[:, None, :]
    if c.ndim != 3:
        raise ValueError(f"contrib must be [T, S] or [T, K, S], got shape {np.shape(contrib)}")
    T, K, S = c.shape
    if S > MAX_SEATS:
        raise ValueError(f"at most {MAX_SEATS} seats per table, got {S}")
    if c.dtype == np.uint64 and (c > _MAX64).any():
        raise ValueError("contrib does not fit int64")
    lv = np.asarray(live)
    if lv.shape != (T, S):
        raise ValueError(f"live must be [T, S] = {(T, S)}, got {lv.shape}")
    if lv.dtype != np.bool_:
        if lv.dtype.kind not in "uib":
            raise ValueError(f"live must be booleans, got dtype {lv.dtype}")
        lv = lv != 0
    sc = np.asarray(score)
    if sc.shape != (T, S) or sc.dtype.kind not in "ui":
        raise ValueError(f"score must be integers [T, S] = {(T, S)}, got {sc.dtype} {sc.shape}")
    if sc.dtype == np.uint64 and (sc > _MAX64).any():
        raise ValueError("score does not fit int64")
    bt = np.broadcast_to(np.asarray(button), (T,))
    if bt.dtype.kind not in "ui":
        raise ValueError(f"button must be integers, got dtype {bt.dtype}")
    return (
        np.ascontiguousarray(c, dtype=np.int64),
        np.ascontiguousarray(lv),
        np.ascontiguousarray(sc, dtype=np.int64),
        np.ascontiguousarray(bt, dtype=np.int64),
    )


def _dead_of(dead: ArrayLike | None, T: int, S: int) -> np.ndarray:
    """``int64[T, S]`` dead chips, or ``[1, 0]`` for none (the kernels skip them)."""
    if dead is None:
        return np.zeros((1, 0), np.int64)
    d = np.asarray(dead)
    if d.shape != (T, S) or d.dtype.kind not in "ui":
        raise ValueError(f"dead must be integers [T, S] = {(T, S)}, got {d.dtype} {d.shape}")
    if d.dtype == np.uint64 and (d > _MAX64).any():
        raise ValueError("dead does not fit int64")
    return np.ascontiguousarray(d, dtype=np.int64)


_LOW_LIMIT = 1 << 20  # five hex digits: every low is below it
# the 56 eight-or-better lows as hex digits, highest first, the ace a 1 (0x54321 .. 0x87654)
_LOWS = np.array(
    sorted(int("".join(str(r) for r in reversed(c)), 16) for c in itertools.combinations(range(1, 9), 5)), np.int64
)


def _low_of(low: ArrayLike | None, T: int, S: int) -> np.ndarray:
    """The kernel's lows (higher wins, 0: no low) from the public ones (the hand in hex digits, smaller
    wins, 0: no low), or ``[1, 0]`` for a game without lows."""
    if low is None:
        return np.zeros((1, 0), np.int64)
    lw = np.asarray(low)
    if lw.shape != (T, S) or lw.dtype.kind not in "ui":
        raise ValueError(f"low must be integers [T, S] = {(T, S)}, got {lw.dtype} {lw.shape}")
    if ((lw < 0) | (lw >= _LOW_LIMIT)).any():
        raise ValueError("low must be in 0..0xFFFFF: a low as hex digits, smaller wins (0: no low)")
    lw = lw.astype(np.int64)
    given = lw[lw != 0]
    odd = given[~np.isin(given, _LOWS)]
    if odd.size:
        raise ValueError(
            f"low {int(odd[0]):#x} is not an eight-or-better low: five different ranks 8..A as hex digits, "
            "highest first, the ace a 1 (0x86421 is 8-6-4-2-A; 0: no low)"
        )
    return np.ascontiguousarray(np.where(lw > 0, _LOW_LIMIT - lw, 0))


def _payout_buffer(out: np.ndarray | None, T: int, S: int) -> np.ndarray:
    if out is None:
        return np.empty((T, S), np.int64)
    if not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (T, S) or not out.flags.c_contiguous:
        raise ValueError(f"out must be a contiguous int64[{T}, {S}] array")
    return out


def settle_detailed(
    contrib: ArrayLike,
    live: ArrayLike,
    score: ArrayLike,
    button: ArrayLike,
    policy: str = "standard",
    *,
    no_flop_no_drop: ArrayLike | None = None,
    special: ArrayLike | None = None,
    trips_floor: int | None = None,
    dead: ArrayLike | None = None,
    low: ArrayLike | None = None,
    raise_on_error: bool = True,
    detail: bool = True,
    out: np.ndarray | None = None,
    **options: Any,
) -> Settlement:
    """Settle tables and keep every pot (see :class:`Settlement`); options as :func:`settle`.

    With ``raise_on_error=False`` bad tables are not raised: their ``status``
    holds a code from :data:`REASONS` and their payouts are 0 (the batch
    driver sets them aside). ``detail=False`` skips the per-pot arrays
    (what :func:`settle` uses: they cost more than the settlement). ``out``:
    an ``int64[T, S]`` array for the payouts (reuse it across batches: a
    fresh one is page-faulted in by the kernel, serially, which costs more
    than settling on two cores).
    """
    opts = Options.of(policy, **options)
    c, lv, sc, bt = _prepare(contrib, live, score, button)
    T, K, S = c.shape
    if no_flop_no_drop is None:
        nfnd = np.zeros(1, np.bool_)
    else:
        nfnd = np.ascontiguousarray(np.broadcast_to(np.asarray(no_flop_no_drop, dtype=bool), (T,)))
    use_special = special is not None
    if use_special:
        sp = np.ascontiguousarray(np.asarray(special, dtype=bool))
        if sp.shape != (T, S):
            raise ValueError(f"special must be [T, S] = {(T, S)}, got {sp.shape}")
        if trips_floor is None:  # the game's rule gives it (threecard.trips_floor): never a default game's
            raise ValueError("special needs trips_floor: the lowest score a special seat beats")
    else:
        sp = np.zeros((1, S), np.bool_)
        trips_floor = 0
    dd = _dead_of(dead, T, S)
    lw = _low_of(low, T, S)
    if lw.shape[1] and opts.policy != Policy.STANDARD:
        raise ValueError("high/low halves are defined for the standard policy only")
    payout = _payout_buffer(out, T, S)
    status = np.zeros(T, np.uint8)
    rake = np.zeros(T, np.int64)
    npots = np.zeros(T, np.int64)
    standard = opts.policy == Policy.STANDARD
    shape = (T, 1 if standard else K, S + 1 if standard else S) if detail else (1, 1, 1)
    pot_out = (
        np.zeros(shape, np.int64),
        np.zeros(shape, np.int64),
        np.zeros(shape, np.uint64),
        np.zeros(shape, np.uint64),
        np.zeros(shape, np.int8),
        np.zeros(shape, np.int64),
        np.zeros(shape, np.int64),
    )
    tables = (c, lv, sc, bt, sp, nfnd, dd)
    rules = opts.lower(use_special, trips_floor, detail)
    if standard:
        if detail or lw.shape[1]:  # one table at a time (every pot kept, or high/low halves: see .driver)
            settle_rows_kernel(tables, rules, (payout, status, rake, npots), pot_out, np.arange(T), lw)
        else:
            settle_standard_kernel(tables, rules, (payout, status, rake, npots), pot_out)
            rows = np.flatnonzero((dd != 0).any(axis=1)) if dd.shape[1] else np.zeros(0, np.int64)
            if rows.size:  # a kernel of its own, compiled only when some table has dead chips
                settle_rows_kernel(tables, rules, (payout, status, rake, npots), pot_out, rows, lw)
    else:
        code = per_street_code(opts.policy)  # a ValueError for a policy without a per-street rule
        settle_streets_kernel(code, tables, rules, (payout, status, rake, npots), pot_out)
    if raise_on_error and status.any():
        t = int(np.flatnonzero(status)[0])
        raise ValueError(
            f"settle: table {t} is invalid ({REASONS[status[t]]}): "
            f"contrib {c[t].tolist() if K > 1 else c[t, 0].tolist()}, live {lv[t].astype(int).tolist()}, "
            f"button {int(bt[t])}"
        )
    if not detail:
        return Settlement(
            payout=payout,
            rake=rake,
            pots=npots,
            pot_count=None,
            pot_amount=None,
            pot_rake=None,
            pot_eligible=None,
            pot_winners=None,
            pot_kind=None,
            pot_levels=None,
            status=status,
            _contrib_total=None,
        )
    pot_amount, pot_rake, pot_mask, pot_won, pot_kind, pot_lo, pot_hi = pot_out
    # pots are packed from slot 0 and every used pot has seats (eligible ones, or contributors)
    pot_count = (pot_mask != 0).sum(axis=2)
    return Settlement(
        payout=payout,
        rake=rake,
        pots=npots,
        pot_count=pot_count,
        pot_amount=pot_amount,
        pot_rake=pot_rake,
        pot_eligible=pot_mask,
        pot_winners=pot_won,
        pot_kind=pot_kind,
        pot_levels=np.stack([pot_lo, pot_hi], axis=-1),
        status=status,
        _contrib_total=c.sum(axis=1),
    )


def settle(
    contrib: ArrayLike,
    live: ArrayLike,
    score: ArrayLike,
    button: ArrayLike,
    policy: str = "standard",
    out: np.ndarray | None = None,
    **options: Any,
) -> np.ndarray:
    """Chips each seat receives, ``int64[T, S]``.

    ``contrib``: chips each seat put in, ``[T, S]`` or per street
    ``[T, K, S]``; ``live``: reached showdown; ``score``: hand values (higher
    wins; ignored where not live); ``button``: seat index per table.
    ``policy``: ``standard`` (ignores streets), ``presence``,
    ``ratio_rank``, ``hybrid`` (per street; each is described in the docs'
    Rules page).

    Rules (see :class:`Options`, or pass one as ``options=``): ``rake_pct``
    (a fraction, exact: 0.05 is 1/20) and ``rake_cap`` (per hand) — standard
    only; ``chip_unit``; ``odd_chips`` = ``"button"`` | ``"first_winner"``;
    ``orphan_chips`` = ``"error"`` | ``"refund"``. Per-table data:
    ``no_flop_no_drop`` (bool per table: no rake where True); ``special``
    (bool ``[T, S]``) with ``trips_floor``: a special seat beats every hand
    scoring ``trips_floor`` or more and loses to the rest (the three-card
    games' rule that an off-suit 2-3-5 beats trips: their evaluator gives
    both, :func:`cardbatch.kernels.threecard.trips_floor`; no default); ``dead``
    (int ``[T, S]``, ``0 <= dead <= contrib``: the part of each seat's chips
    no one had to match, such as a big-blind ante; standard policy only) —
    its pot goes to the best live seat that put chips in, and a seat whose
    chips are all dead wins nothing else; ``low`` (int ``[T, S]``: each seat's low
    as :func:`cardbatch.kernels.lowball.low_seats` gives it, the hand in hex digits,
    smaller wins, 0: no qualifying low; standard policy only) splits every pot a
    seat with a low is eligible for into a high half and a low half (the odd chip
    to the high half; ties within a half split as usual). ``out``: an
    ``int64[T, S]`` array to write the payouts into (numpy-style; reuse it
    across batches). Raises ``ValueError`` naming the first invalid table and
    its reason code.

    >>> settle([[100, 100, 50]], [[True, True, False]], [[7, 9, 0]], 0).tolist()
    [[0, 250, 0]]
    >>> settle([[242, 5, 149]], [[True, True, True]], [[8, 9, 7]], 0, dead=[[0, 5, 0]]).tolist()
    [[391, 5, 0]]
    """
    return settle_detailed(contrib, live, score, button, policy, detail=False, out=out, **options).payout


def validate(
    contrib: ArrayLike,
    live: ArrayLike,
    score: ArrayLike,
    button: ArrayLike,
    policy: str = "standard",
    orphan_chips: OrphanChips = "error",
    dead: ArrayLike | None = None,
) -> np.ndarray:
    """Reason code per table (index into :data:`REASONS`; 0 = ok), without raising."""
    return settle_detailed(
        contrib, live, score, button, policy, orphan_chips=orphan_chips, dead=dead, raise_on_error=False, detail=False
    ).status
