"""``cardbatch simulate``: a room's economy over many rounds (the job: :mod:`cardbatch.batch.simulate.job`)."""

from __future__ import annotations

import argparse
import dataclasses
import itertools
from pathlib import Path
from typing import Any

try:
    import tomllib
except ImportError:  # Python 3.10: the same parser, from PyPI (a dependency there)
    import tomli as tomllib

from cardbatch.batch.cli.common import (
    add_game_options,
    add_output,
    add_run_options,
    add_subcommand,
    non_negative_int,
    options_from,
    positive_int,
    probability,
    seats_int,
    seed_int,
    show,
    usage,
)
from cardbatch.batch.io.errors import UsageError
from cardbatch.batch.simulate.room import Room
from cardbatch.games import simulated_games


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_subcommand(
        sub,
        "simulate",
        "simulate a room's economy over many rounds of tables",
        "Seat a population of players at tables round after round and follow their coins: "
        "balances, fees and rake, bankruptcies, Gini. Writes DIR/rounds.parquet and a summary. Each room "
        "played once (a room x a replicate) is one unit of work, on this machine's processes or a Dask "
        "cluster; a rerun after an interrupted run reuses the rooms it finished. DIR, --write-hands and "
        "--behaviour-from may be s3:// URIs.",
    )
    d = Room()
    add_output(p, "DIR", "output folder")
    g = add_game_options(p, simulated_games(), "the game played", game_default=d.game, rules=d.rules)
    g.add_argument("--seats", type=seats_int, default=d.seats, metavar="N", help="seats per card table (2v2 always 4)")
    g.add_argument("--rake-pct", help="rake as a fraction of each pot, e.g. 0.05")
    g.add_argument("--rake-cap", type=non_negative_int, help="most rake per hand")
    r = p.add_argument_group("room")
    r.add_argument("--players", type=positive_int, default=d.players, help="players in the room")
    r.add_argument("--rounds", type=non_negative_int, default=d.rounds, help="rounds to play")
    r.add_argument("--tables-per-round", type=positive_int, default=d.tables_per_round, help="tables seated each round")
    r.add_argument(
        "--start-balance", type=non_negative_int, default=d.start_balance, help="every player's coins at the start"
    )
    r.add_argument("--base", type=positive_int, default=d.base, help="base stake (the betting unit)")
    r.add_argument("--rebuy", action="store_true", help="a bankrupt player buys in again at the start balance")
    r.add_argument("--seed", type=seed_int, default=d.seed, help="the run's seed")
    t = p.add_argument_group("2v2 tables")
    t.add_argument("--double", type=positive_int, default=d.double, help="2v2: the stake's multiplier")
    t.add_argument("--fee", type=non_negative_int, default=d.fee, help="2v2: the house's fee per seat")
    t.add_argument("--no-caps", action="store_true", help="2v2: turn off win cap and bankruptcy")
    t.add_argument("--afk-p", type=probability, default=d.afk_p, help="2v2: chance a seat is away")
    t.add_argument("--double-p", type=probability, default=d.double_p, help="2v2: chance a seat doubles")
    c = p.add_argument_group("card tables")
    c.add_argument("--fold-p", type=probability, default=d.fold_p, help="card games: chance a seat folds at a bet")
    c.add_argument("--allin-p", type=probability, default=d.allin_p, help="card games: chance a seat goes all in")
    c.add_argument("--bet-max", type=positive_int, default=d.bet_max, help="card games: largest bet, in base units")
    c.add_argument(
        "--behaviour-from",
        nargs="+",
        metavar="LOG",
        help="fit the card games' betting model to recorded hands (settle-format Parquet files, folders or globs)",
    )
    m = p.add_argument_group("rooms to compare")
    m.add_argument(
        "--sweep",
        action="append",
        default=[],
        metavar="FLAG=V1,V2,...",
        help="compare rooms that differ in one flag, e.g. rake-pct=0.03,0.05,0.07 (repeat: every combination)",
    )
    m.add_argument(
        "--rooms", metavar="TOML", help="compare the rooms of a file: [rooms.NAME] tables of flags (rake-pct = '0.05')"
    )
    m.add_argument(
        "--replicates",
        type=positive_int,
        default=1,
        help="runs per room; replicate r uses seed + r in every room (default 1)",
    )
    p.add_argument("--write-hands", metavar="FILE", help="also write every hand played (settle format) to FILE")
    add_run_options(
        p,
        "processes playing the rooms side by side; with --engine dask, the LocalCluster's (default: one per "
        "core; one room plays in this process, and so does a run of at most 250,000 tables unless --workers is "
        "given)",  # simulate.job.SMALL_TABLES
        engine=True,
    )
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.simulate.job import SimulateJob, run

    base = options_from(Room, args, caps=not args.no_caps)
    with usage():
        job = SimulateJob(
            tuple(room_set(base, args.sweep, args.rooms)),
            args.out,
            args.replicates,
            tuple(args.behaviour_from or ()),
            args.write_hands,
            options_from(RunOptions, args),
            args.mode,
        )
    return show(run(job), args.quiet)


