"""One command-line vocabulary: every subcommand's parser walked in this process (argparse, no
subprocess), each shared concept under one name, the old names hidden and still working with a note,
choices read from the registries; and which errors are the user's (exit 2) and which are ours (exit 1)."""

from __future__ import annotations

import argparse
import re
import tempfile

import pytest
from conftest import ROOT, cli

from cardbatch.batch.cli import build_parser
from cardbatch.batch.cli.common import DEPRECATED, Deprecated
from cardbatch.batch.io.errors import UsageError
from cardbatch.batch.io.exits import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE


def _commands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


COMMANDS = _commands()


def _shown(p: argparse.ArgumentParser) -> list[argparse.Action]:
    """The actions ``--help`` shows (not the old names, not ``-h``)."""
    return [a for a in p._actions if not isinstance(a, (Deprecated, argparse._HelpAction))]


def _dest(p: argparse.ArgumentParser, dest: str) -> argparse.Action | None:
    return next((a for a in _shown(p) if a.dest == dest), None)


ALL = tuple(COMMANDS)
WRITERS = tuple(c for c in ALL if c != "compile")
SETTLING = ("settle", "audit", "fairness")

# concept -> (its one name, {command: the argparse dest it sets there}); a command not listed lacks it
ENGINED = (*SETTLING, "import", "generate", "rank-decks", "simulate")  # every job that runs units on an engine
CONCEPTS: dict[str, tuple[str, dict[str, str]]] = {
    "inputs": ("(positional)", {**dict.fromkeys((*SETTLING, "import"), "inputs"), "rank-decks": "input"}),
    "output": ("--out", dict.fromkeys(WRITERS, "out")),
    "output mode": ("--mode", dict.fromkeys(WRITERS, "mode")),
    "workers": ("--workers", dict.fromkeys((*ENGINED, "compile"), "workers")),
    "engine": ("--engine", dict.fromkeys(ENGINED, "engine")),
    "scheduler": ("--scheduler", dict.fromkeys(ENGINED, "scheduler")),
    "batch rows": ("--batch-rows", dict.fromkeys(SETTLING, "batch_rows")),
    "game": ("--game", dict.fromkeys((*SETTLING, "generate", "rank-decks", "simulate"), "game")),
    "rule preset": ("--rules", dict.fromkeys((*SETTLING, "rank-decks", "simulate"), "rules")),
    "short deck order": ("--trips-beat-straight", dict.fromkeys(SETTLING, "trips_beat_straight")),
    "seats at a table": ("--seats", {"generate": "max_seats", "rank-decks": "players", "simulate": "seats"}),
    "seed": ("--seed", dict.fromkeys(("generate", "rank-decks", "simulate"), "seed")),
    "rake": ("--rake-pct", dict.fromkeys(("settle", "audit", "simulate"), "rake_pct")),
    "rake cap": ("--rake-cap", dict.fromkeys(("settle", "audit", "simulate"), "rake_cap")),
    "per player": ("--by-player", dict.fromkeys(SETTLING, "by_player")),
    **{
        f"equity {x}": (f"--equity-{x}", dict.fromkeys(SETTLING, f"equity_{x}"))
        for x in ("deck", "budget", "samples", "seed")
    },
}


@pytest.mark.parametrize("concept", sorted(CONCEPTS))
def test_each_shared_concept_has_one_name_in_every_command(concept):
    name, where = CONCEPTS[concept]
    assert len(where) >= 2, f"{concept}: not shared"
    for command, p in COMMANDS.items():
        action = _dest(p, where[command]) if command in where else None
        if command in where:
            assert action is not None, f"{command} has no {concept}"
            if name == "(positional)":
                assert action.option_strings == [], f"{command}: its inputs are not positional"
            else:
                assert action.option_strings == [name], f"{command}: {concept} is {action.option_strings}"
        elif name != "(positional)":  # the name means this concept and nothing else
            other = next((a for a in _shown(p) if name in a.option_strings), None)
            assert other is None, f"{command}: {name} sets {other.dest}, which is not {concept}"


def test_no_old_name_is_shown_and_each_stands_for_a_shown_option():
    seen = set()
    for command, p in COMMANDS.items():
        text = p.format_help()
        shown = {s for a in _shown(p) for s in a.option_strings}
        for action in p._actions:
            if not isinstance(action, Deprecated):
                continue
            (old,) = action.option_strings
            seen.add(old)
            assert action.help == argparse.SUPPRESS and old not in shown
            assert not re.search(rf"(?<![\w-]){re.escape(old)}(?![\w-])", text), f"{command} --help shows {old}"
            assert action.target in _shown(p) and action.dest == action.target.dest
            assert action.new == DEPRECATED[old]
            assert action.new in action.target.option_strings or not action.target.option_strings
    assert seen == set(DEPRECATED)


