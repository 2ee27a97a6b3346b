"""``cardbatch simulate``: an offline economy simulation on the same kernels.

Each round seats the players who can still play at random tables, deals from
:mod:`cardbatch.kernels.decks`, scores with the evaluators and moves coins with the
settlement kernels, vectorised over all tables of the round.

Behaviour model (the simplest that gives multi-way pots, folds and all-ins):

- card games: everyone at a table posts ``base`` (or what it has). Each seat
  then folds with probability ``fold_p`` (doubled for a hand in the weaker
  half of the value scale), goes all in with probability ``allin_p``, and
  otherwise adds ``base * U{0..bet_max}`` more, capped by its balance. At
  least one seat stays in. Pots are settled by :func:`cardbatch.kernels.pots.settle`
  with the room's rake.
- ``team2v2``: each seat doubles (x2) with probability ``double_p`` and again
  (x4) with the same probability, is AFK with probability ``afk_p``, the
  winning team is a coin flip; :func:`cardbatch.kernels.team.settle_2v2` moves the
  coins with the room's base, double, fee and caps.

A player whose balance falls below ``base`` (card games) or to 0 (2v2) is
bankrupt: it leaves, or rebuys its starting balance with ``--rebuy``.
Conservation holds every round: coins in play + fees and rake collected =
starting coins + rebuys.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cardbatch.kernels import decks as kdecks
from cardbatch.kernels import holdem, pots, team, threecard

from .progress import progress
from .room import Room


def gini(balances: np.ndarray, presorted: bool = False) -> float:
    """Gini coefficient of non-negative balances (0 = equal, 1 = one holds all)."""
    x = (balances if presorted else np.sort(balances)).astype(np.float64)
    n = x.size
    total = x.sum()
    if n == 0 or total == 0:
        return 0.0
    return float((2 * np.arange(1, n + 1) - n - 1) @ x / (n * total))


def _seat_players(rng, can_play: np.ndarray, tables: int, seats: int) -> np.ndarray:
    """``[t, seats]`` player indices drawn at random from those who can play (t <= tables)."""
    pool = np.flatnonzero(can_play)
    t = min(tables, pool.size // seats)
    return rng.permutation(pool)[: t * seats].reshape(t, seats)


def _round_cards(room: Room, rng, balance: np.ndarray, seated: np.ndarray, deck_start: int) -> tuple[np.ndarray, int]:
    """One round of a card game: (delta per seat ``[t, S]``, rake collected)."""
    t, S = seated.shape
    deck = kdecks.deal_decks(t, room.seed, deck_start)
    if room.game == "zjh":
        hands = kdecks.deal_zjh(deck, S)
        values = threecard.evaluate(hands.reshape(t * S, 3), room.rules).reshape(t, S)
        weak = values < np.median(threecard.lookup_of(room.rules)[threecard.lookup_of(room.rules) >= 0])
    else:
        hole, board = kdecks.deal_holdem(deck, S)
        seven = np.concatenate([hole, np.repeat(board[:, None, :], S, axis=1)], axis=2).reshape(t * S, 7)
        values = holdem.evaluate(seven).astype(np.int64).reshape(t, S)
        weak = (values >> 20) == 0
    bal = balance[seated]
    contrib = np.minimum(bal, room.base)
    u = rng.random((t, S))
    fold = u < np.where(weak, 2 * room.fold_p, room.fold_p)
    allin = ~fold & (u > 1 - room.allin_p)
    extra = room.base * rng.integers(0, room.bet_max + 1, (t, S))
    contrib = np.where(allin, bal, np.where(fold, contrib, np.minimum(bal, contrib + extra)))
    all_fold = fold.all(axis=1)
    fold[all_fold, np.argmax(values[all_fold], axis=1)] = False
    live = ~fold
    # a folded seat cannot have put in more than every live seat (it would have been called or returned)
    live_max = np.where(live, contrib, 0).max(axis=1, keepdims=True)
    contrib = np.where(fold, np.minimum(contrib, live_max), contrib)
    button = rng.integers(0, S, t)
    opts = {}
    if room.rake_pct is not None:
        opts = {"rake_pct": room.rake_pct, "rake_cap": room.rake_cap}
    d = pots.settle_detailed(contrib, live, values, button, detail=False, **opts)
    return d.payout - contrib, int(d.rake.sum())


def _round_team(room: Room, rng, balance: np.ndarray, seated: np.ndarray) -> tuple[np.ndarray, int]:
    t = seated.shape[0]
    mult = 1 * np.where(rng.random((t, 4)) < room.double_p, 2, 1) * np.where(rng.random((t, 4)) < room.double_p, 2, 1)
    afk = rng.random((t, 4)) < room.afk_p
    winner = rng.integers(0, 2, t)
    delta, fee = team.settle_2v2(balance[seated], mult, afk, winner, room.base, room.double, room.fee, caps=room.caps)
    return delta - fee, int(fee.sum())


def simulate(room: Room, out_dir: str | None = None, quiet: bool = True, verbose: bool = False) -> dict:
    """Run the simulation; returns the summary and (with ``out_dir``) writes the outputs."""
    rng = np.random.default_rng(room.seed)
    seats = 4 if room.game == "team2v2" else room.seats
    balance = np.full(room.players, room.start_balance, np.int64)
    start_total = int(balance.sum())
    collected = 0
    rebuys = 0
    games = 0
    rows = []
    t0 = time.perf_counter()
    deck_start = 0
    with progress(total=room.rounds, desc="simulate", unit="round", quiet=quiet, verbose=verbose) as bar:
        for r in range(room.rounds):
            floor = 1 if room.game == "team2v2" else room.base
            seated = _seat_players(rng, balance >= floor, room.tables_per_round, seats)
            if seated.size:
                if room.game == "team2v2":
                    delta, take = _round_team(room, rng, balance, seated)
                else:
                    delta, take = _round_cards(room, rng, balance, seated, deck_start)
                    deck_start += seated.shape[0]
                balance[seated.reshape(-1)] += delta.reshape(-1)  # a player sits once per round
                collected += take
                games += seated.shape[0]
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
                    r,
                    in_play,
                    collected,
                    int(broke.sum()),
                    gini(ordered, presorted=True),
                    float(ordered[(ordered.size - 1) // 2] + ordered[ordered.size // 2]) / 2,
                    float(ordered[min(ordered.size - 1, int(0.99 * ordered.size))]),
                    int(seated.shape[0]) if seated.size else 0,
                    rebuys,
                )
            )
            bar.update(1)
    wall = time.perf_counter() - t0
    series = pa.table(
        dict(
            zip(
                (
                    "round",
                    "coins_in_play",
                    "fees_collected",
                    "bankrupt",
                    "gini",
                    "median_balance",
                    "top1pct_balance",
                    "tables",
                    "rebuys",
                ),
                map(list, zip(*rows)),
            )
        )
    )
    summary = {
        "game": room.game,
        "players": room.players,
        "rounds": room.rounds,
        "tables": games,
        "start_coins": start_total,
        "final_coins": int(balance.sum()),
        "fees_collected": collected,
        "rebuys": rebuys,
        "bankrupt": int(series.column("bankrupt")[-1].as_py()) if rows else 0,
        "final_gini": rows[-1][4] if rows else 0.0,
        "wall_seconds": round(wall, 3),
        "tables_per_second": round(games / wall) if wall > 0 else None,
        "room": dataclasses.asdict(room),
    }
    if out_dir:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        pq.write_table(series, out / "rounds.parquet")
        pq.write_table(pa.table({"player": np.arange(room.players), "balance": balance}), out / "players.parquet")
        summary["plots"] = _plots(series, balance, out, room, start_total)
        (out / "summary.json").write_text(json.dumps(summary, indent=1))
    summary["_balance"] = balance
    summary["_series"] = series
    return summary


def _room_line(room: Room) -> str:
    """The room's parameters in one line, for a figure's title."""
    stakes = f"base {room.base:,}"
    if room.game == "team2v2":
        stakes += f", double {room.double}, fee {room.fee:,}"
    elif room.rake_pct:
        stakes += f", rake {float(room.rake_pct):.3g}" + (f" (cap {room.rake_cap:,})" if room.rake_cap else "")
    rules = f" ({room.rules} rules)" if room.game == "zjh" else ""
    return (
        f"{room.game}{rules}: {room.players:,} players starting with {room.start_balance:,} coins, "
        f"{room.tables_per_round:,} tables x {room.seats if room.game != 'team2v2' else 4} seats per round, "
        f"{stakes}, {'rebuy' if room.rebuy else 'no rebuy'}, seed {room.seed}"
    )


def _plots(series: pa.Table, balance: np.ndarray, out: Path, room: Room, start_total: int) -> list[str] | str:
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
    path = out / "economy.png"
    fig.savefig(path)
    plt.close(fig)
    return [str(path)]
