"""Mappers that cannot miss a field: every field of every generated model is declared by its
format's reader, and a field no reader knows is reported lost, never dropped in silence."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import MISSING, BaseModel

from agentruns import AgentRun, CortexRunJournal, LossError, PortableRunRecord, convert
from agentruns._coverage import reachable_models
from agentruns.conversion import WHOLE, Format, _skipped, format_for, register
from agentruns.formats.portable import PORTABLE, PortableFormat
from codegen.__main__ import main
from tests._fields import takes
from tests._load import load_module

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
ROOTS: list[type[BaseModel]] = [PortableRunRecord, CortexRunJournal, AgentRun]


@pytest.mark.parametrize("root", ROOTS, ids=lambda m: m.__name__)
def test_every_field_of_every_model_has_a_crosswalk_row(root: type[BaseModel]) -> None:
    fmt = format_for(root)
    mapper = type(fmt).__module__
    missing = []
    whole = {name for name, declared in fmt.coverage.items() if declared == WHOLE}
    for model in sorted(reachable_models(root, whole), key=lambda m: m.__name__):
        declared = fmt.coverage.get(model.__name__)
        if declared is None:
            missing.append(f"{model.__name__} (every field): add a table for it in {mapper}")
            continue
        if declared == WHOLE:
            continue
        for field in model.model_fields:
            if field not in declared:
                missing.append(f"{model.__name__}.{field}: add a row for it in {mapper}")
        for field in declared:
            assert field in model.model_fields, f"{mapper} declares {model.__name__}.{field}"
    assert missing == [], "fields no crosswalk row reads:\n" + "\n".join(missing)


@pytest.mark.parametrize("root", ROOTS, ids=lambda m: m.__name__)
def test_a_complete_declaration_costs_a_conversion_nothing(root: type[BaseModel]) -> None:
    fmt = format_for(root)
    declared_lost = {
        name: {field for field, use in declared.items() if use == "lost"}
        for name, declared in fmt.coverage.items()
        if declared != WHOLE
    }
    skipped = _skipped(type(fmt))
    if not any(declared_lost.values()):
        assert skipped == {}  # no walk over the record at all
    for model, unread in skipped.items():  # else the walk looks for the lost fields only
        if unread is not None:  # None: a model read whole, not walked into
            assert unread == frozenset(declared_lost.get(model.__name__, set()))


def _regenerated_portable(tmp_path: Path) -> type[BaseModel]:
    """The portable model generated from a copy of its schema with one new optional field,
    as a maintainer gets it after `python -m codegen generate` on a newer upstream schema."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "schemas", tree / "schemas")
    shutil.copytree(ROOT / "generated", tree / "generated")
    path = tree / "schemas" / "portable-run-record.schema.json"
    schema = json.loads(path.read_text())
    schema["properties"]["harness_build"] = {"type": "string", "description": "new upstream"}
    path.write_text(json.dumps(schema))
    out = tree / "generated"
    assert main(["generate", "--schemas", str(tree / "schemas"), "--out", str(out)]) == 0
    module = load_module(out / "agentruns_generated" / "portable.py", "regenerated_portable")
    model: type[BaseModel] = module.PortableRunRecord
    return model


# the installed reader reads the regenerated conversation with the installed models
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
def test_a_new_upstream_field_is_reported_lost_until_a_mapper_reads_it(tmp_path: Path) -> None:
    regenerated = _regenerated_portable(tmp_path)
    model = regenerated

    class NewerPortable(PortableFormat):
        name: ClassVar[str] = "portable"
        model = regenerated  # type: ignore[assignment]

    register(NewerPortable())
    try:
        _check_newer(model)
    finally:
        register(PORTABLE)  # the installed portable format again, by model and by name


def _check_newer(model: type[BaseModel]) -> None:
    document: dict[str, Any] = json.loads((FIXTURES / "portable.min.json").read_text())
    with_field = model.model_validate({**document, "harness_build": "b-1"})
    result = convert(with_field, AgentRun)
    assert [(loss.pointer, loss.reason) for loss in result.losses] == [
        ("/harness_build", "the portable reader does not read harness_build")
    ]
    with pytest.raises(LossError, match="harness_build"):
        convert(with_field, CortexRunJournal, strict=True)
    without = model.model_validate(document)
    assert convert(without, AgentRun).losses == ()


