"""One error tree: what a library user of agentruns can be given, and what it says."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

import agentruns.errors as errors
from agentruns import AgentRun, AgentrunsError, CortexRunJournal, Run, convert, from_canonical
from agentruns.batch import convert_lines, validate_lines
from agentruns.conversion import format_for, format_named
from agentruns.errors import ConversionError, FormatError, MissingDependency
from agentruns.schemas import schema_text

FIXTURES = Path(__file__).parent / "fixtures"


def _cortex() -> CortexRunJournal:
    return CortexRunJournal.model_validate_json((FIXTURES / "cortex.min.json").read_bytes())


@pytest.mark.parametrize("name", errors.__all__)
def test_every_error_has_one_root(name: str) -> None:
    error = getattr(errors, name)
    assert inspect.isclass(error)
    assert issubclass(error, AgentrunsError)


def test_the_errors_agentruns_raised_before_keep_their_builtin_bases() -> None:
    assert issubclass(errors.LossError, ValueError)
    assert issubclass(errors.TranscriptError, ValueError)
    assert issubclass(errors.RecordError, ValueError)
    assert issubclass(errors.FormatError, TypeError)  # format_for raised TypeError
    assert issubclass(MissingDependency, ImportError)


def test_optional_dependencies_missing_are_one_kind_of_error() -> None:
    from agentruns._compression import MissingCodec
    from agentruns.tables import MissingPyarrow

    assert issubclass(MissingPyarrow, MissingDependency)
    assert issubclass(MissingCodec, MissingDependency)


def test_a_format_can_be_named_where_a_model_can_be_given() -> None:
    by_name = convert(_cortex(), "agentrun")
    assert isinstance(by_name.target, AgentRun)
    assert by_name.target == convert(_cortex(), AgentRun).target


def test_an_unknown_format_name_is_a_format_error_naming_the_known_ones() -> None:
    with pytest.raises(FormatError, match="known: agentrun, atif, cortex, portable"):
        convert(_cortex(), "nope")
    with pytest.raises(FormatError):
        format_named("nope")


def test_a_model_of_no_format_is_a_format_error() -> None:
    with pytest.raises(FormatError, match="int"):
        format_for(int)  # type: ignore[type-var]
    with pytest.raises(FormatError):
        convert(Run(), AgentRun)  # type: ignore[call-overload]


def test_a_run_the_target_cannot_hold_is_a_conversion_error_not_a_key_error() -> None:
    adapter_run = Run(run_id="r", status="paused")  # type: ignore[arg-type]  # an adapter's word
    with pytest.raises(ConversionError, match="writing agentrun failed"):
        from_canonical(adapter_run, AgentRun)


def test_a_bad_format_name_is_refused_before_any_record_is_read() -> None:
    line = json.dumps(json.loads((FIXTURES / "cortex.min.json").read_text())).encode()
    with pytest.raises(FormatError):
        convert_lines([line], to="nope")
    with pytest.raises(FormatError):
        convert_lines([line], to="agentrun", source="nope")
    with pytest.raises(FormatError):
        validate_lines([line], fmt="nope")


def test_the_schema_of_an_unknown_format_is_a_format_error() -> None:
    with pytest.raises(FormatError):
        schema_text("nope")


def test_a_plugin_format_has_its_models_schema() -> None:
    from typing import ClassVar

    from pydantic import BaseModel

    from agentruns.conversion import Format, register
    from agentruns.crosswalk import Crosswalk, kept, required
    from agentruns.derivations import derive_run_id

    class Mini(BaseModel):
        id: str

    table = Crosswalk(Mini, Run)
    table.convert(
        table.field(lambda r: r.id), table.to(lambda run: run.run_id), kept, required(derive_run_id)
    )

    class MiniFormat(Format[Mini]):
        name: ClassVar[str] = "mini"
        model = Mini
        crosswalk = table

    register(MiniFormat())
    try:
        assert json.loads(schema_text("mini"))["properties"] == {
            "id": {"title": "Id", "type": "string"}
        }
    finally:
        from agentruns.conversion import _BY_NAME, _REGISTRY

        del _REGISTRY[Mini], _BY_NAME["mini"]
