"""``cardbatch simulate``: a room's economy over many rounds (the job: :mod:`cardbatch.batch.simulate`)."""

from __future__ import annotations

import argparse

from ..simulate import Room, simulate
from .common import EXIT_OK, options_from, print_summary


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="simulate a room's economy over many rounds of tables")
    d = Room()
    p.add_argument("--game", choices=("zjh", "holdem", "team2v2"), default=d.game)
    p.add_argument("--players", type=int, default=d.players)
    p.add_argument("--rounds", type=int, default=d.rounds)
    p.add_argument("--tables-per-round", type=int, default=d.tables_per_round)
    p.add_argument("--seats", type=int, default=d.seats, help="seats per card table (2v2 always 4)")
    p.add_argument("--start-balance", type=int, default=d.start_balance)
    p.add_argument("--base", type=int, default=d.base)
    p.add_argument("--double", type=int, default=d.double)
    p.add_argument("--fee", type=int, default=d.fee)
    p.add_argument("--no-caps", action="store_true", help="2v2: turn off win cap and bankruptcy")
    p.add_argument("--afk-p", type=float, default=d.afk_p)
    p.add_argument("--double-p", type=float, default=d.double_p)
    p.add_argument("--fold-p", type=float, default=d.fold_p)
    p.add_argument("--allin-p", type=float, default=d.allin_p)
    p.add_argument("--bet-max", type=int, default=d.bet_max)
    p.add_argument("--rake-pct")
    p.add_argument("--rake-cap", type=int)
    p.add_argument("--rebuy", action="store_true")
    p.add_argument("--rules", default=d.rules)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--out", required=True)
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    room = options_from(Room, args, caps=not args.no_caps)
    if room.players < 1 or room.rounds < 0 or room.tables_per_round < 1 or not 2 <= room.seats <= 17:
        raise ValueError("players >= 1, rounds >= 0, tables-per-round >= 1 and 2 <= seats <= 17 please")
    summary = simulate(room, args.out, quiet=args.quiet)
    print_summary({k: v for k, v in summary.items() if not k.startswith("_") and k != "room"}, args.quiet)
    return EXIT_OK
