"""The README and the docs site as a reader meets them: every shell command block runs and exits as the
page says, every Python block runs (the README's in tests/test_doctests.py, the other pages' here), every
repository path and cardbatch module they name exists, and the sdist holds the files their commands read.

How a page tells this test about a block: HTML comments on the lines right before its fence (a reader
of the rendered page does not see them).

- ``<!-- expect-exit: 3 -->``: the block's exit status (0 unless said; ``audit`` exits 3 when a
  recorded payout differs). A block runs as one ``bash -e`` script, so it is the last command's status.
- ``<!-- illustration -->``: not run (a cluster's address, an ``s3://`` path, your own files, a
  Dockerfile line, a query over a placeholder ``DIR``).
- ``<!-- slow -->``: big sizes: run alone, in a folder of its own.

Every test that runs commands is marked ``slow`` (a process per command: the fast loop, ``pytest -m "not
slow"``, leaves them to full runs and CI); the checks of paths, modules, markers and Python blocks are not.

Blocks without a language or marked ``sh``, ``bash``, ``shell`` or ``console`` are shell commands; a
page's blocks run in order, in one temporary folder per page that holds copies of the repository's
``data/`` and ``tests/data/``, with this interpreter's ``bin`` first on ``PATH`` (so ``cardbatch`` and
``python`` are the ones under test). The README's set-up (``python3 -m venv .venv``, activating it,
``pip install -e ...``, joined by ``&&``) is what made this environment, so it is left out and the rest
of the line runs; a block that is then the test suite itself (``python -m pytest ...``) is left to CI
(``.ci/run`` runs the README's) and to the developer.
"""

from __future__ import annotations

