"""``cardbatch simulate``: an offline economy simulation on the same kernels.

Each round seats the players who can still play at random tables, deals from
:mod:`cardbatch.kernels.decks`, scores with the evaluators and moves coins with the
settlement kernels, vectorised over all tables of the round.

Behaviour:

- card games: the betting model of :mod:`cardbatch.batch.simulate.behaviour` (seat
  counts, fold and all-in rates by hand strength, bet sizes in base units, per
  street), from the flags (``--fold-p``, ``--allin-p``, ``--bet-max``) or
  fitted to recorded hands (``--behaviour-from``). Pots are settled by
  :func:`cardbatch.kernels.pots.settle_detailed` with the room's rake.
- ``team2v2``: each seat doubles (x2) with probability ``double_p`` and again
  (x4) with the same probability, is AFK with probability ``afk_p``, the
  winning team is a coin flip; :func:`cardbatch.kernels.team.settle_2v2` moves the
  coins with the room's base, double, fee and caps.

A player whose balance falls below ``base`` (card games) or to 0 (2v2) is
bankrupt: it leaves, or rebuys its starting balance with ``--rebuy``.
Conservation holds every round: coins in play + fees and rake collected =
starting coins + rebuys.

Comparing rooms: :func:`simulate_rooms` plays several rooms, each several
times (replicates). Replicate r of every room uses the same seed, so the rooms
start from the same population and meet the same random numbers: round k's
table i gets deck ``k * tables_per_round + i`` and every random draw comes from
a generator keyed by (seed, round, purpose), so a difference between rooms is
the rooms' and not the dice's (common random numbers).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io import engines, lists, owned, staged, storage
from cardbatch.batch.io.compiling import announced
from cardbatch.batch.io.errors import InputError, UsageError
from cardbatch.batch.io.jobs import FILE_MODES, FileMode, RunOptions, Summary
from cardbatch.batch.io.progress import progress
from cardbatch.batch.simulate import behaviour as bh
from cardbatch.batch.simulate.room import Room
from cardbatch.games import REGISTRY, simulated_games
from cardbatch.games import game as game_spec
from cardbatch.kernels import decks as kdecks
from cardbatch.kernels import pots, team

METRICS = (
    "tables",
    "coins_in_play",
    "fees_collected",
    "rebuys",
    "bankrupt",
    "gini",
    "median_balance",
    "top1pct_balance",
)
SHARES = ("fee_sink_pct", "coins_in_play_pct", "rebuys_pct", "bankrupt_pct")
# the purposes of the per-round random generators (common random numbers across rooms)
_SEATING, _SEATS, _BUTTON, _TEAM, _BET, _DECIDE = 0, 1, 2, 3, 10, 20


def gini(balances: np.ndarray, presorted: bool = False) -> float:
    """Gini coefficient of non-negative balances (0 = equal, 1 = one holds all)."""
    x = (balances if presorted else np.sort(balances)).astype(np.float64)
    n = x.size
    total = x.sum()
    if n == 0 or total == 0:
        return 0.0
    # a product and a sum, not ``@``: a float dot product is BLAS's, whose threads spin after each
    # call and took the cores from the round's kernels (a play 8x slower, two workers 4x slower each)
    return float(((2 * np.arange(1, n + 1) - n - 1) * x).sum() / (n * total))


def _rng(seed: int, r: int, purpose: int) -> np.random.Generator:
    return np.random.default_rng([seed, r, purpose])


def _seat_players(rng: np.random.Generator, can_play: np.ndarray, sizes: np.ndarray, seats: int) -> np.ndarray:
    """``[t, seats]`` player indices (-1: no seat) for tables of ``sizes`` seats drawn from those who
    can play, as many tables as the pool fills."""
    pool = rng.permutation(np.flatnonzero(can_play))
    t = int(np.searchsorted(np.cumsum(sizes), pool.size, side="right"))
    sizes = sizes[:t]
    out = np.full((t, seats), -1, np.int64)
    out[np.arange(seats)[None, :] < sizes[:, None]] = pool[: int(sizes.sum())]
    return out


@dataclasses.dataclass
class _Hands:
    """One round's hands as the settle format wants them (for ``--write-hands``)."""

    present: np.ndarray
    cards: np.ndarray
    board: np.ndarray | None
    contrib: np.ndarray  # [t, K, S]
    folded: np.ndarray
    payout: np.ndarray
    stack: np.ndarray
    button: np.ndarray


