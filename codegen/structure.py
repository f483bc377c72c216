"""JSON Structure (json-structure.org, core) -> JSON Schema (draft 2020-12).

No published converter keeps the meaning of a JSON Structure schema (see design.md section 3),
so this module translates the whole core specification plus the validation and conditional
composition companions. It never fetches anything: a reference that leaves the document is an
error. Everything it had to assume is reported as a diagnostic with its JSON pointer.
"""

from __future__ import annotations

from dataclasses import dataclass

from codegen._json import Json, JsonObject, pointer
from codegen._names import pascal
from codegen.diagnostics import Diagnostic, DiagnosticSink

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
STRUCTURE_SCHEMA_PREFIX = "https://json-structure.org/meta/"

_INT_RANGES: dict[str, tuple[int, int]] = {
    "int8": (-(2**7), 2**7 - 1),
    "uint8": (0, 2**8 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "integer": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
}


def _up_to(limit: int) -> str:
    """A regex for the decimal integers 0..limit (RFC 8259 ``int``: no leading zeros)."""
    digits = str(limit)
    length = len(digits)
    alternatives = ["0"]
    if length > 1:  # every shorter number
        alternatives.append("[1-9]" + (f"[0-9]{{0,{length - 2}}}" if length > 2 else ""))
    for i, char in enumerate(digits):  # same length: equal up to i, smaller at i
        low, high = (1 if i == 0 else 0), int(char) - 1
        if high >= low:
            chosen = str(low) if high == low else f"[{low}-{high}]"
            rest = length - i - 1
            alternatives.append(digits[:i] + chosen + (f"[0-9]{{{rest}}}" if rest else ""))
    alternatives.append(digits)
    return "(?:" + "|".join(dict.fromkeys(alternatives)) + ")"


def _integer_pattern(bits: int, *, signed: bool) -> str:
    if not signed:
        return f"^{_up_to(2**bits - 1)}$"
    return f"^(?:{_up_to(2 ** (bits - 1) - 1)}|-{_up_to(2 ** (bits - 1))})$"


# Integers too wide for an IEEE double travel as strings ("[minus] int", RFC 8259), and the
# spec bounds their value; the patterns encode the exact ranges.
_STRING_INTEGERS: dict[str, str] = {
    "int64": _integer_pattern(64, signed=True),
    "uint64": _integer_pattern(64, signed=False),
    "int128": _integer_pattern(128, signed=True),
    "uint128": _integer_pattern(128, signed=False),
}
_DECIMAL_PATTERN = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$"

# JSON Structure's own string types whose meaning no JSON Schema format has: a time of day
# whose offset is optional (RFC 3339 partial-time or full-time), and an ISO 8601 duration
# whose seconds may have a fraction ("PT2.5S"). JSON Schema's `time` needs an offset and its
# `duration` (RFC 3339 appendix A) has no fractions, so these are patterns, exact to the range.
_HOUR, _MINUTE = "([01][0-9]|2[0-3])", "[0-5][0-9]"
_STRING_PATTERNS: dict[str, str] = {
    "time": rf"^{_HOUR}:{_MINUTE}:([0-5][0-9]|60)(\.[0-9]+)?([Zz]|[+-]{_HOUR}:{_MINUTE})?$",
    # at least one component, and a T followed by at least one (the SDK accepts "PT")
    "duration": (
        r"^P(([0-9]+Y([0-9]+M)?([0-9]+D)?|[0-9]+M([0-9]+D)?|[0-9]+D)(T_TIME)?|T_TIME|[0-9]+W)$".replace(
            "_TIME",
            r"([0-9]+H([0-9]+M)?([0-9]+(\.[0-9]+)?S)?|[0-9]+M([0-9]+(\.[0-9]+)?S)?"
            r"|[0-9]+(\.[0-9]+)?S)",
        )
    ),
}

_STRING_FORMATS: dict[str, str] = {
    "date": "date",
    "datetime": "date-time",
    "uuid": "uuid",
    # RFC 3986 URI-reference: the spec allows relative references.
    "uri": "uri-reference",
    "jsonpointer": "json-pointer",
}

_FLOATS = frozenset({"number", "float8", "float", "double"})
PRIMITIVES = frozenset(
    {"string", "boolean", "null", "binary", "decimal"}
    | set(_INT_RANGES)
    | set(_STRING_INTEGERS)
    | set(_STRING_FORMATS)
    | _FLOATS
)
COMPOUNDS = frozenset({"object", "array", "set", "map", "tuple", "choice", "any"})

_ANNOTATIONS = ("description", "default", "const", "enum", "examples")
# Validation companion keywords that mean the same in JSON Schema.
_SAME_KEYWORDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "contentEncoding",
    "contentMediaType",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "dependentRequired",
)
_NUMERIC_KEYWORDS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)
# Map keywords of the validation companion and their JSON Schema spelling.
_RENAMED_MAP_KEYWORDS = {
    "minEntries": "minProperties",
    "maxEntries": "maxProperties",
}
_SUBSCHEMA_KEYWORDS = ("not", "if", "then", "else", "contains")
_SUBSCHEMA_LIST_KEYWORDS = ("allOf", "anyOf", "oneOf")
# Keywords this module reads itself (structure) or deliberately passes over.
_STRUCTURAL = frozenset(
    {
        "type",
        "name",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "values",
        "choices",
        "selector",
        "tuple",
        "$extends",
        "abstract",
        "altnames",
        "example",
        "precision",
        "scale",
        "contentCompression",
        "keyNames",
        "patternKeys",
        "propertyNames",
        "patternProperties",
        "$ref",
        "definitions",
        "$schema",
        "$id",
        "$root",
        "$uses",
        "$comment",
        "maxLength",
    }
)
_KNOWN = (
    _STRUCTURAL
    | set(_ANNOTATIONS)
    | set(_SAME_KEYWORDS)
    | set(_RENAMED_MAP_KEYWORDS)
    | set(_SUBSCHEMA_KEYWORDS)
    | set(_SUBSCHEMA_LIST_KEYWORDS)
)
_ROOT_ONLY = frozenset({"$schema", "$id", "$root", "definitions", "$uses", "$offers"})