import argparse
import doctest
import functools
import importlib
import inspect
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHELL = {"", "sh", "bash", "shell", "console"}
# Pages for people changing cardbatch (how it is measured, how it is checked): they may name the
# repository's tests/ and benchmarks/. Every other docs page is for users, who may have only the package.
DEVELOPER_PAGES = {"docs/performance.md", "docs/development.md"}
# The README's set-up: it made the environment this test runs in.
SETUP = re.compile(r"^python3 -m venv \.venv && \. \.venv/bin/activate && pip install -e \S+ && ")
# What is left of the README's test command, or the fast loop of Development: the test suite itself (which
# .ci/run runs from the README), never run from inside itself.
SUITE = re.compile(r"^python -m pytest\b")
MARKER = re.compile(r"^<!--\s*(.*?)\s*-->$")
FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass
class Block:
    page: str  # relative to the repository
    line: int  # of the opening fence
    lang: str
    text: str
    markers: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def expected_exit(self) -> int:
        return int(self.markers.get("expect-exit", "0"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _parse(path: Path) -> tuple[list[Block], str]:
    """The page's fenced blocks with their markers, and its text outside them."""
    blocks: list[Block] = []
    prose: list[str] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            prose.append(lines[i])
            i += 1
            continue
        markers: dict[str, str] = {}
        j = i - 1
        while j >= 0 and (c := MARKER.match(lines[j].strip())):
            key, _, value = c.group(1).partition(":")
            markers[key.strip()] = value.strip()
            j -= 1
        end = next(k for k in range(i + 1, len(lines)) if lines[k].startswith("```"))
        blocks.append(Block(_rel(path), i + 1, m.group(1), "\n".join(lines[i + 1 : end]) + "\n", markers))
        prose.extend([""] * (end - i + 1))
        i = end + 1
    return blocks, "\n".join(prose)


BLOCKS = {_rel(p): _parse(p)[0] for p in PAGES}


def _command(block: Block) -> str | None:
    """The script to run for a shell block, or None when this test does not run it."""
    if "illustration" in block.markers:
        return None
    text = "\n".join(SETUP.sub("", line) for line in block.text.splitlines())
    return None if SUITE.match(text.strip()) else text


def _runnable(slow: bool) -> list[Block]:
    return [
        b
        for blocks in BLOCKS.values()
        for b in blocks
        if b.lang in SHELL and _command(b) is not None and ("slow" in b.markers) == slow
    ]


def _workdir(tmp_path: Path) -> Path:
    """A folder laid out as the README expects: the samples in data/, the PHH hands in tests/data/."""
    shutil.copytree(ROOT / "data", tmp_path / "data", ignore=shutil.ignore_patterns("generated"))
    shutil.copytree(ROOT / "tests" / "data", tmp_path / "tests" / "data")
    return tmp_path


def _run(block: Block, cwd: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    res = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", _command(block)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a page command that never ends (a server) fails in minutes, not a quarter hour
    )
    assert res.returncode == block.expected_exit, (
        f"{block.name} exited {res.returncode}, the page says {block.expected_exit}:\n{block.text}\n"
        f"stdout: {res.stdout[-2000:]}\nstderr: {res.stderr[-3000:]}"
    )


@pytest.mark.slow  # a cardbatch process per command, about 25 s in all
@pytest.mark.parametrize("page", sorted({b.page for b in _runnable(slow=False)}), ids=lambda p: p.removeprefix("docs/"))
def test_the_commands_of_a_page_run(page, tmp_path):
    """The page's shell blocks, in order, in one folder: each exits as the page says."""
    cwd = _workdir(tmp_path)
    for block in _runnable(slow=False):
        if block.page == page:
            _run(block, cwd)


@pytest.mark.slow
@pytest.mark.parametrize("block", _runnable(slow=True), ids=lambda b: b.name.removeprefix("docs/"))
def test_a_slow_command_runs(block, tmp_path):
    """A block with big sizes (marked slow on its page), alone in its own folder."""
    _run(block, _workdir(tmp_path))


def test_every_block_is_run_or_marked():
    """A block this test does not run says why: an illustration, or the test suite that CI runs."""
    known = {"expect-exit", "illustration", "slow", "main-command", "test-command"}
    for blocks in BLOCKS.values():
        for b in blocks:
            assert set(b.markers) <= known, f"{b.name}: unknown marker(s) {sorted(set(b.markers) - known)}"
            assert b.lang in SHELL | {"python"} or "illustration" in b.markers, (
                f"{b.name}: a ```{b.lang} block is never run: make it shell or Python, or mark it an illustration"
            )
            if b.lang in SHELL and "illustration" not in b.markers and _command(b) is None:
                assert "pytest" in b.text  # the suite: .ci/run runs the README's test command on a clean clone
    if (ROOT / ".ci" / "run").exists():
        assert "<!-- test-command -->" in (ROOT / ".ci" / "run").read_text()


def test_the_readme_python_blocks_are_doctests_run_elsewhere():
    """The README's Python blocks are doctests, and tests/test_doctests.py runs them (not run twice)."""
    import test_doctests

    source = inspect.getsource(test_doctests.test_the_readme_python_example)
    assert '"README.md"' in source and "```python" in source
    for b in BLOCKS["README.md"]:
        if b.lang == "python" and "illustration" not in b.markers:
            test = doctest.DocTestParser().get_doctest(b.text, {}, b.name, "README.md", 0)
            assert test.examples, f"{b.name} is a Python block without >>> examples: tests/test_doctests.py fails it"


DOCS_PYTHON = [b for page, bs in BLOCKS.items() if page != "README.md" for b in bs if b.lang == "python"]


@pytest.mark.parametrize(
    "block", [b for b in DOCS_PYTHON if "illustration" not in b.markers], ids=lambda b: b.name.removeprefix("docs/")
)
def test_a_docs_python_block_runs(block, tmp_path, monkeypatch):
    """The docs pages' Python blocks (no other test runs them): a doctest prints what it shows, other
    code runs without an error, in a folder holding the samples."""
    monkeypatch.chdir(_workdir(tmp_path))
    test = doctest.DocTestParser().get_doctest(block.text, {}, block.name, block.page, block.line)
    if test.examples:
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0, f"{block.name}: the doctest's output differs from the page's"
    else:  # compiled as a reader runs it: without this module's __future__ annotations
        exec(compile(block.text, block.name, "exec", dont_inherit=True), {"__name__": "__docs__"})


# --- where the examples write ------------------------------------------------------------------------

OUTPUT_OPTIONS = ("--out", "--write-hands")  # the options naming what a command writes
SEPARATORS = {";", "&&", "||", "|", "&"}  # between the commands of a line
PLACEHOLDER = re.compile(r"^[A-Z]+$")  # DIR, FILE: an illustration's stand-in for a reader's own name


def _outputs(script: str) -> list[tuple[str, str]]:
    """``(path, command)`` for every path a shell script's commands write: their ``--out`` and
    ``--write-hands`` values and their redirections (``>``, ``>>``, ``2>``, ``&>``; quotes, comments
    and line continuations read as bash reads them)."""
    found = []
    for line in script.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
        commands: list[list[str]] = [[]]
        for word in words:
            if word in SEPARATORS:
                commands.append([])
            else:
                commands[-1].append(word)
        for command in commands:
            for i, word in enumerate(command):
                name, eq, value = word.partition("=")
                following = command[i + 1] if i + 1 < len(command) else ""
                if name in OUTPUT_OPTIONS:
                    target = value if eq else following
                elif word in (">", ">>", "&>", ">|"):
                    target = following
                else:
                    continue
                if target:
                    found.append((target, " ".join(command)))
    return found


def _written(blocks: list[Block]) -> list[tuple[str, str, Block]]:
    """What the shell blocks of pages write: ``(path, command, block)``, placeholders and ``/dev/null``
    left out."""
    return [
        (path, command, b)
        for b in blocks
        if b.lang in SHELL and _command(b) is not None or "illustration" in b.markers and b.lang in SHELL
        for path, command in _outputs(SETUP.sub("", b.text) if "illustration" in b.markers else _command(b) or "")
        if not PLACEHOLDER.match(path.rstrip("/")) and path != "/dev/null" and not path.startswith("s3://")
    ]


def _same_run(command: str) -> str:
    """A command as the run it belongs to: ``audit`` is ``settle`` that also compares, and a rerun of a
    settle run into its folder resumes it (the README's ``settle`` then ``audit`` of ``out/sample``)."""
    words = command.split()
    if words[:2] == ["cardbatch", "audit"]:
        words[1] = "settle"
    return " ".join(words)


def _writes_problems(pages: dict[str, list[Block]]) -> list[str]:
    """An example that writes outside ``out/`` (git-ignored: a reader following the README, then the
    guides, from the repository's root leaves no untracked file), or at a path another example's
    different command writes (it would overwrite that example's file)."""
    problems = []
    by_path: dict[str, dict[str, str]] = {}
    for blocks in pages.values():
        for path, command, b in _written(blocks):
            norm = os.path.normpath(path)
            if norm.startswith(("/", "..")) or norm.split(os.sep)[0] != "out" or norm == "out":
                problems.append(f"{b.name}: {command!r} writes {path}, outside out/")
            by_path.setdefault(norm, {}).setdefault(_same_run(command), b.name)
    for path, runs in by_path.items():
        if len(runs) > 1:
            problems.append(f"{path} is written by {len(runs)} examples: {', '.join(runs.values())}")
    return problems


def test_every_example_writes_its_own_file_under_out():
    """The README's and the docs' commands write under ``out/`` only (the folder git ignores), and no two
    examples write the same path with different commands (the issue's reader who followed the README,
    then the guides, found ``hands.parquet``, ``biased.parquet``, ``zjh.*``, ``audit/``... untracked, and
    ``generate.md`` overwrote the README's ``--streets`` file)."""
    assert _writes_problems(BLOCKS) == []
    if (ROOT / ".git").exists() and shutil.which("git"):
        assert _ignored(["out/x.parquet"]) == {"out/x.parquet"}, "out/ is no longer git-ignored"


def test_the_check_of_example_outputs_finds_what_it_looks_for():
    """The parser behind the check above: options, redirections, continuations, comments."""
    script = (
        "cardbatch generate --hands 5 --out hands.parquet  # a comment --out x\n"
        "cardbatch simulate --players 3 \\\n    --write-hands=out/h.parquet --out out/s\n"
        "python -c 'print(1)' > printed.txt 2>&1 && echo x >>out/log.txt 2>/dev/null\n"
    )
    assert [p for p, _ in _outputs(script)] == [
        "hands.parquet",
        "out/h.parquet",
        "out/s",
        "printed.txt",
        "out/log.txt",
        "/dev/null",
    ]
    page = [
        Block("a.md", 1, "", "cardbatch generate --hands 5 --out out/h.parquet\ncardbatch settle x --out out/d\n"),
        Block("b.md", 1, "", "cardbatch generate --hands 9 --out out/h.parquet\ncardbatch audit x --out out/d\n"),
        Block("c.md", 1, "", "cardbatch fairness x --out DIR\n", {"illustration": ""}),
    ]
    assert _writes_problems({"p": page}) == ["out/h.parquet is written by 2 examples: a.md:1, b.md:1"]


# --- the paths and modules the pages name ---------------------------------------------------------

SPAN = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)|src=\"([^\"]+)\"")
MODULE = re.compile(r"^cardbatch\.(?:kernels|batch)(?:\.\w+)+")


