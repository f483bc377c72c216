"""Each transformation of the generator's output, by its golden case (code in, code out), and
the build step on schemas whose names and strings are spelled like the code it writes."""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from codegen.__main__ import main
from codegen.passes._source import Edit, apply, span
from codegen.passes.json_ints import constrained_json_ints
from codegen.passes.json_scalars import json_scalars
from codegen.passes.optional_constraints import constraints_inside_optional
from codegen.passes.rule_validators import rule_validators

D7 = "http://json-schema.org/draft-07/schema#"


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# -- golden cases ------------------------------------------------------------------------------


def test_json_scalars_swaps_only_the_types_never_strings_or_field_names() -> None:
    before = code('''
        from __future__ import annotations

        from typing import Literal

        from pydantic import AwareDatetime, StrictInt


        class M(JsonModel):
            """StrictInt in a docstring stays."""

            StrictInt: StrictInt
            at: AwareDatetime | None = Field(None, pattern="StrictInt|AwareDatetime")
            one: Literal[1, -2]
            word: Literal["StrictInt", "Literal[1]"]
    ''')
    after = code('''
        from __future__ import annotations
        from agentruns_generated._json import JsonDateTime
        from agentruns_generated._json import JsonInt
        from agentruns_generated._json import NotBoolean
        from typing import Annotated

        from typing import Literal

        from pydantic import AwareDatetime, StrictInt


        class M(JsonModel):
            """StrictInt in a docstring stays."""

            StrictInt: JsonInt
            at: JsonDateTime | None = Field(None, pattern="StrictInt|AwareDatetime")
            one: Annotated[Literal[1, -2], NotBoolean]
            word: Literal["StrictInt", "Literal[1]"]
    ''')
    assert json_scalars(before) == after


def test_json_scalars_keeps_strict_int_for_draft_04_integers() -> None:
    before = code("""
        from __future__ import annotations

        from pydantic import AwareDatetime, StrictInt


        class M(JsonModel):
            n: StrictInt
            at: AwareDatetime
    """)
    after = code("""
        from __future__ import annotations
        from agentruns_generated._json import JsonDateTime

        from pydantic import AwareDatetime, StrictInt


        class M(JsonModel):
            n: StrictInt
            at: JsonDateTime
    """)
    assert json_scalars(before, keep_strict_int=True) == after


def test_json_scalars_follows_an_aliased_import_and_avoids_taken_names() -> None:
    before = code("""
        from __future__ import annotations

        from pydantic import StrictInt as StrictInt_aliased


        class M(JsonModel):
            JsonInt: StrictInt_aliased
    """)
    after = code("""
        from __future__ import annotations
        from agentruns_generated._json import JsonInt as JsonInt_aliased

        from pydantic import StrictInt as StrictInt_aliased


        class M(JsonModel):
            JsonInt: JsonInt_aliased
    """)
    assert json_scalars(before) == after


def test_constraints_move_inside_the_optional_and_non_ascii_names_keep_their_place() -> None:
    before = code("""
        from __future__ import annotations

        from typing import Annotated

        from pydantic import Field


        class M(JsonModel):
            é_ü: Annotated[JsonInt | MISSING, Field(ge=2)] = MISSING
            b: Annotated[StrictStr | None, Field(min_length=1)] = None
    """)
    after = code("""
        from __future__ import annotations

        from typing import Annotated

        from pydantic import Field


        class M(JsonModel):
            é_ü: Annotated[JsonInt, Field(ge=2)] | MISSING = MISSING
            b: Annotated[StrictStr, Field(min_length=1)] | None = None
    """)
    assert constraints_inside_optional(before) == after


def test_constraints_stay_where_the_names_are_not_typing_and_pydantic_ones() -> None:
    unrelated = code("""
        from __future__ import annotations


        class M(JsonModel):
            b: Annotated[StrictStr | None, Field(min_length=1)] = None
    """)
    assert constraints_inside_optional(unrelated) == unrelated


