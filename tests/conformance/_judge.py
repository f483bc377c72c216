"""How a generated model judges one JSON text, on both validation paths."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import TypeAdapter, ValidationError

PATHS = ("json", "python")
"""``model_validate_json`` of the text, and ``model_validate`` of the value it parses to."""


def verdicts(adapter: TypeAdapter[Any], text: str) -> Iterator[tuple[str, bool | Exception]]:
    """``(path, accepted)`` per validation path; an exception other than a validation error
    (a crash of the model) is given instead of a verdict."""
    for path in PATHS:
        try:
            if path == "json":
                adapter.validate_json(text)
            else:
                adapter.validate_python(json.loads(text))
        except ValidationError:
            yield path, False
        except Exception as error:  # a crash is what the caller counts
            yield path, error
        else:
            yield path, True
