"""JSON Schema of a tournament submission (docs/engine.md "Submissions", docs/DESIGN.md), for
the OpenAPI document. The server validates with :mod:`ratingdb.io.evaluate_json` and
:mod:`ratingdb.services.submissions`, whose errors name the JSON path; this schema documents."""

from __future__ import annotations

from typing import Any

from ratingdb.queries.clubs import VKZ
from ratingdb.services.submissions import (
    CODE_WIDTH,
    DSB_ID,
    MAX_FIDE_ID,
    MAX_PLAYER_ID,
    MEMBER_NUMBER_WIDTH,
    NAME_WIDTH,
    VKZ_WIDTH,
)

_DATE = {"type": "string", "format": "date", "example": "2026-11-01"}


def _key(description: str, longest: int | None = None) -> dict[str, Any]:
    """An id (:func:`ratingdb.io.evaluate_json._identifier`): a text that is not empty, or
    a whole number (written as its digits)."""
    text: dict[str, Any] = {"type": "string", "minLength": 1}
    if longest is not None:
        text["maxLength"] = longest
    return {"anyOf": [text, {"type": "integer"}], "description": description}


SUBMISSION: dict[str, Any] = {
    "type": "object",
    "required": ["tournament", "players"],
    "properties": {
        "tournament": {
            "type": "object",
            "required": ["id", "start", "end"],
            "properties": {
                "id": _key(
                    "the tournament's code (unique; no '/', no blank at either end)", CODE_WIDTH
                ),
                "name": {"type": "string", "maxLength": NAME_WIDTH},
                "start": _DATE,
                "end": _DATE,
                "vkz": {
                    "type": "string",
                    "pattern": f"^{VKZ.pattern}$",
                    "description": "VKZ of the playing level (WO 6.3)",
                },
                "kind": {"type": "string", "enum": ["individual", "team", "match"]},
                "create_organisation": {
                    "type": "boolean",
                    "description": "create the VKZ's organisation when it is unknown",
                },
            },
        },
        "players": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id"],
                "description": "an existing player (player_id), a new member (name, club, "
                "member_since) or a textual participant (member: false, name)",
                "properties": {
                    "id": _key("the key the games use"),
                    "player_id": {"type": "integer", "minimum": 1, "maximum": MAX_PLAYER_ID},
                    "name": {"type": "string", "example": "Muster, Max"},
                    "member": {"type": "boolean"},
                    "club": {"type": "string", "maxLength": VKZ_WIDTH},
                    "member_since": _DATE,
                    "birth_year": {"type": "integer"},
                    "sex": {"type": "string", "enum": ["m", "f", "d"]},
                    "member_number": {
                        "anyOf": [
                            {"type": "string", "minLength": 1, "maxLength": MEMBER_NUMBER_WIDTH},
                            {"type": "integer", "minimum": 0},
                        ]
                    },
                    "fide_id": {"type": "integer", "minimum": 1, "maximum": MAX_FIDE_ID},
                    "dsb_id": {"type": "string", "pattern": f"^{DSB_ID}$"},
                    "rating": {"type": "integer", "description": "FIDE/national, WO 4.1.2"},
                    "rating_source": {"type": "string", "enum": ["fide", "national"]},
                    "index": {"type": "integer"},
                    "computer": {"type": "boolean"},
                },
            },
        },
        "games": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["white", "black", "result"],
                "properties": {
                    "round": {"type": "integer"},
                    "white": _key("a player's id"),
                    "black": _key("a player's id"),
                    "result": {
                        "type": "string",
                        "enum": ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"],
                    },
                },
            },
        },
    },
}


def json_body() -> dict[str, Any]:
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": SUBMISSION}},
        }
    }


def trf_body() -> dict[str, Any]:
    return {
        "requestBody": {
            "required": True,
            "description": "a tournament file, its format detected from the content: FIDE "
            "TRF16/TRF26 (UTF-8 unless ?encoding=), SwissChess .SWT (binary), SWI text, DSB "
            "TournamentReport or DeWIS XML",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    }
