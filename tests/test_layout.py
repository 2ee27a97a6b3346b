"""The package's shape, checked from its source: one namespace, no import circles, no private
names used across modules, argparse only in the CLI package, no I/O and no pyarrow in the kernels."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

# repository folder -> the package it installs as (pyproject.toml's package-dir)
FOLDERS = {"package": "cardbatch", "kernels": "cardbatch.kernels", "batch": "cardbatch.batch"}


def _modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("").parts
            name = ".".join((package, *rel))
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imports(name: str, path: Path) -> list[tuple[str, str | None, int]]:
    """(module, imported name or None, line) for every import of a cardbatch module, lazy ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, None, node.lineno) for a in node.names if a.name.startswith("cardbatch")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(name, path)
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            if not module.startswith("cardbatch"):
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if sub in MODULES:  # `from pkg import module`
                    found.append((sub, None, node.lineno))
                else:
                    found.append((module, alias.name, node.lineno))
    return found


def test_the_folders_hold_the_modules():
    assert {"cardbatch", "cardbatch.kernels.pots", "cardbatch.batch.cli"} <= set(MODULES)
    for name, path in MODULES.items():
        for module, _, line in _imports(name, path):
            assert module in MODULES, f"{path}:{line} imports {module}, which is not a cardbatch module"


def _with_packages(importer: str, module: str) -> set[str]:
    """``module`` and the packages Python initialises to import it: its parents that are not
    the importer's own (those are already initialising)."""
    found = {module}
    parent = module.rpartition(".")[0]
    while parent and not (importer == parent or importer.startswith(parent + ".")):
        found.add(parent)
        parent = parent.rpartition(".")[0]
    return found


def test_no_import_circle():
    graph = {
        name: set().union(*(_with_packages(name, m) for m, _, _ in _imports(name, path))) - {name}
        for name, path in MODULES.items()
    }
    # The root package's __getattr__ loads the DataFrame API (cardbatch.settle) on first use, after
    # every module is loaded; only the root's module-level imports can close a circle at import time.
    root = ast.parse(MODULES["cardbatch"].read_text())
    graph["cardbatch"] = {
        a.name
        for node in root.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for a in node.names
        if a.name.startswith("cardbatch")
    }
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt] if nxt in stack else [node, nxt]
                pytest.fail("import circle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def _private(attr: str) -> bool:
    return attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__"))


@pytest.mark.parametrize("folder", ["package", "kernels", "batch", "tests", "benchmarks"])
def test_no_private_name_crosses_a_module(folder):
    for path in sorted((ROOT / folder).rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        bound: set[str] = set()  # local names bound to cardbatch modules
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and (node.module or "").startswith(("cardbatch", "."))
                or (isinstance(node, ast.ImportFrom) and node.level)
            ):
                for alias in node.names:
                    assert not _private(alias.name), f"{path}:{node.lineno} imports private {alias.name}"
                    bound.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                bound |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith("cardbatch")}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                base = node.value
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in bound:
                    pytest.fail(f"{path}:{node.lineno} uses private {ast.unparse(node)} of another module")


def test_argparse_lives_in_the_cli_package_only():
    for name, path in MODULES.items():
        if name.startswith("cardbatch.batch.cli"):
            continue
        assert "argparse" not in path.read_text(), f"{path} uses argparse outside cardbatch.batch.cli"


