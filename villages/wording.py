"""Every sentence people read of the game, worded in one place, in the active language.

The engine speaks in codes: a system line is a code and its params
(`villages.engine.texts`), a seat has a role code, a death a cause code. This module
words them, through gettext (the msgids are the site's Japanese, the English is in
locale/en): the system lines, the names of the engine's codes (roles, teams, winners,
deaths, statuses, phases, message kinds, abilities, results, options), durations
("5分"), counts ("16人"), days ("2日目の夜"), ability results, the bots' lines, and
refusals. Services,
selectors, views, the admin and the information pages all word things through here.

The Japanese sentence of a system line is kept with the line (`Message.text`, what
API.md's `text` gives and the Japanese pages show, `japanese`); a page in another
language words it again from its code and params (`system_text`). Params are names,
numbers and codes: `grace` is seconds, `cast` is role codes with their counts
(`villager=5 seer=1 wolf=2`). How each system line compares with the reference script's,
and why it was kept or changed: docs/wording.md.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import get_language, gettext_lazy, gettext_noop, override
from django.utils.translation import gettext as _

from villages.bots.lines import NAME_PARAMS as BOT_NAME_PARAMS
from villages.bots.lines import NAMES as BOT_NAMES
from villages.bots.lines import key_of as bot_key_of
from villages.bots.lines import word as bot_word
from villages.engine.errors import RuleError
from villages.engine.game import BOT_MARK

# ---------------------------------------------------------------------------
# Names of the engine's codes

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
# The screen's logs as screen readers name them (their live regions, villages.views.screen).
LOG_LABEL = {
    "d-log": gettext_lazy("村のログ"),
    "h-log": gettext_lazy("霊界の会話"),
}
ABILITY = {
    "vote": gettext_lazy("投票する"),
    "attack": gettext_lazy("襲撃する"),
    "divine": gettext_lazy("占う"),
    "guard": gettext_lazy("護衛する"),
    "cupid": gettext_lazy("愛の矢を放つ"),
}
RESULT = {
    "human": gettext_lazy("人"),
    "wolf": gettext_lazy("狼"),
    "guarded": gettext_lazy("護衛成功"),
}
# What an ability result is of (API.md's `ability` of a result).
RESULT_OF = {
    "divine": gettext_lazy("占い"),
    "medium": gettext_lazy("霊能"),
    "guard": gettext_lazy("護衛"),
}
OPTION = {
    "realtime": gettext_lazy("リアルタイム制"),
    "cupid": gettext_lazy("キューピッド"),
    "poison": gettext_lazy("埋毒者"),
    "decider": gettext_lazy("決定者"),
    "authority": gettext_lazy("権力者"),
    "hide_roles_in_heaven": gettext_lazy("霊界で配役を公開しない"),
    "dummy_boy": gettext_lazy("身代わり君"),
    "agents": gettext_lazy("人狼知能エージェント受け入れ"),
}


def label(table: dict[str, Any], code: str | None) -> str:
    """`code`'s name in `table` (one of the above); an unknown code as itself."""
    return str(table.get(code, code or "")) if code else ""


def is_japanese() -> bool:
    return (get_language() or "ja").startswith("ja")


_BOT_NAME_EN = dict(BOT_NAMES)


def seat_name(name: str) -> str:
    """A seat's name as the page calls it: a bot's (its Japanese name and the bot mark,
    as it sits) in the page's language; a person's as they chose it."""
    if is_japanese() or not name.endswith(BOT_MARK):
        return name
    base = name.removesuffix(BOT_MARK)
    return _("%(name)s(ボット)") % {"name": _BOT_NAME_EN.get(base, base)}


# The titles of the information pages the site makes itself (villages' first migration):
# a page in another language shows them translated, as it does the icons' names.
SITE_PAGE_TITLES = (gettext_noop("ルール"),)


