"""A name is a name: a definition or a title spelled like one of the build step's own types
(``Uri``, ``UriReference``, ``JsonValue``) is typed by its schema, never as that type.

The generator capitalises and joins words into class names, so ``uri``, ``json_value`` or a
``"title": "uri-reference"`` would otherwise become the format type or any JSON value: a relative
path refused as a URI, an integer definition accepting anything. jsonschema is the oracle."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, cast

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from codegen._json import JsonObject
from codegen.normalize import normalize
from codegen.schema_passes.walk import subschemas
from tests._settings import PROPERTY_SETTINGS
from tests.test_random_schemas import D7, _model, json_values

_WORDS = [["uri"], ["uri", "reference"], ["json", "value"]]
_IMPORTED = [["union"], ["field"], ["literal"], ["optional"], ["annotated"], ["json", "model"]]
"""Spellings of names a generated module imports (typing's, pydantic's, the runtime's)."""

spellings = st.builds(
    lambda words, joiner, case: joiner.join(case(word) for word in words),
    st.sampled_from(_WORDS + _IMPORTED),
    st.sampled_from(["", "_", "-"]),
    st.sampled_from([str.lower, str.capitalize, str.upper]),
)
definitions = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {"type": "boolean"},
        {"type": "object", "required": ["a"]},
        {"type": "string", "maxLength": 2},
    ]
)
values = json_values | st.sampled_from(["images/icon16.png", "https://a.example/x", "#frag"])


def _agree(schema: dict[str, Any], workdir: Path, documents: list[Any]) -> None:
    model = _model(schema, workdir)
    oracle = jsonschema.Draft7Validator(schema)
    for document in documents:
        try:
            model.model_validate_json(json.dumps(document))
            got = True
        except ValidationError:
            got = False
        assert got == oracle.is_valid(document), (document, schema)


@PROPERTY_SETTINGS
@given(name=spellings, definition=definitions, found=st.lists(values, min_size=6, max_size=10))
def test_a_definition_named_like_a_built_in_type_is_typed_by_its_schema(
    tmp_path_factory: Any, name: str, definition: dict[str, Any], found: list[Any]
) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"v": {"$ref": f"#/definitions/{name}"}},
        "definitions": {name: definition},
    }
    _agree(schema, tmp_path_factory.mktemp("names"), [{"v": value} for value in found])


@PROPERTY_SETTINGS
@given(title=spellings, definition=definitions, found=st.lists(values, min_size=6, max_size=10))
def test_a_title_spelled_like_a_built_in_type_is_typed_by_its_schema(
    tmp_path_factory: Any, title: str, definition: dict[str, Any], found: list[Any]
) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"v": {"$ref": "#/definitions/thing"}, "w": {"title": title, **definition}},
        "definitions": {"thing": {"title": title, **definition}},
    }
    documents = [{"v": value, "w": value} for value in found]
    _agree(schema, tmp_path_factory.mktemp("titles"), documents)


def test_a_relative_path_is_a_string_where_the_definition_named_uri_says_string(
    tmp_path: Path,
) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"icon": {"$ref": "#/definitions/uri"}},
        "definitions": {"uri": {"type": "string"}},
    }
    model = _model(schema, tmp_path)
    assert model.model_validate_json('{"icon": "images/icon16.png"}') is not None


@PROPERTY_SETTINGS
@given(title=spellings, found=st.lists(values, min_size=6, max_size=10))
def test_a_recursive_union_member_titled_like_an_imported_name_is_typed_by_its_schema(
    tmp_path_factory: Any, title: str, found: list[Any]
) -> None:
    _recursive_union_agrees(title, found, tmp_path_factory.mktemp("unions"))


def test_a_union_member_titled_union_is_typed_by_its_schema(tmp_path: Path) -> None:
    _recursive_union_agrees("Union", ["a", "b" * 9, 1], tmp_path)


