"""The examples in the public wrappers' docstrings and in the README run and print what they show."""

from __future__ import annotations

import doctest
import importlib
import re

import pytest
from conftest import ROOT

MODULES = [
    "cardbatch.kernels.cards",
    "cardbatch.kernels.holdem",
    "cardbatch.kernels.threecard",
    "cardbatch.kernels.decks",
    "cardbatch.kernels.team",
    "cardbatch.kernels.pots.api",
    "cardbatch.batch.settle.options",
    "cardbatch.batch.settle.fairness.groups",
    "cardbatch.batch.frames",
    "cardbatch.games",
    "cardbatch.plays",
    "cardbatch.constants",
    "cardbatch.kernels.play",
    "cardbatch.kernels.equity",
    "cardbatch.batch.settle.fairness.audit",
    "cardbatch",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0


def test_the_readme_python_example():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "the README has no Python example"
    for block in blocks:
        test = doctest.DocTestParser().get_doctest(block, {}, "README.md", "README.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert test.examples and runner.failures == 0
