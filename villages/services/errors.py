"""Errors of the service layer beside the engine's RuleError, and their HTTP statuses."""

from __future__ import annotations

from villages.engine.errors import RuleError, _


class ServiceError(RuleError):
    """An error decided outside the rules (identity, existence, abuse)."""


class NotAuthenticated(ServiceError):
    code = "not_authenticated"
    default_message = _("ログインしてください。")


class NotFound(ServiceError):
    code = "not_found"
    default_message = _("見つかりません。")


class AlreadySeated(ServiceError):
    code = "already_seated"
    default_message = _("すでにこの村に参加しています。")


class RateLimited(ServiceError):
    code = "rate_limited"
    default_message = _("操作が多すぎます。しばらく待ってからやり直してください。")
    retry_after: int | None = None  # seconds until the allowance comes back, when known


class TooManyVillages(ServiceError):
    code = "too_many_villages"
    default_message = _("募集中・ゲーム中の村が多すぎるため、今は村を作れません。")


class Busy(ServiceError):
    code = "busy"
    default_message = _("混み合っています。もう一度お試しください。")


class Overloaded(ServiceError):
    """The site is past its capacity: the command waited its longest and was not run."""

    code = "overloaded"
    default_message = _("混み合っています。少し待ってからやり直してください。")


class Banned(ServiceError):
    """A ban in force (SPEC §11c); the message says its kind, reason and end."""

    code = "banned"
    default_message = _("このアカウントは利用停止中です。")


class StorageConflict(ServiceError):
    """The database refused what a command wrote: a bug, logged where it happened."""

    code = "conflict"
    default_message = _("保存できませんでした。管理者に連絡してください。")


HTTP_STATUS: dict[str, int] = {
    "not_authenticated": 401,
    "forbidden": 403,
    "banned": 403,
    "not_seated": 403,
    "not_your_ability": 403,
    "dead": 403,
    "not_found": 404,
    "village_full": 409,
    "already_seated": 409,
    "name_taken": 409,
    "wrong_phase": 409,
    "phase_changed": 409,
    "already_voted": 409,
    "already_acted": 409,
    "no_objections_left": 409,
    "too_few_players": 409,
    "too_many_villages": 409,
    "busy": 409,
    "conflict": 409,
    "rate_limited": 429,
    "overloaded": 503,
}

# Seconds a refused client is told to wait before it tries again (Retry-After).
RETRY_AFTER: dict[str, int] = {"rate_limited": 5, "overloaded": 1}


def http_status(error: RuleError) -> int:
    return HTTP_STATUS.get(error.code, 400)
