"""PHH import: the fields each variant must hold, their types and ranges (batch/phh/schema.py), for
every game. A small, well-formed hand of each of the eleven variants imports (and pokerkit plays it
to its recorded stacks); the same hand with one field missing, mistyped or out of range is set aside
as ``malformed`` (a list of another length than the seats as ``seat_count``), the message naming the
field and why; an empty file and a hand without a variant are ``malformed`` through the import job
too."""

from __future__ import annotations

import random
import warnings

import pyarrow.parquet as pq
import pytest

from cardbatch.batch.io.jobs import RunOptions
from cardbatch.batch.phh import hands, notation, replay, schema
from cardbatch.batch.phh.job import ImportOptions, errors_path, run_import

# the hole cards a seat holds in each variant: p1's, p2's, p3's (in stud, the third card is up: the
# seat that brings in is p1, its 2 the lowest up card in stud and stud hi/lo, its king the highest in
# razz)
DEALS = {
    "NT": ("AsKs", "QhQd", "7c2d"),
    "FT": ("AsKs", "QhQd", "7c2d"),
    "PO": ("AsKsJh8c", "QhQdTd9s", "7c2d3h4s"),
    "FO/8": ("AsKsJh8c", "QhQdTd9s", "7c2d3h4s"),
    "NS": ("AsKs", "QhQd", "7c6d"),
    "F7S": ("AsKs2c", "QhQd9d", "7c8dTd"),
    "F7S/8": ("AsKs2c", "QhQd9d", "7c8dTd"),
    "FR": ("As2sKc", "QhQd9d", "7c8dTd"),
    "N2L1D": ("AsKsJh8c2d", "QhQdTd9s3c", "7c6d3h4s5s"),
    "F2L3D": ("AsKsJh8c2d", "QhQdTd9s3c", "7c6d3h4s5s"),
    "FB": ("AsKsJh8c", "QhQdTd9s", "7c6d3h4s"),
}
CODES = tuple(DEALS)


def _fields(code: str) -> dict[str, str]:
    """A hand of ``code`` as its fields' TOML text, field by field: three seats, everyone but one
    folds to the forced bets. With blinds (1 and 2), p3 and p1 fold and p2 wins p1's small blind;
    in stud (antes of 1, a bring-in of 1, dead antes) p1 brings in, p2 and p3 fold, and p1 wins the
    antes."""
    stud = code in ("F7S", "F7S/8", "FR")
    deals = [f"'d dh p{s + 1} {cards}'" for s, cards in enumerate(DEALS[code])]
    folds = ["'p1 pb'", "'p2 f'", "'p3 f'"] if stud else ["'p3 f'", "'p1 f'"]
    fields = {"variant": repr(code), "antes": "[1, 1, 1]" if stud else "[0, 0, 0]"}
    fields.update({"bring_in": "1"} if stud else {"blinds_or_straddles": "[1, 2, 0]"})
    fields.update({"small_bet": "2", "big_bet": "4"} if code[0] == "F" else {"min_bet": "2"})
    fields["starting_stacks"] = "[100, 100, 100]"
    fields["actions"] = "[" + ", ".join(deals + folds) + "]"
    fields["players"] = "['Ann', 'Bo', 'Cy']"
    fields["finishing_stacks"] = "[102, 99, 99]" if stud else "[99, 101, 100]"
    return fields


def _text(fields: dict[str, str]) -> str:
    return "".join(f"{name} = {value}\n" for name, value in fields.items())


def _changed(code: str, **changes: str | None) -> str:
    """The hand of ``code`` with fields set to other TOML values (None: left out)."""
    fields = {**_fields(code), **changes}
    return _text({name: value for name, value in fields.items() if value is not None})


@pytest.mark.parametrize("code", CODES)
def test_a_well_formed_hand_of_each_variant_imports(code):
    hand = hands.replay(notation.parse(_text(_fields(code))))
    assert hand.variant == code and hand.players == ["Ann", "Bo", "Cy"] and hand.stack == [100] * 3
    if code in ("F7S", "F7S/8", "FR"):
        assert hand.payout == [3, 0, 0] and hand.dead == [1, 1, 1] and hand.button is None
    else:
        assert hand.payout == [0, 2, 0] and hand.folded == [True, False, True] and hand.button == 2


