"""JSON Structure's ``$import`` and ``$importdefs`` (the Import add-in), from local documents.

An import *copies* another schema's definitions (``$import``: its root type too, under its
``name``) into a namespace of the importing schema, as if written there: every JSON Pointer
reference inside the copy (``$ref``, ``$extends``, ``$addins``) is prefixed with that
namespace, definitions the importing schema writes itself shadow imported ones of the same
name, and imports inside imported documents are expanded first. The build step never fetches
anything: an imported URI must be the ``$id`` (or the file name) of a document in the
importing schema's folder, else the import is refused with its pointer. Import chains deeper
than ``MAX_DEPTH`` or circular are refused.

A document imported twice into one schema is copied once: the copies would be the same
definitions under two namespaces, so the second namespace's references are spelled as the
first's (unless the schema shadows a name in either, which makes the copies differ). Each
imported document is expanded once, however often it is imported. Both keep the expansion
linear in the size of the documents where copying every import is exponential in the depth
of a chain of documents that each import the next twice.
"""

from __future__ import annotations

import copy

from codegen._documents import Loader
from codegen._json import Json, JsonObject, pointer
from codegen.diagnostics import DiagnosticSink
from codegen.structure import pointer_join

MAX_DEPTH = 16
_KEYWORDS = ("$import", "$importdefs")
_REFERENCES = ("$ref", "$extends", "$addins")
_NOT_A_TYPE = frozenset(
    {"$schema", "$id", "$root", "definitions", "$import", "$importdefs", "$uses", "$offers"}
)


def uses_imports(document: Json) -> bool:
    if not isinstance(document, dict):
        return False
    if any(key in document for key in _KEYWORDS):
        return True
    return _namespace_imports(document.get("definitions"))


def _namespace_imports(namespace: Json) -> bool:
    if not isinstance(namespace, dict):
        return False
    if any(key in namespace for key in _KEYWORDS):
        return True
    return any(
        _namespace_imports(member)
        for member in namespace.values()
        if isinstance(member, dict) and "type" not in member
    )


def expand_imports(document: JsonObject, load: Loader, sink: DiagnosticSink) -> JsonObject:
    """``document`` with every import replaced by the definitions it brings (a copy)."""
    return _Expander(load, sink).document(copy.deepcopy(document), "", ())


class _Scope:
    """One document's expansion: where each imported document was first copied whole, and
    the namespaces spelled as that copy (reference prefix -> the copy's prefix)."""

    __slots__ = ("aliases", "placed")

    def __init__(self) -> None:
        self.placed: dict[tuple[str, bool], tuple[str, ...]] = {}
        self.aliases: dict[str, str] = {}