def site_name(text: str) -> str:
    """A name the site gave a row of its own (an icon of its set, its rules page) in the
    page's language; a name an admin wrote stays as written (the catalogue has none)."""
    return _(text) if text and not is_japanese() else text


def names_text(names: list[str]) -> str:
    """Seats' names with the honorific, listed as the page's language lists them."""
    comma = "、" if is_japanese() else ", "
    return comma.join(_("%(name)sさん") % {"name": seat_name(n)} for n in names)


def roles_text(role: str | None, sub_roles: list[str] | tuple[str, ...] = ()) -> str:
    """A role and its sub-roles, joined as the page's language joins them."""
    names = [label(ROLE, role)] + [label(SUB_ROLE, s) for s in sub_roles]
    return ("・" if is_japanese() else ", ").join(n for n in names if n)


# ---------------------------------------------------------------------------
# Durations, counts and days


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


def people(n: int) -> str:
    return _("%(n)d人") % {"n": n}


def times(n: int) -> str:
    return _("%(n)d回") % {"n": n}


def characters(n: int) -> str:
    return _("%(n)d文字") % {"n": n}


def lines(n: int) -> str:
    return _("%(n)d行") % {"n": n}


def day_label(day: int) -> str:
    """ "2日目"; day 0 is before the start."""
    if day == 0:
        return str(PHASE["waiting"])
    return _("%(day)s日目") % {"day": day}


def when(day: int, phase: str | None) -> str:
    """When something happened: "2日目の夜" at night, else "2日目"."""
    if phase == "night":
        return _("%(day)s日目の夜") % {"day": day}
    return _("%(day)s日目") % {"day": day}


def phase_label(day: int, phase: str) -> str:
    """The phase as the screen heads it: "2日目の昼", or 開始前 / 終了後."""
    if phase in ("waiting", "ended"):
        return str(PHASE[phase])
    return _("%(day)s日目の%(phase)s") % {"day": day, "phase": PHASE[phase]}


def result_when(ability: str, day: int) -> str:
    """When a result is of: the night of a divination or guard, the day of the medium's
    executed ("1日目の夜", "2日目")."""
    return when(day, "day" if ability == "medium" else "night")


def result_sentence(ability: str, day: int, name: str, result: str | None) -> str:
    """A result as its player is told it (the own-role part of the screen)."""
    values = {"day": day, "name": name, "res": label(RESULT, result)}
    if ability == "divine":
        return _("%(day)s日目の夜、%(name)sさんを占った結果は「%(res)s」でした。") % values
    if ability == "medium":
        return _("%(day)s日目に処刑された%(name)sさんは「%(res)s」でした。") % values
    if result == "guarded":  # the reference's words, which players know (SPEC §4)
        return _("%(day)s日目の夜、%(name)sさんを人狼の襲撃から護衛しました。") % values
    return _("%(day)s日目の夜、%(name)sさんを護衛しました。") % values


# ---------------------------------------------------------------------------
# System lines