def test_kernels_do_no_io_and_know_no_files():
    """Kernels are numpy in, numpy out: no pyarrow (Arrow columns are read on the batch side), no files."""
    for name, path in MODULES.items():
        if not name.startswith("cardbatch.kernels"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            for n in names:
                assert not n.startswith(("pyarrow", "cardbatch.batch", "dask")), f"{path}:{node.lineno} imports {n}"


def _user_texts() -> list[Path]:
    """What a user of the package reads: the README, the docs site and every module of the package
    (docstrings, help texts and messages)."""
    docs = sorted((ROOT / "docs").rglob("*.md")) if (ROOT / "docs").is_dir() else []  # not in every sdist
    return [ROOT / "README.md", *docs, *MODULES.values()]


def test_the_docs_stand_alone():
    """Users have neither the contract this project was built from nor its seeds: every rule is in
    the docs, in the project's own words, and nothing points outside them."""
    for path in _user_texts():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for word in ("shared/", "SPEC §", "SPEC.md", "issue #"):
                assert word not in line, f"{path.relative_to(ROOT)}:{n} points outside the docs: {line.strip()}"


def test_the_link_tree_has_the_installed_shape():
    """src/cardbatch is the tree static tools read (docs reference, editors): the installed package's
    shape, as links to the repository's folders."""
    tree = ROOT / "src" / "cardbatch"
    if not tree.exists():  # an sdist carries the folders, not the links
        pytest.skip("no src/ link tree here")
    for module in sorted((ROOT / "package").glob("*.py")):
        assert (tree / module.name).resolve() == module.resolve(), f"src/cardbatch/{module.name}: no link"
    for folder, package in FOLDERS.items():
        if folder != "package":
            assert (tree / package.split(".")[1]).resolve() == (ROOT / folder).resolve()


def test_every_package_says_what_lives_there():
    for name, path in MODULES.items():
        if path.name == "__init__.py" and name != "cardbatch":
            doc = ast.get_docstring(ast.parse(path.read_text()))
            assert doc and len(doc) > 40, f"{path.relative_to(ROOT)}: no docstring saying what lives here"


JOBS = ("settle", "phh", "simulate", "generate", "rank_decks")


@pytest.mark.parametrize("job", JOBS)
def test_a_job_imports_only_io_and_itself(job):
    """Jobs share code through ``batch.io`` (and the kernels), never through each other (the package
    itself is allowed: the manifest fingerprints its sources)."""
    own = f"cardbatch.batch.{job}"
    for name, path in MODULES.items():
        if name != own and not name.startswith(own + "."):
            continue
        for module, _, line in _imports(name, path):
            if module.startswith("cardbatch.batch"):
                ok = module in (own, "cardbatch.batch") or module.startswith((own + ".", "cardbatch.batch.io"))
                assert ok, f"{path.relative_to(ROOT)}:{line} imports {module}"


def _rule_preset_constants(tree: ast.AST) -> set[int]:
    """The string constants of ``tree`` that name a three-card *rule preset* by where they stand:
    the default or keyword value of a ``rules`` parameter or field, a ``--rules`` option's default,
    an argument of ``rules_of`` and the ``RULE_PRESETS`` tuple. (``"zjh"`` names a game and a preset.)"""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            positional = a.posonlyargs + a.args
            pairs = [
                *zip(positional[len(positional) - len(a.defaults) :], a.defaults),
                *zip(a.kwonlyargs, a.kw_defaults),
            ]
            found |= {id(d) for arg, d in pairs if d is not None and arg.arg == "rules"}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "rules":
            found |= {id(node.value)} if node.value is not None else set()
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "RULE_PRESETS" for t in node.targets
        ):
            found |= {id(e) for e in getattr(node.value, "elts", [])}
        elif isinstance(node, ast.keyword) and node.arg == "rules":
            found.add(id(node.value))
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name == "rules_of":
                found |= {id(arg) for arg in node.args}
            if name == "add_argument" and any(isinstance(x, ast.Constant) and x.value == "--rules" for x in node.args):
                found |= {id(k.value) for k in node.keywords if k.arg == "default"}
    return found


# Modules whose string constants may equal a game's name, and why.
GAME_NAMES_ALLOWED = {
    "cardbatch.games": "the registry: the one place a game's name is written",
    # the rule presets' home: its "zjh" is the preset (Rules.order and .names, PRESETS), not the game
    "cardbatch.kernels.threecard": "the rule presets",
}


