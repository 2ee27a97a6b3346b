"""Shared helpers for the tests: combination arrays and random distinct-card hands."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest


def all_combinations(n: int, k: int) -> np.ndarray:
    """Every k-subset of range(n) in lexicographic order, as uint8[C(n, k), k]."""
    return np.fromiter(itertools.combinations(range(n), k), dtype=np.dtype((np.uint8, k)), count=math.comb(n, k))


def random_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n hands of k distinct cards each, uniformly drawn."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261129)
