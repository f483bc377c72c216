"""Fields a test needs, found in the models and tables rather than named by hand, so that the
suite holds whatever fields a newer schema gives a format (README, "When a schema changes")."""

from __future__ import annotations

from pydantic import BaseModel, TypeAdapter, ValidationError


def takes(model: type[BaseModel], field: str, value: object) -> bool:
    """Whether the field holds ``value`` as it is."""
    annotation = model.model_fields[field].annotation
    assert annotation is not None
    try:
        read: object = TypeAdapter(annotation).validate_python(value)
    except ValidationError:
        return False
    return read == value


def optional_text_field(model: type[BaseModel], *, but: tuple[str, ...] = ()) -> str:
    """An optional field of ``model`` (not one of ``but``) that holds any text as it is."""
    return next(
        name
        for name, info in model.model_fields.items()
        if not info.is_required()
        and name not in but
        and (info.alias or name) == name
        and takes(model, name, "42 apples")
        and takes(model, name, "")
    )
