"""The OpenAPI document as the contract of the API: what FastAPI makes of the routes, plus
the limits the server enforces before a route runs (docs/web.md, "The API's schema").

:class:`ratingdb.web.errors.RefuseUnsafeText` refuses a NUL in the path or the query
(:func:`ratingdb.safe_text.unsafe_character`; a URL carries no lone surrogate, the other
characters no stored text may hold). :func:`declare_text_limits` puts that on every text
parameter of the document as a pattern, so that a request the schema allows is not
refused for a reason the schema does not name. A parameter with a pattern of its own
(a VKZ, a ZPS number, an age class) allows only letters, digits and signs already.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

#: what a text parameter may hold: anything but a NUL
NO_NUL = r"^[^\x00]*$"


def _strings(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The string schemas of a parameter's schema (itself, or the arms of its anyOf)."""
    arms = schema.get("anyOf", [schema])
    return [arm for arm in arms if arm.get("type") == "string" and "format" not in arm]


def declare_text_limits(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with :data:`NO_NUL` on every text parameter (path and query) that has
    no pattern of its own nor an enum."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") not in ("path", "query"):
                    continue
                for arm in _strings(parameter.get("schema", {})):
                    if "pattern" not in arm and "enum" not in arm:
                        arm["pattern"] = NO_NUL
    return document


def install(app: FastAPI) -> None:
    """``app.openapi()`` returns the document with :func:`declare_text_limits` applied."""
    made = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = declare_text_limits(made())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