def test_constrained_json_ints_apply_the_constraint_to_the_int() -> None:
    before = code("""
        from __future__ import annotations

        from typing import Annotated

        from agentruns_generated._json import JsonInt


        class M(JsonModel):
            n: Annotated[JsonInt, Field(ge=0)]
    """)
    after = code("""
        from __future__ import annotations
        from agentruns_generated._json import IntegralFloat
        from pydantic import StrictInt

        from typing import Annotated

        from agentruns_generated._json import JsonInt


        class M(JsonModel):
            n: Annotated[StrictInt, Field(ge=0), IntegralFloat]
    """)
    assert constrained_json_ints(before) == after


def test_rule_validators_are_added_to_models_with_published_rules_only() -> None:
    before = code("""
        from __future__ import annotations


        class A(JsonModel):
            model_config = ConfigDict(json_schema_extra={"allOf": [{"not": {}}]})
            é: int


        class B(JsonModel):
            x: int
    """)
    after = code('''
        from __future__ import annotations
        from agentruns_generated._json import check_rules


        class A(JsonModel):
            model_config = ConfigDict(json_schema_extra={"allOf": [{"not": {}}]})
            é: int

            def model_post_init(self, context: object, /) -> None:
                """Enforce the schema rules in this model's ``allOf`` (``not``,
                if/then/else) once, when the model is made (from data or in code): a
                model passed as it is into a parent is not checked again, and no
                validator sees its input as Python data first (pydantic would convert
                a JSON input to Python objects for a wrap validator at every level)."""
                check_rules(self)


        class B(JsonModel):
            x: int
    ''')
    assert rule_validators(before) == after


# -- the build step on names spelled like its own code --------------------------------------------