class _Expander:
    def __init__(self, load: Loader, sink: DiagnosticSink) -> None:
        self._load = load
        self._sink = sink
        self._expanded: dict[str, JsonObject] = {}

    def document(self, document: JsonObject, at: str, chain: tuple[str, ...]) -> JsonObject:
        definitions = document.get("definitions")
        if not isinstance(definitions, dict):
            definitions = {}
        for key in _KEYWORDS:
            if key in document:
                # at the root: into the root namespace, as if written in `definitions`
                definitions = {key: document.pop(key), **definitions}
        if definitions:
            scope = _Scope()
            document["definitions"] = self.namespace(
                definitions, (), pointer_join(at, "definitions"), chain, scope
            )
            if scope.aliases:
                moved = _respell(document, scope.aliases)
                assert isinstance(moved, dict)
                document = moved
        return document

    def namespace(
        self,
        namespace: JsonObject,
        path: tuple[str, ...],
        at: str,
        chain: tuple[str, ...],
        scope: _Scope,
    ) -> JsonObject:
        imports: list[tuple[str, bool, str]] = []
        for key in _KEYWORDS:
            uri = namespace.pop(key, None)
            if uri is None:
                continue
            where = pointer_join(at, key)
            if not isinstance(uri, str):
                self._sink.error(where, f"{key} must be a URI string")
                continue
            imports.append((uri, key == "$import", where))
        for name, member in list(namespace.items()):
            if isinstance(member, dict) and "type" not in member and _is_namespace(member):
                namespace[name] = self.namespace(
                    member, (*path, name), pointer_join(at, name), chain, scope
                )
        imported: JsonObject = {}
        for uri, with_root, where in imports:
            found = self._import(uri, with_root, path, where, chain)
            first = scope.placed.get((uri, with_root))
            if len(imports) == 1 and not set(found) & set(namespace):
                if first is not None and first != path:
                    # the same definitions as at `first`: spelled as those, not copied again
                    for name in found:
                        scope.aliases[_ref_prefix(path, name)] = _ref_prefix(first, name)
                    continue
                scope.placed.setdefault((uri, with_root), path)
            imported.update(found)
        # a definition the schema writes itself shadows an imported one of the same name
        return {**imported, **namespace}

    def _import(
        self, uri: str, with_root: bool, path: tuple[str, ...], at: str, chain: tuple[str, ...]
    ) -> JsonObject:
        if uri in chain:
            self._sink.error(at, f"import of {uri!r} is circular ({' -> '.join(chain)})")
            return {}
        if len(chain) >= MAX_DEPTH:
            self._sink.error(at, f"imports nest deeper than {MAX_DEPTH} documents; refused")
            return {}
        known = self._expanded.get(uri)
        if known is not None:
            expanded = copy.deepcopy(known)  # expanded once; each copy its own
        else:
            document = self._load(uri)
            if not isinstance(document, dict):
                self._sink.error(
                    at,
                    f"{uri!r} is no JSON Structure document beside this schema (its $id or "
                    "file name); the build step never fetches anything",
                )
                return {}
            expanded = self.document(copy.deepcopy(document), at, (*chain, uri))
            self._expanded[uri] = copy.deepcopy(expanded)
        prefix = ("definitions", *path)
        result: JsonObject = {}
        definitions = expanded.get("definitions")
        if isinstance(definitions, dict):
            result.update(definitions)
        if with_root and "type" in expanded:
            name = expanded.get("name")
            if not isinstance(name, str):
                self._sink.error(at, f"the root type of {uri!r} has no name to import it by")
            else:
                result[name] = {k: v for k, v in expanded.items() if k not in _NOT_A_TYPE}
        return _prefixed(result, prefix)


def _is_namespace(node: JsonObject) -> bool:
    """A member of ``definitions`` without ``type`` holding only other members (or imports)."""
    return all(
        isinstance(value, dict) or key in _KEYWORDS
        for key, value in node.items()
        if key not in ("description",)
    )


def _prefixed(node: Json, prefix: tuple[str, ...]) -> JsonObject:
    """Every ``#/definitions/...`` reference inside ``node`` moved under ``prefix``."""
    moved = _move(node, "#" + pointer(*prefix))
    assert isinstance(moved, dict)
    return moved


def _move(node: Json, base: str) -> Json:
    if isinstance(node, list):
        return [_move(item, base) for item in node]
    if not isinstance(node, dict):
        return node
    out: JsonObject = {}
    for key, value in node.items():
        if key in _REFERENCES:
            out[key] = _move_reference(value, base)
        elif key in ("enum", "const", "examples", "default"):
            out[key] = value
        else:
            out[key] = _move(value, base)
    return out


def _move_reference(value: Json, base: str) -> Json:
    if isinstance(value, str) and value.startswith("#/definitions/"):
        return base + value[len("#/definitions") :]
    if isinstance(value, list):
        return [_move_reference(item, base) for item in value]
    return value


def _ref_prefix(path: tuple[str, ...], name: str) -> str:
    return "#" + pointer("definitions", *path, name)


def _respell(node: Json, aliases: dict[str, str]) -> Json:
    """Every reference into an aliased namespace spelled as the copy it stands for."""
    if isinstance(node, list):
        return [_respell(item, aliases) for item in node]
    if not isinstance(node, dict):
        return node
    out: JsonObject = {}
    for key, value in node.items():
        if key in _REFERENCES:
            out[key] = _respelled(value, aliases)
        elif key in ("enum", "const", "examples", "default"):
            out[key] = value
        else:
            out[key] = _respell(value, aliases)
    return out


def _respelled(value: Json, aliases: dict[str, str]) -> Json:
    if isinstance(value, list):
        return [_respelled(item, aliases) for item in value]
    if not isinstance(value, str):
        return value
    for prefix, first in aliases.items():
        if value == prefix or value.startswith(prefix + "/"):
            return first + value[len(prefix) :]
    return value
