"""The card columns of a batch as card codes: every layout the formats page accepts (codes as lists,
one string a seat, one string a hand, dictionaries), read the same way by both settle paths
(:mod:`.poker` and :mod:`.onepass`), and the rows whose card count names another game."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io.arrays import arrow_of, numpy_of, scalar_of
from cardbatch.batch.io.columns import is_text
from cardbatch.batch.io.lists import combined, list_layout, list_parts, missing_rows, scatter
from cardbatch.batch.settle.cardtext import parse_column
from cardbatch.games import REGISTRY, Game
from cardbatch.kernels import cards as kcards


def _words_not_seats(norm: pa.Array, per: int) -> np.ndarray:
    """Rows of one string per hand whose words (split at spaces) are not each one seat's ``per``
    cards: such a row's cards cannot be read without moving a card from one seat to another."""
    words = pc.split_pattern(norm, " ")
    lengths = numpy_of(pc.utf8_length(pc.list_flatten(words)))
    rows = numpy_of(pc.list_parent_indices(words))
    multi = numpy_of(pc.list_value_length(words)) > 1  # a string with spaces
    bad = np.zeros(len(norm), bool)
    bad[rows[(lengths != 0) & (lengths != 2 * per)]] = True
    return np.asarray(bad & multi)


def cards_matrix(
    col: pa.ChunkedArray | pa.Array, per: int, width: int, seats_in_words: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Cards of each row as ``uint8[T, width]`` (255 padding) and how many cards each row gave.

    Accepts list<integer> or fixed_size_list<integer>, list<string> (one
    string of ``per`` cards per seat), or one string per row. Unreadable text
    and codes outside 0..255 become 254 (a bad card).
    """
    arr = combined(col)
    if pa.types.is_dictionary(arr.type):  # text cards written dictionary-encoded
        arr = arr.dictionary_decode()
    T = len(arr)
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        norm = _normalised(arr, keep_spaces=True)
        spaced = _words_not_seats(norm, per) if seats_in_words else np.zeros(T, bool)
        lengths = _text_cards(pc.replace_substring(norm, " ", ""))  # spaces are nothing, once words are checked
        lengths[spaced] = -1  # never a seat count: the row is seat_count, its cards never moved between seats
        out = np.full((T, width), 255, np.uint8)
        for k in np.unique(lengths):
            rows = np.flatnonzero(lengths == k)
            if 0 < k <= width:
                out[rows, :k] = parse_column(arr.take(arrow_of(rows)), int(k))
        return out, lengths
    if is_text(arr.type.value_type):  # one string a seat, parsed as Arrow strings
        child, starts, lengths = list_layout(arr)
        if pa.types.is_dictionary(child.type):
            child = child.dictionary_decode()
        parsed = parse_column(pc.fill_null(child, scalar_of("", child.type)), per).reshape(-1)
        return scatter(parsed, starts * per, lengths * per, width, 255, np.uint8), lengths * per
    vals, starts, lengths = list_parts(arr)
    if vals.dtype != np.uint8:
        vals = np.where((vals < 0) | (vals > 255), 254, vals).astype(np.uint8)
    return scatter(vals, starts, lengths, width, 255, np.uint8), lengths


def _normalised(texts: pa.Array, keep_spaces: bool = False) -> pa.Array:
    """Card text as the parser reads it: "10" one rank, suit symbols as letters, nulls empty, and
    spaces gone unless ``keep_spaces`` (to read a hand's words first)."""
    norm = pc.fill_null(texts, scalar_of("", texts.type))
    for old, new in kcards.TEXT_REPLACEMENTS:
        if not (keep_spaces and old == " "):
            norm = pc.replace_substring(norm, old, new)
    return norm


def _text_cards(texts: pa.Array) -> np.ndarray:
    """How many cards each string holds, read as the parser reads it (two characters a card)."""
    return np.asarray(numpy_of(pc.utf8_length(_normalised(texts))).astype(np.int64) // 2)


def _cards_given(col: pa.ChunkedArray | pa.Array, counted: np.ndarray) -> np.ndarray:
    """How many cards each row gives: ``counted`` (by :func:`cards_matrix`) for card codes and one
    string per row; for one string per seat, the strings' cards (two characters each) summed, which
    :func:`cards_matrix`, reading a seat's string as the game's count, does not count."""
    arr = combined(col)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):  # one string per hand: its cards
        return _text_cards(arr)
    if not any(kind(arr.type) for kind in (pa.types.is_list, pa.types.is_large_list, pa.types.is_fixed_size_list)):
        return counted
    child, starts, lengths = list_layout(arr)
    if pa.types.is_dictionary(child.type):
        child = child.dictionary_decode()
    if not (pa.types.is_string(child.type) or pa.types.is_large_string(child.type)):
        return counted
    per_string = _text_cards(child)
    ends = np.concatenate([[0], np.cumsum(per_string)])
    return np.asarray(ends[starts + lengths] - ends[starts])


def cards_given_mask(
    col: pa.ChunkedArray | pa.Array, counted: np.ndarray, seats: np.ndarray, per: int, board_cards: int = 5
) -> np.ndarray:
    """``bool[T]``: rows whose cards are the count a seat of another game with as many board cards
    (``board_cards``) deals, where the game, told from the columns, deals ``per``: Omaha's 4, 5 or 6
    beside Hold'em's board; stud's 7, a draw game's 5 or badugi's 4 without one, beside Zha Jin
    Hua's 3. Such a hand is never guessed (``game_not_given``)."""
    given = _cards_given(col, counted)
    out = np.zeros(len(seats), np.bool_)
    others = {g.hole_cards for g in REGISTRY.values() if g.has_hands and g.board_cards == board_cards}
    for other in others - {per}:
        out |= (seats > 0) & (given == seats * other)
    return out


def not_told_rows(table: pa.Table, spec: Game) -> np.ndarray:
    """``bool[T]``: the rows :func:`cards_given_mask` names for ``spec``, the game told from the
    columns, read from the lists' lengths alone (nothing parsed): they are set aside before the
    settle (``game_not_given``, filed under ``game=unknown``). A row with a missing value is left
    to the settle, which names that first."""
    T = table.num_rows
    if not spec.has_hands or "cards" not in table.column_names or "folded" not in table.column_names:
        return np.zeros(T, np.bool_)
    arr = combined(table.column("cards"))
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    counted = np.zeros(T, np.int64)
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)) and not is_text(arr.type.value_type):
        counted = list_parts(arr)[2].astype(np.int64)
    seats = list_parts(table.column("folded"))[2].astype(np.int64)
    out = cards_given_mask(arr, counted, seats, spec.hole_cards, spec.board_cards)
    chips = "contrib_street" if "contrib_street" in table.column_names else "contrib"
    for name in (*spec.required, chips):
        if name in table.column_names:
            out &= ~missing_rows(table.column(name))
    return out