@pytest.mark.parametrize(
    "command, old, new",
    [
        (["import", "x.phh", "--out", "o.parquet"], ["--chip", "100"], ["--chip-factor", "100"]),
        (["generate", "--out", "g.parquet"], ["--max-seats", "6"], ["--seats", "6"]),
        (["rank-decks", "--out", "r.parquet"], ["--players", "4"], ["--seats", "4"]),
        (["rank-decks", "--out", "r.parquet", "--top", "3"], ["--by", "margin"], ["--measure", "margin"]),
        (["rank-decks", "--out", "r.parquet"], ["--in", "d.parquet"], ["d.parquet"]),
    ],
)
def test_an_old_name_parses_as_the_new_one_and_says_so_in_one_line(capsys, command, old, new):
    parser = build_parser()
    assert parser.parse_args(command + old) == parser.parse_args(command + new)
    said = capsys.readouterr().err.strip().splitlines()
    assert said == [
        f"cardbatch {command[0]}: {old[0]} is deprecated and goes in the next release: use {DEPRECATED[old[0]]}"
    ]


def test_rank_decks_without_given_decks_deals_them():
    args = build_parser().parse_args(["rank-decks", "--out", "r.parquet"])
    assert getattr(args, "input", None) is None and args.players == 6 and args.by == "best"


def test_an_old_name_runs_as_before(tmp_path):
    res = cli(
        "rank-decks",
        "--decks",
        "20",
        "--players",
        "4",
        "--by",
        "margin",
        "--top",
        "2",
        "--out",
        tmp_path / "r.parquet",
        "-q",
    )
    assert res.returncode == EXIT_OK, res.stderr
    assert res.stderr.splitlines() == [
        "cardbatch rank-decks: --players is deprecated and goes in the next release: use --seats",
        "cardbatch rank-decks: --by is deprecated and goes in the next release: use --measure",
    ]
    given = cli("rank-decks", "--in", tmp_path / "r.parquet", "--out", tmp_path / "s.parquet", "-q")
    assert given.returncode == EXIT_USAGE and "use DECKS (positional)" in given.stderr  # not decks: still refused


# --- choices from the registries --------------------------------------------------------------


def _choices(command: str, option: str) -> tuple[str, ...]:
    action = next(a for a in _shown(COMMANDS[command]) if option in a.option_strings)
    assert action.choices is not None, f"{command} {option} lists no choices"
    assert "{" + ",".join(action.choices) + "}" in COMMANDS[command].format_help()
    return tuple(action.choices)


def test_choices_are_the_registries():
    from cardbatch.batch.io.jobs import ENGINES, FILE_MODES
    from cardbatch.constants import DECKS, MEASURES, RULE_PRESETS
    from cardbatch.plays import PLAYS

    for command in ("settle", "audit", "fairness", "rank-decks", "simulate"):
        assert _choices(command, "--rules") == RULE_PRESETS
    for command in SETTLING:
        assert _choices(command, "--engine") == ENGINES
        assert _choices(command, "--equity-deck") == tuple(DECKS)
    for command in ("import", "generate", "rank-decks", "simulate"):
        assert _choices(command, "--mode") == FILE_MODES
    assert _choices("rank-decks", "--measure") == MEASURES
    assert _choices("generate", "--play") == tuple(PLAYS)


def test_settlements_choices_are_their_homes():
    """Named in cli/common.py for --help, since their homes load numba or pyarrow."""
    from cardbatch.kernels import team
    from cardbatch.kernels.pots.api import ODD_CHIPS, ORPHAN_CHIPS_RULES, POLICIES

    assert _choices("settle", "--policy") == tuple(POLICIES)
    assert _choices("settle", "--odd-chips") == ODD_CHIPS
    assert _choices("settle", "--orphan-chips") == ORPHAN_CHIPS_RULES
    assert _choices("settle", "--team-model") == tuple(team.MODELS)
    assert _choices("settle", "--mode") == _choices("fairness", "--mode") == ("resume", "overwrite", "error")


def test_the_kernels_read_the_names_from_the_registry():
    """Nothing mirrored: the kernels' constants are the numba-free module's own objects."""
    from cardbatch import constants
    from cardbatch.batch.phh import replay
    from cardbatch.kernels import cards, equity, ranking, threecard

    assert tuple(threecard.PRESETS) == constants.RULE_PRESETS
    assert ranking.MEASURES is constants.MEASURES and equity.DECKS is constants.DECKS
    assert equity.MAX_SAMPLES == constants.MAX_SAMPLES and equity.Walk().deck == constants.WALK_DECK
    assert cards.RANKS is constants.RANKS and cards.SUITS is constants.SUITS
    assert "RANKS =" not in (ROOT / "batch" / "phh" / "replay.py").read_text() and replay.RANKS is constants.RANKS


# --- ranges -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags",
    [
        ["--players", "0"],
        ["--rounds", "-1"],
        ["--tables-per-round", "0"],
        ["--seats", "1"],
        ["--base", "0"],
        ["--fee", "-1"],
        ["--bet-max", "0"],
        ["--afk-p", "1.5"],
        ["--replicates", "0"],
        ["--workers", "0"],
        ["--seed", "-1"],
        ["--rake-cap", "-5"],
        ["--start-balance", "x"],
    ],
)
def test_simulates_whole_numbers_are_checked_for_range(capsys, flags):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["simulate", "--out", "o", *flags])
    assert stop.value.code == EXIT_USAGE
    assert f"argument {flags[0]}:" in capsys.readouterr().err


