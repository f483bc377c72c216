"""The build step on schemas and manifests nobody here wrote: refused cleanly where it must be,
never a traceback, never code or files where they do not belong."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from codegen.__main__ import main
from tests._load import load_module as load

ROOT = Path(__file__).resolve().parent.parent
D7 = "http://json-schema.org/draft-07/schema#"
PAYLOAD = '\n"""\'\'\'\nimport os; os.environ["AGENTRUNS_PWNED"] = "1"\n#\\\r\x0c\u2028'


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "schemas", tmp_path / "schemas")
    shutil.copytree(
        ROOT / "generated", tmp_path / "generated", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


def generate(tree: Path) -> int:
    return main(["generate", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")])


def edit_manifest(tree: Path, **changes: str) -> None:
    path = tree / "schemas" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["schemas"][0].update(changes)
    path.write_text(json.dumps(manifest))


# -- the manifest -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("name", "portable\nimport os", "is not a lower-case Python identifier"),
        ("name", "_json", "is not a lower-case Python identifier"),
        ("name", "schemas", "is reserved"),
        ("class_name", "Portable; import os", "is not a class name"),
        ("file", "../../outside.json", "must be a plain .json file name inside schemas/"),
        ("file", "/etc/passwd", "must be a plain .json file name inside schemas/"),
        ("name", "cortex", "is used by another entry"),
    ],
)
def test_a_manifest_entry_that_could_escape_is_refused_before_anything_is_written(
    key: str, value: str, said: str, tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit_manifest(tree, **{key: value})
    before = sorted(p.name for p in (tree / "generated").rglob("*"))
    assert generate(tree) == 1
    err = capsys.readouterr().err
    assert said in err
    assert "schemas/manifest.json: /schemas/" in err
    assert sorted(p.name for p in (tree / "generated").rglob("*")) == before
    assert not (tree / "outside.json").exists()


def test_a_schema_file_that_is_a_symlink_is_refused(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schemas = tree / "schemas"
    (schemas / "portable-run-record.schema.json").rename(tree / "elsewhere.json")
    (schemas / "portable-run-record.schema.json").symlink_to(tree / "elsewhere.json")
    assert generate(tree) == 1
    assert "is a symlink" in capsys.readouterr().err


# -- schema-derived text in generated code ------------------------------------------------------


def test_no_schema_text_can_run_code_when_the_module_is_imported(tmp_path: Path) -> None:
    hostile = {
        "$schema": D7,
        "type": "object",
        "title": "T" + PAYLOAD,
        "description": "D" + PAYLOAD,
        "properties": {
            "p" + PAYLOAD: {
                "type": "string",
                "description": "d" + PAYLOAD,
                "examples": ["e" + PAYLOAD],
                "default": "x" + PAYLOAD,
            },
            "e": {"enum": ["v" + PAYLOAD, "w"], "description": PAYLOAD},
            "c": {"const": "c" + PAYLOAD},
            "n": {
                "type": "object",
                "title": "I" + PAYLOAD,
                "properties": {"q": {"type": "integer"}},
            },
            "r": {"$ref": "#/definitions/D" + PAYLOAD.replace("%", "%25")},
        },
        "definitions": {"D" + PAYLOAD: {"type": "string"}},
        "additionalProperties": False,
    }
    source = tmp_path / ("evil" + PAYLOAD.replace("/", "_").replace("\\", "_") + ".json")
    source.write_text(json.dumps(hostile), encoding="utf-8")
    out = tmp_path / "evil_models.py"
    assert main(["model", str(source), "--out", str(out), "--class-name", "Evil"]) == 0
    os.environ.pop("AGENTRUNS_PWNED", None)
    module = load(out, "evil_models")
    assert "AGENTRUNS_PWNED" not in os.environ
    model = module.Evil
    # and the strings kept their meaning: the property, the enum value, the const
    record = model.model_validate({"p" + PAYLOAD: "s", "e": "v" + PAYLOAD, "c": "c" + PAYLOAD})
    assert record.model_dump(by_alias=True, exclude_unset=True)["p" + PAYLOAD] == "s"


@settings(max_examples=30, deadline=None, database=None, derandomize=True)
@given(st.text(min_size=1, max_size=12))
def test_any_file_name_stays_inside_the_header_comment(name: str) -> None:
    from codegen.driver import ModelSource, header

    text = header(ModelSource(f"schemas/{name}.json", "0" * 64, translated_from=name))
    assert all(line.startswith("#") for line in text.split("\n"))
    assert len(text.splitlines()) == len(text.split("\n"))  # no other line breaks either


# -- depth and crashes ------------------------------------------------------------------------


def test_a_schema_nested_too_deeply_is_refused_with_its_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    node = schema
    for _ in range(300):
        node["properties"]["a"] = {"type": "object", "properties": {}}
        node = node["properties"]["a"]
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(schema))
    assert main(["model", str(path), "--out", str(tmp_path / "deep.py")]) == 1
    err = capsys.readouterr().err
    assert "nests deeper than 128 levels here; refused" in err
    assert err.startswith(f"{path}: /properties/a/properties/a/")
    assert "Traceback" not in err
    assert not (tmp_path / "deep.py").exists()


def test_a_schema_too_deep_for_json_itself_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deeper.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    assert main(["model", str(path), "--out", str(tmp_path / "x.py")]) == 1
    assert "nested too deeply" in capsys.readouterr().err


# -- references ---------------------------------------------------------------------------------


def test_percent_encoded_and_array_references_resolve(tmp_path: Path) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {
            "a": {"$ref": "#/definitions/percent%25field"},
            "b": {"$ref": "#/definitions/foo%22bar"},
            "c": {"$ref": "#/definitions/x.y"},
            "d": {"$ref": "#/definitions/list/anyOf/1"},
        },
        "definitions": {
            "percent%field": {"type": "integer", "minimum": 3},
            'foo"bar': {"type": "string", "maxLength": 2},
            "x.y": {"type": "boolean"},
            "list": {"anyOf": [{"type": "string"}, {"type": "integer", "maximum": 1}]},
        },
        "additionalProperties": False,
    }
    path = tmp_path / "refs.json"
    path.write_text(json.dumps(schema))
    out = tmp_path / "refs_models.py"
    assert main(["model", str(path), "--out", str(out), "--class-name", "Refs"]) == 0
    model = load(out, "refs_models").Refs
    assert model.model_validate({"a": 3, "b": "xy", "c": True, "d": 1}).a == 3
    for bad in ({"a": 2}, {"b": "xyz"}, {"c": 1}, {"d": 2}, {"d": "s"}):
        with pytest.raises(ValueError, match="validation error"):
            model.model_validate(bad)


def test_a_rule_at_a_root_that_is_not_an_object_is_on_the_root_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = {"$schema": D7, "type": "array", "items": [{"type": "integer"}, {"type": "string"}]}
    path = tmp_path / "tuple.json"
    path.write_text(json.dumps(schema))
    assert main(["model", str(path), "--out", str(tmp_path / "t.py")]) == 0
    assert "/: warning: items: enforced by the root type" in capsys.readouterr().err
    root: Any = load(tmp_path / "t.py", "tuple_models").TupleModel  # typing.Tuple is taken
    adapter: TypeAdapter[object] = TypeAdapter(root)
    assert adapter.validate_json('[1, "a", true]') == [1, "a", True]
    with pytest.raises(ValidationError, match="schema rule"):
        adapter.validate_json('["a", 1]')


# -- JSON Structure names -------------------------------------------------------------------


def _structure(**document: Any) -> dict[str, Any]:
    return {
        "$schema": "https://json-structure.org/meta/core/v0/#",
        "$id": "https://example.com/s",
        "name": "S",
        "type": "object",
        **document,
    }


def test_namespaced_definitions_that_join_to_one_name_stay_two_types(tmp_path: Path) -> None:
    from codegen.structure import translate

    schema = _structure(
        properties={
            "p": {"type": {"$ref": "#/definitions/a/b_c"}},
            "q": {"type": {"$ref": "#/definitions/a_b/c"}},
        },
        definitions={"a": {"b_c": {"type": "string"}}, "a_b": {"c": {"type": "int32"}}},
    )
    translated = translate(schema, source="s.json").schema
    properties = translated["properties"]
    assert isinstance(properties, dict)
    assert properties["p"] != properties["q"]
    defs = translated["$defs"]
    assert isinstance(defs, dict)
    assert sorted(defs) == ["a_b_c", "a_b_c_2"]


def test_an_altname_that_collides_with_a_property_is_refused() -> None:
    from codegen.diagnostics import CodegenError
    from codegen.structure import translate

    schema = _structure(
        properties={"r": {"type": "string", "altnames": {"json": "s"}}, "s": {"type": "int32"}}
    )
    with pytest.raises(CodegenError, match="already has"):
        translate(schema, source="s.json")


# -- regular expressions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        ("(", "a group is not closed"),
        ("[a-", "a character class is not closed"),
        ("a{2,1}", "numbers out of order"),
        ("(?<=a)\\2", "backreference \\2 to a group that does not exist"),
        ("(?=a)(?<n>b)\\k<m>", "\\k<m> names no group"),
    ],
)
def test_a_pattern_that_is_no_pattern_is_refused_at_build_time(
    pattern: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"ok": {"type": "string", "pattern": "^x"}, "p": {"pattern": pattern}},
    }
    path = tmp_path / "p.json"
    path.write_text(json.dumps(schema))
    assert main(["model", str(path), "--out", str(tmp_path / "p.py")]) == 1
    err = capsys.readouterr().err
    assert f"/properties/p/pattern: error: pattern {pattern!r}: {said}" in err
    assert not (tmp_path / "p.py").exists()


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("^(?!foo)[a-z]+$", "bar", "foobar"),
        ("^(?=.*[0-9])(?=.*[a-z]).{4,}$", "ab12", "abcd"),
        ("^(\\w)\\1$", "aa", "ab"),
        ("(?<=\\$)[0-9]+", "$12", "12"),
        ("^(?<q>['\"]).*\\k<q>$", "'x'", "'x\""),
        ("^a{,2}$", "a{,2}", "aa"),  # Annex B: a brace that is no quantifier is a literal
    ],
)
def test_a_pattern_with_lookaround_or_backreferences_is_matched_by_a_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pattern: str, good: str, bad: str
) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"p": {"type": "string", "pattern": pattern}},
    }
    path = tmp_path / "look.json"
    path.write_text(json.dumps(schema))
    assert main(["model", str(path), "--out", str(tmp_path / "look.py")]) == 0
    assert "matched in a rule by backtracking" in capsys.readouterr().err
    text = (tmp_path / "look.py").read_text()
    assert "pattern=" not in text  # never a Field pattern: pydantic would switch to Python re
    model = load(tmp_path / "look.py", f"look_{abs(hash(pattern))}").Look
    assert model.model_validate({"p": good}).p == good
    with pytest.raises(ValidationError):
        model.model_validate({"p": bad})