def test_the_hands_written_here_are_what_pokerkit_plays():
    """pokerkit's own loader takes each variant's hand and plays it to its finishing stacks."""
    pokerkit = pytest.importorskip("pokerkit")
    random.seed(47)
    for code in CODES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hh = pokerkit.HandHistory.loads(_text(_fields(code)))
            *_, state = iter(hh)
        assert list(state.stacks) == hh.finishing_stacks, code


def test_the_fields_each_variant_requires_are_pokerkits():
    """The table of required fields (from the registry's games and the codes' betting letter) is
    pokerkit's, for every code the import reads."""
    pokerkit = pytest.importorskip("pokerkit")
    assert set(replay.SUPPORTED) <= set(schema.REQUIRED)
    for code in replay.SUPPORTED:
        assert schema.REQUIRED[code] == pokerkit.HandHistory.required_field_names[code], code
    assert set(schema.AMOUNTS) == set(notation.AMOUNT_FIELDS)  # the chip factor's scan reads them all


@pytest.mark.parametrize(
    "code, changes, reason, words",
    [
        # a negative ante once vanished into the seat's later call (chips from nowhere)
        ("F7S", {"antes": "[-1, 1, 1]"}, "malformed", "antes (p1): -1 is negative"),
        ("NT", {"antes": "[0, -1, 0]"}, "malformed", "antes (p2): -1 is negative"),
        ("PO", {"antes": "-1"}, "malformed", "antes: -1 is negative"),
        ("NS", {"antes": "[1, true, 1]"}, "malformed", "antes (p2): true, true or false, is not a number"),
        # the bring-in and the stacks were illegal_action ("no bring-in is due", "out of turn")
        ("F7S", {"bring_in": "0"}, "malformed", "bring_in: 0 is not positive; the bring-in is more than 0"),
        ("FR", {"bring_in": "-1"}, "malformed", "bring_in: -1 is negative"),
        ("F7S/8", {"bring_in": "2"}, "malformed", "bring_in: 2 is not less than small_bet, 2"),
        ("F7S", {"starting_stacks": "[-100, 100, 100]"}, "malformed", "starting_stacks (p1): -100 is negative"),
        ("NT", {"starting_stacks": "[100, 0, 100]"}, "malformed", "starting_stacks (p2): 0 is not positive"),
        ("FB", {"starting_stacks": "100"}, "malformed", "starting_stacks: 100 is not a list"),
        # numbers written as text, or as words
        ("F7S", {"finishing_stacks": "['187', 0, 50]"}, "malformed", "finishing_stacks (p1): '187', text, is not"),
        ("NT", {"min_bet": "'three'"}, "malformed", "min_bet: 'three', text, is not a number of chips"),
        ("FT", {"big_bet": "0"}, "malformed", "big_bet: 0 is not positive; a bet size is more than 0"),
        ("PO", {"min_bet": "-2"}, "malformed", "min_bet: -2 is negative"),
        ("FO/8", {"small_bet": "nan"}, "malformed", "small_bet: NaN is not a number of chips"),
        ("F2L3D", {"blinds_or_straddles": "[1, -2, 0]"}, "malformed", "blinds_or_straddles (p2): -2 is negative"),
        ("N2L1D", {"finishing_stacks": "[99, -1, 100]"}, "malformed", "finishing_stacks (p2): -1 is negative"),
        ("FB", {"finishing_stacks": None, "winnings": "[0, -3, 0]"}, "malformed", "winnings (p2): -3 is negative"),
        ("FB", {"finishing_stacks": "101"}, "malformed", "finishing_stacks: 101 is not a list"),
        # fields pokerkit's loader requires
        ("F7S", {"small_bet": None}, "malformed", "the field 'small_bet' is missing (F7S requires antes, bring_in"),
        ("FR", {"bring_in": None}, "malformed", "the field 'bring_in' is missing"),
        ("NT", {"min_bet": None}, "malformed", "the field 'min_bet' is missing (NT requires"),
        ("N2L1D", {"min_bet": None}, "malformed", "the field 'min_bet' is missing (N2L1D requires"),
        ("FT", {"small_bet": None}, "malformed", "the field 'small_bet' is missing"),
        ("FO/8", {"big_bet": None}, "malformed", "the field 'big_bet' is missing"),
        ("NS", {"antes": None}, "malformed", "the field 'antes' is missing"),
        ("PO", {"blinds_or_straddles": None}, "malformed", "the field 'blinds_or_straddles' is missing"),
        ("F2L3D", {"starting_stacks": None}, "malformed", "the field 'starting_stacks' is missing"),
        ("FB", {"actions": None}, "malformed", "the field 'actions' is missing"),
        ("NT", {"variant": None}, "malformed", "the field 'variant' is missing"),
        ("NT", {"variant": "7"}, "malformed", "variant: 7 is not a variant code"),
        # the seats: the starting stacks'
        ("F7S", {"players": "['a', 'b']"}, "seat_count", "players has 2 entries for 3 players"),
        ("NT", {"players": "['a', 2, 'c']"}, "malformed", "players (p2): 2 is not a name"),
        ("F7S", {"antes": "[1, 1]"}, "seat_count", "antes has 2 entries for 3 players"),
        ("NT", {"finishing_stacks": "[99, 101]"}, "seat_count", "finishing_stacks has 2 entries for 3 players"),
        # forced bets a game does not have, or none at all
        ("F7S", {"blinds_or_straddles": "[1, 2, 0]"}, "malformed", "stud has a bring-in, no blinds"),
        ("NT", {"bring_in": "1"}, "malformed", "bring_in: 1 holds chips, but holdem has blinds, no bring-in"),
        ("F2L3D", {"blinds_or_straddles": "[0, 0, 0]"}, "malformed", "no forced bet"),
        # the others
        ("NT", {"ante_trimming_status": "1"}, "malformed", "ante_trimming_status: 1 is not true or false"),
        ("FB", {"actions": "'p1 f'"}, "malformed", "actions must be a list of strings"),
    ],
)
def test_a_field_missing_mistyped_or_out_of_range_is_refused(code, changes, reason, words):
    text = _changed(code, **changes)
    with pytest.raises(replay.Rejected) as exc:
        hands.replay(notation.parse(text))
    assert (exc.value.reason, words in str(exc.value)) == (reason, True), str(exc.value)


