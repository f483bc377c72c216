"""References to other files beside a schema, bundled into it.

A real schema often names a sibling file (``"$ref": "spdx.schema.json#/definitions/x"``).
The build step never fetches anything, but a file in the schema's own folder (found by its
``$id`` or its file name) is the author's, as much as the schema is: it is copied into the
schema's definitions, under the URI the reference resolves to (its ``$id``), so the
normaliser resolves the reference locally, as it resolves any ``$id``. What is found nowhere
stays a remote reference, which the normaliser refuses with its pointer.
"""

from __future__ import annotations

import copy
import re
from urllib.parse import urldefrag

from codegen._documents import Loader
from codegen._json import Json, JsonObject, join_uri
from codegen.diagnostics import DiagnosticSink
from codegen.schema_passes import walk

MAX_DOCUMENTS = 64
"""Most files one schema may bundle (each may name more)."""


def names_other_files(document: Json) -> bool:
    return any(
        isinstance(node.get("$ref"), str) and not str(node["$ref"]).startswith("#")
        for node in walk.subschemas(document)
    )


def bundle(document: JsonObject, load: Loader, sink: DiagnosticSink) -> JsonObject:
    """``document`` with each file it names (and they name) that lies beside it, copied in."""
    root = copy.deepcopy(document)
    defs_key = "$defs" if "$defs" in root else "definitions"
    base = root.get("$id") if isinstance(root.get("$id"), str) else ""
    assert isinstance(base, str)
    bundled: dict[str, str] = {urldefrag(base)[0]: ""}
    pending: list[tuple[JsonObject, str, str]] = [(root, base, "")]
    while pending:
        schema, schema_base, inside = pending.pop()
        for at, node in walk.subschemas_at(schema):
            ref = node.get("$ref")
            if not isinstance(ref, str) or ref.startswith("#"):
                continue
            uri = urldefrag(join_uri(schema_base, ref))[0]
            if uri in bundled:
                continue
            found = load(uri)
            if not isinstance(found, dict):
                continue  # not beside the schema: a remote reference, refused later
            elsewhere = _elsewhere(found, uri, base)
            if elsewhere is not None:
                sink.error(f"{inside}{at}/$ref", elsewhere)
                continue
            if len(bundled) > MAX_DOCUMENTS:
                sink.error("", f"the schema names more than {MAX_DOCUMENTS} files; refused")
                return root
            name = _definition_name(uri, root.get(defs_key))
            copied = {k: v for k, v in copy.deepcopy(found).items() if k != "$schema"}
            copied["$id"] = uri  # what the references name it, whatever it calls itself
            root.setdefault(defs_key, {})
            definitions = root[defs_key]
            assert isinstance(definitions, dict)
            definitions[name] = copied
            bundled[uri] = name
            sink.warn(
                f"/{defs_key}/{name}", f"{ref.split('#')[0]!r} bundled from beside the schema"
            )
            pending.append((copied, uri, f"/{defs_key}/{name}"))
    return root


def _folder(uri: str) -> str | None:
    """The folder of an absolute URI (None for a relative one: it names no place)."""
    if "://" not in uri and not uri.startswith("urn:"):
        return None
    return uri.rsplit("/", 1)[0]


def _elsewhere(found: JsonObject, uri: str, base: str) -> str | None:
    """Why a file found beside the schema by its name is not the file the reference names:
    the reference points into another folder than the schema's, and the file's ``$id`` is
    not the URI it resolves to (``../B/defs.json`` is not the ``defs.json`` beside the schema
    whose ``$id`` says ``A/defs.json``). None when it is (by ``$id``, or by name in the
    schema's own folder)."""
    own = found.get("$id")
    if isinstance(own, str) and urldefrag(own)[0] == uri:
        return None  # the file says it is what the reference names
    wanted, here = _folder(uri), _folder(base)
    if wanted is None or here is None or wanted == here:
        return None  # by name, in the schema's own folder (or no base to tell by)
    said = f"its $id is {own!r}" if isinstance(own, str) else "it has no $id"
    name = uri.rsplit("/", 1)[-1]
    return (
        f"the reference names {uri}, in another folder than the schema's; the {name} beside "
        f"the schema is not that file ({said}): not bundled, refused"
    )


def _definition_name(uri: str, taken: Json) -> str:
    stem = re.sub(r"[^A-Za-z0-9]+", "_", uri.rstrip("/").rsplit("/", 1)[-1]).strip("_")
    base = f"external_{stem or 'document'}"
    name, counter = base, 1
    while isinstance(taken, dict) and name in taken:
        counter += 1
        name = f"{base}_{counter}"
    return name
