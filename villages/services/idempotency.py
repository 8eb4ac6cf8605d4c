"""Commands sent again are not run again: `Idempotency-Key` (issue 14).

A client that lost an answer (a phone on a bad network, a killed server) sends the same
request again with the same key. The first answer is kept with the key, in the same
transaction as the command it answers: a retry finds either nothing (the command never
committed: it runs now) or the answer (it committed: the same answer, nothing run). A
refusal is kept too, except the passing ones (busy, overloaded, rate limited), which a
retry should meet afresh. Answers are kept for ANSWER_HOURS.

A key belongs to one request line (method and path): the same key sent to another
endpoint is another key there.

Two requests with one key at once: in one process they take turns (`gate`); across
processes the second's answer breaks the key's unique constraint, its whole transaction
(command included) rolls back, and it returns the first's answer.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from villages.engine.errors import BadRequest, RuleError, _
from villages.models import Answer

from . import gate
from .errors import http_status

ANSWER_HOURS = 24
KEY = re.compile(r"^[\x21-\x7e]{1,100}$")  # printable ASCII, as HTTP header values are
PASSING = frozenset({"busy", "overloaded", "rate_limited"})

Reply = tuple[int, Any]  # (HTTP status, JSON body)


def once(
    user: AbstractBaseUser, key: str, request: str, village_id: int, run: Callable[[], Reply]
) -> Reply:
    """`run()` (a command and its answer), unless `key` has answered already."""
    if not KEY.match(key):
        raise BadRequest(_("Idempotency-Key は100文字までの英数字・記号で指定してください。"))
    kept = _kept(user, key, request)
    if kept is not None:
        return kept
    try:
        with gate.write_turn(village_id), transaction.atomic():
            status, body = run()
            Answer.objects.create(user=user, key=key, request=request, status=status, body=body)
    except IntegrityError:
        kept = _kept(user, key, request)
        if kept is None:
            raise
        return kept  # another process answered this key first
    except RuleError as error:
        if error.code not in PASSING:
            body = {"error": {"code": error.code, "message": error.message}}
            with contextlib.suppress(IntegrityError):  # another process answered it first
                Answer.objects.create(
                    user=user, key=key, request=request, status=http_status(error), body=body
                )
        raise
    Answer.objects.filter(
        user=user, created_at__lt=timezone.now() - timedelta(hours=ANSWER_HOURS)
    ).delete()
    return status, body


def _kept(user: AbstractBaseUser, key: str, request: str) -> Reply | None:
    answer = Answer.objects.filter(user=user, key=key, request=request).first()
    return None if answer is None else (answer.status, answer.body)


def newest_answer(user: AbstractBaseUser) -> int:
    """The id of the user's newest kept answer (0 if none): it moves whenever a key of the
    user's is used (the upper pane's ETag, villages.views.panes.upper_read)."""
    newest = Answer.objects.filter(user=user).order_by("-pk").values_list("pk", flat=True)
    return newest.first() or 0
