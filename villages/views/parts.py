"""The one renderer of the game screen: parts and lines, from the viewer's view only.

A part's input comes from `villages.screenview` (the viewer's state view, already cut to
what it may see); a line's from `villages.screenview.line_input` (the visibility view of
one message). Nothing here reads a model row: a renderer that is handed a `Message` or a
`Loaded` fails (the inputs are plain data, looked up by key).

Every render is kept in a small cache keyed by what it depends on — the part, its input,
the language and the few things the socket or request knows of its person (`Local`) — so a
push renders a part once for all the viewers who see it alike, and a page load reuses what
the push rendered (in the same process).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django.template.loader import get_template
from django.templatetags.static import static
from django.utils import timezone
from django.utils.formats import date_format, time_format
from django.utils.html import escape
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from villages import wording
from villages.forms import TALK_MODES
from villages.lru import LRU
from villages.screenview import PLAYERS, SEAT_PREFIX, Input, LineInput, Parts
from villages.wording import phase_label

from .standing import Local

RENDERS: LRU[Any, str] = LRU(20_000)
LOGS = ("d-log", "h-log")  # the logs as parts: drawn whole only when a screen redraws them


def digest(html: str) -> str:
    """A short fingerprint of a rendered part: the screen and the socket compare these."""
    return hashlib.blake2b(html.encode(), digest_size=6).hexdigest()


def _key(p: Input) -> str:
    return json.dumps(p, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------------------
# Parts


def render_parts(parts: Parts, ids: Iterable[str], local: Local) -> dict[str, str]:
    """The HTML of the parts named by `ids` (taken from `parts`). A player list is drawn
    with its rows, which are then given too (for their digests): `to_send` leaves them
    out when their list goes whole."""
    wanted = set(ids)
    if PLAYERS in wanted:
        wanted |= set(_seat_ids(parts))
    out: dict[str, str] = {}
    for part_id in parts:
        if part_id in wanted and part_id != PLAYERS:
            out[part_id] = render_part(part_id, parts[part_id], local)
    if PLAYERS in wanted:
        rows = [out[seat] for seat in _seat_ids(parts)]
        out[PLAYERS] = _render("d_players", PLAYERS, {"rows": rows}, {}, local, rows)
    return out


def to_send(drawn: Mapping[str, str]) -> list[str]:
    """The ids of `drawn` a screen receives: a whole player list stands for its rows."""
    whole = PLAYERS in drawn
    return [k for k in drawn if not (whole and k.startswith(SEAT_PREFIX))]


def _seat_ids(parts: Parts) -> list[str]:
    return [f"{SEAT_PREFIX}{no}" for no in parts[PLAYERS]]


def render_part(part_id: str, p: Input, local: Local) -> str:
    kind = "d_seat" if part_id.startswith(SEAT_PREFIX) else part_id.replace("-", "_")
    if kind.endswith("_mode"):
        return _render("mode", part_id, p, _mode(part_id, p), local)
    extras = _EXTRAS.get(kind)
    return _render(kind, part_id, p, extras(p, local) if extras else {}, local)


def _render(
    template: str, part_id: str, p: Input, x: Mapping[str, Any], local: Local, key: Any = None
) -> str:
    cache_key = (part_id, get_language(), local, _key(p) if key is None else tuple(key))
    html = RENDERS.get(cache_key)
    if html is None:
        context = {"p": p, "x": x, "id": part_id, "local": local}
        html = get_template(f"villages/parts/{template}.html").render(context).strip()
        RENDERS.put(cache_key, html)
    return html


def _mode(part_id: str, p: Input) -> dict[str, str]:
    pane = part_id.split("-")[0]
    if pane == "screen":
        return {"body": f"screen layout-{p['layout']}", "layout": p["layout"]}
    if pane == "u":
        heaven = " heaven-mode" if p["dead"] else ""
        return {"body": f"pane upper phase-{p['phase']}{heaven}", "layout": ""}
    return {"body": f"pane lower phase-{p['phase']}", "layout": p["layout"]}


def _until(iso: str | None, *, bare: bool = False) -> str:
    """A deadline for a page without script: the clock time it falls at ("…まで", or the
    time alone where the words around it say "until" already)."""
    if not iso:
        return ""
    at = time_format(timezone.localtime(datetime.fromisoformat(iso)), "H:i:s")
    return at if bare else _("%(time)sまで") % {"time": at}


VCLOCK = re.compile(r'(<span class="vclock"[^>]*>)(</span>)')


def virtual_clock_text(p: Input, now: datetime) -> str:
    """A real-time phase's virtual clock as it stands at `now` ("" outside one)."""
    realtime = p.get("realtime") if p else None
    if not realtime or not p["deadline"] or p["time_up"]:
        return ""
    left = max(0.0, (datetime.fromisoformat(p["deadline"]) - now).total_seconds())
    virtual = int(realtime["virtual_total"] * left / max(1, realtime["length"]))
    return _("残り %(left)s") % {"left": wording.minutes(virtual // 60 * 60)}


def virtual_clock_now(html: str, p: Input, now: datetime) -> str:
    """A real-time phase's virtual clock as it stands at `now`, written into a drawn
    `d-time` part (SPEC §6: both clocks are shown). The part itself leaves it empty, since
    it changes every second: the page's script counts it down, and a page without script
    shows the time left when it was drawn, as a duration like the virtual clock's."""
    text = virtual_clock_text(p, now)
    if not text:
        return html
    return VCLOCK.sub(lambda m: m[1] + escape(text) + m[2], html, count=1)


def _x_head(p: Input, local: Local) -> dict[str, Any]:
    return {
        "status": wording.label(wording.STATUS, p["status"]),
        "phase": phase_label(p["day"], p["phase"]),
        "winner": wording.label(wording.WINNER, p["winner"]),
    }


def _x_time(p: Input, local: Local) -> dict[str, Any]:
    virtual = p["virtual_left"]
    needed = p.get("needed")
    return {
        "more": max(0, needed - p["seated"]) if needed and p["phase"] == "waiting" else 0,
        "virtual": wording.minutes(virtual) if virtual is not None else "",
        "until": _until(p["deadline"]),
        "sudden_until": _until(p["sudden_deadline"], bare=True),  # after 「突然死まで」
    }


def _x_seat(p: Input, local: Local) -> dict[str, Any]:
    return {"roles": wording.roles_text(p["role"], p["sub_roles"] or [])}


_PARTNERS = {
    "wolf": gettext_lazy("仲間の人狼"),
    "fanatic": gettext_lazy("人狼"),
    "common": gettext_lazy("もうひとりの共有者"),
    "cupid": gettext_lazy("恋人たち"),
}


def _x_me(p: Input, local: Local) -> dict[str, Any]:
    if p is None:
        return {}
    return {
        "role": wording.label(wording.ROLE, p["role"]),
        "subs": [wording.label(wording.SUB_ROLE, s) for s in p["sub_roles"]],
        "partner_label": str(_PARTNERS.get(p["role"], gettext_lazy("恋人"))),
        "partners": wording.names_text(p["partners"]),
        "results": [
            {
                "raw": r["result"],
                "text": wording.result_sentence(
                    r["ability"], r["day"], wording.seat_name(r["target"]), r["result"]
                ),
            }
            for r in p["results"]
        ],
    }


def _x_deaths(p: Input, local: Local) -> dict[str, Any]:
    return {
        "rows": [
            {
                "name": d["name"],
                "when": phase_label(d["day"], d["phase"] or "day"),
                "cause": wording.label(wording.DEATH, d["cause"]),
            }
            for d in p
        ]
    }


def _x_where(p: Input, local: Local) -> dict[str, Any]:
    return {"phase": phase_label(p["day"], p["phase"])}


def talk_labels(p: Input) -> dict[str, str]:
    """The talk box's placeholder and name, for the page around the `u-talk` part."""
    x = _x_talk(p, Local())
    return {"placeholder": x["placeholder"], "label": x["label"]}


def _x_talk(p: Input, local: Local) -> dict[str, Any]:
    modes = [(v, str(label)) for v, label in TALK_MODES if v != "will" or p["will"]]
    if p["dead"]:
        placeholder = _("霊界の仲間に話しかける")
    elif p["phase"] == "night":
        placeholder = _("夜の発言")
    else:
        placeholder = _("発言する")
    return {
        "modes": modes,
        "mode": "normal",
        "placeholder": placeholder,
        "label": _("霊話") if p["dead"] else _("発言"),
    }


def _x_actions(p: Input, local: Local) -> dict[str, Any]:
    x: dict[str, Any] = {"ban": local.ban}
    if not p.get("seated"):
        return x
    x["actions"] = [(code, str(wording.ABILITY[code])) for code in p.get("actions", [])]
    done = ""
    if p.get("phase") == "day" and p.get("vote"):
        done = _("%(name)sさんに投票済み") % {"name": wording.seat_name(p["vote"])}
    elif p.get("phase") == "night" and p.get("tonight"):
        t = p["tonight"]
        names = wording.names_text(t["targets"])
        done = _(_TONIGHT.get(t["ability"], "%(names)sを選びました")) % {"names": names}
        if t.get("by"):
            done += _("（%(name)sさんの選択）") % {"name": wording.seat_name(t["by"])}
    elif p.get("phase") == "night" and p.get("done"):
        done = _("今夜の行動は済んでいます")
    x["done"] = done
    return x


_TONIGHT = {
    "attack": "今夜は%(names)sを襲撃します",
    "divine": "今夜は%(names)sを占います",
    "guard": "今夜は%(names)sを護衛します",
    "cupid": "%(names)sを恋人にしました",
}


def _x_agents(p: Input, local: Local) -> dict[str, Any]:
    # The address's scheme and host are the request's: the page fills them in
    # (`villages.views.panes.draw_parts`), and the script in a part the socket sent.
    if not p:
        return {}
    return {
        "path": f"/ws/aiwolf/villages/{p['id']}/",
        "icon": static("villages/options/agents.svg"),
    }


_EXTRAS = {
    "d_head": _x_head,
    "d_time": _x_time,
    "d_seat": _x_seat,
    "d_me": _x_me,
    "d_deaths": _x_deaths,
    "u_where": _x_where,
    "u_talk": _x_talk,
    "u_actions": _x_actions,
    "d_agents": _x_agents,
}


# ---------------------------------------------------------------------------
# Lines


_WHO = {
    "wolf": gettext_lazy("%(name)s（人狼）"),
    "common": gettext_lazy("%(name)s（共有者）"),
    "monologue": gettext_lazy("%(name)sの独り言"),
    "heaven": gettext_lazy("%(name)s（霊話）"),
    "will": gettext_lazy("%(name)sの遺言"),
}


def line_html(line: LineInput) -> str:
    """One line of the log, as its viewer may see it."""
    m = line["message"]
    key = ("line", get_language(), _key(line))
    html = RENDERS.get(key)
    if html is None:
        html = _line(m, line["who"]).strip()
        RENDERS.put(key, html)
    return html


def _line(m: dict[str, Any], who: Mapping[str, str] | None) -> str:
    kind = m["kind"]
    plain = kind in ("system", "objection")
    text = wording.line_text(kind, m.get("code", ""), m.get("params") or {}, m["text"])
    name = icon = ""
    if kind == "wolf_howl":
        name = _("狼の遠吠え")
    elif kind == "common_whisper":
        name = _("共有者の小声")
    elif who is not None:
        pattern = _WHO.get(kind)
        speaker = wording.seat_name(who["name"])
        name = str(pattern) % {"name": speaker} if pattern else speaker
        icon = who["icon"]
    return get_template("villages/parts/line.html").render(
        {
            "id": m["id"],
            "kind": kind,
            "volume": "" if plain else m["volume"],
            "plain": plain,
            "who": name,
            "icon": icon,
            "text": text,
            **_posted(m.get("created_at")),
        }
    )


def _posted(iso: str | None) -> dict[str, str]:
    """When a line was posted: the text of its permalink (its time) and the full date."""
    if not iso:
        return {}
    at = timezone.localtime(datetime.fromisoformat(iso))
    return {
        "at": time_format(at, "H:i"),
        "at_full": f"{date_format(at, 'Y-m-d')} {time_format(at, 'H:i:s')}",
    }


def phase_key(m: Mapping[str, Any]) -> str:
    return f"{m['day']}-{m['phase']}"


_CUES = {
    "objection": gettext_lazy("%(name)sさん「異議あり！」"),
    "dawn": gettext_lazy("夜が明けました"),
    "revote": gettext_lazy("再投票になりました"),
    "revote_sudden": gettext_lazy("突然死が出たため、投票をやり直します"),
    "alert": gettext_lazy("突然死まであと%(n)s秒"),
    "game_over": gettext_lazy("ゲームが終わりました"),
}


def cue_text(cue: Mapping[str, Any]) -> dict[str, str]:
    """A cue for the screen: its kind (the sound) and what the cue box says."""
    kind = cue["type"]
    text = str(_CUES.get(kind, ""))
    if kind == "revote" and cue.get("reason") == "sudden_death":
        text = str(_CUES["revote_sudden"])
    if kind == "objection":
        text %= {"name": cue.get("name", "")}
    elif kind == "alert":
        text %= {"n": cue.get("seconds_left", 0)}
    return {"kind": kind, "text": text}
