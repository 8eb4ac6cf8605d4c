"""Typed errors of the rules, one per API error code (shared/API.md).

Each carries the Japanese sentence shown to people; the service layer maps
`code` to the HTTP status.
"""

from __future__ import annotations


def _(text: str) -> str:
    """Mark a string for translation without importing Django (see villages/i18n)."""
    return text


class RuleError(ValueError):
    code = "bad_request"
    default_message = _("リクエストが正しくありません。")

    def __init__(self, message: str | None = None, **params: object) -> None:
        # `template` is the msgid (Japanese, `{name}` placeholders), `params` fill it:
        # `message` is the Japanese sentence (API.md's), the pages translate the template.
        self.template = message or self.default_message
        self.params = params
        self.message = self.template.format(**params) if params else self.template
        super().__init__(self.message)


class BadRequest(RuleError):
    code = "bad_request"


class Forbidden(RuleError):
    code = "forbidden"
    default_message = _("その操作は許されていません。")


class NotSeated(RuleError):
    code = "not_seated"
    default_message = _("この村の住人ではありません。")


class VillageFull(RuleError):
    code = "village_full"
    default_message = _("この村は満員です。")


class NameTaken(RuleError):
    code = "name_taken"
    default_message = _("その名前はこの村ですでに使われています。")


class WrongPhase(RuleError):
    code = "wrong_phase"
    default_message = _("今はその操作ができません。")


class Dead(RuleError):
    code = "dead"
    default_message = _("死者にはその操作ができません。")


class NotYourAbility(RuleError):
    code = "not_your_ability"
    default_message = _("あなたにはその能力がありません。")


class InvalidTarget(RuleError):
    code = "invalid_target"
    default_message = _("その相手は選べません。")


class AlreadyVoted(RuleError):
    code = "already_voted"
    default_message = _("すでに投票済みです。")


class AlreadyActed(RuleError):
    code = "already_acted"
    default_message = _("今夜の行動はすでに決まっています。")


class NoObjectionsLeft(RuleError):
    code = "no_objections_left"
    default_message = _("異議ありはもう使えません。")


class TextEmpty(RuleError):
    code = "text_empty"
    default_message = _("発言が空です。")


class TextTooLong(RuleError):
    code = "text_too_long"
    default_message = _("発言が長すぎます。")


class TooFewPlayers(RuleError):
    code = "too_few_players"
    default_message = _("人数が足りないため開始できません。")


class SceneChanged(RuleError):
    """The command named the day and phase (and, for a ballot, the vote round) it was made
    in, and the village has moved on since: nothing is taken (API.md's `phase_changed`)."""

    code = "phase_changed"
    default_message = _("場面が変わったため、受け付けませんでした。画面を確かめてください。")
