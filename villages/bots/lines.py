"""The bots' own lines, in Japanese and English (the site's language picks one).

A line is a key and its parameters. Each key has several wordings, so that bots sound like
several people: the parameter `w` says which (the first when absent, as in lines kept
before there were several); `{result}` is "wolf" or "human" and is worded here; a name
parameter (`NAME_PARAMS`) is a seat's name, which a page words in its own language.
`fresh` picks a wording nobody has said yet that day. `villages.bots.hearing` reads the
claims and results back from any of these wordings, as it reads people's.
"""

from __future__ import annotations

import random
from collections.abc import Collection

Wording = tuple[str, str]  # (Japanese, English)

LINES: dict[str, tuple[Wording, ...]] = {
    "greet": (
        ("おはようございます。今日もよろしくお願いします。", "Good morning, everyone."),
        ("おはよう。……誰が人狼なんだろう。", "Morning. I wonder who the wolves are."),
        ("おはようございます。今日こそ人狼を見つけましょう。", "Morning! Let's find a wolf today."),
        (
            "おはよう。みんなの話をよく聞いてから決めます。",
            "Morning. I'll listen to everyone before I decide.",
        ),
        ("やあ、おはよう。落ち着いて考えよう。", "Hi, good morning. Let's think calmly."),
        (
            "おはようございます。気になることがあったら言ってくださいね。",
            "Good morning. Say anything that strikes you.",
        ),
        ("おはよー。今日も生き残れるといいな。", "Morning. I hope we all make it through today."),
        ("おはようございます。さて、どこから考えましょうか。", "Good morning. Where do we start?"),
    ),
    "seer_claim": (
        ("占いCOします。{name}さんは{result}でした。", "I am the seer. {name} is {result}."),
        (
            "占い師です。{name}さんを占った結果、{result}でした。",
            "Coming out as the seer: {name} is {result}.",
        ),
        (
            "占いCOです。{name}さんは{result}と出ました。",
            "Seer here. My reading of {name}: {result}.",
        ),
        (
            "実は占い師です。{name}さんの結果は{result}でした。",
            "I'm the seer, in fact. {name} came out {result}.",
        ),
    ),
    "seer_result": (
        ("占い結果です。{name}さんは{result}でした。", "My reading: {name} is {result}."),
        ("今日の占い結果、{name}さんは{result}です。", "Today's reading: {name} is {result}."),
        ("占いの結果、{name}さんは{result}でした。", "Result of my reading: {name} is {result}."),
        (
            "占い師として報告します。{name}さんは{result}でした。",
            "Seer report: {name} is {result}.",
        ),
    ),
    "medium_claim": (
        ("霊能COします。{name}さんは{result}でした。", "I am the medium. {name} was {result}."),
        ("霊能者です。{name}さんは{result}でした。", "Medium here: {name} was {result}."),
        (
            "霊能COです。昨日の{name}さんは{result}でした。",
            "Coming out as the medium: {name} was {result}.",
        ),
    ),
    "medium_result": (
        ("霊能結果です。{name}さんは{result}でした。", "Medium result: {name} was {result}."),
        ("霊能の結果、{name}さんは{result}でした。", "My medium reading: {name} was {result}."),
        (
            "霊能者として報告します。{name}さんは{result}でした。",
            "Medium report: {name} was {result}.",
        ),
    ),
    "mourn": (
        ("{name}さん……安らかに。", "Rest in peace, {name}."),
        ("{name}さんが犠牲に……仇は取ります。", "{name} is gone... we'll avenge them."),
        ("{name}さん、無念です。", "Poor {name}."),
        ("まさか{name}さんが襲われるなんて。", "I can't believe they got {name}."),
        ("{name}さんのためにも人狼を見つけましょう。", "Let's find the wolves, for {name}'s sake."),
    ),
    "vote_black": (
        (
            "{name}さんに投票します。占いで人狼と出ていますから。",
            "I vote for {name}: the seer found a wolf.",
        ),
        ("占い結果を信じて{name}さんに投票します。", "I trust the reading and vote for {name}."),
        (
            "黒が出た以上、迷わず{name}さんに投票します。",
            "A black result is enough: I vote for {name}.",
        ),
        ("人狼と分かっている{name}さんに投票します。", "I vote for {name}, a known wolf."),
        ("占いの黒に従って{name}さんに投票します。", "As the seer said, I vote for {name}."),
    ),
    "vote_doubt": (
        (
            "{name}さんに投票します。発言がどうも怪しく見えます。",
            "I vote for {name}; something feels off.",
        ),
        (
            "話が合わないので{name}さんに投票します。",
            "Their story doesn't add up: I vote for {name}.",
        ),
        (
            "{name}さんに投票します。結果が食い違っています。",
            "I vote for {name}; the results contradict each other.",
        ),
        ("疑わしいので{name}さんに投票します。", "I have doubts, so I vote for {name}."),
    ),
    "vote_follow": (
        (
            "みんなの意見に合わせて{name}さんに投票します。",
            "I'll go with the village and vote for {name}.",
        ),
        (
            "票をまとめましょう。{name}さんに投票します。",
            "Let's not split the vote: I vote for {name}.",
        ),
        ("流れに乗ります。{name}さんに投票します。", "Following the flow, I vote for {name}."),
        ("割れると危ないので{name}さんに投票します。", "A split vote is risky; I vote for {name}."),
        ("私も{name}さんに投票します。", "I vote for {name} too."),
        ("同じく{name}さんに投票します。", "Same here: I vote for {name}."),
    ),
    "vote_hunch": (
        (
            "{name}さんに投票します。手がかりが少ないので勘です。",
            "I vote for {name}. Few clues, so it's a hunch.",
        ),
        ("勘ですが、{name}さんに投票します。", "Just a hunch: I vote for {name}."),
        ("決め手はないけど{name}さんに投票します。", "Nothing certain, but I vote for {name}."),
        ("なんとなく{name}さんに投票します。", "I vote for {name}, on a feeling."),
    ),
    # Answers to a person who asked the bot what it thinks: its suspicion and why.
    "answer_mine": (
        (
            "{asker}さん、{name}さんです。私の占いで人狼と出ました。",
            "{asker}: {name}. My reading found a wolf.",
        ),
        (
            "{asker}さん、{name}さんで間違いありません。占いましたから。",
            "{asker}: {name}, no doubt. I divined them.",
        ),
        (
            "{asker}さん、怪しいのは{name}さん。私が占って人狼と出ています。",
            "{asker}: it's {name}; I divined a wolf there.",
        ),
    ),
    "answer_black": (
        (
            "{asker}さん、{name}さんです。占いで人狼と出ていますから。",
            "{asker}: {name}. The seer found a wolf there.",
        ),
        (
            "{asker}さん、{name}さんですね。占い師を信じています。",
            "{asker}: {name}. I believe our seer.",
        ),
        (
            "{asker}さん、私は{name}さんを疑っています。占い結果を信じます。",
            "{asker}: I suspect {name}; I trust the reading.",
        ),
    ),
    "answer_liar": (
        (
            "{asker}さん、怪しいのは{name}さんです。話が食い違っています。",
            "{asker}: {name}. Their story contradicts what I know.",
        ),
        (
            "{asker}さん、{name}さんです。言っていることが合いません。",
            "{asker}: {name}. What they say doesn't fit.",
        ),
        (
            "{asker}さん、{name}さんの主張は信じられません。",
            "{asker}: I can't believe {name}'s claim.",
        ),
    ),
    "answer_votes": (
        (
            "{asker}さん、{name}さんかな。票もそこに集まっていますし。",
            "{asker}: {name}, I think. The votes are gathering there too.",
        ),
        (
            "{asker}さん、{name}さんです。みんなの見立てに賛成です。",
            "{asker}: {name}. I agree with the others there.",
        ),
        (
            "{asker}さん、みんなと同じく{name}さんが気になります。",
            "{asker}: like the others, I have my eye on {name}.",
        ),
    ),
    "answer_hunch": (
        (
            "{asker}さん、今のところ{name}さんが気になります。勘ですけど。",
            "{asker}: right now {name} bothers me. Just a hunch.",
        ),
        (
            "{asker}さん、強いて言えば{name}さんです。根拠は薄いですが。",
            "{asker}: if I must say, {name}. On thin grounds.",
        ),
        (
            "{asker}さん、決め手はないですが{name}さんを見ています。",
            "{asker}: nothing certain, but I'm watching {name}.",
        ),
    ),
    "answer_none": (
        (
            "{asker}さん、まだ決めかねています。もう少し話を聞かせてください。",
            "{asker}: I can't tell yet. Let me hear more.",
        ),
        (
            "{asker}さん、今は誰とも言えません。",
            "{asker}: I can't name anyone right now.",
        ),
        (
            "{asker}さん、正直まだ分かりません。皆さんの意見も聞きたいです。",
            "{asker}: honestly, no idea yet. I'd like to hear the others.",
        ),
    ),
    # A bot wolf's whispers to a person in its pack, at night.
    "pack_propose": (
        (
            "よろしく。今夜は{name}さんを襲いませんか？ ほかの人がよければ名前を書いてください。",
            "Hi, partner. Shall we attack {name} tonight? Name someone else if you prefer.",
        ),
        (
            "相方さん、今夜は{name}さんでどうでしょう？ 別の人なら名前を教えてください。",
            "Partner, how about {name} tonight? Tell me a name if you want another.",
        ),
        (
            "こんばんは。{name}さんを狙うのはどうですか？ 希望があれば名前をどうぞ。",
            "Evening. What about going for {name}? Name your pick if you have one.",
        ),
    ),
    "pack_follow": (
        ("了解、{name}さんにしましょう。", "Got it, {name} it is."),
        ("分かりました。{name}さんを襲います。", "Understood. We attack {name}."),
        ("いいですね、{name}さんで。", "Good, {name} then."),
    ),
    "pack_attack": (  # among bot wolves only: the pack's choice, kept in the pack's log
        ("今夜は{name}さんを襲います。", "Tonight we attack {name}."),
        ("{name}さんを襲撃します。", "Attacking {name}."),
        ("狙いは{name}さんで。", "{name} is the target."),
    ),
    "pack_alone": (
        ("時間なので、{name}さんを襲っておきますね。", "Time's running; I'll take {name}."),
        ("返事がないので{name}さんにしておきます。", "No answer, so I'll go with {name}."),
        ("そろそろ決めます。{name}さんを襲います。", "Let's settle it: {name}."),
    ),
}
# A key of lines kept before the wordings were gathered under one key, and its wording.
LEGACY: dict[str, tuple[str, str]] = {"greet_quiet": ("greet", "1")}
NAME_PARAMS = frozenset({"name", "asker"})  # the parameters that are a seat's name

