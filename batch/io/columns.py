"""Arrow column helpers every job uses, without numba (a job's parent process plans with them
before any kernel loads): a type predicate and numpy rows as a fixed-size list column."""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def is_text(t: pa.DataType) -> bool:
    """A string type: plain, large, view or dictionary-encoded."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t))


def fixed_size_list(values: np.ndarray) -> pa.FixedSizeListArray:
    """A ``fixed_size_list<W>`` column of the rows of ``values[N, W]``."""
    return pa.FixedSizeListArray.from_arrays(pa.array(np.ascontiguousarray(values).reshape(-1)), values.shape[1])