# Each code the engine posts (`villages.engine.texts.SYSTEM_LINES`), with its params in
# braces.
SYSTEM_TEXTS: dict[str, str] = {
    "seated": gettext_noop("{name}さんが村の集会場にやってきました。"),
    "left": gettext_noop("{name}さんが村を去りました。"),
    "kick_vote": gettext_noop("{voter}さんは{name}さんを村から追い出す票を入れました。"),
    "kicked": gettext_noop("{name}さんは村から追い出されました。"),
    "start_votes_cleared": gettext_noop(
        "キックがあったため、ゲーム開始への投票はすべて取り消されました。"
        "始めるには改めて投票してください。"
    ),
    "agents_opened": gettext_noop("この村は人狼知能エージェントを受け入れるようになりました。"),
    "agents_closed": gettext_noop("この村は人狼知能エージェントの受け入れをやめました。"),
    "game_start": gettext_noop("全員がそろい、ゲームが始まりました。この村の配役は {cast} です。"),
    "night": gettext_noop("{day}日目の夜が訪れました。村人たちはそれぞれの家に戻ります。"),
    "morning": gettext_noop("朝日が昇り、{day}日目の朝がやってきました。"),
    "found_dead": gettext_noop("{name}さんは無残な姿で発見されました。"),
    "peaceful": gettext_noop("昨夜は誰も命を落としませんでした。"),
    "lovers_suicide": gettext_noop("{name}さんは恋人を失った悲しみに耐えられず、後を追いました。"),
    "executed": gettext_noop("{name}さんは投票の結果処刑されました。"),
    "poison_victim": gettext_noop("処刑の騒ぎのさなか、{name}さんが毒に倒れました。"),
    "sudden_death": gettext_noop("{name}さんは突然死しました。"),
    "time_up_day": gettext_noop("時間切れです。{grace}以内に投票しない人は突然死します。"),
    "time_up_night": gettext_noop(
        "夜が明けようとしています。{grace}以内に行動しない人は突然死します。"
    ),
    "silence_day": gettext_noop("・・・・・・・・・・ {hours}時間ほどの沈黙が続いた"),
    "silence_night": gettext_noop("・・・・・・・・・・ {hours}時間ほどの沈黙が続いた"),
    # 人狼式's words, which players know: it counts revotes, not rounds.
    "revote": gettext_noop("再投票になりました( {revotes} 回目)"),
    "revote_last": gettext_noop(
        "再投票になりました( {revotes} 回目)。次も同数なら引き分けになります。"
    ),
    "tie_draw": gettext_noop("{ties}回続けて票が割れたため、この村は引き分けとなりました。"),
    "revote_after_sudden": gettext_noop("突然死が出たため、投票はやり直しになります。"),
    "outage": gettext_noop("サーバーが止まっていたため、猶予を今から{grace}取り直します。"),
    "abandoned": gettext_noop("長いあいだ動きがなかったため、この村は廃村になりました。"),
    "abandoned_by_staff": gettext_noop("管理者によりこの村は廃村になりました。"),
    "objection": gettext_noop("{name}さん「異議あり！」"),
    "win_village": gettext_noop("人狼はすべて倒れました。村人の勝利です。"),
    "win_wolves": gettext_noop("村は人狼に支配されました。人狼の勝利です。"),
    "win_fox": gettext_noop("騒ぎが収まったとき、妖狐が生き残っていました。妖狐の勝利です。"),
    "win_lovers": gettext_noop("二人の愛は最後まで守られました。恋人の勝利です。"),
    "win_draw": gettext_noop("村には誰も残りませんでした。引き分けです。"),
    "win_draw_revotes": gettext_noop("決着がつかないまま、この村は引き分けとなりました。"),
    # The dummy boy's will (a will line of its seat, not a system line).
    "dummy_will": gettext_noop("身代わりの役目はここまで。みんな、あとは頼んだよ……"),
}


def _cast(value: str) -> str:
    items = []
    for item in value.split():
        code, _sep, count = item.partition("=")
        name = label(ROLE, code)
        items.append(f"{name}{count}" if is_japanese() else f"{name} {count}")
    return " ".join(items) if is_japanese() else ", ".join(items)


def _param(name: str, value: str) -> str:
    if name in ("name", "voter"):
        return seat_name(value)
    if name == "grace" and value.isdigit():
        return minutes(int(value))
    if name == "cast":
        return _cast(value)
    return value


def sentence(code: str, params: dict[str, Any]) -> str:
    """The line of `code` with `params`, in the active language."""
    return _(SYSTEM_TEXTS[code]).format(**{k: _param(k, str(v)) for k, v in params.items()})


def japanese(code: str, params: dict[str, Any]) -> str:
    """The sentence the site keeps with the line."""
    with override("ja"):
        return sentence(code, params)