def test_a_backtracking_pattern_past_its_budget_refuses_the_value_with_the_reason(
    tmp_path: Path,
) -> None:
    """``^(?=a)(a+)+$`` on ``aaa...b`` backtracks exponentially: the value is refused, said
    why, in bounded time (fail closed)."""
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"p": {"type": "string", "pattern": "^(?=a)(a+)+$"}},
    }
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(schema))
    assert main(["model", str(path), "--out", str(tmp_path / "evil.py")]) == 0
    model = load(tmp_path / "evil.py", "evil_lookaround").Evil
    assert model.model_validate({"p": "aaaa"}).p == "aaaa"
    started = time.monotonic()
    with pytest.raises(ValidationError, match="backtracking steps"):
        model.model_validate({"p": "a" * 40 + "b"})
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("entry", ["model_validate_json", "model_validate"])
def test_a_record_of_many_hostile_values_is_refused_within_one_budget(
    tmp_path: Path, entry: str
) -> None:
    """The searches of one validation share one budget: a thousand values that each take the
    whole of one value's budget are refused in about the time of five, with the reason; the
    next record starts with a whole budget of its own."""
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"type": "string", "pattern": "^(?=a)(a+)+$"}}
        },
    }
    path = tmp_path / "many.json"
    path.write_text(json.dumps(schema))
    assert main(["model", str(path), "--out", str(tmp_path / "many.py")]) == 0
    model = load(tmp_path / "many.py", f"many_lookaround_{entry}").Many
    hostile = {"items": ["a" * 40 + "b"] * 1000}

    def validate(document: dict[str, Any]) -> Any:
        if entry == "model_validate_json":
            return model.model_validate_json(json.dumps(document))
        return model.model_validate(document)

    started = time.monotonic()
    with pytest.raises(ValidationError, match="backtracking steps on this record"):
        validate(hostile)
    assert time.monotonic() - started < 30  # a budget per value only: minutes
    benign = {"items": ["a" * 30] * 1000}  # a few steps each: far inside the record's budget
    assert len(validate(benign).items) == 1000


