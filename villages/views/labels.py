"""Words the screens show for the engine's codes, through gettext (Japanese msgids)."""

from __future__ import annotations

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from villages.engine.errors import RuleError
from villages.engine.texts import SYSTEM_TEXTS

ROLE = {
    "villager": gettext_lazy("村人"),
    "seer": gettext_lazy("占い師"),
    "medium": gettext_lazy("霊能者"),
    "guard": gettext_lazy("狩人"),
    "common": gettext_lazy("共有者"),
    "poison": gettext_lazy("埋毒者"),
    "wolf": gettext_lazy("人狼"),
    "madman": gettext_lazy("狂人"),
    "fanatic": gettext_lazy("狂信者"),
    "fox": gettext_lazy("妖狐"),
    "cupid": gettext_lazy("キューピッド"),
}
SUB_ROLE = {
    "lovers": gettext_lazy("恋人"),
    "decider": gettext_lazy("決定者"),
    "authority": gettext_lazy("権力者"),
}
# Each team's name and the words of its victory, side by side.
_TEAMS = {
    "village": (gettext_lazy("村人陣営"), gettext_lazy("村人の勝利")),
    "wolves": (gettext_lazy("人狼陣営"), gettext_lazy("人狼の勝利")),
    "fox": (gettext_lazy("妖狐陣営"), gettext_lazy("妖狐の勝利")),
    "lovers": (gettext_lazy("恋人陣営"), gettext_lazy("恋人の勝利")),
}
TEAM = {team: name for team, (name, _won) in _TEAMS.items()}
WINNER = {team: won for team, (_name, won) in _TEAMS.items()} | {"draw": gettext_lazy("引き分け")}
DEATH = {
    "executed": gettext_lazy("処刑"),
    "attacked": gettext_lazy("襲撃"),
    "divined": gettext_lazy("呪殺"),
    "poisoned": gettext_lazy("毒"),
    "lovers": gettext_lazy("後追い"),
    "sudden": gettext_lazy("突然死"),
}
STATUS = {
    "waiting": gettext_lazy("募集中"),
    "playing": gettext_lazy("ゲーム中"),
    "ended": gettext_lazy("終了"),
}
PHASE = {
    "waiting": gettext_lazy("開始前"),
    "night": gettext_lazy("夜"),
    "day": gettext_lazy("昼"),
    "ended": gettext_lazy("終了後"),
}
MESSAGE_KIND = {
    "talk": gettext_lazy("発言"),
    "wolf": gettext_lazy("人狼の会話"),
    "wolf_howl": gettext_lazy("遠吠え"),
    "common": gettext_lazy("共有者の会話"),
    "common_whisper": gettext_lazy("ささやき"),
    "monologue": gettext_lazy("独り言"),
    "heaven": gettext_lazy("霊話"),
    "system": gettext_lazy("システム"),
    "will": gettext_lazy("遺言"),
    "objection": gettext_lazy("異議あり"),
}
ABILITY = {
    "vote": gettext_lazy("投票する"),
    "attack": gettext_lazy("襲撃する"),
    "divine": gettext_lazy("占う"),
    "guard": gettext_lazy("護衛する"),
    "cupid": gettext_lazy("愛の矢を放つ"),
}
RESULT = {"human": gettext_lazy("人"), "wolf": gettext_lazy("狼")}
OPTION = {
    "realtime": gettext_lazy("リアルタイム制"),
    "cupid": gettext_lazy("キューピッド"),
    "poison": gettext_lazy("埋毒者"),
    "decider": gettext_lazy("決定者"),
    "authority": gettext_lazy("権力者"),
    "hide_roles_in_heaven": gettext_lazy("霊界で配役を公開しない"),
    "dummy_boy": gettext_lazy("身代わり君"),
}


def label(table: dict, code: str | None) -> str:
    return str(table.get(code, code or "")) if code else ""


def minutes(seconds: int) -> str:
    """A duration for people: "5分", "1分30秒", "45秒" (translated)."""
    m, s = divmod(max(0, int(seconds)), 60)
    h, m = divmod(m, 60)
    parts = []
    if h:
        parts.append(_("%(n)s時間") % {"n": h})
    if m:
        parts.append(_("%(n)s分") % {"n": m})
    if s or not parts:
        parts.append(_("%(n)s秒") % {"n": s})
    return "".join(parts) if is_japanese() else " ".join(parts)


def is_japanese() -> bool:
    return (get_language() or "ja").startswith("ja")


def system_text(code: str, params: dict, fallback: str) -> str:
    """A system line in the page's language (the stored text is the Japanese one)."""
    if not code or code not in SYSTEM_TEXTS or is_japanese():
        return fallback
    from villages.texts import sentence

    try:
        return sentence(code, params)
    except (KeyError, IndexError, ValueError):
        return fallback


def error_text(error: RuleError | str) -> str:
    """A refusal in the page's language: its template translated, then filled in (or a
    Japanese sentence, translated where the catalog knows it)."""
    if isinstance(error, RuleError):
        if is_japanese():
            return error.message
        return _(error.template).format(**error.params) if error.params else _(error.template)
    return error if is_japanese() else _(error)
