"""The JSON Schemas behind the models, as shipped in the package."""

from __future__ import annotations

from importlib import resources

from agentruns_generated import FORMATS


def schema_text(name: str, *, source: bool = False) -> str:
    """The JSON Schema the models of a format enforce, or (``source``) the vendored original."""
    generated = FORMATS.get(name)
    if generated is None:
        raise KeyError(f"unknown format {name!r} (known: {', '.join(sorted(FORMATS))})")
    path = generated.source if source else generated.enforced
    return resources.files("agentruns_generated").joinpath(path).read_text(encoding="utf-8")