def _value(field: dataclasses.Field[Any], text: Any, where: str) -> Any:
    """A flag's value in its field's type (``text`` from the command line or a TOML file)."""
    kind = str(field.type)
    try:
        if kind.startswith("bool"):
            if isinstance(text, bool) or str(text).lower() in ("true", "false"):
                return text if isinstance(text, bool) else str(text).lower() == "true"
            raise ValueError
        if kind.startswith("int"):
            if isinstance(text, bool) or (isinstance(text, float) and not text.is_integer()):
                raise ValueError
            return int(text)
        if kind.startswith("float"):
            return float(text)
        return str(text)
    except ValueError:
        raise UsageError(f"{where}: {text!r} is not a valid {field.name.replace('_', '-')} ({kind})") from None


def _field(name: str, where: str) -> dataclasses.Field[Any]:
    fields = {f.name: f for f in dataclasses.fields(Room)}
    key = name.strip().replace("-", "_")
    if key not in fields:
        known = ", ".join(sorted(k.replace("_", "-") for k in fields))
        raise UsageError(f"{where}: no flag {name!r} to vary (one of: {known})")
    return fields[key]


def room_set(base: Room, sweeps: list[str], rooms_file: str | None) -> list[tuple[str, Room]]:
    """The rooms to compare: every combination of the sweeps' values, or the file's rooms (each
    the command line's room with its table's flags changed), or just the base room."""
    if sweeps and rooms_file:
        raise UsageError("--sweep or --rooms, not both")
    if rooms_file:
        try:
            doc = tomllib.loads(Path(rooms_file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"--rooms {rooms_file}: {exc}") from None
        tables = doc.get("rooms")
        if not isinstance(tables, dict) or not tables or not all(isinstance(v, dict) for v in tables.values()):
            raise UsageError(f"--rooms {rooms_file}: expected [rooms.NAME] tables of flags")
        out = []
        for name, flags in tables.items():
            where = f"--rooms {rooms_file} [rooms.{name}]"
            changes = {(f := _field(k, where)).name: _value(f, v, where) for k, v in flags.items()}
            out.append((name, dataclasses.replace(base, **changes)))
        return out
    if not sweeps:
        return [("room", base)]
    axes = []
    for sweep in sweeps:
        name, sep, values = sweep.partition("=")
        if not sep or not values.strip():
            raise UsageError(f"--sweep {sweep!r}: expected FLAG=V1,V2,...")
        f = _field(name, f"--sweep {sweep!r}")
        axes.append([(f, name.strip(), _value(f, v.strip(), f"--sweep {sweep!r}")) for v in values.split(",")])
    return [
        (
            ", ".join(f"{label}={v}" for _, label, v in combo),
            dataclasses.replace(base, **{f.name: v for f, _, v in combo}),
        )
        for combo in itertools.product(*axes)
    ]