def test_catastrophic_patterns_run_in_linear_time_everywhere(tmp_path: Path) -> None:
    """``^(a+)+$`` backtracks exponentially in Python's re (seconds at 26 characters); the
    models run every pattern, in types and in rules, on the linear-time engine."""
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {
            "typed": {"type": "string", "pattern": "^(a+)+$"},
            "in_rule": {"anyOf": [{"pattern": "^(a+)+$"}, {"type": "integer"}]},
            "keys": {"type": "object", "patternProperties": {"^(a+)+$": {"type": "integer"}}},
        },
    }
    path = tmp_path / "redos.json"
    path.write_text(json.dumps(schema))
    out = tmp_path / "redos_models.py"
    assert main(["model", str(path), "--out", str(out), "--class-name", "Redos"]) == 0
    assert "python-re" not in out.read_text()
    model = load(out, "redos_models").Redos
    attack = "a" * 5000 + "!"
    for document in ({"typed": attack}, {"in_rule": attack}):
        with pytest.raises(ValueError, match="validation error"):
            model.model_validate(document)
    assert model.model_validate({"keys": {attack: "not checked: the key does not match"}})


def test_a_closed_json_structure_root_accepts_schema_and_uses(tmp_path: Path) -> None:
    schema = _structure(
        properties={"a": {"type": "string"}}, required=["a"], additionalProperties=False
    )
    path = tmp_path / "closed.struct.json"
    path.write_text(json.dumps(schema))
    out = tmp_path / "closed_models.py"
    assert main(["model", str(path), "--out", str(out)]) == 0
    model = load(out, "closed_models").S  # named after the schema's `name`, not the file
    instance = {"$schema": "https://example.com/s", "$uses": ["JSONStructureUnits"], "a": "x"}
    assert model.model_validate(instance).model_dump(by_alias=True, exclude_unset=True) == (
        instance
    )
    with pytest.raises(ValueError, match="Extra inputs"):
        model.model_validate({"a": "x", "other": 1})


