"""Definitions and titles named as the generator reads one class name: a definition name
outside ``[A-Za-z0-9_-]`` (or spelled like the build step's own types) gets a unique one and
every ``$ref`` to it is spelled plainly; a title that would name one of those types is
renamed. Each renaming is said in a diagnostic."""

from __future__ import annotations

import re

from codegen._json import Json, JsonObject, pointer
from codegen._names import pascal
from codegen.schema_passes import walk
from codegen.schema_passes.context import Context, ref_tokens, titles


def safe_definition_names(ctx: Context) -> None:
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
    pending: list[tuple[tuple[str | int, ...], JsonObject]] = [((), ctx.root)]
    while pending:
        at, node = pending.pop()
        pending.extend((at + tokens, child) for tokens, child in walk.children_at(node))
        for key in ("definitions", "$defs"):
            defs = node.get(key)
            if isinstance(defs, dict):
                _safe_names_of(ctx, at, key, defs, renames)
    _rewrite_refs(ctx.root, renames)
    _safe_titles(ctx)


def _safe_names_of(
    ctx: Context,
    at: tuple[str | int, ...],
    key: str,
    defs: JsonObject,
    renames: dict[tuple[str, ...], str],
) -> None:
    taken = set(defs)
    renamed: dict[str, str] = {}
    for name in list(defs):
        # the normaliser's own definitions (JsonValue, Uri...) must stay its own
        if _SAFE_NAME.fullmatch(name) and not ctx.taken(name):
            continue
        base = re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "Definition"
        new, counter = base, 1
        while new in taken or ctx.taken(new):
            counter += 1
            new = f"{base}_{counter}"
        taken.add(new)
        renamed[name] = new
        renames[(*(str(t) for t in at), key, name)] = new  # as a $ref's tokens spell it
        ctx.sink.warn(pointer(*at, key, name), f"definition named {new!r} in the generated code")
    if renamed:
        replaced = {renamed.get(n, n): v for n, v in defs.items()}
        defs.clear()
        defs.update(replaced)


def _safe_titles(ctx: Context) -> None:
    """A title the generator would make the class name of one of the normaliser's own
    types (``"title": "uri"`` -> ``Uri``) would type the value as that type: such a title
    gets a unique name of its own (said in a diagnostic)."""
    taken = titles(ctx.root)
    for at, node in walk.subschemas_at(ctx.root):
        title = node.get("title")
        if at == "" or not isinstance(title, str) or not ctx.taken(title):
            continue  # the root's title is replaced by its class name
        base = re.sub(r"[^A-Za-z0-9_]+", "_", title).strip("_") or "Title"
        new, counter = base, 1
        while new in taken or pascal(new) in taken or ctx.taken(new):
            counter += 1
            new = f"{base}_{counter}"
        taken.update((new, pascal(new)))
        node["title"] = new
        ctx.sink.warn(at + "/title", f"title {title!r} is named {new!r} in the generated code")


def _rewrite_refs(node: Json, renames: dict[tuple[str, ...], str]) -> None:
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


_SAFE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