def test_game_names_are_written_in_the_registry_only():
    """Code that treats games differently reads their specs (cardbatch.games) instead of comparing
    names: a string constant equal to a game's name is flagged in every module but the registry and
    the allowed ones above, except where it names a rule preset (:func:`_rule_preset_constants`).
    Docstrings and messages are whole strings, so they never equal a name; tests and docs are not
    checked."""
    from cardbatch.games import GAMES
    from cardbatch.kernels.threecard import PRESETS

    flagged = []
    for name, path in MODULES.items():
        if name in GAME_NAMES_ALLOWED:
            continue
        tree = ast.parse(path.read_text(), str(path))
        presets = _rule_preset_constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in GAMES:
                if id(node) in presets and node.value in PRESETS:
                    continue
                flagged.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert not flagged, "game names outside cardbatch.games (read its specs instead):\n" + "\n".join(flagged)


def test_the_name_check_sees_what_it_should():
    """The check above flags a comparison and a table keyed by name, and lets a preset through."""
    from cardbatch.games import GAMES

    code = 'def f(game, rules="zjh"):\n    x = {"holdem": 2}\n    rules_of("zjh")\n    return game == "team2v2"\n'
    tree = ast.parse(code)
    presets = _rule_preset_constants(tree)
    names = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in GAMES]
    assert sorted(n.value for n in names if id(n) not in presets) == ["holdem", "team2v2"]


def test_every_package_folder_is_installed():
    """pyproject lists its packages one by one: a new folder left out is missing from every install."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    for folder, package in (("kernels", "cardbatch.kernels"), ("batch", "cardbatch.batch")):
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            name = ".".join((package, *rel))
            assert name in listed, f"{init.parent.relative_to(ROOT)}: add {name} to pyproject's packages"


ANALYSES = ("audit", "equity", "fairness", "by_player")
# the analyses' own modules, and the registry that lists them
ANALYSIS_HOMES = (
    "cardbatch.batch.settle.analysis",
    "cardbatch.batch.settle.audit",
    "cardbatch.batch.settle.equity",
    "cardbatch.batch.settle.fairness",
)


def test_no_settle_module_outside_an_analysis_names_one():
    """The settle pipeline calls its analyses through one interface (batch/settle/analysis.py):
    no other module of batch/settle names one in its code (a name, an attribute, an argument, an
    import or a string), so adding an analysis is its module and its registration."""
    for name, path in MODULES.items():
        if not name.startswith("cardbatch.batch.settle.") or name.startswith(ANALYSIS_HOMES):
            continue
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            words: list[str] = []
            if isinstance(node, ast.Name):
                words = [node.id]
            elif isinstance(node, ast.Attribute):
                words = [node.attr]
            elif isinstance(node, ast.arg):
                words = [node.arg]
            elif isinstance(node, ast.keyword) and node.arg:
                words = [node.arg]
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                words = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                words = [node.value]
            for word in words:
                named = [a for a in ANALYSES if a in word.lower()]
                assert not named, f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')} names {named[0]}"


# Modules that may start processes or a Dask cluster of their own, and why: every job's units run on
# the one engine interface, so Ctrl-C, SIGTERM, warm-up and --engine/--workers/--scheduler mean the
# same everywhere.
POOLS_ALLOWED = {
    "cardbatch.batch.io.engines": "the engines themselves",
    "cardbatch.batch.io.lifecycle": "the process pool the local engine runs",
    "cardbatch.batch.settle.warmup": "compiling ahead in two processes, before any unit runs",
    "cardbatch.batch.precompile": "cardbatch compile: compiling, no units",
}


def test_no_job_starts_workers_of_its_own():
    starters = {"process_pool", "ProcessPoolExecutor", "LocalCluster", "Client", "Pool", "Process"}
    for name, path in MODULES.items():
        if name in POOLS_ALLOWED:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                assert called not in starters, (
                    f"{path.relative_to(ROOT)}:{node.lineno} starts {called}: run units on batch.io.engines instead"
                )