def test_extending_a_concrete_type_is_refused_with_the_spec_rule() -> None:
    from codegen.diagnostics import CodegenError
    from codegen.structure import translate

    schema = _structure(
        properties={"b": {"type": {"$ref": "#/definitions/B"}}},
        definitions={
            "A": {"type": "object", "properties": {"x": {"type": "string"}}},
            "B": {
                "type": "object",
                "$extends": "#/definitions/A",
                "properties": {"y": {"type": "string"}},
            },
        },
    )
    with pytest.raises(CodegenError, match="only an abstract type") as caught:
        translate(schema, source="s.json")
    assert "/definitions/B/$extends" in str(caught.value)


def test_references_that_fan_out_under_a_rule_stay_references_checked_once_each(
    tmp_path: Path,
) -> None:
    """Each definition refers twice to the next: inlined, 24 levels are 2**24 nodes, and
    evaluated without memory, 2**24 steps. The table holds each once; each is judged once."""
    definitions: dict[str, Any] = {
        f"d{i}": {
            "anyOf": [
                {"$ref": f"#/definitions/d{i + 1}"},
                {"$ref": f"#/definitions/d{i + 1}"},
                {"type": "integer", "minimum": i},
            ]
        }
        for i in range(24)
    }
    definitions["d24"] = {"type": "string"}
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"p": {"not": {"$ref": "#/definitions/d0"}}},
        "definitions": definitions,
    }
    path = tmp_path / "fan.json"
    path.write_text(json.dumps(schema))
    assert main(["model", str(path), "--out", str(tmp_path / "fan.py")]) == 0
    assert (tmp_path / "fan.py").stat().st_size < 20_000
    model = load(tmp_path / "fan.py", "fan_models").Fan
    started = time.monotonic()
    assert model.model_validate({"p": -1}).p == -1
    with pytest.raises(ValidationError):
        model.model_validate({"p": 30})
    assert time.monotonic() - started < 2