# --- whose error is it --------------------------------------------------------------------------


@pytest.fixture
def failing_rank(monkeypatch, tmp_path):
    """rank-decks whose job raises what the test sets; internal error logs go to tmp_path."""
    from cardbatch.batch import rank_decks

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    raised: list[BaseException] = []

    def run(opts):
        raise raised[0]

    monkeypatch.setattr(rank_decks, "run", run)
    return raised


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("operands could not be broadcast together"),
        KeyError("seat"),
        ValueError("seats: bad"),
        ValueError("--seats 9: a plain ValueError is ours, whatever it names"),
        OverflowError("int too big"),
    ],
)
def test_a_bug_is_exit_1_with_the_traceback_in_a_log(failing_rank, tmp_path, exc):
    failing_rank.append(exc)
    res = cli("rank-decks", "--decks", "5", "--out", tmp_path / "r.parquet")
    assert res.returncode == EXIT_INTERNAL, res.stderr
    assert "internal error" in res.stderr
    (log,) = tmp_path.glob("cardbatch-rank-decks-*.log")
    assert "Traceback" in log.read_text() and type(exc).__name__ in log.read_text()


@pytest.mark.parametrize(
    "exc",
    [UsageError("--top: too many"), UsageError("--seats 9: the log has tables of 12"), FileNotFoundError("x")],
)
def test_what_the_user_got_wrong_is_exit_2_in_one_line(failing_rank, tmp_path, exc):
    """A UsageError (an option's refusal, made where the flags become options or while the job
    runs) or a path."""
    failing_rank.append(exc)
    res = cli("rank-decks", "--decks", "5", "--out", tmp_path / "r.parquet")
    assert res.returncode == EXIT_USAGE and res.stderr == f"cardbatch rank-decks: {exc}\n"
    assert not list(tmp_path.glob("*.log"))


def test_an_options_refusal_is_the_users(tmp_path):
    """The options dataclasses' ValueError, raised as the command builds them, is exit 2."""
    res = cli("generate", "--game", "team2v2", "--streets", "--hands", "5", "--out", tmp_path / "g.parquet")
    assert res.returncode == EXIT_USAGE and "--streets: game team2v2 has no betting streets" in res.stderr
    assert "internal error" not in res.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["generate", "--hands", "20", "--max-seats", "4", "--seats", "5", "--out", "g.parquet"],
        ["generate", "--hands", "20", "--seats", "5", "--max-seats", "4", "--out", "g.parquet"],
        ["rank-decks", "--decks", "20", "--by", "second", "--measure", "margin", "--out", "r.parquet"],
        ["rank-decks", "DECKS", "--in", "DECKS", "--out", "r.parquet"],
        ["import", "x.phh", "--chip", "5", "--chip-factor", "5", "--out", "i.parquet"],
    ],
)
def test_an_old_name_beside_its_new_one_is_refused(tmp_path, monkeypatch, args):
    """From a trial: both names given, one of them won in silence (which one, by their order)."""
    monkeypatch.chdir(tmp_path)
    res = cli(*[str(tmp_path / "d.parquet") if a == "DECKS" else a for a in args])
    assert res.returncode == EXIT_USAGE and "is the old name of" in res.stderr, res.stderr
    assert not list(tmp_path.glob("*.parquet"))


def test_an_old_name_given_twice_is_said_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = cli("generate", "--hands", "20", "--max-seats", "4", "--max-seats", "5", "--out", "g.parquet", "-q")
    assert res.returncode == 0 and res.stderr.count("deprecated") == 1, res.stderr


@pytest.mark.parametrize(
    "args, said",
    [
        (["settle", "x.parquet", "--chip-unit", "0", "--out", "o"], "argument --chip-unit: must be at least 1"),
        (["fairness", "x.parquet", "--level", "0", "--out", "o"], "argument --level: must be between 0 and 1"),
        (["generate", "--max", "3", "--out", "g.parquet"], "unrecognized arguments: --max 3"),  # no abbreviation
        (["settle", "x.parquet", "--by", "y", "--out", "o"], "unrecognized arguments: --by"),  # not --by-player
        (["generate", "--game", "pinochle", "--out", "g.parquet"], "invalid choice: 'pinochle'"),
    ],
)
def test_a_mistake_argparse_finds_is_one_line_too(tmp_path, monkeypatch, args, said):
    """From a trial: argparse printed its usage block above the error; a mistake is one line, naming
    where the help is. Options are never abbreviated (``--by`` was taken for ``--by-player``)."""
    monkeypatch.chdir(tmp_path)
    res = cli(*args)
    assert res.returncode == EXIT_USAGE and said in res.stderr, res.stderr
    assert res.stderr.count("\n") == 1 and "--help)" in res.stderr and "usage:" not in res.stderr
