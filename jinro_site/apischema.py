"""The base of every request body of the API."""

from __future__ import annotations

from ninja import Schema
from pydantic import ConfigDict


class Body(Schema):
    """A JSON body taken as typed: `"capacity": "8"` or `"cupid": "yes"` is a bad request,
    not something to guess at (API.md gives every field's JSON type)."""

    model_config = ConfigDict(strict=True)