def _round_cards(
    room: Room, model: tuple[np.ndarray, ...], seed: int, r: int, balance: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, _Hands | None]:
    """One round of a card game: (seated ``[t, S]``, delta per seat ``[t, S]``, rake, the hands)."""
    seat_p, fold_p, allin_p, bet_p = model
    S = seat_p.size + 1
    sizes = 2 + _rng(seed, r, _SEATS).choice(seat_p.size, room.tables_per_round, p=seat_p)
    seated = _seat_players(_rng(seed, r, _SEATING), balance >= room.base, sizes, S)
    t = seated.shape[0]
    present = seated >= 0
    # deal_decks makes permutations, so the deck positions are indexed directly: deal_zjh and
    # deal_holdem would check every deck again (a sort of each, a quarter of a Hold'em round's time)
    deck = kdecks.deal_decks(t, seed, r * room.tables_per_round)
    board = None
    spec = game_spec(room.game)
    if not spec.board_cards:  # each seat's own cards, valued under the room's rule preset
        cards = deck[:, kdecks.zjh_positions(S)]
        values = spec.kernel().evaluate(cards.reshape(t * S, spec.hole_cards), room.rules).reshape(t, S)
    else:  # hole cards and the board, burn cards between its streets
        hole, at = kdecks.holdem_positions(S)
        cards, board = deck[:, hole], deck[:, at]
        seen = spec.hole_cards + spec.board_cards
        seven = np.concatenate([cards, np.repeat(board[:, None, :], S, axis=1)], axis=2).reshape(t * S, seen)
        values = spec.kernel().evaluate(seven).astype(np.int64).reshape(t, S)
    quart = bh.quartiles(values, room.game, room.rules)
    stack = np.where(present, balance[np.maximum(seated, 0)], 0)
    K = fold_p.shape[0]
    contrib = np.zeros((t, K, S), np.int64)
    contrib[:, 0] = np.minimum(stack, room.base)  # the ante
    put = contrib[:, 0].copy()
    live = present.copy()
    rows = np.arange(t)
    for s in range(K):
        active = live & (put < stack)
        played = active.sum(axis=1) >= 2
        bet = room.base * np.asarray(_rng(seed, r, _BET + s).choice(bet_p.shape[1], t, p=bet_p[s]))
        u = _rng(seed, r, _DECIDE + s).random((t, S))
        decide = active & played[:, None]
        fold = decide & (bet > 0)[:, None] & (u < fold_p[s][quart])
        shove = decide & ~fold & (u > 1 - allin_p[s][quart])
        nobody = played & ~(live & ~fold).any(axis=1)
        stays = np.asarray(np.argmax(np.where(active, values, -2), axis=1))
        fold[rows[nobody], stays[nobody]] = False  # someone has to stay in: the strongest
        call = decide & ~fold & ~shove
        add = np.where(shove, stack - put, np.where(call, np.minimum(bet[:, None], stack - put), 0))
        contrib[:, s] += add
        put += add
        live &= ~fold
    # a folded seat cannot have put in more than every live seat (it would have been called or returned)
    live_max = np.where(live, put, 0).max(axis=1, keepdims=True)
    capped = np.minimum(np.cumsum(contrib, axis=1), np.where(live, put, live_max)[:, None, :])
    contrib = np.diff(capped, axis=1, prepend=0)
    total = capped[:, -1]
    button = (_rng(seed, r, _BUTTON).random(t) * present.sum(axis=1)).astype(np.int64)
    opts: dict[str, Any] = {"rake_pct": room.rake_pct, "rake_cap": room.rake_cap} if room.rake_pct is not None else {}
    d = pots.settle_detailed(total, live, values, button, detail=False, **opts)
    hands = _Hands(present, cards, board, contrib, ~live & present, d.payout, stack, button)
    return seated, d.payout - total, int(d.rake.sum()), hands


def _round_team(
    room: Room, seed: int, r: int, balance: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, _Hands | None]:
    sizes = np.full(room.tables_per_round, 4)
    seated = _seat_players(_rng(seed, r, _SEATING), balance >= 1, sizes, 4)
    t = seated.shape[0]
    rng = _rng(seed, r, _TEAM)
    mult = 1 * np.where(rng.random((t, 4)) < room.double_p, 2, 1) * np.where(rng.random((t, 4)) < room.double_p, 2, 1)
    afk = rng.random((t, 4)) < room.afk_p
    winner = rng.integers(0, 2, t)
    delta, fee = team.settle_2v2(balance[seated], mult, afk, winner, room.base, room.double, room.fee, caps=room.caps)
    return seated, delta - fee, int(fee.sum()), None


def behaviour_of(room: Room) -> bh.Behaviour:
    """The room's betting model from its flags (card games)."""
    return bh.from_flags(room.game, room.seats, room.fold_p, room.allin_p, room.bet_max)


