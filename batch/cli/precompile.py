"""``cardbatch compile``: fill numba's cache ahead of any run (the job: :mod:`cardbatch.batch.precompile`)."""

from __future__ import annotations

import argparse

from cardbatch.batch.cli.common import add_run_options, add_subcommand, options_from, refuse, show, usage


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_subcommand(
        sub,
        "compile",
        "compile every kernel into numba's cache, ahead of any run (a Dockerfile's build step)",
        "Compile every kernel the jobs use (generate, settle's serial and parallel builds, rank-decks, "
        "simulate) into numba's cache, so that no later run compiles: about two minutes on two cores from "
        "an empty cache, with a line on stderr as each step finishes. Set NUMBA_CACHE_DIR to the folder "
        "the runs will use (a read-only install needs a writable one): a cache that cannot be written is "
        "refused with exit 2 before anything compiles.",
    )
    add_run_options(p, "processes compiling side by side (default: 2)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from cardbatch.batch.io.jobs import RunOptions
    from cardbatch.batch.precompile import CacheNotWritable, CompileOptions, run

    with usage():
        opts = CompileOptions(options_from(RunOptions, args))
    try:
        summary = run(opts)
    except CacheNotWritable as exc:
        return refuse("compile", str(exc))
    return show(summary, args.quiet)
