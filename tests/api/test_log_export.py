"""A finished village, whole (issue 12): `GET /api/v1/villages/{id}/log` (JSON, as its
OpenAPI schema says) and the self-contained HTML file; both refused before the end."""

from __future__ import annotations

import re

import jsonschema
import pytest
from django.test import Client

from villages.models import Message
from villages.services import moderation, play

from ..web.conftest import play_eleven_to_end, play_to_end, started_eleven, started_village


@pytest.fixture
def finished(db):
    game = started_village()
    play_to_end(game)
    return game


def schema_of_log() -> dict:
    document = Client().get("/api/v1/openapi.json").json()
    answer = document["paths"]["/api/v1/villages/{village_id}/log"]["get"]["responses"]["200"]
    schema = answer["content"]["application/json"]["schema"]
    return {**schema, "components": document["components"]}


def test_before_the_end_both_are_refused_with_wrong_phase(db):
    game = started_village()
    answer = Client().get(f"/api/v1/villages/{game.id}/log")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "wrong_phase"
    page = Client().get(f"/villages/{game.id}/log/export.html")
    assert page.status_code == 409 and "村が終わってから" in page.content.decode()
    assert Client().get("/api/v1/villages/999999/log").status_code == 404


def test_the_json_has_every_line_round_death_role_and_result_and_keeps_its_schema(finished):
    play.post_message(village_id=finished.id, user=finished.user(3), text="AFTER-THE-END")
    hidden = Message.objects.get(village_id=finished.id, text="AFTER-THE-END")
    moderation.set_hidden([hidden.pk], hidden=True)
    data = Client().get(f"/api/v1/villages/{finished.id}/log").json()
    jsonschema.validate(data, schema_of_log())
    ids = [m["id"] for m in data["messages"]]
    texts = [m["text"] for m in data["messages"]]
    expected = list(
        Message.objects.filter(village_id=finished.id, hidden=False)
        .order_by("id")
        .values_list("text", flat=True)
    )
    assert texts == expected and "AFTER-THE-END" not in texts
    assert ids == sorted(set(ids))  # the numbers everyone knows the lines by, in order
    texts = {m["text"] for m in data["messages"]}
    assert "WOLF-SECRET-PLAN 8を噛もう" in texts and "MONOLOGUE-OF-FOUR" in texts
    assert [d["seat_no"] for d in data["deaths"]] == [8, 1, 7, 2]
    assert [(v["day"], v["executed"]) for v in data["votes"]] == [(2, 1), (3, 2)]
    seats = {s["seat_no"]: s for s in data["seats"]}
    assert seats[1]["role"] == "wolf" and seats[1]["won"] is False
    assert seats[3]["role"] == "seer" and seats[3]["won"] is True
    assert data["winner"] == "village" and data["village"]["ended_at"]
    assert data["results"] == [
        {"day": 1, "seat_no": 3, "ability": "divine", "target": 1, "result": "wolf"},
        {"day": 2, "seat_no": 3, "ability": "divine", "target": 2, "result": "wolf"},
    ]


# Every result of play_eleven_to_end, as each seat was told it (the seer bitten on night 3
# as it divined 2 learns nothing of that night; the day-4 execution ends the game before
# any medium reading of it).
ELEVEN_RESULTS = [
    {"day": 1, "seat_no": 4, "ability": "divine", "target": 1, "result": "wolf"},
    {"day": 2, "seat_no": 4, "ability": "divine", "target": 3, "result": "human"},
    {"day": 2, "seat_no": 5, "ability": "medium", "target": 1, "result": "wolf"},
    {"day": 2, "seat_no": 6, "ability": "guard", "target": 4, "result": "guarded"},
    {"day": 3, "seat_no": 5, "ability": "medium", "target": 8, "result": "human"},
    {"day": 3, "seat_no": 6, "ability": "guard", "target": 5, "result": None},
]


def test_the_log_carries_every_ability_result_and_keeps_its_schema(db):
    game = started_eleven()
    play_eleven_to_end(game)
    data = Client().get(f"/api/v1/villages/{game.id}/log").json()
    jsonschema.validate(data, schema_of_log())
    assert data["winner"] == "village"
    assert data["results"] == ELEVEN_RESULTS
    told = {}  # each seat's own results, as its State gave them when the game ended
    for seat_no in (4, 5, 6):
        state = game.client(seat_no).get(f"/api/v1/villages/{game.id}/state").json()
        told[seat_no] = state["me"]["results"]
    assert (
        sorted(
            ({**r, "seat_no": no} for no, rs in told.items() for r in rs),
            key=lambda r: (r["day"], r["seat_no"]),
        )
        == ELEVEN_RESULTS
    )


def test_the_html_file_has_a_table_of_every_ability_result(db):
    game = started_eleven()
    play_eleven_to_end(game)
    page = Client().get(f"/villages/{game.id}/log/export.html").content.decode()
    table = page[page.index('class="tally results"') :].split("</table>", 1)[0]
    rows = re.findall(r'<tr data-result="(\w+)">(.*?)</tr>', table)
    cells = [(raw, re.findall(r"<td[^>]*>(.*?)</td>", row)) for raw, row in rows]
    assert cells == [
        ("wolf", ["1日目の夜", "村人4号", "占い", "村人1号", "狼"]),
        ("human", ["2日目の夜", "村人4号", "占い", "村人3号", "人"]),
        ("wolf", ["2日目", "村人5号", "霊能", "村人1号", "狼"]),
        ("guarded", ["2日目の夜", "村人6号", "護衛", "村人4号", "護衛成功"]),
        ("human", ["3日目", "村人5号", "霊能", "村人8号", "人"]),
        ("none", ["3日目の夜", "村人6号", "護衛", "村人5号", "—"]),
    ]


def test_the_html_file_stands_alone(finished):
    answer = Client().get(f"/villages/{finished.id}/log/export.html")
    assert answer.status_code == 200
    assert answer["Content-Disposition"] == (
        f'attachment; filename="jinro-village-{finished.id}.html"'
    )
    page = answer.content.decode()
    assert "WOLF-SECRET-PLAN" in page and "村人の勝利" in page and "占い師" in page
    assert "<script" not in page and "<link" not in page
    assert not re.search(r'(src|href)="(/|https?:)', page), "nothing outside the file"
    assert page.count('src="data:image/') >= 8, "every icon is embedded"
    assert ".msg" in page, "the styles are inline"
