"""Rewrite a JSON Schema so that datamodel-code-generator's output means what the schema means.

datamodel-code-generator drops some keywords silently and renders others loosely (design.md
section 4). Each pass here rewrites one such construct into an equivalent form the generator
renders faithfully, so the guarantee holds for any schema, not only the seeds:

* free-form values (``{}``, untyped objects and arrays) become references to one ``JsonValue``
  definition, which the driver maps to ``pydantic.JsonValue`` (no ``Any`` in the models);
* objects that allow extra properties say so explicitly (the generator's default would ignore
  and drop them);
* ``if``/``then`` rules keyed on an enum property split the object into one variant per value,
  so the rule lives in the types (a discriminated union) rather than in a validator;
* ``oneOf``/``anyOf`` whose members carry distinct ``const`` values on a common required
  property gain a ``discriminator``.

Anything the passes cannot express is an error diagnostic: a model that silently accepts what
its schema rejects is worse than no model.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from urllib.parse import unquote, urldefrag

from codegen import ecma
from codegen._json import Json, JsonObject, join_uri, pointer, resolve_pointer
from codegen._names import pascal
from codegen.diagnostics import Diagnostic, DiagnosticSink
from codegen.regex import NeedsBacktracking, PatternError, to_rust
from codegen.schema_passes import walk
from codegen.schema_passes.boolean_schemas import boolean_schemas
from codegen.schema_passes.empty_objects import empty_objects
from codegen.schema_passes.nested_refs import nested_refs
from codegen.schema_passes.nullable_enums import nullable_enums
from codegen.schema_passes.older_drafts import DRAFT_07, INTEGERS_AS_WRITTEN, draft_of

JSON_VALUE = "JsonValue"
# String formats pydantic has no faithful type for: each becomes a reference to a named
# definition, which the driver maps to the type of that name in agentruns_generated._json.
FORMAT_TYPES = {"uri": "Uri", "uri-reference": "UriReference"}

_SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_VALUES = (
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
_RULE_KEYWORDS = ("not", "if", "then", "else")
# The rule evaluator (agentruns_generated._json.satisfies) evaluates every draft-07 assertion
# keyword and ignores annotations and unknown keywords, as draft-07 says. These keywords of
# later dialects change what other keywords mean, so a rule that holds one is refused.
_UNEVALUATED = frozenset(
    {"unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef"}
)
_ASSERTING = frozenset(
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
_ANNOTATION_ONLY = frozenset(
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


@dataclass(frozen=True)
class Normalized:
    schema: JsonObject
    diagnostics: tuple[Diagnostic, ...]
    rules: dict[str, Json]
    """Type alias name -> the JSON Schema rule its values must also satisfy (see
    ``_enforce_exactly``); the driver's ``rule_types`` pass attaches each to its alias.
    ``ROOT_RULE`` names the root, whatever the class name the caller gives it."""
    refs: dict[str, Json]
    """The reference table of the rules: JSON pointer -> the subschema there, as the schema
    states it (before any rewriting), for every ``$ref`` a rule can reach."""

    unreachable: frozenset[str] = frozenset()
    """Rules of definitions no reference reaches from the root: the generator may leave their
    types out, and then no model can hold a value the rule would judge."""


ROOT_RULE = ""
"""The key of ``Normalized.rules`` for a rule on the root type."""


def normalize(
    schema: JsonObject,
    *,
    source: str,
    strict: bool = False,
    whole: bool = False,
    class_name: str | None = None,
) -> Normalized:
    """``whole``: the root is any JSON value and one rule, the schema itself, judges it (the
    form for a schema whose types the generator cannot render exactly; exact all the same).

    ``class_name``: the root's class. It is the name users import, so a definition or title
    the generator would also call so is renamed (the generator gave the root's name to the
    definition and renamed the root, or dropped the root); a class name spelled like the build
    step's own types or the module's imports is refused."""
    sink = DiagnosticSink(source)
    if class_name is not None and reserved_name(class_name):
        sink.error(
            "",
            f"class name {class_name!r} is spelled like a name the generated module uses "
            "itself (a type of the build step or an import); choose another",
        )
        sink.raise_if(strict=strict)
    prepared = nullable_enums(empty_objects(boolean_schemas(schema)))  # a copy
    assert isinstance(prepared, dict)
    normalizer = _Normalizer(prepared, sink, root_name=class_name)
    as_written = draft_of(prepared) == "draft-04"
    result = normalizer.run_whole() if whole else normalizer.run()
    sink.raise_if(strict=strict)
    refs = dict(normalizer.refs)
    if as_written:
        # read as draft-07 from here on, but its integers are draft-04's (older_drafts.py)
        result["$schema"] = DRAFT_07
        refs[INTEGERS_AS_WRITTEN] = True
    return Normalized(
        result,
        tuple(sink.items),
        dict(normalizer.rules),
        refs,
        frozenset(normalizer.unreachable_rules(result)),
    )


class _Normalizer:
    def __init__(
        self, schema: JsonObject, sink: DiagnosticSink, *, root_name: str | None = None
    ) -> None:
        self._root = schema
        self._sink = sink
        self._root_spelling = None if root_name is None else _spelling(root_name)
        self._defs_key = (
            "$defs" if "$defs" in schema or "definitions" not in schema else "definitions"
        )
        self._uses_json_value = False
        self._format_types: set[str] = set()
        self.rules: dict[str, Json] = {}
        self.refs: dict[str, Json] = {}
        self._stated: JsonObject = {}
        self._taken_names = _titles(schema) | set(_RESERVED_DEFINITIONS)
        self._backtracking: set[str] = set()  # patterns left to the backtracking matcher
        dialect = schema.get("$schema")
        self._draft7 = not (
            isinstance(dialect, str) and ("2019-09" in dialect or "2020-12" in dialect)
        )
        # uuid and duration are formats of 2019-09 on (and JSON Structure types); in a
        # draft-07 document they are unknown formats, which draft-07 treats as annotations
        self._checked_formats = (
            _CHECKED_FORMATS
            if isinstance(dialect, str) and ("2019-09" in dialect or "2020-12" in dialect)
            else _CHECKED_FORMATS - {"uuid", "duration"}
        )

    def _prepare(self) -> bool:
        """References made local and checked, patterns in the evaluator's spelling, and the
        schema as stated kept; False when the schema cannot be used at all."""
        self._local_refs()
        self._check_refs(self._root, "")
        if self._sink.errors:
            return False
        if self._draft7:
            _ref_siblings_ignored(self._root)
        nested_refs(self._root, defs_key=self._defs_key, tokens_of=ref_tokens)
        self._safe_definition_names()
        self._translate_patterns(self._root)
        if self._sink.errors:
            return False
        # the schema as stated, in the evaluator's spelling: rules resolve their $ref here,
        # never in the rewritten document (where a definition may be split or lifted)
        stated = copy.deepcopy(self._root)
        self._stated = stated if self._draft7 else _ref_siblings_apply(stated)
        return True

    def run_whole(self) -> JsonObject:
        if not self._prepare():
            return self._root
        self.rules[ROOT_RULE] = self._rule({"$ref": "#"}, "")
        defs_key = self._defs_key
        self._root = {"anyOf": [self._json_value_ref()]}
        self._root[defs_key] = {JSON_VALUE: _json_value_definition()}
        return self._root

    def run(self) -> JsonObject:
        if not self._prepare():
            return self._root
        self._name_item_unions()
        self._split_conditionals()
        self._enforce_exactly()
        if self._sink.errors:
            return self._root
        self._walk(self._root, "", value_position=False)
        if self._is_free_form(self._root):
            self._root["anyOf"] = [self._json_value_ref()]  # the root accepts any JSON value
        self._add_discriminators(self._root)
        for format_name, type_name in FORMAT_TYPES.items():
            if type_name in self._format_types:
                defs = self._root.setdefault(self._defs_key, {})
                assert isinstance(defs, dict)
                defs[type_name] = {"title": type_name, "type": "string", "format": format_name}
        if self._uses_json_value:
            defs = self._root.setdefault(self._defs_key, {})
            assert isinstance(defs, dict)
            defs[JSON_VALUE] = _json_value_definition()
        return self._root

    # -- helpers --------------------------------------------------------------------

    def _local_refs(self) -> None:
        """Spell every reference that names a place in this document as a local pointer.

        A ``$ref`` is a URI resolved against the base URI of where it stands: the document's
        ``$id``, or a subschema's own ``$id`` (which starts a new base), and its fragment is a
        pointer or a name (``$id: "#name"`` in draft-07, ``$anchor`` later). References to the
        document itself by its absolute URI, to a subschema by its ``$id``, or to an anchor
        resolve here, without fetching anything.
        """
        resources: dict[str, str] = {}  # URI without fragment -> pointer of its schema
        anchors: dict[str, str] = {}  # URI with a name fragment -> pointer
        self._collect_ids(self._root, "", "", resources, anchors, root=True)
        self._rewrite_to_local(self._root, "", resources, anchors)

    def _collect_ids(
        self,
        node: Json,
        at: str,
        base: str,
        resources: dict[str, str],
        anchors: dict[str, str],
        *,
        root: bool = False,
    ) -> None:
        if isinstance(node, list):
            for index, sub in enumerate(node):
                self._collect_ids(sub, at + pointer(index), base, resources, anchors)
            return
        if not isinstance(node, dict):
            return
        identifier = node.get("$id")
        if "$ref" in node and self._draft7:
            identifier = None  # draft-07: every sibling of $ref is ignored, $id too
        if isinstance(identifier, str):
            resolved = join_uri(base, identifier)
            uri, fragment = urldefrag(resolved)
            if fragment and not fragment.startswith("/"):
                anchors[f"{uri}#{fragment}"] = at
            else:
                resources.setdefault(uri, at)
                base = uri
        if root:
            resources.setdefault(base, "")
        anchor = node.get("$anchor")
        if isinstance(anchor, str):
            anchors[f"{base}#{anchor}"] = at
        node["$agentruns-base"] = base  # read by _rewrite_to_local, removed there
        for tokens, sub in walk.children_at(node):
            self._collect_ids(sub, at + pointer(*tokens), base, resources, anchors)

    def _rewrite_to_local(
        self, node: Json, at: str, resources: dict[str, str], anchors: dict[str, str]
    ) -> None:
        if isinstance(node, list):
            for index, sub in enumerate(node):
                self._rewrite_to_local(sub, at + pointer(index), resources, anchors)
            return
        if not isinstance(node, dict):
            return
        base = node.pop("$agentruns-base", "")
        if at:
            # every reference is a local pointer now; an $id left inside would make the
            # generator resolve "#" against that subschema instead of the document
            node.pop("$id", None)
            node.pop("$anchor", None)
        ref = node.get("$ref")
        named = isinstance(ref, str) and ref.startswith("#") and not ref.startswith("#/")
        if (
            isinstance(ref, str)
            and isinstance(base, str)
            and (base or not ref.startswith("#") or (named and ref != "#"))
        ):
            uri, fragment = urldefrag(join_uri(base, ref))
            local: str | None = None
            if f"{uri}#{fragment}" in anchors:
                local = "#" + anchors[f"{uri}#{fragment}"]
            elif uri in resources and (fragment == "" or fragment.startswith("/")):
                local = "#" + resources[uri] + fragment
            if local is not None and local != ref:
                node["$ref"] = local
        for tokens, sub in walk.children_at(node):
            self._rewrite_to_local(sub, at + pointer(*tokens), resources, anchors)

    def _check_refs(self, node: Json, at: str) -> None:
        """Every $ref must stay in the document and resolve (nothing is ever fetched)."""
        if isinstance(node, list):
            for index, sub in enumerate(node):
                self._check_refs(sub, f"{at}/{index}")
            return
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith("#"):
                self._sink.error(
                    at + "/$ref",
                    f"reference {ref!r} leaves the document; remote references are refused "
                    "(the build step never fetches anything)",
                )
            elif self._resolve(node) is None:
                self._sink.error(at + "/$ref", f"reference {ref!r} does not resolve")
        for tokens, sub in walk.children_at(node):
            self._check_refs(sub, at + pointer(*tokens))

    def _json_value_ref(self) -> JsonObject:
        self._uses_json_value = True
        return {"$ref": f"#/{self._defs_key}/{JSON_VALUE}"}

    def _resolve(self, node: Json) -> Json:
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            assert isinstance(ref, str)
            tokens = ref_tokens(ref)
            return None if tokens is None else resolve_pointer(self._root, tokens)
        return node

    def _safe_definition_names(self) -> None:
        """Give definitions names the generator reads as one class name, and spell every
        ``$ref`` to them plainly.

        The generator reads a ``.`` in a definition name as a module path (one schema becomes
        several modules) and builds class names from the rest; percent-encoded references
        (``#/definitions/a%25b``) it does not decode. A name outside ``[A-Za-z0-9_-]`` gets a
        sanitised unique one (said in a diagnostic) and every reference is rewritten decoded.
        Definitions inside definitions too: a schema bundled from another file keeps its own
        (Kubernetes' ``io.k8s.api.core.v1.Pod``).
        """
        renames: dict[tuple[str, ...], str] = {}
        pending: list[tuple[tuple[str | int, ...], JsonObject]] = [((), self._root)]
        while pending:
            at, node = pending.pop()
            pending.extend((at + tokens, child) for tokens, child in walk.children_at(node))
            for key in ("definitions", "$defs"):
                defs = node.get(key)
                if isinstance(defs, dict):
                    self._safe_names_of(at, key, defs, renames)
        self._rewrite_refs(self._root, renames)
        self._safe_titles()

    def _safe_names_of(
        self,
        at: tuple[str | int, ...],
        key: str,
        defs: JsonObject,
        renames: dict[tuple[str, ...], str],
    ) -> None:
        taken = set(defs)
        renamed: dict[str, str] = {}
        for name in list(defs):
            # the normaliser's own definitions (JsonValue, Uri...) must stay its own
            if _SAFE_NAME.fullmatch(name) and not self._taken(name):
                continue
            base = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "Definition"
            new, counter = base, 1
            while new in taken or self._taken(new):
                counter += 1
                new = f"{base}_{counter}"
            taken.add(new)
            renamed[name] = new
            renames[(*(str(t) for t in at), key, name)] = new  # as a $ref's tokens spell it
            self._sink.warn(
                pointer(*at, key, name), f"definition named {new!r} in the generated code"
            )
        if renamed:
            replaced = {renamed.get(n, n): v for n, v in defs.items()}
            defs.clear()
            defs.update(replaced)

    def _taken(self, name: str) -> bool:
        """Whether the generator could give a class of this name a name already taken: one
        of its own types, an import, or the root's class."""
        return reserved_name(name) or _spelling(name) == self._root_spelling

    def _safe_titles(self) -> None:
        """A title the generator would make the class name of one of the normaliser's own
        types (``"title": "uri"`` -> ``Uri``) would type the value as that type: such a title
        gets a unique name of its own (said in a diagnostic)."""
        taken = _titles(self._root)
        for at, node in walk.subschemas_at(self._root):
            title = node.get("title")
            if at == "" or not isinstance(title, str) or not self._taken(title):
                continue  # the root's title is replaced by its class name
            base = re.sub(r"[^A-Za-z0-9_]+", "_", title).strip("_") or "Title"
            new, counter = base, 1
            while new in taken or pascal(new) in taken or self._taken(new):
                counter += 1
                new = f"{base}_{counter}"
            taken.update((new, pascal(new)))
            node["title"] = new
            self._sink.warn(
                at + "/title", f"title {title!r} is named {new!r} in the generated code"
            )

    def _translate_patterns(self, root: Json) -> None:
        """Every regular expression of the schema in the Rust engine's spelling of its
        ECMA-262 meaning (``codegen.regex``); one that has no such form is refused here."""
        for at, node in walk.subschemas_at(root):
            pattern = node.get("pattern")
            if isinstance(pattern, str):
                node["pattern"] = self._pattern(pattern, at + "/pattern")
            patterns = node.get("patternProperties")
            if isinstance(patterns, dict):
                node["patternProperties"] = {
                    self._pattern(key, at + pointer("patternProperties", key)): sub
                    for key, sub in patterns.items()
                }

    def _pattern(self, pattern: str, at: str) -> str:
        """The pattern in the linear-time engine's spelling; one with lookaround or
        backreferences stays ECMA-262 as written, for a rule's backtracking matcher
        (``codegen.ecma``, step-bounded); one that is no pattern is refused."""
        try:
            return to_rust(pattern)
        except NeedsBacktracking:
            why = "has lookaround or backreferences"
        except PatternError as error:
            # ECMA-262 reads some patterns the Rust engine does not (Annex B: a brace that is
            # no quantifier is a literal): the backtracking matcher reads them as ECMA does
            why = f"has no linear-time form ({error})"
        try:
            ecma.parse(pattern)
        except ecma.PatternSyntaxError as error:
            self._sink.error(at, f"pattern {pattern!r}: {error}; refused")
            return pattern
        self._backtracking.add(pattern)
        self._sink.warn(
            at,
            f"pattern {pattern!r} {why}: matched in a rule by backtracking, refusing a value "
            f"past {ecma.MAX_STEPS} steps",
        )
        return pattern

    def _rewrite_refs(self, node: Json, renames: dict[tuple[str, ...], str]) -> None:
        """Every JSON-pointer ``$ref`` spelled plainly, through the renamed definitions
        (``renames``: the original tokens up to a definition's name -> its new name)."""
        for schema in walk.subschemas(node):
            ref = schema.get("$ref")
            if isinstance(ref, str):
                tokens = ref_tokens(ref)
                if tokens is not None:
                    spelled: list[str | int] = list(tokens)
                    for end in range(2, len(tokens) + 1):
                        new = renames.get(tuple(tokens[:end]))
                        if new is not None:
                            spelled[end - 1] = new
                    schema["$ref"] = "#" + pointer(*spelled)

    def _name_item_unions(self) -> None:
        defs = self._root.get(self._defs_key)
        owners: list[tuple[str, Json]] = [("", self._root)]
        if isinstance(defs, dict):
            owners.extend(defs.items())
        for owner, node in owners:
            properties = node.get("properties") if isinstance(node, dict) else None
            if isinstance(properties, dict):
                for name, sub in properties.items():
                    _name_union_items(owner, name, sub)

    # -- free-form values and extras ------------------------------------------------

    def _is_free_form(self, node: Json) -> bool:
        if node is True:
            return True
        # annotations, definitions and unknown keywords constrain nothing (draft-07)
        return isinstance(node, dict) and not set(node) & _ASSERTING

    def _walk(self, node: Json, at: str, *, value_position: bool) -> None:
        if not isinstance(node, dict):
            return
        format_ref = self._format_ref(node)
        if format_ref is not None:
            # a URI anywhere (items, a branch, the root): the exact type, never the
            # generator's own (AnyUrl rewrites the value; uri-reference it does not check)
            node.clear()
            node.update(format_ref)
            return
        for key in _SCHEMA_MAPS:
            members = node.get(key)
            if isinstance(members, dict):
                for name, sub in list(members.items()):
                    sub_at = at + pointer(key, name)
                    if key in ("properties", "patternProperties") and self._is_free_form(sub):
                        members[name] = self._free(sub)
                    elif key in ("definitions", "$defs") and self._is_free_form(sub):
                        # a definition of any value: a named alias of JsonValue
                        assert isinstance(sub, dict)
                        sub["anyOf"] = [self._json_value_ref()]
                    elif key in ("properties", "patternProperties") and self._format_ref(sub):
                        members[name] = self._format_ref(sub) or {}
                    else:
                        self._walk(
                            sub, sub_at, value_position=key != "definitions" and key != "$defs"
                        )
        for key in _SCHEMA_LISTS:
            members_list = node.get(key)
            if isinstance(members_list, list):
                for index, sub in enumerate(members_list):
                    if key in ("anyOf", "oneOf") and self._is_free_form(sub):
                        members_list[index] = self._free(sub)
                    else:
                        self._walk(sub, at + pointer(key, index), value_position=True)
        for key in _SCHEMA_VALUES:
            if key not in node:
                continue
            sub = node[key]
            if key in ("items", "additionalProperties") and self._is_free_form(sub):
                node[key] = self._json_value_ref()
            else:
                self._walk(sub, at + pointer(key), value_position=True)
        self._free_form_types(node, at)

    def _format_ref(self, node: Json) -> JsonObject | None:
        """A reference to the named format type for ``{type: string, format: F}``, if any."""
        if not isinstance(node, dict) or node.get("type") != "string":
            return None
        type_name = FORMAT_TYPES.get(str(node.get("format")))
        if type_name is None or set(node) - _ANNOTATION_ONLY - {"type", "format"}:
            return None
        self._format_types.add(type_name)
        ref: JsonObject = {"$ref": f"#/{self._defs_key}/{type_name}"}
        ref.update({k: v for k, v in node.items() if k in ("description", "examples")})
        return ref

    def _free(self, node: Json) -> JsonObject:
        ref = self._json_value_ref()
        if isinstance(node, dict):
            # keep the documentation of the value beside the reference
            ref.update({k: v for k, v in node.items() if k in ("description", "examples")})
        return ref

    def _free_form_types(self, node: JsonObject, at: str) -> None:
        declared = node.get("type")
        types = (
            [declared]
            if isinstance(declared, str)
            else declared
            if isinstance(declared, list)
            else []
        )
        if "object" in types and not any(
            k in node for k in ("properties", "additionalProperties", "patternProperties")
        ):
            node["additionalProperties"] = self._json_value_ref()
        elif "object" in types and "properties" in node and "additionalProperties" not in node:
            # JSON Schema allows extras unless told otherwise; say so, so they are kept.
            node["additionalProperties"] = True
        if "array" in types and "items" not in node and "prefixItems" not in node:
            node["items"] = self._json_value_ref()
        if (
            isinstance(declared, list)
            and len(declared) > 1
            and ("object" in declared or "array" in declared)
        ):
            # A type list mixing containers with scalars: spell it as anyOf so each
            # branch keeps its own keywords.
            branches: list[Json] = []
            for name in declared:
                branch: JsonObject = {"type": name}
                if name == "object":
                    for key in (
                        "properties",
                        "required",
                        "additionalProperties",
                        "patternProperties",
                    ):
                        if key in node:
                            branch[key] = node.pop(key)
                if name == "array":
                    for key in ("items", "minItems", "maxItems", "uniqueItems", "prefixItems"):
                        if key in node:
                            branch[key] = node.pop(key)
                branches.append(branch)
            del node["type"]
            node["anyOf"] = branches

    # -- conditionals ---------------------------------------------------------------

    def _split_conditionals(self) -> None:
        defs = self._root.get(self._defs_key)
        targets: list[tuple[str, JsonObject, str | None]] = []
        if isinstance(defs, dict):
            for name, sub in defs.items():
                if isinstance(sub, dict):
                    targets.append((pointer(self._defs_key, name), sub, name))
        targets.append(("", self._root, None))
        for at, node, def_name in targets:
            if self._has_conditional(node):
                self._split(node, at, def_name)
        self._lift_rules(self._root, "")

    @staticmethod
    def _has_conditional(node: JsonObject) -> bool:
        all_of = node.get("allOf")
        if "if" in node:
            return True
        return isinstance(all_of, list) and any(isinstance(s, dict) and "if" in s for s in all_of)

    def _split(self, node: JsonObject, at: str, def_name: str | None) -> None:
        rules = [node] if "if" in node else []
        all_of = node.get("allOf")
        others: list[Json] = []
        if isinstance(all_of, list):
            for sub in all_of:
                if isinstance(sub, dict) and "if" in sub:
                    rules.append(sub)
                else:
                    others.append(sub)
        properties = node.get("properties")
        if def_name is None or not isinstance(properties, dict) or others:
            return  # left for _lift_rules
        keyed: dict[str, list[JsonObject]] = {}
        selector: str | None = None
        for rule in rules:
            parsed = _const_condition(rule.get("if"))
            if parsed is None or "else" in rule:
                return
            prop, matched = parsed
            if selector not in (None, prop):
                return
            selector = prop
            then = rule.get("then")
            if not isinstance(then, dict):
                return
            for value in matched:
                keyed.setdefault(value, []).append(then)
        assert selector is not None
        selector_schema = properties.get(selector)
        values = selector_schema.get("enum") if isinstance(selector_schema, dict) else None
        required = node.get("required")
        if (
            not isinstance(values, list)
            or not all(isinstance(v, str) for v in values)
            or not isinstance(required, list)
            or selector not in required
            or node.get("additionalProperties") is not False
        ):
            return
        base = {k: v for k, v in node.items() if k not in ("allOf", "if", "then", "else")}
        variants: list[Json] = []
        defs = self._root[self._defs_key]
        assert isinstance(defs, dict)
        for raw_value in values:
            assert isinstance(raw_value, str)
            value = raw_value
            variant = copy.deepcopy(base)
            variant_props = variant["properties"]
            assert isinstance(variant_props, dict)
            variant_required = variant["required"]
            assert isinstance(variant_required, list)
            variant_props[selector] = {"type": "string", "const": value}
            for then in keyed.get(value, []):
                if not self._apply_then(then, variant_props, variant_required):
                    self._sink.error(
                        at,
                        "if/then rule has a 'then' this build step cannot express in types "
                        "(supported: required, and not/anyOf of required)",
                    )
                    return
            variant_name = f"{pascal(value)}{pascal(def_name)}"
            variant["title"] = variant_name
            defs[f"{def_name}__{value}"] = variant
            variants.append({"$ref": f"#/{self._defs_key}/{def_name}__{value}"})
        replacement: JsonObject = {"oneOf": variants}
        for key in ("title", "description"):
            if key in node:
                replacement[key] = node[key]
        node.clear()
        node.update(replacement)
        self._sink.warn(
            at,
            f"if/then rules keyed on {selector!r} expressed as a union of one variant per value",
        )

    @staticmethod
    def _apply_then(then: JsonObject, props: JsonObject, required: list[Json]) -> bool:
        for key, value in then.items():
            if key == "required" and isinstance(value, list):
                required.extend(v for v in value if v not in required)
            elif key == "properties" and isinstance(value, dict):
                for name, bounds in value.items():
                    if not _tighten(props.get(name), bounds):
                        return False
            elif key == "not":
                forbidden = _forbidden_properties(value)
                if forbidden is None:
                    return False
                for name in forbidden:
                    props.pop(name, None)
                    if name in required:
                        return False
            else:
                return False
        return True

    def _lift_rules(self, node: Json, at: str) -> None:
        """Lift ``not`` and if/then/else the types cannot carry into model-level rules.

        The generator would drop them silently. Each is moved, as plain JSON Schema, into
        ``x-allOf`` of the object schema that owns it (wrapped in the ``properties``/``items``
        path that led there), which the generator publishes as the model's ``allOf`` and the
        driver enforces with a validator. What cannot be lifted exactly is an error.
        """
        self._lift(node, at, owner=None, path=())

    def _lift(
        self, node: Json, at: str, *, owner: JsonObject | None, path: tuple[tuple[str, str], ...]
    ) -> None:
        if isinstance(node, list):
            return
        if not isinstance(node, dict):
            return
        if isinstance(node.get("properties"), dict):
            owner, path = node, ()
        if any(key in node for key in _RULE_KEYWORDS):
            self._lift_here(node, at, owner, path)
        for key, sub in list(node.items()):  # lifting adds x-allOf to owners as it goes
            if key in ("enum", "const", "examples", "default", "x-allOf"):
                continue
            if key in ("properties", "patternProperties") and isinstance(sub, dict):
                for name, member in sub.items():
                    step = (key, name)
                    self._lift(member, at + pointer(key, name), owner=owner, path=(*path, step))
            elif key in ("definitions", "$defs") and isinstance(sub, dict):
                for name, member in sub.items():
                    self._lift(member, at + pointer(key, name), owner=None, path=())
            elif key in ("items", "additionalProperties") and isinstance(sub, dict):
                self._lift(sub, at + pointer(key), owner=owner, path=(*path, (key, "")))
            elif key == "allOf" and isinstance(sub, list):
                for index, member in enumerate(sub):
                    self._lift(member, at + pointer(key, index), owner=owner, path=path)
            elif isinstance(sub, list):
                for index, member in enumerate(sub):
                    # a branch of anyOf/oneOf/prefixItems: a rule there cannot move up
                    self._lift(member, at + pointer(key, index), owner=None, path=())
            elif isinstance(sub, dict):
                self._lift(sub, at + pointer(key), owner=None, path=())

    def _lift_here(
        self, node: JsonObject, at: str, owner: JsonObject | None, path: tuple[tuple[str, str], ...]
    ) -> None:
        found = [key for key in _RULE_KEYWORDS if key in node]
        if owner is None:
            return  # not inside an object's properties: _enforce_exactly attaches it here
        rule: JsonObject = {key: node.pop(key) for key in found}
        inlined = self._rule(rule, at)
        for kind, name in reversed(path):
            inlined = (
                {kind: {name: inlined}}
                if kind in ("properties", "patternProperties")
                else {kind: inlined}
            )
        rules = owner.setdefault("x-allOf", [])
        assert isinstance(rules, list)
        rules.append(inlined)
        self._sink.warn(
            at,
            f"{'/'.join(found)} is enforced by a model validator and published in the model's "
            "allOf (no type can carry it)",
        )

    def _rule(self, rule: JsonObject, at: str) -> JsonObject:
        """``rule`` as it is written into a model, its references resolvable in ``refs``.

        A rule keeps its ``$ref``: each is resolved in the schema as stated (so recursion is
        by name and nothing the normaliser rewrote leaks into a rule), and every subschema a
        rule can reach through references joins the reference table.
        """
        pending = list(_references(rule))
        while pending:
            ref = pending.pop()
            key = ref[1:]
            if key in self.refs:
                continue
            tokens = ref_tokens(ref)
            target = resolve_pointer(self._stated, tokens) if tokens is not None else None
            if target is None:
                self._sink.error(at, f"reference {ref!r} in a rule does not resolve; refused")
                continue
            self.refs[key] = target
            pending.extend(_references(target))
        for keyword in sorted(_keywords(rule) & _UNEVALUATED):
            self._sink.error(at, f"{keyword} in a rule: the rule evaluator lacks it; refused")
        return rule

    # -- exactness ------------------------------------------------------------------

    def _enforce_exactly(self) -> None:
        """Make every schema the generator would render loosely exact, or refuse it.

        The generator drops or loosens some keywords: untyped keywords, ``uniqueItems``,
        ``contains``, ``patternProperties``, ``propertyNames``, ``dependencies``, min/max
        properties, ``oneOf`` (as ``anyOf``), ``const``/``enum`` other than strings and
        integers, ``false``, and ``not``/``if`` left where no object owns them. Its rendering
        of what remains is a superset of the schema. So each such schema keeps, as its type,
        what the generator renders exactly, and the keywords it would loosen become a rule
        the value must also satisfy, checked by ``agentruns_generated._json.satisfies``: on
        an object model, in its published ``allOf`` (a model validator); anywhere else, on a
        named type alias (``Annotated[T, SchemaRule(...)]``). ``default`` is an annotation
        and is not rendered (a default would fill in absent fields and make them nullable).
        """
        defs = self._root.get(self._defs_key)
        if isinstance(defs, dict):
            for name in list(defs):
                sub = defs[name]
                at = pointer(self._defs_key, name)
                defs[name] = self._exact(sub, at, alias=name)
        root = self._exact(self._root, "", alias=None)
        assert isinstance(root, dict)
        if root is not self._root:
            self._root.clear()
            self._root.update(root)

    def _exact(self, node: Json, at: str, *, alias: str | None) -> Json:
        """``node`` made exact: its children first, then itself (``alias``: the definition
        name it is, if it is one)."""
        if node is False:
            node = {"not": {}}  # the false schema: a value here is never valid
        if not isinstance(node, dict):
            return node
        node.pop("default", None)
        original = copy.deepcopy(node)  # the rule states the schema as written
        self._exact_children(node, at)
        self._hoist_merged_rules(node)
        _declare_required(node)
        _distinct_branches(node)
        loose = self._loose_keywords(node)
        if not loose:
            return node
        kind = node.get("type")
        if kind == "number" or (isinstance(kind, list) and "number" in kind):
            # the generator's type for a number is a float, which holds an integer past 2**53
            # inexactly, and a rule judges the value the model holds: 2**70 as a float is a
            # multiple of 3. With a rule, the whole node is the rule, over the value as read.
            loose |= set(node) - _ANNOTATION_ONLY - {"title", "x-allOf"}
        if loose & {"patternProperties", "additionalItems"} or (
            "items" in loose and "additionalItems" in node
        ):
            # which properties or items are "additional" depends on these: judged together
            loose |= set(node) & {"additionalProperties", "additionalItems", "items"}
        rendered = {key: node.pop(key) for key in loose}
        # the rule states the schema as written where the document still holds it there:
        # what the normaliser lifted or rewrote below this node cannot leak into the rule
        stated = resolve_pointer(self._stated, ref_tokens("#" + at) or [])
        source = stated if isinstance(stated, dict) else {}
        rule: JsonObject = {}
        for key in sorted(loose):
            if key in source:
                rule[key] = source[key]
            elif key in original:
                rule[key] = _restated(original[key])
        if "additionalProperties" in rule and "properties" in (source or original):
            rule["properties"] = (source or original)["properties"]
        # Beside keywords the generator renders (a type, a minimum) it would render the
        # union alone: the branches' JsonValue with the minimum applied to it, the type
        # dropped (a string then reached the comparison and raised TypeError). Such a node
        # keeps its own keywords, and the rule judges the branches.
        rendered_beside = set(node) - _ANNOTATION_ONLY - {"title", "x-allOf"}
        if "oneOf" in loose and not rendered_beside:
            node["anyOf"] = rendered["oneOf"]  # the superset: any one (exact) branch
            _distinct_branches(node)
        object_model = (
            isinstance(node.get("properties"), dict) and node.get("type") in ("object", None)
        ) or self._merged_class(node)
        if not object_model and "x-allOf" in node:
            # rules lifted into what is no object model now: they join this node's rule
            lifted = node.pop("x-allOf")
            assert isinstance(lifted, list)
            rule["allOf"] = [*_as_list(rule.get("allOf")), *lifted]
        inlined = self._rule(rule, at)
        if object_model:
            # an object model: the rule joins its published allOf, checked by its validator
            rules = node.setdefault("x-allOf", [])
            assert isinstance(rules, list)
            rules.append(inlined)
            self._sink.warn(at, f"{', '.join(sorted(loose))}: enforced by a model validator")
            return node
        if self._is_free_form(node):
            # nothing the generator renders is left: the value is any JSON value
            node["anyOf"] = [self._json_value_ref()]
        if at == "" and alias is None:
            # the root type, named by the caller: the rule is attached by that name
            self.rules[ROOT_RULE] = inlined
            self._sink.warn(at, f"{', '.join(sorted(loose))}: enforced by the root type")
            return node
        name = alias if alias is not None else self._rule_name(at)
        # the type's name is decided here, as a name the generator keeps as it is (an
        # identifier no other schema title or definition takes), so the rule finds its alias
        title = node.get("title")
        type_name = self._type_name(
            title if isinstance(title, str) else name, own=pascal(alias) if alias else None
        )
        node["title"] = type_name
        self.rules[type_name] = inlined
        self._sink.warn(at, f"{', '.join(sorted(loose))}: enforced by the type {type_name}")
        if alias is not None:
            return node
        defs = self._root.setdefault(self._defs_key, {})
        assert isinstance(defs, dict)
        # the definition is named as its type: the generator names an alias after its
        # definition, so name and title agree and the rule finds its alias by name
        defs[type_name] = node
        reference: JsonObject = {"$ref": "#" + pointer(self._defs_key, type_name)}
        return reference

    def unreachable_rules(self, schema: JsonObject) -> set[str]:
        """The rules' type names whose definitions the root does not reach by ``$ref``."""
        defs = schema.get(self._defs_key)
        if not isinstance(defs, dict):
            return set()
        reached: set[str] = set()
        pending: list[Json] = [{k: v for k, v in schema.items() if k != self._defs_key}]
        while pending:
            for ref in _references(pending.pop()):
                tokens = ref_tokens(ref)
                if (
                    tokens
                    and len(tokens) >= 2
                    and tokens[0] == self._defs_key
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

    def _merged_class(self, node: JsonObject) -> bool:
        """Whether the generator renders ``node`` as one class merging its ``allOf`` of object
        models (a model, which carries rules in its published allOf, not a type alias)."""
        all_of = node.get("allOf")
        return (
            isinstance(all_of, list)
            # one reference alone the generator reads as that model itself, not a new class
            and (len(all_of) > 1 or any("$ref" not in m for m in all_of if isinstance(m, dict)))
            and all(self._is_object_model(member) for member in all_of)
            and node.get("type") in ("object", None)
            and not set(node) & {"anyOf", "oneOf"}
        )

    def _hoist_merged_rules(self, node: JsonObject) -> None:
        """The generator merges an ``allOf`` of object models into one class and keeps none
        of an inline member's own settings: the rules lifted into a member (``x-allOf``) move
        to the node that becomes the class (they judge the same value)."""
        all_of = node.get("allOf")
        if not isinstance(all_of, list) or not self._merged_class(node):
            return
        hoisted: list[Json] = []
        for member in all_of:
            if isinstance(member, dict) and "$ref" not in member:
                hoisted += _as_list(member.pop("x-allOf", None))
        if hoisted:
            node["x-allOf"] = [*_as_list(node.get("x-allOf")), *hoisted]

    def _type_name(self, wanted: str, *, own: str | None = None) -> str:
        """A class name for a rule's type (``own``: the definition's own name, which it may
        keep)."""
        base = pascal(wanted) or "Value"
        if not base[0].isalpha() or not base.isascii():
            base = "Value" + base if base.isascii() else "Value"
        name, counter = base, 1
        while (name in self._taken_names and name != own) or name in self.rules:
            counter += 1
            name = f"{base}{counter}"
        self._taken_names.add(name)
        return name

    def _is_object_model(self, node: Json) -> bool:
        target = self._resolve(node)
        return (
            isinstance(target, dict)
            and target.get("type") == "object"
            and isinstance(target.get("properties"), dict)
        )

    def _rule_name(self, at: str) -> str:
        tokens = [t for t in at.split("/") if t and t not in _STRUCTURAL]
        base = pascal("_".join(tokens[-2:])) + "Rule"
        if not base[0].isalpha():  # a name of branch numbers ("10Rule") is no identifier
            base = "Value" + base
        defs = self._root.get(self._defs_key)
        taken = set(defs) if isinstance(defs, dict) else set()
        taken |= set(self.rules)
        name, counter = base, 1
        while name in taken:
            counter += 1
            name = f"{base}{counter}"
        return name

    def _exact_children(self, node: JsonObject, at: str) -> None:
        for key in ("properties", "patternProperties"):
            members = node.get(key)
            if isinstance(members, dict):
                for name in list(members):
                    members[name] = self._exact(members[name], at + pointer(key, name), alias=None)
        for key in ("items", "additionalProperties", "additionalItems"):
            sub = node.get(key)
            if isinstance(sub, dict) or (sub is False and key == "items"):
                node[key] = self._exact(sub, at + pointer(key), alias=None)
        for key in ("anyOf", "oneOf", "allOf"):
            members_list = node.get(key)
            if isinstance(members_list, list):
                node[key] = [
                    self._exact(sub, at + pointer(key, index), alias=None)
                    for index, sub in enumerate(members_list)
                ]

    def _loose_keywords(self, node: JsonObject) -> set[str]:
        """The keywords of ``node`` the generator would not render exactly."""
        keys = set(node)
        declared = node.get("type")
        types = (
            [declared] if isinstance(declared, str) else declared if isinstance(declared, list)
            else None
        )  # fmt: skip
        loose = keys & _ALWAYS_LOOSE
        fmt = node.get("format")
        if "format" in keys and fmt not in _RENDERED_FORMATS and fmt not in self._checked_formats:
            # an annotation only (draft-07 lets a validator not assert a format): the
            # generator would render it as a Python type with its own, laxer or stricter,
            # rules (`date` takes epoch numbers, `email` needs a package)
            del node["format"]
            keys.discard("format")
        if types is None:
            loose |= keys & _BY_TYPE_KEYWORDS
        elif len(types) > 1:
            loose |= keys & _BY_TYPE_KEYWORDS
            if fmt in _RENDERED_FORMATS and "string" in types:
                loose.discard("format")  # `JsonDateTime | None` and the like are exact
        else:
            (only,) = types
            own = _TYPE_KEYWORDS.get(str(only), frozenset())
            loose |= keys & (_BY_TYPE_KEYWORDS - own - {"format"})  # no-ops the generator
            # would apply to the wrong type (or fail on)
            if only == "array" and isinstance(node.get("items"), list):
                loose |= {"items"} | (keys & {"additionalItems"})
            required, declared_props = node.get("required"), node.get("properties")
            if only == "object" and isinstance(required, list):
                known = set(declared_props) if isinstance(declared_props, dict) else set()
                if any(name not in known for name in required):
                    loose.add("required")  # the generator ignores names it has no field for
            if fmt in FORMAT_TYPES and set(node) - _ANNOTATION_ONLY - {"type", "format"}:
                loose.add("format")  # beside other keywords: a rule, not the generator's type
            if only == "string" and fmt in self._checked_formats:
                loose.add("format")
            if only in ("number", "integer") and "multipleOf" in keys:
                multiple = node["multipleOf"]
                if not (isinstance(multiple, int) and not isinstance(multiple, bool)):
                    loose.add("multipleOf")
        if isinstance(node.get("items"), list):
            loose.add("items")
        if node.get("pattern") in self._backtracking:
            loose.add("pattern")  # never the generator's: it would run it with Python's re
        for key in ("const", "enum"):
            if key in node and not _literal_values(node[key] if key == "enum" else [node[key]]):
                loose.add(key)
        one_of = node.get("oneOf")
        if isinstance(one_of, list) and self._common_const_property(one_of) is None:
            loose.add("oneOf")
        siblings = keys - _ANNOTATION_ONLY - {"title", "anyOf", "oneOf", "x-allOf"}
        for key in ("anyOf", "oneOf"):
            if key in node and (siblings - loose or ("anyOf" in node and "oneOf" in node)):
                # the generator renders a union or the other keywords, not both
                loose.add(key)
        all_of = node.get("allOf")
        if isinstance(all_of, list) and not all(self._is_object_model(member) for member in all_of):
            loose.add("allOf")  # the generator merges allOf of object models only
        return loose

    # -- discriminators -------------------------------------------------------------

    def _add_discriminators(self, root: Json) -> None:
        for node in reversed(walk.subschemas(root)):  # the innermost first
            self._discriminate(node)

    def _discriminate(self, node: JsonObject) -> None:
        for key in ("oneOf", "anyOf"):
            members = node.get(key)
            if isinstance(members, list) and len(members) > 1 and "discriminator" not in node:
                prop = self._common_const_property(members)
                if prop is not None:
                    node["discriminator"] = {"propertyName": prop}

    def _common_const_property(self, members: list[Json]) -> str | None:
        candidates: set[str] | None = None
        consts: list[dict[str, Json]] = []
        for member in members:
            resolved = self._resolve(member)
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


_NUMBER_KEYWORDS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)
_STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern", "format"})
_ARRAY_KEYWORDS = frozenset(
    {"items", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains"}
)
_OBJECT_KEYWORDS = frozenset(
    {
        "properties", "required", "additionalProperties", "patternProperties",
        "minProperties", "maxProperties", "propertyNames", "dependencies",
    }
)  # fmt: skip
_BY_TYPE_KEYWORDS = _NUMBER_KEYWORDS | _STRING_KEYWORDS | _ARRAY_KEYWORDS | _OBJECT_KEYWORDS
_TYPE_KEYWORDS = {
    "number": _NUMBER_KEYWORDS,
    "integer": _NUMBER_KEYWORDS,
    "string": _STRING_KEYWORDS,
    "array": _ARRAY_KEYWORDS - {"uniqueItems", "contains", "additionalItems"},
    "object": _OBJECT_KEYWORDS
    - {"patternProperties", "minProperties", "maxProperties", "propertyNames", "dependencies"},
}
_ALWAYS_LOOSE = frozenset({"not", "if", "then", "else"})
"""Left after lifting (no object owns them): always a rule."""
_RENDERED_FORMATS = frozenset({"date-time", "uri", "uri-reference"})
"""Formats the generated types assert exactly (JsonDateTime, Uri, UriReference)."""
_CHECKED_FORMATS = frozenset(
    {"date", "time", "duration", "uuid", "json-pointer", "ipv4", "ipv6", "regex"}
)
"""Formats asserted by a rule (``_json._format_ok``): the JSON Structure types among them.
Any other format is an annotation (see ``_loose_keywords``)."""
_STRUCTURAL = frozenset(
    {"properties", "items", "additionalProperties", "anyOf", "oneOf", "allOf", "definitions",
     "$defs", "patternProperties", "additionalItems"}
)  # fmt: skip


def _distinct_branches(node: JsonObject) -> None:
    """``anyOf`` of equal branches is that branch once (the generator renders a repeated
    branch as ``Any``). ``oneOf`` is left alone: two equal branches make it unsatisfiable,
    which its rule states."""
    branches = node.get("anyOf")
    if not isinstance(branches, list):
        return
    seen: dict[str, Json] = {}
    for branch in branches:
        # JSON text as the key: Python's == takes 1 for true
        seen.setdefault(json.dumps(branch, sort_keys=True), branch)
    node["anyOf"] = list(seen.values())


def _declare_required(node: JsonObject) -> None:
    """Give a typed object a field for each required name it does not declare, where the
    object admits it (as an additional property, with that schema): the generator has no
    field to make required otherwise, and would ignore the name."""
    required = node.get("required")
    if node.get("type") != "object" or not isinstance(required, list):
        return
    additional = node.get("additionalProperties", True)
    if additional is False or "patternProperties" in node:
        return  # left to a rule (see _loose_keywords)
    properties = node.setdefault("properties", {})
    assert isinstance(properties, dict)
    for name in required:
        if isinstance(name, str) and name not in properties:
            properties[name] = copy.deepcopy(additional) if isinstance(additional, dict) else {}


def _restated(node: Json) -> Json:
    """A schema with its lifted rules (``x-allOf``, from ``_lift_rules``) back in ``allOf``:
    a rule built from it must say everything the schema said."""
    if isinstance(node, list):
        return [_restated(sub) for sub in node]
    if not isinstance(node, dict):
        return node
    out: JsonObject = {}
    for key, value in node.items():
        if key == "x-allOf":
            continue
        out[key] = value if key in ("enum", "const", "examples", "default") else _restated(value)
    lifted = _restated(node.get("x-allOf"))
    if isinstance(lifted, list) and lifted:
        existing = out.get("allOf")
        out["allOf"] = [*(existing if isinstance(existing, list) else []), *lifted]
    return out


def _literal_values(values: Json) -> bool:
    """Whether the generator's ``Literal`` of these values means JSON equality: all strings,
    or all integers (marked not-boolean by the driver)."""
    if not isinstance(values, list) or not values:
        return False
    if all(isinstance(v, str) for v in values):
        return True
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


_RESERVED_DEFINITIONS = frozenset({JSON_VALUE, *FORMAT_TYPES.values()})
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


def _spelling(name: str) -> str:
    """A name as the generator's class names tell it from others: it capitalises and joins
    words, so ``json_value``, ``json-value`` and ``JsonValue`` are one class name."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


_RESERVED_SPELLINGS = frozenset(_spelling(n) for n in (*_RESERVED_DEFINITIONS, *GENERATED_IMPORTS))


def reserved_name(name: str) -> bool:
    """Whether the generator could make the class name of one of the normaliser's own types
    (``JsonValue``, ``Uri``...) or of a name the module imports (``Union``, ``Field``) of this
    name: it capitalises and joins words, so a definition named ``uri`` or ``json_value``
    would be typed as the format or as any JSON value, one titled ``Union`` as typing's. A
    name is a name: such a definition or title is renamed, never read as a type."""
    return _spelling(name) in _RESERVED_SPELLINGS


_SAFE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


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


def _tighten(target: Json, bounds: Json) -> bool:
    """Apply a ``then``'s size bounds (``minItems`` and the like) to a property's own schema:
    both hold, so the stricter bound is the one. False when ``bounds`` says anything else."""
    lower = ("minItems", "minLength", "minProperties", "minimum")
    upper = ("maxItems", "maxLength", "maxProperties", "maximum")
    if not isinstance(target, dict) or "$ref" in target or not isinstance(bounds, dict):
        return False
    if not bounds or set(bounds) - set(lower) - set(upper):
        return False
    for key, bound in bounds.items():
        if not isinstance(bound, int | float) or isinstance(bound, bool):
            return False
        current = target.get(key)
        if isinstance(current, int | float) and not isinstance(current, bool):
            target[key] = max(current, bound) if key in lower else min(current, bound)
        else:
            target[key] = bound
    return True


def _const_condition(condition: Json) -> tuple[str, list[str]] | None:
    """Parse ``{properties: {P: {const: V}}, required: [P]}`` (or ``{enum: [V, ...]}``) into
    ``(P, [V, ...])``: the values of P the rule applies to."""
    if not isinstance(condition, dict):
        return None
    props = condition.get("properties")
    if (
        set(condition) - {"properties", "required"}
        or not isinstance(props, dict)
        or len(props) != 1
    ):
        return None
    ((name, sub),) = props.items()
    if condition.get("required") != [name] or not isinstance(sub, dict):
        return None
    if set(sub) == {"const"} and isinstance(sub["const"], str):
        return name, [sub["const"]]
    values = sub.get("enum")
    if (
        set(sub) == {"enum"}
        and isinstance(values, list)
        and all(isinstance(v, str) for v in values)
    ):
        return name, [v for v in values if isinstance(v, str)]
    return None


def _forbidden_properties(negated: Json) -> list[str] | None:
    """Names made absent by ``not {required: [..]}`` or ``not {anyOf: [{required: [..]}, ..]}``."""
    if not isinstance(negated, dict):
        return None
    if set(negated) == {"required"}:
        req = negated["required"]
        if isinstance(req, list) and len(req) == 1 and isinstance(req[0], str):
            return [req[0]]
        return None
    alternatives = negated.get("anyOf")
    if set(negated) != {"anyOf"} or not isinstance(alternatives, list):
        return None
    names: list[str] = []
    for alt in alternatives:
        found = _forbidden_properties(alt)
        if found is None:
            return None
        names.extend(found)
    return names


def _name_union_items(owner: str, property_name: str, node: Json) -> None:
    """Name an anonymous union of array items after its owner and one item.

    ``conversation.events`` -> ``ConversationEvent``. The generator would otherwise name the
    alias after the plural property ("Events"), which reads as a list type although it is the
    type of one element, and collides across formats.
    """
    if not isinstance(node, dict) or node.get("type") != "array":
        return
    items = node.get("items")
    if not isinstance(items, dict) or "title" in items:
        return
    if not any(key in items for key in ("oneOf", "anyOf")):
        return
    singular = property_name[:-1] if property_name.endswith("s") else f"{property_name}_item"
    items["title"] = pascal(owner) + pascal(singular)


def _ref_siblings_ignored(schema: JsonObject) -> None:
    """Up to draft-07 every keyword beside a ``$ref`` is ignored; the generator applied them
    (``{"$ref": "#/definitions/nullable_string", "minLength": 1}`` refused ``""``, which
    GitHub's FUNDING.yml schema allows). The asserting ones are left out, in place;
    annotations and the definitions a pointer may lead into stay."""
    for node in walk.subschemas(schema):
        if isinstance(node.get("$ref"), str):
            for key in [k for k in node if k in _ASSERTING and k != "$ref"]:
                del node[key]


def _ref_siblings_apply(schema: JsonObject) -> JsonObject:
    """From 2019-09 on, the keywords beside a ``$ref`` apply too; the evaluator follows
    draft-07 (they are ignored), so they are spelled as ``allOf`` of the two."""

    def spell(node: JsonObject) -> JsonObject:
        rest = {k: v for k, v in node.items() if k != "$ref"}
        if "$ref" not in node or not set(rest) & _ASSERTING:
            return node
        return {"allOf": [{"$ref": node["$ref"]}, rest]}

    result = walk.rewrite(schema, spell)
    assert isinstance(result, dict)
    return result


def _json_value_definition() -> JsonObject:
    """Any JSON value, spelled as a union of every JSON type so the generator emits a model
    for it, which the driver then replaces by ``pydantic.JsonValue``."""
    return {
        "title": JSON_VALUE,
        "description": "Any JSON value.",
        "anyOf": [{"type": t} for t in ("null", "boolean", "number", "string", "array", "object")],
    }


def _as_list(value: Json) -> list[Json]:
    return value if isinstance(value, list) else []


def _references(schema: Json) -> list[str]:
    """The ``$ref`` of every subschema of ``schema`` (values of ``enum`` and the like are
    not schemas, and a property called ``$ref`` is no reference)."""
    found: list[str] = []
    for node in walk.subschemas(schema):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.append(ref)
    return found


def _keywords(schema: Json) -> set[str]:
    """The keywords used by ``schema`` and its subschemas."""
    found: set[str] = set()
    for node in walk.subschemas(schema):
        found.update(node)
    return found


def _titles(schema: Json) -> set[str]:
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
