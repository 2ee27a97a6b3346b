"""``cardbatch simulate``: a room's economy over many rounds (the job: :mod:`cardbatch.batch.simulate`)."""

from __future__ import annotations

import argparse

from ..room import Room
from .common import EXIT_OK, RULE_PRESETS, add_subcommand, options_from, print_summary, tell


def register(sub: argparse._SubParsersAction) -> None:
    p = add_subcommand(
        sub,
        "simulate",
        "simulate a room's economy over many rounds of tables",
        "Seat a population of players at tables round after round and follow their coins: "
        "balances, fees and rake, bankruptcies, Gini. Writes DIR/rounds.parquet and a summary.",
    )
    d = Room()
    p.add_argument("--game", choices=("zjh", "holdem", "team2v2"), default=d.game, help="the game played")
    p.add_argument("--players", type=int, default=d.players, help="players in the room")
    p.add_argument("--rounds", type=int, default=d.rounds, help="rounds to play")
    p.add_argument("--tables-per-round", type=int, default=d.tables_per_round, help="tables seated each round")
    p.add_argument("--seats", type=int, default=d.seats, help="seats per card table (2v2 always 4)")
    p.add_argument("--start-balance", type=int, default=d.start_balance, help="every player's coins at the start")
    p.add_argument("--base", type=int, default=d.base, help="base stake (the betting unit)")
    p.add_argument("--double", type=int, default=d.double, help="2v2: the stake's multiplier")
    p.add_argument("--fee", type=int, default=d.fee, help="2v2: the house's fee per seat")
    p.add_argument("--no-caps", action="store_true", help="2v2: turn off win cap and bankruptcy")
    p.add_argument("--afk-p", type=float, default=d.afk_p, help="2v2: chance a seat is away")
    p.add_argument("--double-p", type=float, default=d.double_p, help="2v2: chance a seat doubles")
    p.add_argument("--fold-p", type=float, default=d.fold_p, help="card games: chance a seat folds at a bet")
    p.add_argument("--allin-p", type=float, default=d.allin_p, help="card games: chance a seat goes all in")
    p.add_argument("--bet-max", type=int, default=d.bet_max, help="card games: largest bet, in base units")
    p.add_argument("--rake-pct", help="rake as a fraction of each pot, e.g. 0.05")
    p.add_argument("--rake-cap", type=int, help="most rake per hand")
    p.add_argument("--rebuy", action="store_true", help="a bankrupt player buys in again at the start balance")
    p.add_argument("--rules", default=d.rules, help="three-card preset: " + ", ".join(RULE_PRESETS))
    p.add_argument("--seed", type=int, default=d.seed, help="the run's seed")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from ..simulate import simulate

    room = options_from(Room, args, caps=not args.no_caps)
    if room.players < 1 or room.rounds < 0 or room.tables_per_round < 1 or not 2 <= room.seats <= 17:
        raise ValueError("players >= 1, rounds >= 0, tables-per-round >= 1 and 2 <= seats <= 17 please")
    summary = simulate(room, args.out, quiet=args.quiet, verbose=args.verbose)
    print_summary({k: v for k, v in summary.items() if not k.startswith("_") and k != "room"}, args.quiet)
    tell(f"cardbatch simulate: {room.rounds:,} rounds of {room.game} written to {args.out}/", args.quiet)
    return EXIT_OK