def build(tmp_path: Path, schema: dict[str, Any], name: str = "subject") -> ModuleType:
    path = tmp_path / f"{name}.schema.json"
    path.write_text(json.dumps(schema, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / f"{name}_models.py"
    assert main(["model", str(path), "--out", str(out), "--class-name", "Subject"]) == 0
    spec = importlib.util.spec_from_file_location(f"{name}_models", out)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_names_and_strings_spelled_like_generated_code_keep_their_meaning(
    tmp_path: Path,
) -> None:
    module = build(
        tmp_path,
        {
            "$schema": D7,
            "type": "object",
            "properties": {
                "StrictInt": {"type": "integer"},
                "AwareDatetime": {"type": "string", "format": "date-time"},
                "pat": {"type": "string", "pattern": "^StrictInt|AwareDatetime$"},
                "word": {"enum": ["StrictInt", "Literal[1]"]},
                "é": {"type": "integer", "minimum": 2},
            },
            "additionalProperties": False,
        },
    )
    model = module.Subject
    accepted = model.model_validate(
        {"StrictInt": 5.0, "pat": "StrictInt", "word": "Literal[1]", "é": 3}
    )
    assert accepted.model_dump(by_alias=True, exclude_unset=True)["StrictInt"] == 5
    for bad in ({"StrictInt": True}, {"pat": "JsonInt"}, {"word": "JsonInt"}, {"é": 1}):
        with pytest.raises(ValidationError):
            model.model_validate(bad)
    with pytest.raises(ValidationError):
        model.model_validate({"AwareDatetime": "2020-01-01 00:00:00Z"})


@pytest.mark.parametrize(("folded", "plain"), [("ﬁle", "file"), ("\u212a", "K")])
def test_names_python_folds_together_stay_two_properties(
    folded: str, plain: str, tmp_path: Path
) -> None:
    module = build(
        tmp_path,
        {
            "$schema": D7,
            "type": "object",
            "properties": {folded: {"type": "string"}, plain: {"type": "integer"}},
            "additionalProperties": False,
        },
        name=f"fold{ord(folded[0])}",
    )
    model = module.Subject
    both = model.model_validate({folded: "x", plain: 3})
    assert both.model_dump(by_alias=True) == {folded: "x", plain: 3}
    with pytest.raises(ValidationError):
        model.model_validate({folded: 3})


@pytest.mark.parametrize("name", ["Config", "model_config", "model_fields", "schema"])
def test_a_property_named_like_pydantics_own_names_is_a_field_of_its_own(
    name: str, tmp_path: Path
) -> None:
    """pydantic refuses a field named ``Config`` (its version-1 settings class): SchemaStore's
    noodl schema could not be imported. Such a property keeps its name as the alias."""
    module = build(
        tmp_path,
        {
            "$schema": D7,
            "type": "object",
            "properties": {name: {"type": "integer"}, "other": {"type": "string"}},
            "additionalProperties": False,
        },
        name=f"pydantic_name_{name.lower()}",
    )
    model = module.Subject
    both = model.model_validate({name: 3, "other": "x"})
    assert both.model_dump(by_alias=True, exclude_unset=True) == {name: 3, "other": "x"}
    with pytest.raises(ValidationError):
        model.model_validate({name: "3"})


def test_field_literals_name_each_models_fields_and_its_string_vocabularies() -> None:
    from codegen.passes.field_literals import field_literals

    before = code("""
        from __future__ import annotations

        from typing import Literal


        class Step(JsonModel):
            model_config = ConfigDict(extra="allow")
            type: Literal["thought", "tool_call"]
            name: StrictStr | MISSING = MISSING
    """)
    after = code('''
        from __future__ import annotations

        from typing import Literal


        class Step(JsonModel):
            model_config = ConfigDict(extra="allow")
            type: Literal["thought", "tool_call"]
            name: StrictStr | MISSING = MISSING


        StepField = Literal['type', 'name']
        """The fields of ``Step``, for mappers to declare what they do with each."""


        StepType = Literal['thought', 'tool_call']
        """The words ``Step.type`` takes, for mappers to narrow to."""
    ''')
    assert field_literals(before) == after


def test_field_docs_list_each_models_fields_in_its_docstring() -> None:
    from codegen.passes.field_docs import field_docs

    before = code('''
        class Step(JsonModel):
            """
            One step of a run.
            """

            model_config = ConfigDict(extra="allow")
            type: Literal["thought", "tool_call"]
            """
            What the step is.
            More lines stay in the field's own docstring.
            """
            name: Annotated[StrictStr, Field(min_length=1)] | MISSING = MISSING
            note: StrictStr | MISSING | None = MISSING


        class Empty(JsonModel):
            count: StrictInt
    ''')
    after = code('''
        class Step(JsonModel):
            """
            One step of a run.

            Fields:
                type (required): Literal['thought', 'tool_call'] -- What the step is.
                name (optional): str
                note (optional, or null): str
            """

            model_config = ConfigDict(extra="allow")
            type: Literal["thought", "tool_call"]
            """
            What the step is.
            More lines stay in the field's own docstring.
            """
            name: Annotated[StrictStr, Field(min_length=1)] | MISSING = MISSING
            note: StrictStr | MISSING | None = MISSING


        class Empty(JsonModel):
            """
            Fields:
                count (required): int
            """

            count: StrictInt
    ''')
    assert field_docs(before) == after


def test_deferred_build_leaves_out_the_generators_model_rebuild_calls() -> None:
    from codegen.passes.deferred_build import deferred_build

    before = code("""
        class Trajectory(JsonModel):
            subagents: list[Trajectory] | MISSING = MISSING


        Trajectory.model_rebuild()
        Trajectory.model_rebuild(force=True)
    """)
    after = code("""
        class Trajectory(JsonModel):
            subagents: list[Trajectory] | MISSING = MISSING


        Trajectory.model_rebuild(force=True)
    """)
    assert deferred_build(before) == after


def test_a_model_with_a_forward_reference_is_built_on_first_use_not_at_import() -> None:
    import subprocess
    import sys

    script = (
        "import agentruns_generated.atif as a\n"
        "assert not a.AtifTrajectory.__pydantic_complete__\n"
        "doc = {'schema_version': 'ATIF-v1.6', 'agent': {'name': 'a', 'version': '1'},"
        " 'steps': [], 'subagent_trajectories': [{'schema_version': 'ATIF-v1.6',"
        " 'trajectory_id': 't', 'agent': {'name': 'a', 'version': '1'}, 'steps': []}]}\n"
        "record = a.AtifTrajectory.model_validate(doc)\n"
        "assert type(record.subagent_trajectories[0]) is a.AtifTrajectory\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_field_descriptions_give_each_documented_field_its_docstring_as_description() -> None:
    import ast

    from codegen.passes.field_descriptions import field_descriptions

    before = code('''
        from pydantic import Field


        class Step(JsonModel):
            type: Literal["thought", "tool_call"]
            """
            What the step is.
              Indented lines keep their indent.
            """
            name: Annotated[StrictStr, Field(min_length=1)] | MISSING = MISSING
            """The tool's name."""
            note: StrictStr | MISSING = MISSING
    ''')
    described = ast.parse(field_descriptions(before))
    step = described.body[1]
    assert isinstance(step, ast.ClassDef)
    defaults = {
        statement.target.id: statement.value and ast.unparse(statement.value)
        for statement in step.body
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
    }
    assert defaults == {
        "type": "Field(description='What the step is.\\n  Indented lines keep their indent.')",
        "name": 'Field(MISSING, description="The tool\'s name.")',
        "note": "MISSING",
    }
    assert ast.get_docstring(step) is None  # the docstrings under the fields stay
    assert sum(isinstance(s, ast.Expr) for s in step.body) == 2


def test_field_descriptions_import_field_when_the_module_does_not() -> None:
    from codegen.passes.field_descriptions import field_descriptions

    before = code('''
        from pydantic import MISSING


        class Step(JsonModel):
            note: StrictStr | MISSING = MISSING
            """A note."""
    ''')
    described = field_descriptions(before)
    assert "from pydantic import Field as _DescribedField\n" in described
    assert "= _DescribedField(MISSING, description='A note.')" in described


# -- the source editor the passes share ---------------------------------------------------------


def _splice_one_by_one(code: str, edits: list[Edit]) -> str:
    """The editor as first written, kept as the oracle: each edit spliced into the whole
    module, the last first."""
    data = code.encode("utf-8")
    for edit in sorted(edits, reverse=True):
        data = data[: edit.start] + edit.text.encode("utf-8") + data[edit.end :]
    return data.decode("utf-8")


@st.composite
def _code_and_edits(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    code = draw(st.text(alphabet="ab\nä€\U0001f600", max_size=40))
    size = len(code.encode("utf-8"))
    bounds = sorted(draw(st.lists(st.integers(0, size), max_size=8)))
    # character boundaries only (a span of a node never cuts a character)
    cuts = {len(code[:i].encode("utf-8")) for i in range(len(code) + 1)}
    bounds = [b for b in bounds if b in cuts]
    edits = [
        Edit(start, end, draw(st.text(alphabet="xé\n", max_size=3)))
        for start, end in zip(bounds[::2], bounds[1::2], strict=False)
    ]
    return code, edits


@given(_code_and_edits())
def test_edits_apply_as_if_spliced_one_by_one(case: tuple[str, list[Edit]]) -> None:
    code, edits = case
    assert apply(code, edits) == _splice_one_by_one(code, edits)


def test_overlapping_edits_are_refused() -> None:
    with pytest.raises(ValueError, match="overlapping edits"):
        apply("abcdef", [Edit(0, 3, "x"), Edit(2, 4, "y")])


def test_a_node_span_counts_utf8_bytes_on_every_line() -> None:
    source = 'a = "ä"\nb = "€€"\n'
    node = ast.parse(source).body[1]
    assert isinstance(node, ast.Assign)
    start, end = span(source, node.value)
    assert source.encode("utf-8")[start:end].decode("utf-8") == '"€€"'
