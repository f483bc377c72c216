"""References made local: every ``$ref`` that names a place in this document (by the document's
URI, a subschema's ``$id``, an anchor) spelled as a local pointer, and each one checked to stay
in the document and resolve (the build step never fetches anything)."""

from __future__ import annotations

from urllib.parse import urldefrag

from codegen._json import Json, join_uri, pointer
from codegen.schema_passes import walk
from codegen.schema_passes.context import Context


def local_refs(ctx: Context) -> None:
    """Spell every reference that names a place in this document as a local pointer.

    A ``$ref`` is a URI resolved against the base URI of where it stands: the document's
    ``$id``, or a subschema's own ``$id`` (which starts a new base), and its fragment is a
    pointer or a name (``$id: "#name"`` in draft-07, ``$anchor`` later). References to the
    document itself by its absolute URI, to a subschema by its ``$id``, or to an anchor
    resolve here, without fetching anything.
    """
    resources: dict[str, str] = {}  # URI without fragment -> pointer of its schema
    anchors: dict[str, str] = {}  # URI with a name fragment -> pointer
    _collect_ids(ctx, ctx.root, "", "", resources, anchors, root=True)
    _rewrite_to_local(ctx, ctx.root, "", resources, anchors)


def _collect_ids(
    ctx: Context,
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
            _collect_ids(ctx, sub, at + pointer(index), base, resources, anchors)
        return
    if not isinstance(node, dict):
        return
    identifier = node.get("$id")
    if "$ref" in node and ctx.draft7:
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
        _collect_ids(ctx, sub, at + pointer(*tokens), base, resources, anchors)


def _rewrite_to_local(
    ctx: Context, node: Json, at: str, resources: dict[str, str], anchors: dict[str, str]
) -> None:
    if isinstance(node, list):
        for index, sub in enumerate(node):
            _rewrite_to_local(ctx, sub, at + pointer(index), resources, anchors)
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
        _rewrite_to_local(ctx, sub, at + pointer(*tokens), resources, anchors)


def check_refs(ctx: Context) -> None:
    """Every $ref must stay in the document and resolve (nothing is ever fetched)."""
    _check_refs(ctx, ctx.root, "")


def _check_refs(ctx: Context, node: Json, at: str) -> None:
    if isinstance(node, list):
        for index, sub in enumerate(node):
            _check_refs(ctx, sub, f"{at}/{index}")
        return
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str):
        if not ref.startswith("#"):
            ctx.sink.error(
                at + "/$ref",
                f"reference {ref!r} leaves the document; remote references are refused "
                "(the build step never fetches anything)",
            )
        elif ctx.resolve(node) is None:
            ctx.sink.error(at + "/$ref", f"reference {ref!r} does not resolve{_hint(ctx, ref)}")
    for tokens, sub in walk.children_at(node):
        _check_refs(ctx, sub, at + pointer(*tokens))


def _hint(ctx: Context, ref: str) -> str:
    """What a reference written as a path without its leading slash (``#definitions/X``,
    which older validators read as ``#/definitions/X``) would have meant, when that
    resolves: the fragment is read as the specification says, an anchor, and named."""
    fragment = ref[1:]
    if not fragment or fragment.startswith("/"):
        return ""
    meant = "#/" + fragment
    if ctx.resolve({"$ref": meant}) is None:
        return ""
    return f" (a JSON pointer starts with '/': {meant!r} would resolve)"