def _recursive_union_agrees(title: str, found: list[Any], workdir: Path) -> None:
    """Avro's schema: a union of types, one of them a list of the union titled ``Union``
    (the generator renamed the class and left forward references to typing's ``Union``)."""
    schema = {
        "$schema": D7,
        "definitions": {
            "schema": {"oneOf": [{"$ref": "#/definitions/types"}]},
            "types": {
                "oneOf": [
                    {"type": "string", "maxLength": 8},
                    {"$ref": "#/definitions/record"},
                    {"$ref": "#/definitions/many"},
                ]
            },
            "record": {
                "title": "Record",
                "type": "object",
                "properties": {"type": {"$ref": "#/definitions/types"}},
                "required": ["type"],
            },
            "many": {
                "title": title,
                "type": "array",
                "items": {"$ref": "#/definitions/schema"},
                "minItems": 1,
            },
        },
        "oneOf": [{"$ref": "#/definitions/schema"}],
    }
    documents = [*found, ["a", ["b"]], [["x" * 9]], [1], [], {"type": ["a", {"type": "b"}]}]
    _agree_any(schema, workdir, documents)


def _agree_any(schema: dict[str, Any], workdir: Path, documents: list[Any]) -> None:
    """``_agree`` for a root that is a type alias, not a model."""
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(_model(schema, workdir))
    oracle = jsonschema.Draft7Validator(schema)
    for document in documents:
        try:
            adapter.validate_json(json.dumps(document))
            got = True
        except ValidationError:
            got = False
        assert got == oracle.is_valid(document), (document, schema)


def test_every_name_a_generated_module_imports_is_reserved() -> None:
    import ast

    from codegen.normalize import reserved_name

    package = Path(__file__).parent.parent / "generated" / "agentruns_generated"
    imported = {
        alias.asname or alias.name
        for module in ("agentrun", "atif", "cortex", "portable")
        for node in ast.parse((package / f"{module}.py").read_text()).body
        if isinstance(node, ast.ImportFrom) and node.module != "__future__"
        for alias in node.names
    }
    assert imported
    assert {name for name in imported if not reserved_name(name)} == set()


root_spellings = st.builds(
    lambda joiner, case: joiner.join(case(word) for word in ["root"]) + case(""),
    st.sampled_from(["", "_", "-"]),
    st.sampled_from([str.lower, str.capitalize, str.upper]),
)
"""Spellings of the root's class name (``Root`` in these tests)."""


@PROPERTY_SETTINGS
@given(
    name=root_spellings,
    title=st.none() | root_spellings,
    definition=definitions,
    found=st.lists(values, min_size=6, max_size=10),
)
def test_a_definition_named_like_the_root_class_leaves_the_root_its_name(
    tmp_path_factory: Any,
    name: str,
    title: str | None,
    definition: dict[str, Any],
    found: list[Any],
) -> None:
    """The generator gave the root's name to such a definition and renamed the root (or,
    for a name that is also one of its types, left the root out of the module)."""
    stated = definition if title is None else {"title": title, **definition}
    schema = {
        "$schema": D7,
        "type": "object",
        "required": ["root_only"],
        "properties": {"root_only": {"type": "integer"}, "v": {"$ref": f"#/definitions/{name}"}},
        "definitions": {name: stated},
    }
    workdir = tmp_path_factory.mktemp("root")
    assert "root_only" in _model(schema, workdir).model_fields
    _agree(schema, workdir, [{"root_only": 1, "v": value} for value in found])


def test_a_class_name_spelled_like_a_generated_modules_own_name_is_refused() -> None:
    from codegen.diagnostics import CodegenError
    from codegen.driver import ModelSource
    from codegen.pipeline import model_source

    schema: dict[str, Any] = {"$schema": D7, "type": "object"}
    for name in ("Uri", "JsonValue", "Field", "Union"):
        with pytest.raises(CodegenError, match=f"class name '{name}'"):
            model_source(schema, class_name=name, source=ModelSource("t", "-"), strict=False)


def test_a_schema_file_named_like_a_built_in_type_gets_a_class_name_of_its_own(
    tmp_path: Path,
) -> None:
    from codegen.__main__ import main

    schema = tmp_path / "uri.json"
    stated = {"$schema": D7, "type": "object", "properties": {"a": {"type": "string"}}}
    schema.write_text(json.dumps(stated), encoding="utf-8")
    out = tmp_path / "uri_model.py"
    assert main(["model", str(schema), "--out", str(out)]) == 0
    assert "class UriModel(JsonModel):" in out.read_text(encoding="utf-8")


_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_DOTTED = st.sampled_from(["io.k8s.api.Pod", "a.b", "v1.Name", "x y", "a%b", "plain", "b~c/d"])


