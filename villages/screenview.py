"""What each part of the game screen shows one viewer: the inputs of its templates.

The game screen (SPEC §10) is drawn from *parts*, each an element with an id in one of its
panes: the lower pane's head, clock, players (one row a seat), own role, deaths and tallies;
the upper pane's place, talk controls, actions and objection button; each pane's mode (its
body's classes, the frame page's layout). A part's input is plain data, built here from the
viewer's `villages.selectors.state_dict` and nothing else, so it holds only what the
viewer may see; the templates under `templates/villages/parts/` draw it
(`villages.views.parts`), for the page and for the live push alike.

Two viewers with equal inputs see the same part; a part whose input did not change did not
change. That is what `villages.services.push` uses to send each viewer exactly what changed
for it, and nothing to a viewer whose screen did not change.

Lines are not parts: `line_input` gives one line of the log as the viewer sees it, with its
speaker's name and icon.
"""

from __future__ import annotations

from typing import Any, TypedDict

from villages.engine import Phase
from villages.engine.state import death_order
from villages.services.config import rules
from villages.snapshots import Loaded

from .selectors import View, stable_clock, state_dict, village_dict

Input = Any  # JSON-able: dicts, lists, strings, numbers, booleans, None
Parts = dict[str, Input]

PLAYERS = "d-players"
SEAT_PREFIX = "d-seat-"
AGENTS = "d-agents"


class Speaker(TypedDict):
    name: str
    icon: str


class LineInput(TypedDict):
    """One line as a viewer may see it: API.md's Message, its speaker and its pane."""

    message: dict[str, Any]  # selectors.message_dict: the visibility view of the line
    who: Speaker | None
    into: str  # "log" (the village pane) or "heaven" (the heaven pane)


def seat_part(seat_no: int) -> str:
    return f"{SEAT_PREFIX}{seat_no}"


def layout(state: dict[str, Any]) -> str:
    """ "heaven" (three panes) for a dead player during the game, else "plain"."""
    me, phase = state["me"], state["village"]["phase"]
    if me is not None and not me["alive"] and phase in (Phase.DAY, Phase.NIGHT):
        return "heaven"
    return "plain"


def parts_of(view: View) -> Parts:
    """Every part of the viewer's screen (memoized on the snapshot, which never changes)."""
    key = ("parts", view.viewer)
    found = view.loaded.memo.get(key)
    if found is None:
        found = view.loaded.memo[key] = _parts(state_dict(view))
    return found


def _parts(s: dict[str, Any]) -> Parts:
    v, clock, me = s["village"], s["clock"], s["me"]
    phase = v["phase"]
    names = {x["seat_no"]: x["handle_name"] for x in s["seats"]}
    mode = layout(s)
    dead = mode == "heaven"
    playing = phase in (Phase.DAY, Phase.NIGHT)
    parts: Parts = {
        "screen-mode": {"layout": mode},
        "d-mode": {"phase": phase, "layout": mode},
        "u-mode": {"phase": phase, "dead": dead},
        "d-head": {
            "id": v["id"],
            "name": v["name"],
            "comment": v["comment"],
            "status": v["status"],
            "phase": phase,
            "day": v["day"],
            "winner": s["winner"],
            "abandoned": v.get("abandoned", False),
        },
        "d-time": _time(v, clock),
        PLAYERS: [x["seat_no"] for x in s["seats"]],
        "d-me": _me(me, names),
        "d-deaths": deaths_in_order(s["seats"]),
        "d-votes": tally_rounds(list(reversed(s["votes"])), names),  # the newest first
        "u-where": {
            "id": v["id"],
            "name": v["name"],
            "phase": phase,
            "day": v["day"],
            "dead": dead,
        },
        "u-talk": {
            "seated": me is not None,
            "dead": dead,
            "day": v["day"],
            "phase": phase,
            "will": me is not None and not dead and phase != Phase.ENDED,
        },
        "u-actions": _actions(me, v, names, dead),
        AGENTS: _agents(v),
        "u-objection": None
        if me is None
        else {
            "village": v["id"],
            "left": me["objections_left"],
            "can": not dead
            and phase in (Phase.WAITING, Phase.DAY)
            and me["alive"]
            and me["objections_left"] > 0,
        },
    }
    for x in s["seats"]:
        parts[seat_part(x["seat_no"])] = {
            "no": x["seat_no"],
            "name": x["handle_name"],
            "icon": x["icon_url"],
            "trip": x["trip"],
            "alive": x["alive"],
            "role": x["role"],
            "sub_roles": x["sub_roles"],
            "voted": x["has_voted"],
            "dummy": x["dummy"],
            "bot": x.get("bot", False),
            "agent": x.get("agent", False),
            "village": v["id"],
            "waiting": phase == Phase.WAITING,
            "playing": playing,
        }
    return parts


