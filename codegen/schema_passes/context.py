"""What every normalisation pass shares: the vocabulary of the build step's keywords, the names
it reserves, and the ``Context`` of one run (the document, its diagnostics, the rules lifted)."""

from __future__ import annotations

import re
from urllib.parse import unquote

from codegen._json import Json, JsonObject, resolve_pointer
from codegen._names import pascal
from codegen.diagnostics import DiagnosticSink
from codegen.schema_passes import walk

JSON_VALUE = "JsonValue"
# String formats pydantic has no faithful type for: each becomes a reference to a named
# definition, which the driver maps to the type of that name in agentruns_generated._json.
FORMAT_TYPES = {"uri": "Uri", "uri-reference": "UriReference"}

SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_VALUES = (
    "items",
    "additionalItems",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
)
RULE_KEYWORDS = ("not", "if", "then", "else")
# The rule evaluator (agentruns_generated._json.satisfies) evaluates every draft-07 assertion
# keyword and ignores annotations and unknown keywords, as draft-07 says. These keywords of
# later dialects change what other keywords mean, so a rule that holds one is refused.
UNEVALUATED = frozenset(
    {"unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef"}
)
ASSERTING = frozenset(
    {
        "type", "const", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
        "uniqueItems", "items", "additionalItems", "contains", "required", "properties",
        "additionalProperties", "patternProperties", "minProperties", "maxProperties",
        "propertyNames", "dependencies", "allOf", "anyOf", "oneOf", "not", "if", "then",
        "else", "$ref", "prefixItems", "dependentSchemas", "dependentRequired", "minContains",
        "maxContains", "unevaluatedProperties", "unevaluatedItems", "x-allOf", "discriminator",
    }
)  # fmt: skip
"""Keywords that constrain a value (draft-07's, later dialects', and the normaliser's own);
a schema with none of them accepts every JSON value."""
ANNOTATION_ONLY = frozenset(
    {
        "description",
        "title",
        "examples",
        "default",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)

CHECKED_FORMATS = frozenset(
    {"date", "time", "duration", "uuid", "json-pointer", "ipv4", "ipv6", "regex"}
)
"""Formats asserted by a rule (``_json._format_ok``): the JSON Structure types among them.
Any other format is an annotation (see ``exactness._loose_keywords``)."""


ROOT_RULE = ""
"""The key of ``Normalized.rules`` for a rule on the root type."""


class Context:
    """What the passes of one normalisation share: the document being rewritten, the
    diagnostics, the rules lifted so far and their reference table, the schema as stated,
    and the names taken."""

    def __init__(
        self, schema: JsonObject, sink: DiagnosticSink, *, root_name: str | None = None
    ) -> None:
        self.root = schema
        self.sink = sink
        self.root_spelling = None if root_name is None else spelling(root_name)
        self.defs_key = (
            "$defs" if "$defs" in schema or "definitions" not in schema else "definitions"
        )
        self.uses_json_value = False
        self.format_types: set[str] = set()
        self.rules: dict[str, Json] = {}
        self.refs: dict[str, Json] = {}
        self.stated: JsonObject = {}
        self.taken_names = titles(schema) | set(RESERVED_DEFINITIONS)
        self.backtracking: set[str] = set()  # patterns left to the backtracking matcher
        dialect = schema.get("$schema")
        later = isinstance(dialect, str) and ("2019-09" in dialect or "2020-12" in dialect)
        self.draft7 = not later
        # uuid and duration are formats of 2019-09 on (and JSON Structure types); in a
        # draft-07 document they are unknown formats, which draft-07 treats as annotations
        self.checked_formats = CHECKED_FORMATS if later else CHECKED_FORMATS - {"uuid", "duration"}

    def json_value_ref(self) -> JsonObject:
        self.uses_json_value = True
        return {"$ref": f"#/{self.defs_key}/{JSON_VALUE}"}

    def resolve(self, node: Json) -> Json:
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            assert isinstance(ref, str)
            tokens = ref_tokens(ref)
            return None if tokens is None else resolve_pointer(self.root, tokens)
        return node

    def taken(self, name: str) -> bool:
        """Whether the generator could give a class of this name a name already taken: one
        of its own types, an import, or the root's class."""
        return reserved_name(name) or spelling(name) == self.root_spelling

    def rule(self, rule: JsonObject, at: str) -> JsonObject:
        """``rule`` as it is written into a model, its references resolvable in ``refs``.

        A rule keeps its ``$ref``: each is resolved in the schema as stated (so recursion is
        by name and nothing the normaliser rewrote leaks into a rule), and every subschema a
        rule can reach through references joins the reference table.
        """
        pending = list(references(rule))
        while pending:
            ref = pending.pop()
            key = ref[1:]
            if key in self.refs:
                continue
            tokens = ref_tokens(ref)
            target = resolve_pointer(self.stated, tokens) if tokens is not None else None
            if target is None:
                self.sink.error(at, f"reference {ref!r} in a rule does not resolve; refused")
                continue
            self.refs[key] = target
            pending.extend(references(target))
        for keyword in sorted(keywords(rule) & UNEVALUATED):
            self.sink.error(at, f"{keyword} in a rule: the rule evaluator lacks it; refused")
        return rule

    def is_free_form(self, node: Json) -> bool:
        if node is True:
            return True
        # annotations, definitions and unknown keywords constrain nothing (draft-07)
        return isinstance(node, dict) and not set(node) & ASSERTING

    def is_object_model(self, node: Json) -> bool:
        target = self.resolve(node)
        return (
            isinstance(target, dict)
            and target.get("type") == "object"
            and isinstance(target.get("properties"), dict)
        )

    def common_const_property(self, members: list[Json]) -> str | None:
        candidates: set[str] | None = None
        consts: list[dict[str, Json]] = []
        for member in members:
            resolved = self.resolve(member)
            if (
                not isinstance(member, dict)
                or "$ref" not in member
                or not isinstance(resolved, dict)
            ):
                return None  # the generator only discriminates between named models
            props = resolved.get("properties")
            required = resolved.get("required")
            if not isinstance(props, dict) or not isinstance(required, list):
                return None
            member_consts = {
                name: sub["const"]
                for name, sub in props.items()
                if isinstance(sub, dict) and isinstance(sub.get("const"), str) and name in required
            }
            consts.append(member_consts)
            names = set(member_consts)
            candidates = names if candidates is None else candidates & names
        for name in sorted(candidates or ()):
            values = [c[name] for c in consts]
            if len(set(map(str, values))) == len(values):
                return name
        return None

    def unreachable_rules(self, schema: JsonObject) -> set[str]:
        """The rules' type names whose definitions the root does not reach by ``$ref``."""
        defs = schema.get(self.defs_key)
        if not isinstance(defs, dict):
            return set()
        reached: set[str] = set()
        pending: list[Json] = [{k: v for k, v in schema.items() if k != self.defs_key}]
        while pending:
            for ref in references(pending.pop()):
                tokens = ref_tokens(ref)
                if (
                    tokens
                    and len(tokens) >= 2
                    and tokens[0] == self.defs_key
                    and tokens[1] not in reached
                ):
                    reached.add(tokens[1])
                    pending.append(defs.get(tokens[1]))
        return {
            title
            for name, sub in defs.items()
            if name not in reached
            and isinstance(sub, dict)
            and isinstance(title := sub.get("title"), str)
            and title in self.rules
        }


RESERVED_DEFINITIONS = frozenset({JSON_VALUE, *FORMAT_TYPES.values()})
GENERATED_IMPORTS = frozenset(
    {
        # typing and typing_extensions
        *("Annotated", "Any", "ClassVar", "Dict", "List", "Literal", "Optional", "Set"),
        *("Tuple", "Type", "TypeAliasType", "Union"),
        # pydantic
        *("AnyUrl", "AwareDatetime", "BaseModel", "ConfigDict", "Field", "MISSING"),
        *("RootModel", "StrictBool", "StrictBytes", "StrictFloat", "StrictInt", "StrictStr"),
        *("conint", "confloat", "conlist", "constr"),
        # the runtime module (agentruns_generated._json)
        *("IntegralFloat", "JsonDateTime", "JsonInt", "JsonModel", "NotBoolean", "SchemaRule"),
        "check_rules",
    }
)
"""Names a generated module imports. A class the generator would give one of them is renamed
by the generator, but not every reference to it: a title ``Union`` left forward references
``"Union"`` that resolve to typing's, and the module did not import. A test holds this list to
what the generated modules import."""


def spelling(name: str) -> str:
    """A name as the generator's class names tell it from others: it capitalises and joins
    words, so ``json_value``, ``json-value`` and ``JsonValue`` are one class name."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


_RESERVED_SPELLINGS = frozenset(spelling(n) for n in (*RESERVED_DEFINITIONS, *GENERATED_IMPORTS))


def reserved_name(name: str) -> bool:
    """Whether the generator could make the class name of one of the normaliser's own types
    (``JsonValue``, ``Uri``...) or of a name the module imports (``Union``, ``Field``) of this
    name: it capitalises and joins words, so a definition named ``uri`` or ``json_value``
    would be typed as the format or as any JSON value, one titled ``Union`` as typing's. A
    name is a name: such a definition or title is renamed, never read as a type."""
    return spelling(name) in _RESERVED_SPELLINGS


def ref_tokens(ref: str) -> list[str] | None:
    """The JSON pointer tokens of a same-document ``$ref`` (a URI fragment: percent-decoded,
    then ``~1``/``~0`` unescaped), or None when it is not one."""
    if not ref.startswith("#"):
        return None
    fragment = unquote(ref[1:], errors="strict")
    if fragment == "":
        return []
    if not fragment.startswith("/"):
        return None  # a plain-name fragment (an anchor): not a pointer
    return [t.replace("~1", "/").replace("~0", "~") for t in fragment[1:].split("/")]


def json_value_definition() -> JsonObject:
    """Any JSON value, spelled as a union of every JSON type so the generator emits a model
    for it, which the driver then replaces by ``pydantic.JsonValue``."""
    return {
        "title": JSON_VALUE,
        "description": "Any JSON value.",
        "anyOf": [{"type": t} for t in ("null", "boolean", "number", "string", "array", "object")],
    }


def as_list(value: Json) -> list[Json]:
    return value if isinstance(value, list) else []


def references(schema: Json) -> list[str]:
    """The ``$ref`` of every subschema of ``schema`` (values of ``enum`` and the like are
    not schemas, and a property called ``$ref`` is no reference)."""
    found: list[str] = []
    for node in walk.subschemas(schema):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.append(ref)
    return found


def keywords(schema: Json) -> set[str]:
    """The keywords used by ``schema`` and its subschemas."""
    found: set[str] = set()
    for node in walk.subschemas(schema):
        found.update(node)
    return found


def titles(schema: Json) -> set[str]:
    """Names the generator may give classes of this schema: its titles and definition names."""
    names: set[str] = set()
    for node in walk.subschemas(schema):
        title = node.get("title")
        if isinstance(title, str):
            names.add(title)
            names.add(pascal(title))
        for key in ("definitions", "$defs"):
            defs = node.get(key)
            if isinstance(defs, dict):
                names.update(defs)
                names.update(pascal(name) for name in defs)
    return names