@dataclass(frozen=True)
class Translation:
    """A translated schema and everything the translator had to say about its input."""

    schema: JsonObject
    diagnostics: tuple[Diagnostic, ...]


def is_json_structure(document: Json) -> bool:
    """True when a document declares the JSON Structure meta-schema."""
    if not isinstance(document, dict):
        return False
    dialect = document.get("$schema")
    return isinstance(dialect, str) and dialect.startswith(STRUCTURE_SCHEMA_PREFIX)


def translate(document: Json, *, source: str, strict: bool = False) -> Translation:
    """Translate a JSON Structure document into an equivalent JSON Schema.

    Raises ``CodegenError`` on errors, and on any diagnostic at all when ``strict``.
    """
    sink = DiagnosticSink(source)
    schema = _Translator(document, sink).run()
    sink.raise_if(strict=strict)
    return Translation(schema, tuple(sink.items))


class _Translator:
    def __init__(self, document: Json, sink: DiagnosticSink) -> None:
        self._doc = document
        self._sink = sink
        # JSON Structure pointer ("#/definitions/a/B") -> (definition, $defs key)
        self._definitions: dict[str, tuple[JsonObject, str]] = {}
        self._keys: set[str] = set()

    # -- document level -------------------------------------------------------------

    def run(self) -> JsonObject:
        doc = self._doc
        if not isinstance(doc, dict):
            self._sink.error("", "a JSON Structure document must be a JSON object")
            return {}
        if "$offers" in doc:
            self._sink.warn(
                "/$offers",
                "add-in types ($offers) are not translated; instances using them are rejected",
            )
        definitions = doc.get("definitions")
        if definitions is not None:
            self._collect(definitions, ("definitions",))

        out: JsonObject = {"$schema": JSON_SCHEMA_DIALECT}
        if isinstance(doc.get("$id"), str):
            out["$id"] = doc["$id"]
        root = doc.get("$root")
        if root is not None and "type" in doc:
            self._sink.error("/$root", "$root and a root type are mutually exclusive")
        if root is not None:
            if not isinstance(root, str):
                self._sink.error("/$root", "$root must be a JSON pointer string")
            else:
                out["$ref"] = self._ref_target(root, "/$root")
                for key in ("description",):
                    if key in doc:
                        out[key] = doc[key]
        elif "type" in doc:
            root_node = {k: v for k, v in doc.items() if k not in _ROOT_ONLY}
            out.update(self._node(root_node, ""))
            self._instance_keywords(out)
        else:
            self._sink.error("", "the document declares neither a root type nor $root")

        defs: JsonObject = {}
        for ref in sorted(self._definitions, key=lambda r: self._definitions[r][1]):
            node, key = self._definitions[ref]
            if node.get("abstract") is True:
                continue  # abstract types are only merged into the types that extend them
            defs[key] = self._node(node, ref[1:])
        if defs:
            out["$defs"] = defs
        return out

    @staticmethod
    def _instance_keywords(root: JsonObject) -> None:
        """Let a closed root object carry ``$schema`` and ``$uses``.

        An instance document may name its schema (``$schema``, the schema's ``$id``) and the
        add-ins it uses (``$uses``, "available only in instance documents"), at its root;
        the official samples do. An open root accepts them as extras already.
        """
        properties = root.get("properties")
        if root.get("additionalProperties") is not False or not isinstance(properties, dict):
            return
        properties.setdefault(
            "$schema",
            {"type": "string", "description": "The schema this instance follows (its $id)."},
        )
        properties.setdefault(
            "$uses",
            {
                "type": "array",
                "items": {"type": "string"},
                "description": "The add-ins this instance uses.",
            },
        )

    def _collect(self, namespace: Json, path: tuple[str, ...]) -> None:
        if not isinstance(namespace, dict):
            self._sink.error(pointer(*path), "a namespace must be a JSON object")
            return
        for name, member in namespace.items():
            member_path = (*path, name)
            if not isinstance(member, dict):
                self._sink.error(pointer(*member_path), "a definition must be a JSON object")
            elif "type" in member:
                # namespaces a/b_c and a_b/c both join to a_b_c: a later one gets a suffix
                base = "_".join(member_path[1:])
                key, counter = base, 1
                while key in self._keys:
                    counter += 1
                    key = f"{base}_{counter}"
                self._keys.add(key)
                self._definitions["#" + pointer(*member_path)] = (member, key)
            else:
                self._collect(member, member_path)

    # -- references -----------------------------------------------------------------

    def _resolve(self, ref: str, at: str) -> tuple[JsonObject, str] | None:
        if not ref.startswith("#"):
            self._sink.error(
                at,
                f"reference {ref!r} leaves the document; remote references are refused "
                "(the build step never fetches anything)",
            )
            return None
        found = self._definitions.get(ref)
        if found is None:
            self._sink.error(at, f"reference {ref!r} does not resolve to a type definition")
        return found

    def _ref_target(self, ref: str, at: str) -> str:
        found = self._resolve(ref, at)
        if found is None:
            return "#"
        node, key = found
        if node.get("abstract") is True:
            self._sink.error(at, f"{ref!r} is abstract and cannot be used as a type")
        return f"#/$defs/{key}"

    # -- schema nodes ---------------------------------------------------------------

    def _node(self, node: Json, at: str, *, in_composition: bool = False) -> JsonObject:
        if not isinstance(node, dict):
            self._sink.error(at, "a schema must be a JSON object")
            return {}
        out: JsonObject = {}
        if "name" in node and isinstance(node["name"], str):
            out["title"] = node["name"]
        declared = node.get("type")
        base_type: str | None = None
        if declared is None:
            if "$ref" in node and isinstance(node["$ref"], str):
                self._sink.warn(
                    at + "/$ref",
                    "$ref outside 'type' is not core JSON Structure; "
                    "read as {'type': {'$ref': ...}}",
                )
                out["$ref"] = self._ref_target(node["$ref"], at + "/$ref")
            elif not in_composition:
                self._sink.error(at, "every schema element must declare 'type'")
            else:
                # A constraint-only subschema of allOf/anyOf/oneOf/not/if/then/else.
                out.update(self._constraints(node, at))
        elif isinstance(declared, dict):
            out.update(self._type_ref(declared, at + "/type"))
        elif isinstance(declared, list):
            out.update(self._union(declared, at + "/type"))
            if "enum" in node:
                self._sink.error(at + "/enum", "enum cannot be combined with a type union")
        elif isinstance(declared, str):
            base_type = declared
            out.update(self._typed(declared, node, at))
        else:
            self._sink.error(at + "/type", "'type' must be a name, a {'$ref'} or a union")

        self._annotations(node, out, at)
        self._validation(node, out, at, base_type)
        self._composition(node, out, at)
        for key in node:
            if key not in _KNOWN and not key.startswith("x-"):
                self._sink.warn(
                    pointer_join(at, key),
                    f"unknown keyword {key!r} ignored (not in JSON Structure core)",
                )
        return out

    def _constraints(self, node: JsonObject, at: str) -> JsonObject:
        out: JsonObject = {}
        properties = node.get("properties")
        if isinstance(properties, dict):
            out["properties"] = {
                name: self._node(sub, pointer_join(at, "properties", name), in_composition=True)
                for name, sub in properties.items()
            }
        required = node.get("required")
        if isinstance(required, list):
            out["required"] = required
        return out

    def _type_ref(self, declared: JsonObject, at: str) -> JsonObject:
        ref = declared.get("$ref")
        if not isinstance(ref, str) or len(declared) != 1:
            self._sink.error(at, "a type reference must be exactly {'$ref': '<json pointer>'}")
            return {}
        return {"$ref": self._ref_target(ref, at + "/$ref")}

    def _union(self, members: list[Json], at: str) -> JsonObject:
        translated: list[JsonObject] = []
        for index, member in enumerate(members):
            member_at = f"{at}/{index}"
            if isinstance(member, str):
                translated.append(self._typed(member, {"type": member}, member_at))
            elif isinstance(member, dict) and "$ref" in member:
                translated.append(self._type_ref(member, member_at))
            elif isinstance(member, dict):
                self._sink.warn(
                    member_at,
                    "an inline compound type in a union is not permitted by the core spec; "
                    "translated anyway",
                )
                translated.append(self._node(member, member_at))
            else:
                self._sink.error(member_at, "a union member must be a type name or a {'$ref'}")
        simple = [m.get("type") for m in translated if set(m) == {"type"}]
        if len(simple) == len(translated) and all(isinstance(t, str) for t in simple):
            return {"type": list(simple)}
        return {"anyOf": list(translated)}

    def _typed(self, name: str, node: JsonObject, at: str) -> JsonObject:
        if name in ("string", "boolean", "null"):
            return {"type": name}
        if name in _FLOATS:
            return {"type": "number"}
        if name in _INT_RANGES:
            low, high = _INT_RANGES[name]
            return {"type": "integer", "minimum": low, "maximum": high}
        if name in _STRING_INTEGERS:
            return {"type": "string", "pattern": _STRING_INTEGERS[name]}
        if name == "decimal":
            out: JsonObject = {"type": "string", "pattern": _DECIMAL_PATTERN}
            for key in ("precision", "scale"):
                if key in node:
                    out[f"x-{key}"] = node[key]
            return out
        if name in _STRING_PATTERNS:
            return {"type": "string", "pattern": _STRING_PATTERNS[name]}
        if name in _STRING_FORMATS:
            return {"type": "string", "format": _STRING_FORMATS[name]}
        if name == "binary":
            encoding = node.get("contentEncoding", node.get("encoding", "base64"))
            return {"type": "string", "contentEncoding": encoding}
        if name == "any":
            return {}
        if name == "object":
            return self._object(node, at)
        if name in ("array", "set"):
            out = {"type": "array", "items": self._child(node, "items", at)}
            if name == "set":
                out["uniqueItems"] = True
            return out
        if name == "map":
            return {"type": "object", "additionalProperties": self._child(node, "values", at)}
        if name == "tuple":
            return self._tuple(node, at)
        if name == "choice":
            return self._choice(node, at)
        self._sink.error(at + "/type", f"unknown type {name!r}")
        return {}

    def _child(self, node: JsonObject, key: str, at: str) -> JsonObject:
        if key not in node:
            self._sink.error(at, f"'{key}' is required here")
            return {}
        return self._node(node[key], pointer_join(at, key))

    # -- objects, tuples, choices ---------------------------------------------------

    def _merged_properties(
        self, node: JsonObject, at: str, seen: frozenset[str] = frozenset()
    ) -> tuple[dict[str, tuple[Json, str]], list[Json]]:
        """Properties (with the pointer each came from) and required lists, bases first."""
        properties: dict[str, tuple[Json, str]] = {}
        required: list[Json] = []
        extends = node.get("$extends")
        bases: list[Json] = (
            extends if isinstance(extends, list) else [] if extends is None else [extends]
        )
        for base_ref in bases:
            if not isinstance(base_ref, str):
                self._sink.error(at + "/$extends", "$extends must be a JSON pointer")
                continue
            if base_ref in seen:
                self._sink.error(at + "/$extends", f"circular $extends through {base_ref!r}")
                continue
            found = self._resolve(base_ref, at + "/$extends")
            if found is None:
                continue
            base, _ = found
            if base.get("abstract") is not True:
                self._sink.error(
                    at + "/$extends",
                    f"{base_ref!r} is not abstract: JSON Structure core lets $extends name "
                    'only an abstract type ("abstract": true), so that a concrete type\'s '
                    "instances never change meaning when it is extended; refused",
                )
            base_props, base_required = self._merged_properties(
                base, base_ref[1:], seen | {base_ref}
            )
            properties.update(base_props)
            required.extend(base_required)
        own = node.get("properties", {})
        if isinstance(own, dict):
            for name, schema in own.items():
                if name in properties:
                    self._sink.error(
                        pointer_join(at, "properties", name),
                        f"property {name!r} redefines an inherited property",
                    )
                properties[name] = (schema, pointer_join(at, "properties", name))
        else:
            self._sink.error(at + "/properties", "'properties' must be a JSON object")
        if "required" in node:
            required.append(node["required"])
        return properties, required

    def _object(self, node: JsonObject, at: str) -> JsonObject:
        properties, required_lists = self._merged_properties(node, at)
        if not properties:
            self._sink.warn(
                at,
                "object declares no properties (the core spec requires at least one); "
                "read as a free-form object: map of any",
            )
            return {"type": "object", "additionalProperties": {}}
        out: JsonObject = {"type": "object"}
        wire: dict[str, str] = {}
        props: JsonObject = {}
        for name, (schema, prop_at) in properties.items():
            wire_name = self._wire_name(name, schema, prop_at)
            if wire_name in props:
                self._sink.error(
                    prop_at,
                    f"property {name!r} has the JSON name {wire_name!r} (altnames), which "
                    "another property of this object already has",
                )
                continue
            wire[name] = wire_name
            props[wire_name] = self._node(schema, prop_at)
        out["properties"] = props
        flat: list[Json] = []
        alternatives: list[Json] = []
        for index, entry in enumerate(required_lists):
            req_at = f"{at}/required" if index == len(required_lists) - 1 else at
            if not isinstance(entry, list):
                self._sink.error(req_at, "'required' must be an array")
            elif entry and all(isinstance(item, list) for item in entry):
                for alt in entry:
                    assert isinstance(alt, list)
                    alternatives.append([self._required_name(n, wire, req_at) for n in alt])
            else:
                flat.extend(self._required_name(n, wire, req_at) for n in entry)
        if flat:
            out["required"] = list(dict.fromkeys(flat))
        if alternatives:
            # "exactly one of the sets MUST match"
            out["oneOf"] = [{"required": alt} for alt in alternatives]
        additional = node.get("additionalProperties")
        if node.get("abstract") is True or additional is None or additional is True:
            out["additionalProperties"] = True
        elif additional is False:
            out["additionalProperties"] = False
        else:
            out["additionalProperties"] = self._node(additional, at + "/additionalProperties")
        return out

    def _wire_name(self, name: str, schema: Json, at: str) -> str:
        if isinstance(schema, dict):
            altnames = schema.get("altnames")
            if isinstance(altnames, dict):
                json_name = altnames.get("json")
                if isinstance(json_name, str):
                    return json_name
            elif altnames is not None:
                self._sink.error(at + "/altnames", "'altnames' must be a JSON object")
        return name

    def _required_name(self, name: Json, wire: dict[str, str], at: str) -> Json:
        if not isinstance(name, str) or name not in wire:
            self._sink.error(at, f"required property {name!r} is not declared in 'properties'")
            return name
        return wire[name]

    def _tuple(self, node: JsonObject, at: str) -> JsonObject:
        properties, _ = self._merged_properties(node, at)
        order = node.get("tuple")
        if not isinstance(order, list) or not all(isinstance(n, str) for n in order):
            self._sink.error(at + "/tuple", "a tuple must list its element order in 'tuple'")
            return {"type": "array"}
        items: list[Json] = []
        for name in order:
            assert isinstance(name, str)
            if name not in properties:
                self._sink.error(
                    at + "/tuple", f"tuple element {name!r} is not declared in 'properties'"
                )
                continue
            schema, prop_at = properties[name]
            items.append(self._node(schema, prop_at))
        missing = sorted(set(properties) - {n for n in order if isinstance(n, str)})
        if missing:
            self._sink.error(at + "/tuple", f"properties missing from the tuple order: {missing}")
        return {
            "type": "array",
            "prefixItems": items,
            "items": False,
            "minItems": len(items),
            "maxItems": len(items),
        }

    def _choice(self, node: JsonObject, at: str) -> JsonObject:
        choices = node.get("choices")
        if not isinstance(choices, dict) or not choices:
            self._sink.error(at + "/choices", "a choice must declare a non-empty 'choices' map")
            return {}
        variants: list[Json] = []
        choice_name = node.get("name") if isinstance(node.get("name"), str) else "Choice"
        if "$extends" not in node:
            # Tagged union: {"<choice name>": <value>}
            if "selector" in node:
                self._sink.warn(at + "/selector", "'selector' without '$extends' has no effect")
            for key, schema in choices.items():
                variants.append(
                    {
                        "title": f"{choice_name}{pascal(key)}",
                        "type": "object",
                        "properties": {key: self._node(schema, pointer_join(at, "choices", key))},
                        "required": [key],
                        "additionalProperties": False,
                    }
                )
            return {"oneOf": variants}
        # Inline union: the selected type's own properties plus the selector property.
        selector = node.get("selector")
        if not isinstance(selector, str):
            self._sink.error(at + "/selector", "an inline choice must name its 'selector' property")
            return {}
        self._merged_properties({"$extends": node["$extends"]}, at)  # checks the base
        for key, schema in choices.items():
            choice_at = pointer_join(at, "choices", key)
            target = self._choice_target(schema, choice_at)
            if target is None:
                continue
            variant = self._node(target, choice_at)
            variant.pop("title", None)
            variant["title"] = f"{choice_name}{pascal(key)}"
            props = variant.get("properties")
            if not isinstance(props, dict):
                self._sink.error(choice_at, "an inline choice must select object types")
                continue
            props[selector] = {"type": "string", "const": key}
            req = variant.get("required")
            variant["required"] = [selector, *(req if isinstance(req, list) else [])]
            variants.append(variant)
        return {"oneOf": variants}

    def _choice_target(self, schema: Json, at: str) -> JsonObject | None:
        if not isinstance(schema, dict):
            self._sink.error(at, "a choice must be a schema")
            return None
        ref = schema.get("$ref")
        declared = schema.get("type")
        if isinstance(declared, dict):
            ref = declared.get("$ref")
        if isinstance(ref, str):
            found = self._resolve(ref, at)
            return None if found is None else found[0]
        return schema

    # -- keywords -------------------------------------------------------------------

    def _annotations(self, node: JsonObject, out: JsonObject, at: str) -> None:
        for key in _ANNOTATIONS:
            if key in node:
                out[key] = node[key]
        if "example" in node:
            # Non-standard singular spelling (seen in the AgentRun seed).
            examples = out.get("examples")
            merged = list(examples) if isinstance(examples, list) else []
            merged.append(node["example"])
            out["examples"] = merged

    def _validation(
        self, node: JsonObject, out: JsonObject, at: str, base_type: str | None
    ) -> None:
        string_encoded = base_type in _STRING_INTEGERS or base_type == "decimal"
        for key in _SAME_KEYWORDS:
            if key not in node:
                continue
            if key in _NUMERIC_KEYWORDS and string_encoded:
                self._sink.warn(
                    pointer_join(at, key),
                    f"{key} on {base_type} (a string in JSON) cannot be expressed in "
                    "JSON Schema; not enforced",
                )
                continue
            if key == "pattern" and key in out:
                out["allOf"] = [{"pattern": node[key]}]
                continue
            out[key] = node[key]
        for key, renamed in _RENAMED_MAP_KEYWORDS.items():
            if key in node:
                out[renamed] = node[key]
        for key, renamed in (("keyNames", "propertyNames"), ("propertyNames", "propertyNames")):
            if key in node:
                out[renamed] = self._node(node[key], pointer_join(at, key))
        for key in ("patternKeys", "patternProperties"):
            value = node.get(key)
            if isinstance(value, dict):
                out["patternProperties"] = {
                    pattern: self._node(schema, pointer_join(at, key, pattern))
                    for pattern, schema in value.items()
                }
        if "has" in node:
            self._sink.warn(
                at + "/has",
                "'has' (map value containment) has no JSON Schema equivalent; not enforced",
            )
        if "contentCompression" in node:
            out["x-contentCompression"] = node["contentCompression"]

    def _composition(self, node: JsonObject, out: JsonObject, at: str) -> None:
        for key in _SUBSCHEMA_KEYWORDS:
            if key in node:
                out[key] = self._node(node[key], pointer_join(at, key), in_composition=True)
        for key in _SUBSCHEMA_LIST_KEYWORDS:
            value = node.get(key)
            if value is None:
                continue
            if not isinstance(value, list):
                self._sink.error(pointer_join(at, key), f"'{key}' must be an array")
                continue
            translated: list[Json] = [
                self._node(sub, pointer_join(at, key, i), in_composition=True)
                for i, sub in enumerate(value)
            ]
            existing = out.get(key)
            if isinstance(existing, list):
                # required alternatives already produced a oneOf: both must hold
                all_of = out.setdefault("allOf", [])
                assert isinstance(all_of, list)
                all_of.append({key: translated})
            else:
                out[key] = translated


def pointer_join(base: str, *tokens: str | int) -> str:
    return base + pointer(*tokens)