@functools.cache
def _tracked_top() -> frozenset[str]:
    """The names at the repository's top (a clone's tracked ones; in an unpacked sdist, what is there)."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return frozenset(f.split("/")[0] for f in files.split())
    return frozenset(p.name for p in ROOT.iterdir())


def _ignored(paths: list[str]) -> set[str]:
    """Those of ``paths`` that git ignores (``data/generated/``, ``out/``): a clone never holds them."""
    if not paths or not (ROOT / ".git").exists() or not shutil.which("git"):
        return set()
    res = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=ROOT,
        input="\n".join(paths),
        capture_output=True,
        text=True,
    )
    return set(res.stdout.split())


def _repository_paths(text: str, top: frozenset[str]) -> list[str]:
    """The words of ``text`` that are paths in the repository (their first part is a name at its top)."""
    found = []
    for word in text.split():
        word = re.sub(r"^--?[\w-]+=", "", word.strip("'\"(),;")).rstrip(".,:;")
        if word in top or ("/" in word and word.split("/")[0] in top):
            found.append(word)
    return found


def _named(page: Path) -> tuple[list[str], list[str], list[str]]:
    """What a page names: repository paths (in code spans and its shell blocks), links (resolved from
    the repository's root) and cardbatch modules or attributes (in code spans)."""
    blocks, prose = _parse(page)
    top = _tracked_top()
    spans = SPAN.findall(prose)
    shell = [b.text for b in blocks if b.lang in SHELL and "illustration" not in b.markers]
    paths = [p for text in spans + shell for p in _repository_paths(text, top)]
    modules = [m.group(0) for span in spans for word in span.split() if (m := MODULE.match(word))]
    links = []
    for a, b in LINK.findall(prose):
        target = (a or b).split("#")[0]
        if target and not re.match(r"^[a-z]+:", target):
            links.append(os.path.normpath(os.path.join(os.path.dirname(_rel(page)), target)))
    return paths, links, modules


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_repository_path_a_page_names_exists(page):
    """``batch/io/storage.py``, ``tests/data/phh``, ``data/*_sample.parquet``, a link: each is there."""
    paths, links, _ = _named(page)
    ignored = _ignored(sorted(set(paths)))
    missing = [
        p
        for p in paths
        if p not in ignored and not (list(ROOT.glob(p.rstrip("/"))) if "*" in p else (ROOT / p).exists())
    ]
    missing += [f"{link} (a link)" for link in links if not (ROOT / link).exists()]
    assert not missing, f"{_rel(page)} names what the repository does not hold: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_module_a_page_names_exists(page):
    """``cardbatch.batch.settle.job.run`` and the like: a module, or a name in one."""
    missing = []
    for name in _named(page)[2]:
        parts = name.split(".")
        for k in range(len(parts), 1, -1):
            try:
                obj = importlib.import_module(".".join(parts[:k]))
            except ImportError:
                continue
            for attr in parts[k:]:
                if not hasattr(obj, attr):
                    missing.append(name)
                    break
                obj = getattr(obj, attr)
            break
        else:
            missing.append(name)
    assert not missing, f"{_rel(page)} names what cardbatch does not have: {missing}"


USER_PAGES = [p for p in PAGES if _rel(p).startswith("docs/") and _rel(p) not in DEVELOPER_PAGES]


@pytest.mark.parametrize("page", USER_PAGES, ids=_rel)
def test_user_pages_send_nobody_to_tests_benchmarks_or_ignored_files(page):
    """Users of the package have neither the repository's tests/ and benchmarks/ nor what git ignores
    (``data/generated/``): user pages say what was tested or measured in their own words. Performance
    and Development, pages for people changing cardbatch, may name tests and benchmarks."""
    paths = _named(page)[0]
    ignored = _ignored(sorted(set(paths)))
    wrong = [p for p in paths if p.startswith(("tests/", "benchmarks/")) or p in ignored]
    assert not wrong, f"{_rel(page)} sends readers to {wrong}"


# --- the source distribution ------------------------------------------------------------------------


def _source_tree(dest: Path) -> Path:
    """A copy of the files a clean clone of this working tree would hold (tracked or new, not ignored),
    so that nothing a build left behind (an ``*.egg-info`` whose file list setuptools reads back) can
    put a file into the sdist that MANIFEST.in leaves out."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\0")
        files = [ROOT / f for f in listed if f and ((ROOT / f).is_symlink() or (ROOT / f).is_file())]
    else:
        files = [f for f in ROOT.rglob("*") if f.is_file() and not any(p.endswith(".egg-info") for p in f.parts)]
    for f in files:
        (dest / _rel(f)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, dest / _rel(f), follow_symlinks=False)
    return dest


@pytest.mark.slow
def test_the_sdist_holds_the_inputs_of_the_documented_commands(tmp_path):
    """Unpacking the sdist gives every file the README's and the docs' commands read (the samples in
    ``data/``, the PHH hands in ``tests/data/phh``)."""
    src = _source_tree(tmp_path / "src")
    res = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        members = {m.split("/", 1)[1] for m in tar.getnames() if "/" in m}
    needed = set()
    for blocks in BLOCKS.values():
        for b in blocks:
            if b.lang in SHELL and _command(b) is not None:
                for p in _repository_paths(_command(b), _tracked_top()):
                    for m in ROOT.glob(p.rstrip("/")) if "*" in p else [ROOT / p]:
                        files = [m] if m.is_file() else [f for f in m.rglob("*") if f.is_file()]
                        needed |= {_rel(f) for f in files if "__pycache__" not in f.parts}
    assert {"data/holdem_sample.parquet", "tests/data/phh/wsop/2.phh"} <= needed  # what the README reads
    assert sorted(needed - members) == [], "MANIFEST.in leaves out what the documented commands read"


def test_the_index_and_the_api_page_name_every_command_and_job():
    """A reader finds every subcommand from the docs' index (in a backtick, beside its guide page)
    and every public job on the API page: its DataFrame call or its run() and options."""
    from cardbatch.batch.cli import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    index, api = (ROOT / "docs" / "index.md").read_text(), (ROOT / "docs" / "api.md").read_text()
    for command in action.choices:
        assert f"`{command}`" in index, f"docs/index.md does not name cardbatch {command}"
        assert f"`{command}`" in api, f"docs/api.md's jobs table does not name cardbatch {command}"
    import cardbatch

    for name in ("settle", "audit", "rank_decks", "simulate"):  # the DataFrame API (cardbatch.__all__)
        assert name in cardbatch.__all__ and f"cardbatch.{name}(" in api, f"docs/api.md does not show {name}"
    for job in (
        "cardbatch.batch.settle.job.run",
        "cardbatch.batch.phh.job.run",
        "cardbatch.batch.generate.run",
        "cardbatch.batch.rank_decks.run",
        "cardbatch.batch.simulate.job.run",
        "cardbatch.batch.precompile.run",
    ):
        assert job in api, f"docs/api.md does not name {job}"