RESULTS: dict[str, tuple[str, str]] = {"wolf": ("人狼", "a werewolf"), "human": ("人間", "human")}

# The bots' names, in Japanese and English: a bot sits as the Japanese one (with the
# engine's bot mark), and a page in English calls it by the English one.
NAMES: tuple[tuple[str, str], ...] = (
    ("アキラ", "Akira"), ("ユウキ", "Yuki"), ("ハルカ", "Haruka"), ("ソウタ", "Sota"),
    ("ミサキ", "Misaki"), ("レン", "Ren"), ("ナツキ", "Natsuki"), ("カイト", "Kaito"),
    ("サクラ", "Sakura"), ("リク", "Riku"), ("ヒナタ", "Hinata"), ("コウ", "Ko"),
    ("マユ", "Mayu"), ("ダイチ", "Daichi"), ("アオイ", "Aoi"), ("シン", "Shin"),
    ("ミオ", "Mio"), ("タクミ", "Takumi"), ("ユイ", "Yui"), ("ケン", "Ken"),
    ("ノゾミ", "Nozomi"), ("イツキ", "Itsuki"),
)  # fmt: skip
# A bot's line is kept with its key as the line's code (this prefix and the key), so that
# a page words it again in its own language.
CODE_PREFIX = "bot_"


