"""Passes over a JSON Schema before it is normalised, each one rewrite into an equivalent
schema the generator renders exactly, each in its own module with its own golden test.

They share one walker (``codegen.schema_passes.walk``), which alone knows which keywords of
draft-07 hold subschemas: a pass never re-decides it (the normaliser's own recursions are
still to move here)."""
