"""Passes over a JSON Schema, each one rewrite into an equivalent schema the generator renders
exactly, each in its own module with its own golden test (``tests/test_schema_passes.py``,
``tests/test_normalizer_passes.py``). The first ones (boolean schemas, empty objects, nullable
enums, older drafts) take a schema and return one; the normaliser's (``codegen.normalize``
runs them in its one declared order) share a ``context.Context``.

They share one walker (``codegen.schema_passes.walk``), which alone knows which keywords of
draft-07 hold subschemas; the recursions that still decide it themselves (``local_refs``,
``lift_rules``, ``exactness``, ``free_form``: each walks only the keywords its rewrite
concerns) are to move onto it."""