def code_of(key: str) -> str:
    return f"{CODE_PREFIX}{key}"


def key_of(code: str) -> str | None:
    """The line's key of a bot line's code, or None for any other code."""
    key = code.removeprefix(CODE_PREFIX)
    if not code.startswith(CODE_PREFIX):
        return None
    return key if key in LINES or key in LEGACY else None


def _index(language: str) -> int:
    return 1 if language.lower().startswith("en") else 0


def word(key: str, params: dict[str, str], language: str) -> str:
    """The text of a line in `language` ("ja" unless it is English)."""
    values = dict(params)
    if key in LEGACY:
        key, values["w"] = LEGACY[key]
    i = _index(language)
    wordings = LINES[key]
    chosen = wordings[int(values.pop("w", "0") or 0) % len(wordings)]
    if "result" in values:
        values["result"] = RESULTS[values["result"]][i]
    return chosen[i].format(**values)


def fresh(
    key: str, params: dict[str, str], said: Collection[str], rng: random.Random
) -> dict[str, str] | None:
    """The params of a wording of `key` whose text, in either language, is not among
    `said` (the day's lines so far), chosen at random; None when every one was said."""
    free = [
        w
        for w in range(len(LINES[key]))
        if all(word(key, {**params, "w": str(w)}, lang) not in said for lang in ("ja", "en"))
    ]
    return {**params, "w": str(rng.choice(free))} if free else None