def play(
    room: Room,
    seed: int,
    model: bh.Behaviour | None = None,
    hands_to: Callable[[int, np.ndarray, _Hands], None] | None = None,
    bar: Any = None,
) -> tuple[list[tuple[Any, ...]], np.ndarray]:
    """Play one room with one seed: (rows of :data:`METRICS` per round, final balances).
    ``hands_to(round, seated, hands)`` receives each round's hands (card games)."""
    cards = game_spec(room.game).has_hands  # a card game, or 2v2 teams that move balances
    arrays = (model or behaviour_of(room)).arrays() if cards else None
    balance = np.full(room.players, room.start_balance, np.int64)
    start_total = int(balance.sum())
    floor = room.base if cards else 1
    collected = rebuys = 0
    rows: list[tuple[Any, ...]] = []
    for r in range(room.rounds):
        if not cards:
            seated, delta, take, hands = _round_team(room, seed, r, balance)
        else:
            assert arrays is not None  # a card game always has its betting model's arrays
            seated, delta, take, hands = _round_cards(room, arrays, seed, r, balance)
        sat = seated >= 0
        balance[seated[sat]] += delta[sat]  # a player sits once per round
        collected += take
        if hands_to is not None and hands is not None:
            hands_to(r, seated, hands)
        broke = balance < floor
        if room.rebuy and broke.any():
            rebuys += int((room.start_balance - balance[broke]).sum())
            balance[broke] = room.start_balance
            broke = balance < floor
        in_play = int(balance.sum())
        if in_play + collected != start_total + rebuys:
            raise AssertionError(f"round {r}: coins not conserved")
        ordered = np.sort(balance)
        rows.append(
            (
                int(seated.shape[0]),
                in_play,
                collected,
                rebuys,
                int(broke.sum()),
                gini(ordered, presorted=True),
                float(ordered[(ordered.size - 1) // 2] + ordered[ordered.size // 2]) / 2,
                float(ordered[min(ordered.size - 1, int(0.99 * ordered.size))]),
            )
        )
        if bar is not None:
            bar.update(room.tables_per_round)
    return rows, balance


def _series(rows: list[tuple[Any, ...]], room: Room, name: str, replicate: int) -> pa.Table:
    """One room's rounds as the tidy table's rows: ids, :data:`METRICS`, then :data:`SHARES`."""
    col = {m: np.array([row[i] for row in rows]) for i, m in enumerate(METRICS)}
    n = len(rows)
    start = room.players * room.start_balance
    supply = start + col["rebuys"] if n else np.zeros(0)
    shares = {
        "fee_sink_pct": 100 * col["fees_collected"] / np.maximum(supply, 1),
        "coins_in_play_pct": 100 * col["coins_in_play"] / start,
        "rebuys_pct": 100 * col["rebuys"] / start,
        "bankrupt_pct": 100 * col["bankrupt"] / room.players,
    }
    ids = {
        "room": pa.array([name] * n, pa.string()).dictionary_encode(),
        "replicate": pa.array(np.full(n, replicate, np.int32)),
        "round": pa.array(np.arange(n, dtype=np.int32)),
    }
    types = {"gini": pa.float64(), "median_balance": pa.float64(), "top1pct_balance": pa.float64()}
    data = {m: pa.array(col[m], types.get(m, pa.int64())) for m in METRICS}
    return pa.table({**ids, **data, **{k: pa.array(v, pa.float64()) for k, v in shares.items()}})


# a run of at most this many tables is over in about a second: it stays in this process unless
# --workers asks for workers (each would load the kernels first)
SMALL_TABLES = 250_000
KINDS = ("rounds", "players")  # the two parts each unit writes (staged.part_name's kinds)


@dataclasses.dataclass(frozen=True)
class Play:
    """One unit: room ``name`` played once, with seed ``room.seed + replicate``, and where its two
    parts go (``parts``: the rounds' and the final balances' part files; empty: the unit returns
    its tables instead, for a run without an output folder). ``hands``: the ``--write-hands`` file
    the unit writes itself (a single room)."""

    index: int
    name: str
    room: Room
    replicate: int
    model: bh.Behaviour | None = None
    parts: tuple[str, ...] = ()
    hands: str | None = None

    @property
    def tables(self) -> int:
        return self.room.rounds * self.room.tables_per_round


def play_unit(unit: Play, bar: Any = None) -> tuple[pa.Table, np.ndarray] | None:
    """A worker's unit: play the room, write its parts (its rounds as :func:`_series` rows, its
    final balances); None, or the two tables themselves when the unit has no parts to write.
    ``bar``: progress a round at a time (in this process only)."""
    writer = _HandsWriter(unit.hands, unit.room) if unit.hands else None
    try:
        rows, balance = play(
            unit.room, unit.room.seed + unit.replicate, unit.model, writer.write if writer else None, bar
        )
        if writer:
            writer.close()
    except BaseException:
        if writer:
            writer.abort()
        raise
    series = _series(rows, unit.room, unit.name, unit.replicate)
    if not unit.parts:
        return series, balance
    rounds_part, players_part = unit.parts
    staged.write_part(players_part, pa.table({"balance": pa.array(balance, pa.int64())}))
    staged.write_part(rounds_part, series)
    return None


@dataclasses.dataclass
class _Played:
    """What :func:`_play_all` gives back: each unit's rounds and final balances in the units' order,
    the engine's workers (0: every unit was reused), the units reused and the staging to finish
    once the outputs are written."""

    series: list[pa.Table]
    balances: list[np.ndarray]
    workers: int
    reused: int
    staging: staged.Staging | None


def _play_all(
    plays: list[tuple[str, Room, int]],
    out_dir: str | None,
    run: RunOptions,
    model: bh.Behaviour | None,
    hands_path: str | None = None,
) -> _Played:
    """Play every (name, room, replicate) on the run's engine. With ``out_dir``, each unit writes its
    parts in the staging folder beside it, and the parts an earlier run of the same plan finished
    are reused (a rerun after a crash plays only the rest)."""
    if hands_path and not all(game_spec(room.game).has_hands for _, room, _ in plays):
        raise UsageError(f"--write-hands: only card games ({', '.join(_card_games())}) play hands")
    staging = staged.Staging(out_dir, "simulate") if out_dir else None
    finished: set[int] = set()
    shipped = storage.absolute(hands_path) if hands_path else None  # a worker writes it, wherever it runs
    units = [Play(i, name, room, rep, model, (), shipped) for i, (name, room, rep) in enumerate(plays)]
    if staging is not None:
        plan = {
            "plays": [[name, dataclasses.asdict(room), rep] for name, room, rep in plays],
            "model": dataclasses.asdict(model) if model is not None else None,
            "write_hands": hands_path,
        }
        reuse = staging.begin(plan)
        hands_there = not hands_path or owned.mark_of(hands_path) == owned.mark("simulate")
        finished = {u.index for u in units if hands_there and all(staged.part_name(u.index, k) in reuse for k in KINDS)}
        units = [
            dataclasses.replace(u, parts=tuple(staging.path(staged.part_name(u.index, k)) for k in KINDS))
            for u in units
        ]
        if finished and not run.quiet:
            said = f"reusing {len(finished)} of {len(units)} finished rooms of an earlier run"
            print(f"cardbatch simulate: {said}", file=sys.stderr, flush=True)
    pending = [u for u in units if u.index not in finished]
    kept: dict[int, tuple[pa.Table, np.ndarray]] = {}
    workers = 0
    with contextlib.ExitStack() as stack:
        bar = stack.enter_context(
            progress(sum(u.tables for u in pending), "simulate", "table", quiet=run.quiet, verbose=run.verbose)
        )
        if pending:
            small = sum(u.tables for u in units) <= SMALL_TABLES
            engine = stack.enter_context(engines.start(run, len(pending), small=small))
            workers = engine.workers
            here = isinstance(engine, engines.InProcess)  # a round at a time on the bar, else a room at a time
            task = functools.partial(play_unit, bar=bar) if here else play_unit
            for unit, tables in engine.map(task, pending):
                if not here:
                    bar.update(unit.tables)
                if tables is not None:
                    kept[unit.index] = tables
    series, balances = [], []
    for u in units:
        if u.index in kept:
            table, balance = kept[u.index]
        else:
            table = staged.read_part(u.parts[0])
            balance = staged.read_part(u.parts[1]).column("balance").to_numpy()
        series.append(table)
        balances.append(balance)
    return _Played(series, balances, workers, len(finished), staging)


def simulate(
    room: Room,
    out_dir: str | None = None,
    quiet: bool = True,
    verbose: bool = False,
    model: bh.Behaviour | None = None,
    hands_path: str | None = None,
    run: RunOptions | None = None,
    fit: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run one room once; returns the summary and (with ``out_dir``) writes the outputs
    (``hands_path``: also every hand played, in the settle format; ``fit``: what the betting
    model's fit saw, for the summary). The room is one unit: in this process on the local engine,
    on a worker of the cluster with ``run.engine`` ``dask``."""
    t0 = time.perf_counter()
    run = run or RunOptions(quiet=quiet, verbose=verbose)
    played = _play_all([("room", room, 0)], out_dir, run, model, hands_path)
    series, balance = played.series[0], played.balances[0]
    wall = time.perf_counter() - t0
    games = int(pc.sum(series.column("tables")).as_py() or 0)
    last = {m: series.column(m)[-1].as_py() if series.num_rows else 0 for m in METRICS}
    summary = {
        "game": room.game,
        "players": room.players,
        "rounds": room.rounds,
        "tables": games,
        "start_coins": room.players * room.start_balance,
        "final_coins": int(balance.sum()),
        "fees_collected": last["fees_collected"],
        "rebuys": last["rebuys"],
        "bankrupt": last["bankrupt"],
        "final_gini": last["gini"] if series.num_rows else 0.0,
        "engine": run.engine,
        "workers": played.workers,
        "parts_reused": played.reused,
        "wall_seconds": round(wall, 3),
        "tables_per_second": round(games / wall) if wall > 0 else None,
        "room": dataclasses.asdict(room),
    }
    if game_spec(room.game).has_hands:
        summary["behaviour"] = (model or behaviour_of(room)).describe()
    if hands_path:
        summary["hands_written"] = hands_path
    if fit is not None:
        summary["behaviour_fit"] = fit
    if out_dir:
        _clear(out_dir)
        _write_table(series, storage.join(out_dir, "rounds.parquet"))
        players = pa.table({"player": np.arange(room.players), "balance": balance})
        _write_table(players, storage.join(out_dir, "players.parquet"))
        summary["plots"] = _plots(series, balance, out_dir, room, room.players * room.start_balance)
        write_summary(out_dir, summary)
    if played.staging is not None:
        played.staging.finish()
    summary["_balance"] = balance
    summary["_series"] = series
    return summary


def simulate_rooms(
    rooms: list[tuple[str, Room]],
    replicates: int,
    out_dir: str | None = None,
    quiet: bool = True,
    verbose: bool = False,
    model: bh.Behaviour | None = None,
    workers: int | None = None,
    run: RunOptions | None = None,
    fit: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play every room ``replicates`` times (replicate r: seed ``room.seed + r`` in every room) and
    write one tidy table ``rounds.parquet`` (room, replicate, round, metrics), the final balances,
    a comparison figure and a summary with each room's final metrics across replicates. Each (room,
    replicate) is a unit on the run's engine (``run``, or ``workers`` local processes: default one
    per core, a run of a few hundred thousand tables in this process)."""
    t0 = time.perf_counter()
    run = run or RunOptions(workers, quiet=quiet, verbose=verbose)
    jobs = [(name, room, rep) for name, room in rooms for rep in range(replicates)]
    played = _play_all(jobs, out_dir, run, model)
    wall = time.perf_counter() - t0
    series = pa.concat_tables(played.series, promote_options="permissive").unify_dictionaries()
    games = int(pc.sum(series.column("tables")).as_py() or 0)
    summary = {
        "rooms": [_room_summary(name, room, rooms[0][1], series) for name, room in rooms],
        "replicates": replicates,
        "tables": games,
        "engine": run.engine,
        "workers": played.workers,
        "parts_reused": played.reused,
        "wall_seconds": round(wall, 3),
        "tables_per_second": round(games / wall) if wall > 0 else None,
    }
    if model is not None or game_spec(rooms[0][1].game).has_hands:
        summary["behaviour"] = (model or behaviour_of(rooms[0][1])).describe()
    if fit is not None:
        summary["behaviour_fit"] = fit
    if out_dir:
        _clear(out_dir)
        _write_table(series, storage.join(out_dir, "rounds.parquet"))
        finals = played.balances
        balances = pa.table(
            {
                "room": pa.array(
                    [n for (n, _, _), b in zip(jobs, finals) for _ in range(b.size)], pa.string()
                ).dictionary_encode(),
                "replicate": pa.array(np.concatenate([np.full(b.size, j[2], np.int32) for j, b in zip(jobs, finals)])),
                "player": pa.array(np.concatenate([np.arange(b.size) for b in finals])),
                "balance": pa.array(np.concatenate(finals)),
            }
        )
        _write_table(balances, storage.join(out_dir, "players.parquet"))
        summary["plots"] = _comparison_plot(series, rooms, replicates, out_dir)
        write_summary(out_dir, summary)
    if played.staging is not None:
        played.staging.finish()
    summary["_series"] = series
    return summary


OUTPUTS = ("summary.json", "economy.png", "comparison.png", "rounds.parquet", "players.parquet")


def outputs_of(out_dir: str, single: bool) -> list[str]:
    """The files a run writes in ``out_dir``: a single room's figure is ``economy.png``, a
    comparison's ``comparison.png``."""
    skip = "comparison.png" if single else "economy.png"
    return [storage.join(out_dir, name) for name in OUTPUTS if name != skip]


def _clear(out_dir: str) -> None:
    """The output folder, without what an earlier simulate run wrote there (files of the user's stay:
    :func:`run` refused to start where one lies at a name it writes): its summary first (written
    last, it says a run finished), and both figures (a run writes one of them, or none without
    matplotlib)."""
    storage.mkdir(out_dir)
    owned.remove_ours([storage.join(out_dir, name) for name in OUTPUTS], "simulate")


def _save(fig: Any, path: str) -> None:
    """A figure as a marked PNG, whole or absent."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata=owned.png_metadata("simulate"))
    storage.write_bytes(path, buf.getvalue())


def _write_table(table: pa.Table, path: str) -> None:
    """A whole table as one marked Parquet file, whole or absent."""
    writer = storage.PublishedParquet(path, table.schema, owned.parquet_metadata("simulate"))
    try:
        writer.write(table)
        writer.close()
    except BaseException:
        writer.abort()
        raise


def write_summary(out: str, summary: dict[str, Any]) -> None:
    """``summary.json`` (the figures without the in-memory ``_`` keys), marked as simulate's."""
    shown = {k: v for k, v in summary.items() if not k.startswith("_")}
    marked = {owned.MARK_KEY: owned.mark("simulate"), **shown}
    storage.write_text(storage.join(out, "summary.json"), json.dumps(marked, indent=1))


def _room_summary(name: str, room: Room, first: Room, series: pa.Table) -> dict[str, Any]:
    """A room's parameters that differ from the first room's, and its last round's metrics
    across replicates (mean, min, max)."""
    mine = series.filter(pc.equal(series.column("room").cast(pa.string()), name))
    last = mine.filter(pc.equal(mine.column("round"), room.rounds - 1))
    final = {}
    for m in ("fee_sink_pct", "coins_in_play_pct", "rebuys_pct", "bankrupt_pct", "gini", "median_balance"):
        v = last.column(m).to_numpy()
        if v.size:
            final[m] = {
                "mean": round(float(v.mean()), 4),
                "min": round(float(v.min()), 4),
                "max": round(float(v.max()), 4),
            }
    changed = {k: v for k, v in dataclasses.asdict(room).items() if v != getattr(first, k)}
    return {"room": name, "changes": changed, "room_params": dataclasses.asdict(room), "final_round": final}


class _HandsWriter:
    """Every hand a card-game run plays, in the settle format (docs/formats.md), plus ``stack``
    (chips before the hand) and ``player_id`` (the room's player index): a log that ``cardbatch
    settle`` settles to the same payouts and ``--behaviour-from`` fits. Written under a temporary
    name and renamed when complete."""

    def __init__(self, path: str, room: Room):
        if not game_spec(room.game).has_hands:
            raise UsageError(f"--write-hands: only card games ({', '.join(_card_games())}) play hands")
        from cardbatch.batch.io.storage import PublishedParquet

        self.room = room
        self.out = PublishedParquet(path, seal=owned.parquet_metadata("simulate"))

    def write(self, r: int, seated: np.ndarray, h: _Hands) -> None:
        t, K, S = h.contrib.shape
        n = h.present.sum(axis=1)  # a table's seats are its first n
        cols = {
            "hand_id": pa.array(r * self.room.tables_per_round + np.arange(t, dtype=np.int64)),
            "game": pa.array([self.room.game] * t, pa.string()).dictionary_encode(),
            "button": pa.array(h.button.astype(np.int8)),
            "cards": lists.padded_to_list(h.cards.reshape(t, -1).astype(np.uint8), n * h.cards.shape[2], pa.uint8()),
        }
        if h.board is not None:
            cols["board"] = pa.FixedSizeListArray.from_arrays(pa.array(h.board.reshape(-1).astype(np.uint8)), 5)
            streets = h.contrib[np.broadcast_to(h.present[:, None, :], h.contrib.shape)]  # street-major per row
            cols["contrib_street"] = lists.list_array(lists.list_offsets(K * n), streets, pa.int64())
        else:
            cols["contrib"] = lists.padded_to_list(h.contrib[:, 0], n, pa.int64())
        for name, values in (("folded", h.folded), ("payout", h.payout), ("stack", h.stack), ("player_id", seated)):
            cols[name] = lists.padded_to_list(values, n, pa.bool_() if name == "folded" else pa.int64())
        self.out.write(pa.table(cols))

    def close(self) -> None:
        self.out.close()

    def abort(self) -> None:
        self.out.abort()


def _room_line(room: Room) -> str:
    """The room's parameters in one line, for a figure's title."""
    stakes = f"base {room.base:,}"
    spec = game_spec(room.game)
    if not spec.has_hands:
        stakes += f", double {room.double}, fee {room.fee:,}"
    elif room.rake_pct:
        stakes += f", rake {float(room.rake_pct):.3g}" + (f" (cap {room.rake_cap:,})" if room.rake_cap else "")
    rules = f" ({room.rules} rules)" if spec.rule_presets else ""
    return (
        f"{room.game}{rules}: {room.players:,} players starting with {room.start_balance:,} coins, "
        f"{room.tables_per_round:,} tables x {room.seats if spec.has_hands else spec.max_seats} seats per round, "
        f"{stakes}, {'rebuy' if room.rebuy else 'no rebuy'}, seed {room.seed}"
    )


def _plots(series: pa.Table, balance: np.ndarray, out: str, room: Room, start_total: int) -> list[str] | str:
    """``economy.png``: six panels that stand alone (title with the room, units on every axis,
    shares where a share is what matters, log scales where a distribution is skewed)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "skipped: matplotlib is not installed (pip install 'cardbatch[plots]')"
    col = {name: series.column(name).to_numpy() for name in series.column_names}
    rounds = col["round"]
    supply = start_total + col["rebuys"]  # every coin that ever entered the room
    plt.rcParams.update({"font.size": 11, "axes.titlesize": 13})
    fig, axes = plt.subplots(2, 3, figsize=(17, 9.5), dpi=100, layout="constrained")
    fig.suptitle(f"cardbatch simulate — {_room_line(room)}", fontsize=14)
    ax = axes[0, 0]
    ax.plot(rounds, col["top1pct_balance"], label="top 1 % of players")
    ax.plot(rounds, col["median_balance"], label="median player")
    ax.axhline(room.start_balance, color="gray", linestyle=":", label=f"starting balance ({room.start_balance:,})")
    ax.set(title="Player balances", xlabel="round", ylabel="coins")
    ax.legend()
    ax = axes[0, 1]
    ax.plot(rounds, 100 * col["fees_collected"] / supply, color="tab:purple")
    ax.set(title="Fee and rake sink", xlabel="round", ylabel="collected, % of the coin supply")
    ax = axes[0, 2]
    ax.plot(rounds, 100 * col["coins_in_play"] / start_total, label="coins in play")
    ax.plot(rounds, 100 * col["rebuys"] / start_total, label="coins rebought (cumulative)")
    ax.set(title="Coins in play and rebuys", xlabel="round", ylabel="% of the starting coins")
    ax.legend()
    ax = axes[1, 0]
    if room.rebuy:
        per_round = np.diff(col["rebuys"], prepend=0)
        ax.plot(rounds, per_round, color="tab:red")
        ax.set(title="Rebuys per round (bankrupt players rebuy)", xlabel="round", ylabel="coins rebought")
    else:
        ax.plot(rounds, 100 * col["bankrupt"] / room.players, color="tab:red")
        ax.set(title="Bankrupt players", xlabel="round", ylabel="% of players")
    ax = axes[1, 1]
    ax.plot(rounds, col["gini"], color="tab:gray")
    ax.set(
        title="Inequality of balances",
        xlabel="round",
        ylabel="Gini coefficient (0 equal, 1 one holds all)",
        ylim=(0, 1),
    )
    ax = axes[1, 2]
    ax.hist(balance, bins=60, color="tab:blue")
    ax.set_yscale("log")
    ax.axvline(room.start_balance, color="black", linestyle="--", label="starting balance")
    ax.set(title=f"Final balances after {len(rounds)} rounds", xlabel="coins", ylabel="players (log scale)")
    ax.legend()
    path = storage.join(out, "economy.png")
    _save(fig, path)
    plt.close(fig)
    return [path]


_PANELS = (
    ("fee_sink_pct", "Fee and rake sink", "collected, % of the coin supply"),
    ("coins_in_play_pct", "Coins in play", "% of the starting coins"),
    ("rebuys_pct", "Coins rebought (cumulative)", "% of the starting coins"),
    ("bankrupt_pct", "Bankrupt players", "% of players"),
    ("gini", "Inequality of balances", "Gini coefficient (0 equal, 1 one holds all)"),
    ("median_balance", "Median player's balance", "coins"),
)


def _moving_average(grid: np.ndarray, window: int) -> np.ndarray:
    """Each row's mean over ``window`` consecutive rounds (``window - 1`` fewer columns)."""
    if window <= 1:
        return grid
    sums = np.cumsum(np.nan_to_num(grid), axis=1)
    sums = np.concatenate([np.zeros((grid.shape[0], 1)), sums], axis=1)
    averages: np.ndarray = (sums[:, window:] - sums[:, :-window]) / window
    return averages


def _say_if_lines_coincide(ax: Any, finals: list[float], rooms: int) -> None:
    """Lines one cannot tell apart are said to coincide, with where they end: on a panel whose rooms
    end within 5 % of its height of each other (and are not all 0, which the panel says already)."""
    if rooms < 2 or not any(finals):
        return
    low, high = ax.get_ylim()
    if max(finals) - min(finals) < 0.05 * (high - low):
        ax.text(
            0.02,
            0.95,
            f"the {rooms} rooms' lines coincide (last round: {min(finals):,.3g} to {max(finals):,.3g})",
            transform=ax.transAxes,
            va="top",
            fontsize=10,
            bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"},
        )


def _comparison_plot(series: pa.Table, rooms: list[tuple[str, Room]], replicates: int, out: str) -> list[str] | str:
    """``comparison.png``: each metric over rounds, a line per room (the median across replicates)
    with a band from the lowest to the highest replicate."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "skipped: matplotlib is not installed (pip install 'cardbatch[plots]')"
    first = rooms[0][1]
    varied = sorted({k for _, room in rooms for k, v in dataclasses.asdict(room).items() if v != getattr(first, k)})
    plt.rcParams.update({"font.size": 11, "axes.titlesize": 13})
    fig, axes = plt.subplots(2, 3, figsize=(17, 9.5), dpi=100, layout="constrained")
    differ = ", ".join(k.replace("_", "-") for k in varied) or "nothing"
    fig.suptitle(
        f"cardbatch simulate — {len(rooms)} rooms x {replicates} replicates (same players and deals per replicate); "
        f"rooms differ in: {differ}\nfirst room: {_room_line(first)}",
        fontsize=13,
    )
    names = series.column("room").cast(pa.string()).to_numpy(zero_copy_only=False)
    rounds_col = series.column("round").to_numpy()
    reps = series.column("replicate").to_numpy()
    rebuying = any(room.rebuy for _, room in rooms)
    window = max(1, max(room.rounds for _, room in rooms) // 10)  # the per-round panel's moving average
    for (metric, title, unit), ax in zip(_PANELS, axes.flat):
        per_round = metric == "bankrupt_pct" and rebuying  # bankrupt players rebuy at once: show the rebuys
        if per_round:  # a round's rebuys are noise around the trend: its moving average says one thing
            metric, unit = "rebuys_pct", "% of the starting coins"
            title = f"Coins rebought per round ({window}-round average)" if window > 1 else "Coins rebought per round"
        values = series.column(metric).to_numpy()
        finals = []
        for i, (name, room) in enumerate(rooms):
            mine = names == name
            grid = np.full((replicates, room.rounds), np.nan)
            grid[reps[mine], rounds_col[mine]] = values[mine]
            if per_round:
                grid = _moving_average(np.diff(grid, axis=1, prepend=0), window)
            x = np.arange(grid.shape[1]) + (window - 1 if per_round else 0)
            color = f"C{i % 10}"
            median = np.nanmedian(grid, axis=0)
            ax.plot(x, median, color=color, label=name)
            finals.append(float(median[-1]) if median.size else 0.0)
            if replicates > 1 and not per_round:  # a per-round band is the replicates' noise, not the room's
                ax.fill_between(x, np.nanmin(grid, axis=0), np.nanmax(grid, axis=0), color=color, alpha=0.2)
        if metric == "median_balance":
            ax.axhline(
                first.start_balance, color="gray", linestyle=":", label=f"starting balance ({first.start_balance:,})"
            )
        ax.set(title=title, xlabel="round", ylabel=unit)
        if metric == "gini":
            ax.set_ylim(0, 1)
        elif not np.nanmax(np.abs(values), initial=0):  # all zero: a flat line on a 0..1 axis, said in words
            ax.set_ylim(0, 1)
            ax.text(
                0.5,
                0.5,
                "0 in every room" + (" (no --rebuy)" if metric == "rebuys_pct" else ""),
                transform=ax.transAxes,
                ha="center",
                fontsize=12,
            )
        _say_if_lines_coincide(ax, finals, len(rooms))
    handles, labels = axes.flat[-1].get_legend_handles_labels()
    band = " (line: median of the replicates; band: lowest to highest)" if replicates > 1 else ""
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 6), title=f"room{band}")
    path = storage.join(out, "comparison.png")
    _save(fig, path)
    plt.close(fig)
    return [path]


@dataclasses.dataclass(frozen=True)
class SimulateJob:
    """A whole ``simulate`` run: the rooms (``(name, room)`` pairs; one room played once is a single
    run, anything more a comparison), ``replicates`` of each, the output folder, recorded hands to fit
    the betting model to (``behaviour_from``: settle-format Parquet files, folders or globs), a file
    for every hand played (``write_hands``: one room, one replicate) and how to run."""

    rooms: tuple[tuple[str, Room], ...]
    out: str
    replicates: int = 1
    behaviour_from: tuple[str, ...] = ()
    write_hands: str | None = None
    run: RunOptions = RunOptions()
    mode: FileMode = "replace"

    def __post_init__(self) -> None:
        object.__setattr__(self, "rooms", tuple((str(n), r) for n, r in self.rooms))
        object.__setattr__(self, "behaviour_from", tuple(self.behaviour_from))
        if not self.rooms or not all(isinstance(r, Room) for _, r in self.rooms):
            raise ValueError("rooms: give at least one (name, Room)")
        if isinstance(self.replicates, bool) or not isinstance(self.replicates, int) or self.replicates < 1:
            raise ValueError("--replicates must be at least 1")
        if self.write_hands and not self.single:
            raise ValueError("--write-hands writes one room's hands: not with --sweep, --rooms or --replicates")
        if self.mode not in FILE_MODES:
            raise ValueError(f"mode must be one of {', '.join(FILE_MODES)}, got {self.mode!r}")

    @property
    def single(self) -> bool:
        return len(self.rooms) == 1 and self.replicates == 1


def run(job: SimulateJob) -> Summary:
    """Play the rooms and write their outputs: the ``cardbatch simulate`` command as one call. The
    outputs are checked first (:func:`~cardbatch.batch.io.owned.check_outputs`): a file of the
    user's at a name it writes stops it before anything changes."""
    from cardbatch.batch.io.inputs import parquet_inputs

    engines.check_available(job.run)
    if storage.exists(job.out) and not storage.is_dir(job.out):
        raise InputError(f"{job.out} is a file, and simulate writes a folder there: choose another --out")
    ours = [storage.join(job.out, name) for name in OUTPUTS]
    if job.write_hands and any(owned.same_file(job.write_hands, p) for p in ours):
        raise InputError(f"--write-hands {job.write_hands}: simulate writes a file of that name in --out")
    outputs = outputs_of(job.out, job.single) + ([job.write_hands] if job.write_hands else [])
    logs = parquet_inputs(list(job.behaviour_from)) if job.behaviour_from else []
    owned.check_outputs(outputs, "simulate", job.mode, logs)
    owned.check_not_read_later(outputs, job.behaviour_from, (".parquet",))
    with announced("cardbatch simulate", job.run.quiet):
        return _run(job)


def _run(job: SimulateJob) -> Summary:
    model, fit_info = fitted(list(job.behaviour_from), list(job.rooms)) if job.behaviour_from else (None, None)
    r = job.run
    if job.single:
        room = job.rooms[0][1]
        summary = simulate(room, job.out, model=model, hands_path=job.write_hands, run=r, fit=fit_info)
        what = f"{room.rounds:,} rounds of {room.game}"
    else:
        rooms = list(job.rooms)
        summary = simulate_rooms(rooms, job.replicates, job.out, model=model, run=r, fit=fit_info)
        what = f"{len(rooms)} rooms x {job.replicates} replicates"
    figures = {k: v for k, v in summary.items() if not k.startswith("_") and k != "room"}
    return Summary(figures, f"cardbatch simulate: {what} written to {job.out}/", warnings=unused_options(job))


def unused_options(job: SimulateJob) -> tuple[str, ...]:
    """Room options that no room of the run uses: said, never passed in silence."""
    rooms = [room for _, room in job.rooms]
    found = []
    if any(r.rake_cap is not None for r in rooms) and not any(r.rake_pct for r in rooms):
        found.append("--rake-cap caps a rake: no room has --rake-pct, so it took nothing")
    if any(r.rules != Room.rules and not game_spec(r.game).rule_presets for r in rooms):
        found.append("--rules is a three-card rule preset; no room of a three-card game uses it")
    for names, hands, kind in ((_TEAM_ONLY, False, "2v2"), (_CARDS_ONLY, True, "card-game")):
        for name in names:
            given = any(getattr(r, name) != getattr(Room, name) for r in rooms)
            if given and not any(game_spec(r.game).has_hands == hands for r in rooms):
                flag = "--no-caps" if name == "caps" else f"--{name.replace('_', '-')}"
                found.append(f"{flag} is a {kind} room's option; no room of the run uses it")
    return tuple(found)


# the room options only one kind of game plays by (a 2v2 game moves balances; card games bet)
_TEAM_ONLY = ("double", "fee", "caps", "afk_p", "double_p")
_CARDS_ONLY = ("seats", "fold_p", "allin_p", "bet_max", "rake_pct")


def fitted(logs: list[str], rooms: list[tuple[str, Room]]) -> tuple[bh.Behaviour, dict[str, Any]]:
    """The betting model fitted to the logs, for the rooms' one card game and base, and what the fit saw."""
    from cardbatch.batch.io.inputs import parquet_inputs
    from cardbatch.batch.io.storage import parquet_file

    games = {room.game for _, room in rooms}
    bases = {room.base for _, room in rooms}
    if not all(game_spec(g).has_hands for g in games) or len(games) > 1 or len(bases) > 1:
        one = " or ".join(_card_games())
        raise UsageError(f"--behaviour-from fits one card game's betting: rooms of one game ({one}), one base")
    room = rooms[0][1]
    paths = parquet_inputs(logs)
    wanted = ("game", "cards", "board", "contrib", "contrib_street", "folded", "stack")
    tables = []
    for path in paths:
        pf = parquet_file(path)
        tables.append(pf.read(columns=[c for c in wanted if c in pf.schema_arrow.names]))
    table = pa.concat_tables(tables, promote_options="permissive")
    model, seen = bh.fit(table, room.game, room.rules, room.base, " ".join(paths))
    limit = game_spec(room.game).dealt_seats  # seats one deck deals
    if model.max_seats > limit:
        raise UsageError(
            f"--behaviour-from: the log has {room.game} tables of {model.max_seats} seats (at most {limit})"
        )
    return model, seen


def _card_games() -> tuple[str, ...]:
    """The simulated games whose seats hold cards."""
    return tuple(g for g in simulated_games() if REGISTRY[g].has_hands)
