"""The JSON Schemas behind the models, as shipped in the package."""

from __future__ import annotations

import json
from importlib import resources

from agentruns.conversion import format_named
from agentruns_generated import FORMATS

__all__ = ["schema_text"]


def schema_text(name: str, *, source: bool = False) -> str:
    """The JSON Schema the models of a format enforce, or (``source``) the vendored original.

    A format registered by a plugin has no vendored file: its model's own JSON Schema is the
    schema (for ``source`` too). Raises ``FormatError`` for a name no format has."""
    fmt = format_named(name)
    generated = FORMATS.get(name)
    if generated is None or generated.model is not fmt.model:
        return json.dumps(fmt.model.model_json_schema(), indent=2, ensure_ascii=False) + "\n"
    path = generated.source if source else generated.enforced
    return resources.files("agentruns_generated").joinpath(path).read_text(encoding="utf-8")