def test_forced_bets_a_game_has_not_are_read_when_they_hold_no_chips():
    """Blinds of 0 in stud and a bring-in of 0 in a game with blinds change nothing: imported."""
    stud = hands.replay(notation.parse(_changed("F7S", blinds_or_straddles="[0, 0, 0]")))
    assert stud.payout == [3, 0, 0]
    holdem = hands.replay(notation.parse(_changed("NT", bring_in="0")))
    assert holdem.payout == [0, 2, 0]


def test_the_import_sets_an_empty_file_and_a_hand_without_variant_aside_as_malformed(tmp_path):
    """Through the job: an empty ``.phh``, a hand without ``variant`` and a ``.phhs`` section of
    blanks are ``malformed`` (they were ``unsupported_variant "variant None"``), next to the bad
    fields above and a good hand, which imports."""
    d = tmp_path / "in"
    d.mkdir()
    (d / "empty.phh").write_text("")
    (d / "no_variant.phh").write_text(_changed("F7S", variant=None))
    (d / "negative_ante.phh").write_text(_changed("F7S", antes="[-1, 1, 1]"))
    (d / "good.phh").write_text(_text(_fields("FR")))
    (d / "two.phhs").write_text("[1]\n" + _text(_fields("NT")) + "\n[2]\n\n")
    out = tmp_path / "h.parquet"
    s = run_import([str(d)], str(out), ImportOptions(run=RunOptions(quiet=True)))
    assert s["hands_imported"] == 2 and s["rejected_by_reason"] == {"malformed": 4}, s
    errors = {(e["source"], e["position"]): e["message"] for e in pq.read_table(errors_path(str(out))).to_pylist()}
    assert errors == {
        ("empty.phh", 0): "the field 'variant' is missing",
        ("no_variant.phh", 0): "the field 'variant' is missing",
        ("negative_ante.phh", 0): "antes (p1): -1 is negative; an ante is 0 chips or more",
        ("two.phhs", 1): "the field 'variant' is missing",
    }