def _escaped(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1").replace("%", "%25").replace(" ", "%20")


@PROPERTY_SETTINGS
@given(
    outer=_DOTTED,
    inner=_DOTTED,
    place=st.sampled_from(["definitions", "allOf"]),
    definition=definitions,
    found=st.lists(values, min_size=6, max_size=10),
)
def test_definitions_inside_definitions_are_named_and_referenced_whatever_their_spelling(
    tmp_path_factory: Any,
    outer: str,
    inner: str,
    place: str,
    definition: dict[str, Any],
    found: list[Any],
) -> None:
    """A schema bundled from another file keeps its own definitions (Kubernetes' dotted
    ``io.k8s.api.core.v1.Pod``): the generator read the dots as modules and the build crashed."""
    if place == "definitions":
        at = f"#/definitions/{_escaped(outer)}"
        ref = f"{at}/definitions/{_escaped(inner)}"
    else:
        at, ref = "#/allOf/0", f"#/allOf/0/definitions/{_escaped(inner)}"
    # the holder is a model of its own whose field refers to its own definition
    holder = {
        "type": "object",
        "properties": {"w": {"$ref": ref}},
        "definitions": {inner: definition},
    }
    defs = {outer: holder} if place == "definitions" else {}
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"v": {"$ref": ref}, "u": {"$ref": at}},
        "definitions": defs,
        **({"allOf": [holder]} if place == "allOf" else {}),
    }
    documents = [{"v": value, "u": {"w": value}} for value in found]
    _agree(schema, tmp_path_factory.mktemp("nested"), documents)
    # what the generator is handed names no definition it would misread, at any depth
    handed = normalize(cast(JsonObject, schema), source="nested").schema
    for node in subschemas(handed):
        for key in ("definitions", "$defs"):
            names = node.get(key)
            assert not isinstance(names, dict) or all(map(_SAFE.fullmatch, names)), names


@PROPERTY_SETTINGS
@given(stem=st.text(min_size=0, max_size=24))
def test_any_file_name_gives_a_class_name_the_generator_takes(stem: str) -> None:
    """Real schema files are named ``2020-12.json``, ``9f86e47a59b89462.json`` or
    ``none.json``: the name made of the file is always one the generator takes (it refused a
    name starting with a digit, and the build failed with a warning)."""
    from codegen.__main__ import _class_name_for
    from codegen._names import is_class_name

    name = _class_name_for(Path(f"{stem}.json"), {"$schema": D7})
    assert is_class_name(name)
    assert name.isidentifier()


@pytest.mark.parametrize(
    ("file", "expected"),
    [("2020-12.json", "Model202012"), ("none.json", "ModelNone"), ("9f86e4.json", "Model9f86e4")],
)
def test_a_schema_file_whose_name_is_no_class_name_gets_one(
    file: str, expected: str, tmp_path: Path
) -> None:
    from codegen.__main__ import main

    schema = tmp_path / file
    stated = {"$schema": D7, "type": "object", "properties": {"a": {"type": "string"}}}
    schema.write_text(json.dumps(stated), encoding="utf-8")
    out = tmp_path / "made.py"
    assert main(["model", str(schema), "--out", str(out)]) == 0
    assert f"class {expected}(JsonModel):" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["9x", "None", "class", "a-b", "two words"])
def test_a_class_name_that_is_no_python_name_is_refused_as_an_error(name: str) -> None:
    from codegen.diagnostics import CodegenError, Severity
    from codegen.driver import ModelSource
    from codegen.pipeline import model_source

    schema: dict[str, Any] = {"$schema": D7, "type": "object"}
    with pytest.raises(CodegenError, match="is not a Python class name") as raised:
        model_source(schema, class_name=name, source=ModelSource("t", "-"), strict=False)
    assert [d.severity for d in raised.value.diagnostics] == [Severity.ERROR]


def test_a_schema_the_generator_fails_on_is_refused_with_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The generator made no module: the build says so as an error, not a warning (a failed
    build printed only warnings)."""
    from datamodel_code_generator import Error as GeneratorError

    from codegen import driver
    from codegen.diagnostics import CodegenError, Severity

    def failing(*_: object) -> object:
        raise GeneratorError("cannot")

    monkeypatch.setattr(driver, "_generate", failing)
    with pytest.raises(CodegenError) as raised:
        driver.generate_models(
            {"$schema": D7, "type": "object"},
            class_name="Made",
            source=driver.ModelSource("t", "-"),
        )
    assert [d.severity for d in raised.value.diagnostics] == [Severity.ERROR]