def _agents(v: dict[str, Any]) -> Input:
    """Where AIWolf agents connect, while the village waits (`open`: it takes them now)."""
    if v["phase"] != Phase.WAITING:
        return None
    return {
        "id": v["id"],
        "open": bool(v["options"].get("agents")),
        "free": max(v["capacity"] - v["seated"], 0),
    }


def _time(v: dict[str, Any], clock: dict[str, Any]) -> Input:
    realtime = clock["phase_deadline"] is not None
    return {
        "phase": v["phase"],
        "seated": v["seated"],
        "capacity": v["capacity"],
        "time_up": clock["time_up"],
        # In real time the screen counts both clocks down from the deadline itself.
        "virtual_left": None if realtime else clock["virtual_seconds_left"],
        "deadline": clock["phase_deadline"],
        "sudden_deadline": clock["sudden_death_deadline"],
        "realtime": _realtime(v, v["phase"]) if realtime else None,
        # The waiting room: how many voted to start, and the fewest a game starts with.
        "start_votes": v.get("start_votes"),
        "needed": v.get("seats_needed"),
    }


def carry_over(before: Loaded, after: Loaded) -> None:
    """`after` differs from `before` only by its clock (selectors.carry_over): each
    viewer's screen is the same but for its clock, which everyone sees alike."""
    if "speakers" in before.memo and before.rows.keys() == after.rows.keys():
        # Names and icons never change once seated: the same seats, the same speakers.
        after.memo.setdefault("speakers", before.memo["speakers"])
    time = None
    for key, value in list(before.memo.items()):
        if isinstance(key, tuple) and key[0] == "parts":
            if time is None:
                # The seats did not change, nor did the start votes.
                old = value["d-time"]
                v = {
                    **village_dict(after.village),
                    "start_votes": old["start_votes"],
                    "seats_needed": old["needed"],
                }
                time = _time(v, stable_clock(after.state))
            after.memo.setdefault(key, {**value, "d-time": time})


def _realtime(v: dict[str, Any], phase: str) -> dict[str, Any]:
    r = rules()
    options = v["options_in_force"] or v["options"]
    seconds = options["time"]["day_seconds" if phase == Phase.DAY else "night_seconds"]
    total = r.day_virtual_seconds if phase == Phase.DAY else r.night_virtual_seconds
    return {"length": seconds, "virtual_total": total}


def _me(me: dict[str, Any] | None, names: dict[int, str]) -> Input:
    if me is None or not me["role"]:
        return None
    return {
        "role": me["role"],
        "sub_roles": me["sub_roles"],
        "alive": me["alive"],
        "partners": [names.get(no, "?") for no in me["partners"]],
        "results": [
            {
                "day": r["day"],
                "ability": r["ability"],
                "target": names.get(r["target"], "?"),
                "result": r["result"],
            }
            for r in me["results"]
        ],
    }


