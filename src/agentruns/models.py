"""The typed models for the run record formats, generated from the schemas in schemas/.

One stable import place: the generated package's module layout may change when the generator
or a schema changes; these names do not. The list is generated with the models
(``agentruns_generated.models``), so a class a newer schema adds is exported here as soon as
``python -m codegen generate`` has run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import agentruns_generated.models as _generated
from agentruns_generated.models import __all__ as __all__

if TYPE_CHECKING:
    from agentruns_generated.models import *  # noqa: F403  (the generated list is the list)


def __getattr__(name: str) -> object:
    """A model, imported with its format's module when first used (importing this module
    imports none)."""
    if name in __all__:
        value: object = getattr(_generated, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
