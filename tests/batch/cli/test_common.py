"""What every command shares (batch/cli/common.py) beyond its vocabulary (test_vocabulary.py): how an
internal error is said."""

from __future__ import annotations


def test_an_internal_error_speaks_of_parts_only_for_settle_and_audit(capsys):
    """Row 9: ``cardbatch compile`` failing said "Finished parts are kept: a rerun resumes"."""
    from cardbatch.batch.cli.common import internal_error

    assert internal_error("compile", RuntimeError("boom")) == 1
    assert "parts" not in capsys.readouterr().err
    internal_error("settle", RuntimeError("boom"))
    assert "Finished parts are kept" in capsys.readouterr().err