def system_text(code: str, params: dict[str, Any], fallback: str) -> str:
    """A system line in the page's language (the stored text is the Japanese one)."""
    if not code or code not in SYSTEM_TEXTS or is_japanese():
        return fallback
    try:
        return sentence(code, params)
    except (KeyError, IndexError, ValueError):
        return fallback


def line_text(kind: str, code: str, params: dict[str, Any], text: str) -> str:
    """A line's text as a page shows it: a system line (an objection too) in the page's
    language; a howl or a whisper, the stand-in for talk the viewer may not hear
    (`villages.engine.texts`), translated; a player's own words as said."""
    if kind in ("system", "objection") or (kind == "will" and code in SYSTEM_TEXTS):
        return system_text(code, params, text)  # the dummy boy's will is the site's too
    if kind in ("wolf_howl", "common_whisper") and not is_japanese():
        return _(text)
    if code and not is_japanese() and (key := bot_key_of(code)):
        return bot_text(key, params, text)
    return text


# ---------------------------------------------------------------------------
# The bots' lines and refusals


def bot_line(key: str, params: dict[str, str]) -> str:
    """A bot's line (`villages.bots.lines`), in the site's language: the text kept with
    the line (its key and params are kept too, for `bot_text`)."""
    return bot_word(key, params, settings.LANGUAGE_CODE)


def bot_text(key: str, params: dict[str, Any], fallback: str) -> str:
    """A bot's line in the page's language, from its key and params."""
    values = {k: seat_name(str(v)) if k in BOT_NAME_PARAMS else str(v) for k, v in params.items()}
    try:
        return bot_word(key, values, get_language() or "ja")
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


# What a village's socket tells a client it refuses (API.md's error shape: a code, and the
# Japanese message the API's errors carry).
# Why the agents' door refuses an agent (villages/consumers/aiwolf.py): API code, message.
AGENT_REFUSALS: dict[str, tuple[str, str]] = {
    "bad_token": ("not_authenticated", gettext_noop("API トークンがないか、正しくありません。")),
    "not_found": ("not_found", gettext_noop("村が見つかりません。")),
    "closed": (
        "agents_closed",
        gettext_noop("この村は人狼知能エージェントを受け入れていません。"),
    ),
    "playing": ("wrong_phase", gettext_noop("この村はもうゲームが始まっています。")),
    "ended": ("wrong_phase", gettext_noop("この村のゲームは終わっています。")),
    "full": ("village_full", gettext_noop("この村は満員です。")),
    "cast": (
        "cast_unfit",
        gettext_noop(
            "この村の配役では、これ以上エージェントに配れる役職"
            "（村人・占い師・霊能者・狩人・人狼・狂人）がありません。"
        ),
    ),
    "no_name": ("bad_request", gettext_noop("NAME に名前が返されませんでした。")),
    "removed": ("not_seated", gettext_noop("エージェントの席は村から外されました。")),
    "replaced": (
        "replaced",
        gettext_noop("同じエージェントが新しく接続したため、この接続を閉じます。"),
    ),
}

SOCKET_REFUSALS: dict[str, tuple[str, str]] = {
    "bad_token": ("not_authenticated", gettext_noop("トークンが正しくありません。")),
    "not_found": ("not_found", gettext_noop("村が見つかりません。")),
    "banned_login": ("banned", gettext_noop("このアカウントは利用停止中です。")),
    "not_json": ("bad_request", gettext_noop("JSON のオブジェクトを送ってください。")),
    "no_after": ("bad_request", gettext_noop("after にメッセージ ID を指定してください。")),
    "unknown_type": ("bad_request", gettext_noop("未知の type です。")),
    "rate_limited": (
        "rate_limited",
        gettext_noop("操作が多すぎます。しばらく待ってからやり直してください。"),
    ),
    "layer_away": (
        "unavailable",
        gettext_noop("ただいま自動更新を使えません。しばらくしてから接続し直してください。"),
    ),
}
