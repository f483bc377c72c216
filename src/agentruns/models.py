"""The typed models for the run record formats, generated from the schemas in schemas/.

One stable import place: the generated package's module layout may change when the generator
or a schema changes; these names do not. The list is generated with the models
(``agentruns_generated.models``), so a class a newer schema adds is exported here as soon as
``python -m codegen generate`` has run.
"""

from __future__ import annotations

from agentruns_generated.models import *  # noqa: F403  (the generated list is the list)
from agentruns_generated.models import __all__ as __all__