def deaths_in_order(seats: list[dict[str, Any]]) -> Input:
    """The dead in the order they died (`engine.state.death_order`)."""
    dead = [x for x in seats if not x["alive"] and x["death_day"] is not None]
    dead.sort(
        key=lambda x: death_order(x["death_day"], x["death_phase"], x["death_cause"], x["seat_no"])
    )
    return [
        {
            "name": x["handle_name"],
            "day": x["death_day"],
            "phase": x["death_phase"],
            "cause": x["death_cause"],
        }
        for x in dead
    ]


def tally_rounds(votes: list[dict[str, Any]], names: dict[int, str]) -> Input:
    """The vote rounds as their tally is drawn (`villages/tally.html`, on the screen and in
    the logs): each ballot's voter, the votes the voter received, and its target."""
    rounds = []
    for v in votes:
        received: dict[int, int] = {}
        for b in v["ballots"]:
            received[b["target"]] = received.get(b["target"], 0) + b["weight"]
        rounds.append(
            {
                "day": v["day"],
                "round": v["round"],
                "rows": [
                    {
                        "voter": names.get(b["voter"], "?"),
                        "count": received.get(b["voter"], 0),
                        "target": names.get(b["target"], "?"),
                        "weight": b["weight"],
                    }
                    for b in v["ballots"]
                ],
                "executed": names.get(v["executed"]) if v["executed"] else None,
                "result": v.get("result", "executed"),
            }
        )
    return rounds


def _actions(
    me: dict[str, Any] | None, v: dict[str, Any], names: dict[int, str], dead: bool
) -> Input:
    full = v["seated"] >= v["capacity"]  # no seat left for a bot (the host's controls)
    agents = bool(v["options"].get("agents"))  # open to AIWolf agents (the host's controls)
    if me is None:
        return {
            "seated": False,
            "id": v["id"],
            "status": v["status"],
            "full": full,
            "agents": agents,
        }
    tonight = me["night_action"]
    chosen = None
    if tonight is not None:
        chosen = {
            "ability": tonight["ability"],
            "targets": [names.get(no, "?") for no in tonight["targets"]],
            "by": names.get(tonight["by"], "?") if tonight["by"] != me["seat_no"] else None,
        }
    return {
        "seated": True,
        "id": v["id"],
        "status": v["status"],
        "full": full,
        "agents": agents,
        "phase": v["phase"],
        "dead": dead,
        "alive": me["alive"],
        "done": me["action_done"],
        "actions": me["actions"],
        "vote": names.get(me["vote"]) if me["vote"] is not None else None,
        "tonight": chosen,
    }


# ---------------------------------------------------------------------------
# Lines


def speakers(loaded: Loaded) -> dict[int, Speaker]:
    """Every seat's name and icon (public), once per snapshot."""
    found = loaded.memo.get("speakers")
    if found is None:
        found = loaded.memo["speakers"] = {
            no: Speaker(name=row.handle_name, icon=row.icon.url if row.icon else "")
            for no, row in loaded.rows.items()
        }
    return found


def line_input(message: dict[str, Any], who: dict[int, Speaker], *, ended: bool) -> LineInput:
    """A line for the screen: heaven talk has its own pane until the end of the game."""
    seat = message["seat_no"]
    return LineInput(
        message=message,
        who=who.get(seat) if seat is not None else None,
        into="heaven" if message["kind"] == "heaven" and not ended else "log",
    )


# ---------------------------------------------------------------------------
# Comparing two screens


def changed(old: Parts | None, new: Parts) -> Parts:
    """The parts of `new` that differ from `old`; a changed player list brings its rows."""
    if old is None:
        return dict(new)
    diff = {k: v for k, v in new.items() if old.get(k, _MISSING) != v}
    if PLAYERS in diff:
        # Seats came or went: the whole list is drawn again, rows and all.
        for k, v in new.items():
            if k.startswith(SEAT_PREFIX):
                diff[k] = v
    return diff


_MISSING = object()
