"""``agentruns.pipeline``: the commands' loop (``run``) and outputs, for services to call."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from agentruns._output import Output
from agentruns.batch import Batch, Outcome, convert_document, validate_document
from agentruns.errors import OutputError
from agentruns.io import Raw
from agentruns.pipeline import Outputs, run

FIXTURES = Path(__file__).parent / "fixtures"


def _mixed(tmp_path: Path) -> Path:
    good = json.dumps(json.loads((FIXTURES / "cortex.min.json").read_text()))
    path = tmp_path / "in.jsonl"
    path.write_text(f"{good}\n{{\n{good}\n", encoding="utf-8")
    return path


def test_run_gives_each_outcome_in_order_to_accepted_or_rejected(tmp_path: Path) -> None:
    path = _mixed(tmp_path)
    seen: list[tuple[str, int]] = []

    def note(kind: str, raw: Raw, outcome: Outcome) -> None:
        seen.append((kind, raw.line))

    tally = run(
        Batch(validate_document, [str(path)]),
        accepted=partial(note, "accepted"),
        rejected=partial(note, "rejected"),
    )
    assert seen == [("accepted", 1), ("rejected", 2), ("accepted", 3)]
    assert (tally.records, tally.accepted, tally.rejected) == (3, 2, 1)


def test_outputs_refuse_an_output_that_is_an_input_before_anything_is_written(
    tmp_path: Path,
) -> None:
    path = _mixed(tmp_path)
    before = path.read_bytes()
    with pytest.raises(OutputError, match="same file"):
        Outputs([str(path)], {"-o": str(path)})
    assert path.read_bytes() == before


def test_outputs_appear_only_when_committed(tmp_path: Path) -> None:
    path, out = _mixed(tmp_path), tmp_path / "out.jsonl"
    out.write_bytes(b"previous\n")
    with Outputs([str(path)], {"-o": str(out), "--rejects": None}) as outputs:
        writer = outputs.open("-o")
        assert outputs.open("--rejects") is None
        assert writer is not None
        run(
            Batch(partial(convert_document, to="agentrun"), [str(path)]),
            accepted=lambda raw, outcome: writer.write(outcome.output or b""),
        )
        assert out.read_bytes() == b"previous\n"
        outputs.commit()
    assert len(out.read_bytes().splitlines()) == 2


def test_an_exception_before_the_commit_leaves_the_previous_file(tmp_path: Path) -> None:
    path, out = _mixed(tmp_path), tmp_path / "out.jsonl"
    out.write_bytes(b"previous\n")

    def half_then_fail() -> None:
        with Outputs([str(path)], {"-o": str(out)}) as outputs:
            writer = outputs.open("-o")
            assert writer is not None
            writer.write(b"half\n")
            raise RuntimeError("stopped")

    with pytest.raises(RuntimeError):
        half_then_fail()
    assert out.read_bytes() == b"previous\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_a_commit_that_fails_names_the_file_and_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, out = _mixed(tmp_path), tmp_path / "out.jsonl"

    def full(self: Output) -> None:
        self.abort()
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Output, "commit", full)

    def write_then_commit() -> None:
        with Outputs([str(path)], {"-o": str(out)}) as outputs:
            writer = outputs.open("-o")
            assert writer is not None
            writer.write(b"x\n")
            outputs.commit()

    with pytest.raises(OutputError, match=r"cannot write .*out\.jsonl: No space left"):
        write_then_commit()
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


class _Tables:
    """A folder output (as ``ParquetExport`` is) that records what was done with it."""

    def __init__(self, fails: bool = False) -> None:
        self.fails = fails
        self.done: list[str] = []

    def commit(self) -> None:
        self.done.append("commit")
        if self.fails:
            raise OSError(28, "No space left on device")

    def abort(self) -> None:
        self.done.append("abort")


def test_a_held_output_is_committed_in_its_turn_and_aborted_with_the_rest(
    tmp_path: Path,
) -> None:
    path, out = _mixed(tmp_path), tmp_path / "rejects.jsonl"
    tables = _Tables(fails=True)

    def commit_both() -> None:
        with Outputs([str(path)], {"-o": str(tmp_path / "tables"), "--rejects": str(out)}) as o:
            o.hold("-o", tables)
            writer = o.open("--rejects")
            assert writer is not None
            writer.write(b"{}\n")
            o.commit()

    with pytest.raises(OutputError, match=r"cannot write .*tables: No space left"):
        commit_both()
    assert tables.done == ["commit", "abort"]
    assert not out.exists()  # held first, failed first: the rejects were not committed
