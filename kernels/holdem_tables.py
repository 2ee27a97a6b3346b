"""Lookup tables behind the Hold'em evaluator, and the slow code that builds them.

A card's key is ``1 << 3*rank`` (rank counts, three bits each, 39 bits) plus
``1 << 40 + 4*suit`` (suit counts, biased by 3 so a fifth card of a suit sets
the counter's top bit). Summing the keys of a hand's cards gives its rank
multiset and its flush flag at once.

Hands without a flush are scored by their rank multiset: a perfect hash
(hash-and-displace: one multiply, a bucket's XOR displacement) maps each of the
73,775 multisets of 5, 6 or 7 cards to a slot of a 2**17 ``uint16`` table
holding the dense rank. Flushes index an 8,192-entry table by the flush
suit's rank bitmask. Dense ranks (1 = royal flush .. 7462) map back to the
packed score of the Hold'em scores (docs: Rules) through a 7,463-entry table.

The tables ship as ``holdem_tables.npz`` so importing costs no build time;
``python -m cardbatch.kernels.holdem_tables`` rebuilds it and the tests check that the
shipped file equals a fresh build.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np

RANK_BITS = 3
SUIT_SHIFT = 40
KEY_INIT = np.uint64(0x3333 << SUIT_SHIFT)
FLUSH_BITS = np.uint64(0x8888 << SUIT_SHIFT)
RANK_MASK = np.uint64((1 << SUIT_SHIFT) - 1)

# (bucket bits, slot bits) of the perfect hash for 7-card and for 5/6-card multisets:
# 49,205 keys in 2**16 slots and 24,570 in 2**15, small enough to stay in L2
# while the input streams through it.
HASH_BITS = {"7": (14, 16), "56": (13, 15)}
# Odd multipliers that keep every bucket's slots distinct. The evaluator
# compiles them in as constants; numba's cache does not see a change here,
# so after changing them clear the cache (or touch holdem.py).
HASH_MULT = {"7": 0x9E3779B97F4A7C15, "56": 0x648F44F132B43C47}

STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR, HIGH_CARD = 8, 7, 6, 5, 4, 3, 2, 1, 0

TABLE_FILE = Path(__file__).with_name("holdem_tables.npz")


def pack(category: int, ranks: list[int]) -> int:
    """Packed score ``category << 20 | r1 << 16 | ... | r5`` (missing ranks are 0)."""
    value = category << 20
    for i, r in enumerate(ranks):
        value |= r << (16 - 4 * i)
    return value


def _straight_top(present: int) -> int:
    """Top rank of the best straight in a 13-bit rank mask, or -1 (wheel tops at 3)."""
    for top in range(12, 3, -1):
        want = 0b11111 << (top - 4)
        if present & want == want:
            return top
    if present & 0b1000000001111 == 0b1000000001111:
        return 3
    return -1


def score_of_counts(counts: list[int]) -> int:
    """Best five-card packed score of a rank multiset, no flush possible."""
    by_count = {n: [r for r in range(12, -1, -1) if counts[r] >= n] for n in (1, 2, 3, 4)}
    present = sum(1 << r for r in range(13) if counts[r])
    if by_count[4]:
        q = by_count[4][0]
        return pack(QUADS, [q, next(r for r in by_count[1] if r != q)])
    if by_count[3]:
        t = by_count[3][0]
        pairs = [r for r in by_count[2] if r != t]
        if pairs:
            return pack(FULL_HOUSE, [t, pairs[0]])
    top = _straight_top(present)
    if top >= 0:
        return pack(STRAIGHT, [top])
    if by_count[3]:
        t = by_count[3][0]
        return pack(TRIPS, [t] + [r for r in by_count[1] if r != t][:2])
    pairs = by_count[2]
    if len(pairs) >= 2:
        hi, lo = pairs[0], pairs[1]
        return pack(TWO_PAIR, [hi, lo, next(r for r in by_count[1] if r not in (hi, lo))])
    if pairs:
        p = pairs[0]
        return pack(PAIR, [p] + [r for r in by_count[1] if r != p][:3])
    return pack(HIGH_CARD, by_count[1][:5])


def score_of_flush(mask: int) -> int:
    """Packed score of the cards of one suit (a 13-bit rank mask with >= 5 bits)."""
    top = _straight_top(mask)
    if top >= 0:
        return pack(STRAIGHT_FLUSH, [top])
    return pack(FLUSH, [r for r in range(12, -1, -1) if mask >> r & 1][:5])


def _multisets(k: int):
    for combo in itertools.combinations_with_replacement(range(13), k):
        counts = [0] * 13
        for r in combo:
            counts[r] += 1
        if max(counts) <= 4:
            yield counts


def rank_key(counts: list[int]) -> int:
    return sum(c << (RANK_BITS * r) for r, c in enumerate(counts))


def slot_of(keys: np.ndarray, mult: int, bucket_bits: int, slot_bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Bucket and pre-displacement slot of each key: the top bits of ``key * mult``."""
    h = keys.astype(np.uint64) * np.uint64(mult)
    bucket = (h >> np.uint64(64 - bucket_bits)).astype(np.int64)
    slot = ((h >> np.uint64(64 - bucket_bits - slot_bits)) & np.uint64((1 << slot_bits) - 1)).astype(np.int64)
    return bucket, slot