def test_references_by_id_and_anchor_resolve_inside_the_document(tmp_path: Path) -> None:
    schema = {
        "$schema": D7,
        "$id": "https://example.com/schemas/root.json",
        "type": "object",
        "properties": {
            "by_absolute_uri": {"$ref": "https://example.com/schemas/root.json#/definitions/a"},
            "by_subschema_id": {"$ref": "item.json"},
            "by_anchor": {"$ref": "#positive"},
            "inside_a_resource": {"$ref": "item.json#/properties/n"},
        },
        "additionalProperties": False,
        "definitions": {
            "a": {"type": "string", "maxLength": 2},
            "item": {
                "$id": "item.json",
                "type": "object",
                "properties": {"n": {"type": "integer", "maximum": 9}},
                "required": ["n"],
            },
            "p": {"$id": "#positive", "type": "integer", "minimum": 1},
        },
    }
    path = tmp_path / "ids.json"
    path.write_text(json.dumps(schema))
    out = tmp_path / "ids_models.py"
    assert main(["model", str(path), "--out", str(out), "--class-name", "Ids"]) == 0
    model = load(out, "ids_models").Ids
    good = {
        "by_absolute_uri": "ab",
        "by_subschema_id": {"n": 1},
        "by_anchor": 3,
        "inside_a_resource": 9,
    }
    assert model.model_validate(good)
    bads: list[dict[str, Any]] = [
        {"by_absolute_uri": "abc"},
        {"by_subschema_id": {}},
        {"by_anchor": 0},
        {"inside_a_resource": 10},
    ]
    for bad in bads:
        with pytest.raises(ValueError, match="validation error"):
            model.model_validate(bad)


_PYDANTIC_NAMES = [
    "class",
    "None",
    "copy",
    "model_dump",
    "model_validate",
    "json",
    "dict",
    "schema",
]


def test_properties_named_like_python_or_pydantic_are_written_with_their_own_names(
    tmp_path: Path,
) -> None:
    import warnings

    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {name: {"type": "integer"} for name in _PYDANTIC_NAMES},
        "additionalProperties": False,
    }
    path = tmp_path / "names.json"
    path.write_text(json.dumps(schema))
    out = tmp_path / "names_models.py"
    assert main(["model", str(path), "--out", str(out), "--class-name", "Names"]) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no protected-namespace warning at import
        model = load(out, "names_models").Names
    document = {name: number for number, name in enumerate(_PYDANTIC_NAMES)}
    record = model.model_validate_json(json.dumps(document))
    assert json.loads(record.model_dump_json()) == document  # wire names, not `class_`
    assert record.model_dump() == document
    assert callable(record.model_dump)  # no property shadows pydantic's own methods


# -- names the generator chooses ---------------------------------------------------------


def _generated(schema: dict[str, Any], tmp_path: Path, name: str) -> tuple[Any, list[str]]:
    from codegen.driver import ModelSource
    from codegen.pipeline import model_source

    code, diagnostics = model_source(
        schema, class_name="Root", source=ModelSource(f"{name}.json", "-"), strict=False
    )
    path = tmp_path / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    return load(path, name), [d.message for d in diagnostics]


def test_a_rule_finds_its_alias_when_the_generator_names_it_after_the_definition(
    tmp_path: Path,
) -> None:
    """A titled property with a rule: the generator names the alias after its definition
    (``SearchRankingRule``), not the title; the rule is attached all the same."""
    ranking = {"title": "Ranking", "additionalProperties": {"type": "number", "maximum": 10}}
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"search": {"type": "object", "properties": {"ranking": ranking}}},
    }
    module, said = _generated(schema, tmp_path, "ranking_models")
    assert not any("whole schema" in message for message in said)
    assert module.Root.model_validate({"search": {"ranking": {"a": 5}}})
    assert module.Root.model_validate({"search": {"ranking": 3}})  # untyped: not an object
    with pytest.raises(ValidationError):
        module.Root.model_validate({"search": {"ranking": {"a": 11}}})