def test_a_field_declared_lost_is_reported_where_the_record_has_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    coverage = dict(PortableFormat.coverage)
    tools = dict(coverage["ToolInvocation"])  # type: ignore[arg-type]
    tools["result"] = "lost"
    coverage["ToolInvocation"] = tools

    class LossyPortable(PortableFormat):
        pass

    monkeypatch.setattr(LossyPortable, "coverage", coverage)
    record = PortableRunRecord.model_validate_json((FIXTURES / "portable.min.json").read_text())
    from agentruns.conversion import unread_fields

    losses = unread_fields(LossyPortable(), record)
    with_result = [
        i for i, call in enumerate(record.tool_invocations) if "result" in call.model_fields_set
    ]
    assert [loss.pointer for loss in losses] == [
        f"/tool_invocations/{i}/result" for i in with_result
    ]
    assert with_result


def test_mapper_declarations_are_typed_by_the_generated_field_literals() -> None:
    from typing import get_args

    from agentruns.models import PortableRunRecordField

    assert set(get_args(PortableRunRecordField)) == set(PortableRunRecord.model_fields)


def test_format_declarations_are_complete_for_registered_formats() -> None:
    registered: list[Format[Any]] = [format_for(root) for root in ROOTS]
    assert all(fmt.coverage for fmt in registered)


def test_the_generated_format_table_is_what_the_package_registers() -> None:
    from agentruns.conversion import models_by_name
    from agentruns.schemas import schema_text
    from agentruns_generated import FORMATS

    registered = models_by_name()
    for name, generated in FORMATS.items():
        assert registered[name] is generated.model
        assert schema_text(name, source=True).startswith("{")
        assert generated.version


def test_coverage_is_exactly_what_the_rows_read() -> None:
    for root in ROOTS:
        fmt = format_for(root)
        table = fmt.crosswalk
        assert table is not None
        for part in table.tables():
            declared = fmt.coverage[part.model.__name__]
            assert declared != WHOLE
            assert set(declared) == {row.field for row in part.rows}


def test_a_row_that_drops_its_value_is_caught_by_the_round_trip_check() -> None:
    """The rows are the reader, so a field cannot be declared read and not be read; a row
    whose conversion drops the value shows up as an unreported difference."""
    from agentruns.crosswalk import Crosswalk
    from agentruns.formats.cortex import JOURNAL, CortexFormat
    from agentruns.models import CortexRunJournal as Journal
    from tests.test_conversion_properties import covered, differences

    # the first string field the table keeps as it is (named by the table, not by hand: the
    # test holds whatever fields a newer schema gives the journal)
    row = next(row for row in JOURNAL.rows if row.as_it_is and takes(Journal, row.field, "main"))
    field, target = row.field, str(row.target)
    broken = Crosswalk(Journal, JOURNAL.canonical)
    broken.rows = [kept_row for kept_row in JOURNAL.rows if kept_row is not row]
    broken.convert(
        broken.field(lambda r: getattr(r, field)),
        broken.to(lambda run: getattr(run, target)),
        lambda _: MISSING,  # the bug: the value is not read
        lambda value, _: value,
    )

    class Broken(CortexFormat):
        crosswalk = broken

    register(Broken())
    try:
        document = json.loads((FIXTURES / "cortex.min.json").read_text())
        record = Journal.model_validate({**document, JOURNAL.wire(field): "main"})
        there = convert(record, AgentRun)
        back = convert(there.target, Journal)
        original = json.loads(record.model_dump_json())
        returned = json.loads(back.target.model_dump_json())
        lost = {loss.pointer for loss in there.losses}
        unreported = [p for p in differences(original, returned) if not covered(p, lost)]
        assert unreported == [f"/{row.wire}"]
    finally:
        from agentruns.formats.cortex import CORTEX

        register(CORTEX)