def perfect_hash(
    keys: np.ndarray, values: np.ndarray, mult: int, bucket_bits: int, slot_bits: int
) -> tuple[np.ndarray, np.ndarray]:
    """Hash-and-displace: ``slot ^ displace[bucket]`` is unique for every key.

    Needs every bucket's slots distinct (true for the multipliers in
    HASH_MULT); fits buckets largest first, each at the smallest free
    displacement. Returns ``(displace uint16[2**bucket_bits], table uint16[2**slot_bits])``.
    """
    bucket, slot = slot_of(keys, mult, bucket_bits, slot_bits)
    order = np.lexsort((slot, bucket))
    b_sorted, s_sorted = bucket[order], slot[order]
    if ((b_sorted[1:] == b_sorted[:-1]) & (s_sorted[1:] == s_sorted[:-1])).any():
        raise RuntimeError(f"multiplier {mult:#x} puts two keys on one slot of a bucket")
    starts = np.searchsorted(b_sorted, np.arange((1 << bucket_bits) + 1))
    sizes = np.diff(starts)
    used = np.zeros(1 << slot_bits, dtype=bool)
    displace = np.zeros(1 << bucket_bits, dtype=np.uint16)
    table = np.zeros(1 << slot_bits, dtype=np.uint16)
    candidates = np.arange(min(1 << slot_bits, 1 << 16))
    for b in np.argsort(-sizes, kind="stable"):
        if sizes[b] == 0:
            break
        members = order[starts[b] : starts[b + 1]]
        taken = np.zeros(candidates.size, dtype=bool)
        for s in slot[members]:
            taken |= used[candidates ^ s]
        free = np.flatnonzero(~taken)
        if free.size == 0:
            raise RuntimeError(f"no displacement fits bucket {b}")
        d = int(free[0])
        used[slot[members] ^ d] = True
        table[slot[members] ^ d] = values[members]
        displace[b] = d
    return displace, table


def build() -> dict[str, np.ndarray]:
    """Build every table from the rules of the Hold'em scores (docs: Rules) (slow, about a second)."""
    five_card_scores = set()
    for counts in _multisets(5):
        if max(counts) == 1:
            mask = sum(1 << r for r in range(13) if counts[r])
            five_card_scores.add(score_of_flush(mask))
        five_card_scores.add(score_of_counts(counts))
    ordered = sorted(five_card_scores, reverse=True)
    assert len(ordered) == 7462
    dense_of = {s: i + 1 for i, s in enumerate(ordered)}
    score_of_dense = np.full(7463, 0xFFFFFFFF, dtype=np.uint32)  # dense 0 = invalid hand
    score_of_dense[1:] = ordered

    hashes = {}
    for name, sizes in (("7", (7,)), ("56", (5, 6))):
        keys = [rank_key(c) for k in sizes for c in _multisets(k)]
        values = [dense_of[score_of_counts(c)] for k in sizes for c in _multisets(k)]
        bucket_bits, slot_bits = HASH_BITS[name]
        displace, table = perfect_hash(
            np.array(keys, dtype=np.uint64), np.array(values, dtype=np.uint16), HASH_MULT[name], bucket_bits, slot_bits
        )
        hashes[f"mult{name}"] = np.array([HASH_MULT[name]], dtype=np.uint64)
        hashes[f"displace{name}"] = displace
        hashes[f"rank_table{name}"] = table

    flush = np.zeros(1 << 13, dtype=np.uint16)
    for mask in range(1 << 13):
        if bin(mask).count("1") >= 5:
            flush[mask] = dense_of[score_of_flush(mask)]

    card_key = np.zeros(256, dtype=np.uint64)
    for c in range(52):
        card_key[c] = (1 << (RANK_BITS * (c >> 2))) + (1 << (SUIT_SHIFT + 4 * (c & 3)))
    return {**hashes, "flush_table": flush, "score_of_dense": score_of_dense, "card_key": card_key}


def load() -> dict[str, np.ndarray]:
    """The shipped tables (built on the spot if the file is missing)."""
    if TABLE_FILE.exists():
        with np.load(TABLE_FILE) as f:
            return {k: f[k] for k in f.files}
    return build()


if __name__ == "__main__":
    tables: dict[str, Any] = build()
    np.savez_compressed(TABLE_FILE, **tables)
    print(f"wrote {TABLE_FILE}")
