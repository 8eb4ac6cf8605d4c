"""The base of every request body of the API, and the errors every operation declares."""

from __future__ import annotations

from typing import Annotated, Any

from ninja import Field, Schema
from pydantic import BeforeValidator, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

# API.md's error codes, by the status they come with (villages.services.errors.HTTP_STATUS).
ERROR_CODES = {
    400: ["bad_request", "invalid_target", "text_empty", "text_too_long"],
    401: ["not_authenticated"],
    403: ["forbidden", "banned", "not_seated", "not_your_ability", "dead"],
    404: ["not_found"],
    405: ["method_not_allowed"],
    409: [
        "village_full",
        "already_seated",
        "name_taken",
        "wrong_phase",
        "phase_changed",
        "already_voted",
        "already_acted",
        "no_objections_left",
        "too_few_players",
        "too_many_villages",
        "busy",
        "conflict",
    ],
    429: ["rate_limited"],
    413: ["request_too_large"],
    500: ["server_error"],
    503: ["overloaded"],
}


def _whole(value: Any) -> Any:
    # JSON has numbers, not ints: 8.0 is the integer 8 (as JSON Schema's "integer" says).
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Int = Annotated[int, BeforeValidator(_whole)]


def _an_object(value: Any) -> Any:
    # A part of a body that is a JSON object (`options`): "abc", 5 or a list is a bad
    # request, not an object with every field at its default.
    if not isinstance(value, dict):
        raise PydanticCustomError("model_type", "a JSON object")
    return value


AnObject = BeforeValidator(_an_object)


class Body(Schema):
    """A JSON body taken as typed: `"capacity": "8"` or `"cupid": "yes"` is a bad request,
    not something to guess at (API.md gives every field's JSON type); and no text of it
    may hold a NUL character (jinro_site.middleware: PostgreSQL keeps none)."""

    model_config = ConfigDict(strict=True)

    @model_validator(mode="after")
    def _no_nul(self) -> Body:
        if _holds_nul(self.model_dump()):
            raise PydanticCustomError(NUL_ERROR, "a NUL character (U+0000)")
        return self


NUL_ERROR = "nul_character"


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_holds_nul(v) for v in value)
    return False


# No text may hold a NUL character (jinro_site.middleware): a string field without a
# pattern of its own has this one, and each pattern of its own leaves NUL out too.
NO_NUL = r"^[^\x00]*$"


def limits(**constraints: Any) -> dict[str, Any]:
    """JSON-schema constraints a field is documented with, but not checked with: the
    services check them, each refusal with its own code and words (`text_empty`, a
    capacity out of range, ...), which a schema error would lose."""
    names = {"min_length": "minLength", "max_length": "maxLength", "ge": "minimum"}
    names |= {"le": "maximum", "min_items": "minItems", "max_items": "maxItems"}
    return {"json_schema_extra": {names.get(k, k): v for k, v in constraints.items()}}


class ErrorDetail(Schema):
    code: str = Field(
        ...,
        description="a machine code: " + ", ".join(c for cs in ERROR_CODES.values() for c in cs),
    )
    message: str = Field(..., description="what happened, for people (Japanese)")


class ErrorOut(Schema):
    """Every refusal: `{"error": {"code", "message"}}` (docs/api.md)."""

    error: ErrorDetail


# What may go wrong with any request, and with any that names a village or writes.
# 500 (a bug) and 503 (past capacity, with Retry-After) may answer anything.
# Any call may meet: a token that is not valid (401) or whose user is banned from logging
# in (403 `banned`); a method the path does not take; a fault; the site past its capacity.
ANY = (401, 403, 405, 500, 503)
READ = (*ANY, 404)
WRITE = (400, *READ, 403, 409, 429)


def refused_in_words(description: str) -> dict[str, Any]:
    """An operation's `openapi_extra` for a 400 that the schema's types cannot state (a
    rule told in words, or one that depends on what is stored): the document says when
    it comes, so that a client (and our fuzz test) knows a valid body may still get it."""
    return {"responses": {400: {"description": description}}}  # ninja keys them by number


def answers(ok: dict[int, Any], *errors: int) -> dict[int, Any]:
    """An operation's responses: its successes, and the errors it may give in API.md's
    shape (each with the codes that come with its status)."""
    return {**ok, **dict.fromkeys(sorted(set(errors)), ErrorOut)}
