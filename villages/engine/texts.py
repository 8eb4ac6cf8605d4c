"""The site's own wording for every system line (Japanese msgids), by code.

The engine posts a line as its code and params only (`Run.post`): numbers and role codes,
never words. The site makes the sentence (`villages.texts`): the Japanese one it keeps,
and a page's own language, from these msgids.
"""

from __future__ import annotations

from .errors import _

SYSTEM_TEXTS: dict[str, str] = {
    "seated": _("{name}さんが村にやってきました。"),
    "left": _("{name}さんが村を去りました。"),
    "kicked": _("{name}さんは村から追い出されました。"),
    "game_start": _("全員がそろい、ゲームが始まりました。この村の配役は {cast} です。"),
    "night": _("{day}日目の夜が訪れました。村人たちはそれぞれの家に戻ります。"),
    "morning": _("{day}日目の朝が来ました。"),
    "found_dead": _("{name}さんが変わり果てた姿で見つかりました。"),
    "peaceful": _("昨夜は誰も命を落としませんでした。"),
    "lovers_suicide": _("{name}さんは恋人を失った悲しみに耐えられず、後を追いました。"),
    "executed": _("投票の結果、{name}さんが処刑されました。"),
    "poison_victim": _("処刑の騒ぎのさなか、{name}さんが毒に倒れました。"),
    "sudden_death": _("{name}さんは突然死しました。"),
    "time_up_day": _("時間切れです。{grace}以内に投票しない人は突然死します。"),
    "time_up_night": _("夜が明けようとしています。{grace}以内に行動しない人は突然死します。"),
    "silence_day": _("しばらく沈黙が続き、{hours}時間が過ぎました。"),
    "silence_night": _("静まりかえったまま、{hours}時間が過ぎました。"),
    "revote": _("票が割れたため、再投票です（{round}回目）。"),
    "revote_last": _("票が割れたため、再投票です（{round}回目）。次も同数なら引き分けになります。"),
    "tie_draw": _("{ties}回続けて票が割れたため、この村は引き分けとなりました。"),
    "revote_after_sudden": _("突然死が出たため、投票はやり直しになります。"),
    "outage": _("サーバーが止まっていたため、猶予を今から{grace}取り直します。"),
    "abandoned": _("長いあいだ動きがなかったため、この村は廃村になりました。"),
    "abandoned_by_staff": _("管理者によりこの村は廃村になりました。"),
    "objection": _("{name}さん「異議あり！」"),
    "win_village": _("人狼はすべて倒れました。村人の勝利です。"),
    "win_wolves": _("村は人狼に支配されました。人狼の勝利です。"),
    "win_fox": _("騒ぎが収まったとき、妖狐が生き残っていました。妖狐の勝利です。"),
    "win_lovers": _("二人の愛は最後まで守られました。恋人の勝利です。"),
    "win_draw": _("村には誰も残りませんでした。引き分けです。"),
    "win_draw_revotes": _("決着がつかないまま、この村は引き分けとなりました。"),
}

HOWL_TEXT = _("アオォーン・・・")
WHISPER_TEXT = _("ヒソヒソ・・・")