@pytest.mark.parametrize("reserved", ["JsonValue", "Uri", "UriReference"])
def test_a_definition_named_like_the_build_steps_own_types_keeps_its_meaning(
    tmp_path: Path, reserved: str
) -> None:
    """A schema's own ``JsonValue`` (a string here) is not the build step's any-value type."""
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {
            "a": {"$ref": f"#/definitions/{reserved}"},
            "b": {},
            "c": {"type": "string", "format": "uri"},
        },
        "definitions": {reserved: {"type": "integer"}},
    }
    module, _ = _generated(schema, tmp_path, f"reserved_{reserved.lower()}_models")
    assert module.Root.model_validate({"a": 1, "b": [None], "c": "https://x.org"}).a == 1
    for bad in ({"a": "1"}, {"a": [1]}, {"c": "not a uri"}):
        with pytest.raises(ValidationError):
            module.Root.model_validate(bad)


def test_a_schema_the_generator_cannot_type_is_a_json_value_judged_by_the_whole_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the typed path fails (here: the generator is made to write ``Any``), the model
    is still exact: any JSON value, judged by the schema itself, with a warning saying why."""
    import codegen.driver

    real = codegen.driver._untyped_fields
    monkeypatch.setattr(
        codegen.driver,
        "_untyped_fields",
        lambda code: ["Root.a"] if "class Root" in code else real(code),
    )
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"a": {"type": "integer"}, "t": {"$ref": "#/definitions/tree"}},
        "required": ["a"],
        "definitions": {"tree": {"type": "array", "items": {"$ref": "#/definitions/tree"}}},
    }
    module, said = _generated(schema, tmp_path, "whole_models")
    assert any("Root.a (it wrote Any)" in message and "whole schema" in message for message in said)
    adapter: TypeAdapter[object] = TypeAdapter(module.Root)
    assert adapter.validate_python({"a": 1, "t": [[], [[]]]}) == {"a": 1, "t": [[], [[]]]}
    bads: list[object] = [{}, {"a": "1"}, {"a": 1, "t": [1]}, [], None]
    for bad in bads:
        with pytest.raises(ValidationError):
            adapter.validate_python(bad)


def test_strict_refuses_what_it_would_judge_by_the_whole_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import codegen.driver
    from codegen.diagnostics import CodegenError
    from codegen.driver import ModelSource
    from codegen.pipeline import model_source

    monkeypatch.setattr(codegen.driver, "_untyped_fields", lambda code: ["Root.a"])
    with pytest.raises(CodegenError, match="it wrote Any"):
        model_source(
            {"$schema": D7, "type": "object", "properties": {"a": {"type": "integer"}}},
            class_name="Root",
            source=ModelSource("s.json", "-"),
            strict=True,
        )


def test_a_rule_on_a_definition_the_generator_collapses_into_another_is_kept(
    tmp_path: Path,
) -> None:
    """``allOf`` of one reference is, to the generator, that model: a rule on it would be
    dropped. The build step notices (no class publishes it) and the model stays exact."""
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"c": {"$ref": "#/definitions/r"}},
        "definitions": {
            "base": {"type": "object", "properties": {"x": {"type": "string"}}},
            "r": {"allOf": [{"$ref": "#/definitions/base"}], "not": {"required": ["x"]}},
        },
    }
    module, _ = _generated(schema, tmp_path, "collapsed_models")
    adapter: TypeAdapter[Any] = TypeAdapter(module.Root)
    adapter.validate_python({"c": {}})
    for bad in ({"c": {"x": "a"}}, {"c": {"x": 1}}):
        with pytest.raises(ValidationError):
            adapter.validate_python(bad)


def test_the_generator_dropping_a_model_rule_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    import codegen.driver
    from codegen._json import JsonObject
    from codegen.diagnostics import CodegenError
    from codegen.driver import ModelSource, generate_models

    schema: JsonObject = {
        "type": "object",
        "title": "Root",
        "properties": {"a": {"type": "integer"}},
        "x-allOf": [{"properties": {"a": {"not": {"const": 1}}}}],
    }
    real = codegen.driver._generate
    monkeypatch.setattr(
        codegen.driver,
        "_generate",
        lambda s, name, source: str(real(s, name, source)).replace("json_schema_extra", "title"),
    )
    with pytest.raises(CodegenError, match="dropped 1 model rule"):
        generate_models(schema, class_name="Root", source=ModelSource("s.json", "-"))
