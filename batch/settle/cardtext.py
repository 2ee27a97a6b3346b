"""Card text in Arrow columns (``"AsKd"`` strings) to card codes, a whole column at a time.

The kernels' :func:`cardbatch.kernels.cards.parse` is the public codec and raises on the first bad
row; a batch must instead set bad rows aside, and its text arrives as Arrow strings. So this reads
the column's own buffers after Arrow's string kernels have normalised it (upper case,
:data:`~cardbatch.kernels.cards.TEXT_REPLACEMENTS`), with the kernels' lookup tables: the same
spellings, no conversion to Python or numpy strings.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardbatch.batch.io.arrays import arrow_of, numpy_of, scalar_of
from cardbatch.kernels.cards import NO_CARD, RANK_OF, SUIT_OF, TEXT_REPLACEMENTS

BAD_TEXT = 254  # every position of a row that is null, of another length or holds an unknown card


def parse_column(texts: pa.Array | pa.ChunkedArray, k: int) -> np.ndarray:
    """``uint8[N, k]`` card codes of a string column whose rows hold exactly ``k`` cards each, without
    raising: a row that is null, of another length or holds an unknown card is :data:`BAD_TEXT` in
    every position, so the batch can set it aside."""
    arr = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    n = len(arr)
    out = np.full((n, k), BAD_TEXT, dtype=np.uint8)
    if n == 0:
        return out
    norm = pc.utf8_upper(arr)
    for old, new in TEXT_REPLACEMENTS:
        norm = pc.replace_substring(norm, old, new)
    norm = pc.fill_null(norm, scalar_of("", norm.type))
    lengths = numpy_of(pc.binary_length(norm)).astype(np.int64)
    good = np.flatnonzero(lengths == 2 * k)
    if good.size == 0:
        return out
    sub = norm.take(arrow_of(good)) if good.size != n else norm
    off_dtype = np.int64 if pa.types.is_large_string(sub.type) else np.int32
    offsets = np.frombuffer(sub.buffers()[1], dtype=off_dtype)[sub.offset : sub.offset + len(sub) + 1]
    data = np.frombuffer(sub.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]].reshape(len(sub), 2 * k)
    ranks = RANK_OF[data[:, 0::2]]
    suits = SUIT_OF[data[:, 1::2]]
    codes = (ranks << 2) | suits
    dash = (data[:, 0::2] == ord("-")) & (data[:, 1::2] == ord("-"))
    codes[dash] = NO_CARD
    bad = (((ranks == 255) | (suits == 255)) & ~dash).any(axis=1)
    codes[bad] = BAD_TEXT
    out[good] = codes
    return out
