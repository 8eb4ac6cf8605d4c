"""The sockets' session state machine (villages/consumers/session.py), with no server: what
a socket does with each push, each resume and each catch-up."""

from __future__ import annotations

import json

from villages.consumers.session import Page, Push, Route, Session
from villages.groups import village_events, village_screen

SEAT, USER = 5, 50


def line(n: int, text: str = "") -> dict:
    return {"type": "message", "message": {"id": n, "text": text or f"line {n}"}}


def push(*lines: int, prev: int | None, version: int = 1, state: bool = False, **more) -> dict:
    """An API envelope for seat 5 with these lines (numbered as seat 5 knows them)."""
    frames = [line(n) for n in lines]
    if state:
        frames.append({"type": "state", "state": {"version": version}})
    frames += more.pop("cues", [])
    return village_events(
        frames,
        viewer=more.pop("viewer", SEAT),
        user=more.pop("user", USER),
        version=version,
        prev=prev if lines else None,
        last=lines[-1] if lines else None,
        **more,
    )


def routed(session: Session, envelope: dict) -> Route:
    """Where the session puts an API envelope the hub worked out for its viewer and user."""
    return session.route(Push(envelope, envelope["viewer"], envelope["user"]))


def sent_ids(texts: list[str]) -> list[int]:
    return [json.loads(t)["message"]["id"] for t in texts if json.loads(t)["type"] == "message"]


def seated(cursor: int = 0) -> Session:
    session = Session(viewer=SEAT, user=USER)
    session.started_at(None, cursor)
    session.release()
    return session


def test_lines_in_order_are_placed_and_move_the_cursor():
    session = seated(cursor=10)
    envelope = push(11, 12, prev=10)
    assert routed(session, envelope) is Route.IN_ORDER
    assert sent_ids(session.frames_of(envelope)) == [11, 12]
    assert session.cursor == 12


def test_a_duplicate_push_sends_nothing_twice():
    session = seated(cursor=10)
    envelope = push(11, prev=10)
    session.frames_of(envelope)
    assert routed(session, envelope) is Route.IN_ORDER  # its prev is behind the cursor
    assert session.frames_of(envelope) == []
    session.read_up_to(14)  # lines read from the database since
    assert session.frames_of(push(13, 14, 15, prev=12)) and session.cursor == 15
    assert sent_ids(session.frames_of(push(15, 16, prev=14))) == [16]


def test_a_gap_is_read_before_the_push_that_reveals_it():
    session = seated(cursor=10)
    later = push(14, prev=13)  # 11-13 were pushed and lost
    assert routed(session, later) is Route.GAP
    session.read_up_to(14)  # what the consumer read from the database (11-14)
    assert session.frames_of(later) == []  # 14 came with the catch-up
    assert session.cursor == 14


def test_an_overtaken_push_arrives_late_and_adds_nothing():
    session = seated(cursor=10)
    first, second = push(11, prev=10), push(12, prev=11)
    assert routed(session, second) is Route.GAP  # the second overtook the first
    session.read_up_to(12)
    session.frames_of(second)
    assert routed(session, first) is Route.IN_ORDER
    assert session.frames_of(first) == []


def test_lines_the_viewer_may_not_see_make_no_gap():
    """Seat 5's numbers count only its lines: a push after lines it may not see names the
    last line it could see as `prev`, which the cursor already holds."""
    session = seated(cursor=10)
    assert routed(session, push(11, prev=10)) is Route.IN_ORDER


def test_only_a_newer_state_is_sent():
    session = seated(cursor=10)
    assert session.state_is_news(3)
    assert len(session.frames_of(push(prev=None, version=4, state=True))) == 1
    assert session.frames_of(push(prev=None, version=4, state=True)) == []
    assert session.frames_of(push(prev=None, version=2, state=True)) == []
    assert not session.state_is_news(3)


def test_a_push_for_another_viewer_is_ignored_and_a_seat_that_changed_hands_rereads():
    session = seated()
    assert routed(session, push(1, prev=0, viewer=None, user=None)) is Route.IGNORE
    assert routed(session, push(1, prev=0, user=99)) is Route.REREAD
    session.moved_to(None)  # the user left its seat: now a spectator
    assert session.state_version == -1
    assert routed(session, push(1, prev=0, viewer=None, user=None)) is Route.IN_ORDER


def test_a_widened_view_reads_the_whole_log_and_keeps_the_cues():
    session = seated(cursor=3)
    objection = {"type": "objection", "seat_no": 2}
    envelope = push(4, prev=3, state=True, cues=[objection], widen=True)
    assert routed(session, envelope) is Route.WIDEN
    (cue,) = session.cues_of(envelope)
    assert json.loads(cue) == objection


def test_pushes_are_held_until_the_client_says_where_it_stands():
    session = Session(viewer=SEAT, user=USER)
    session.started_at(None, 10)
    early, later = push(11, prev=10), push(12, prev=11)
    assert session.hold(early) and session.hold(later)
    assert session.holding
    held = session.release()
    assert held == [early, later] and not session.holding
    assert not session.hold(push(13, prev=12))  # released: handled at once from now on


def test_a_reconnect_with_resume_reads_only_what_the_socket_did_not_send():
    session = Session(viewer=SEAT, user=USER)
    session.started_at(None, 20)  # the socket opened when seat 5's last line was 20
    session.release()
    session.frames_of(push(21, 22, prev=20))  # pushed since
    plan = session.resume(15)  # the client had seen up to 15 before it reconnected
    assert plan.start == 15
    read = list(range(16, 23))  # what the database gives after 15
    assert [n for n in read if plan.wanted(n)] == [16, 17, 18, 19, 20]
    session.resumed(15, 22)
    assert session.cursor == 22 and session.anchor == 15
    again = session.resume(15)  # a resume repeated costs the state alone
    assert again.start == 22 and not any(again.wanted(n) for n in range(16, 23))


def test_a_resume_read_a_page_at_a_time_skips_over_what_was_sent():
    session = Session(viewer=SEAT, user=USER)
    session.started_at(10, 10)
    session.frames_of(push(11, 12, 13, prev=10))
    plan = session.resume(2)
    assert plan.start == 2
    assert plan.next_start(5) == 5  # a page that ended before what was sent
    assert plan.next_start(11) == 13  # a page that ended inside it: on from its end
    assert plan.next_start(20) == 20


def test_a_screen_page_is_sent_only_the_parts_it_lacks():
    session = seated(cursor=10)
    page = Page()
    page.says({"d-time": "t1", "d-me": "m1"}, "0")
    delta = {"prev": 10, "last": 11}
    envelope = village_screen(delta, version=7)
    drawn = {
        "parts": [["d-time", "<time 2>", "t2", True], ["d-me", "<me>", "m1", True]],
        "lines": [[11, "log", "day-2", "<p>11</p>"]],
        "hide": [],
        "restore": [],
        "cues": [],
        "marks": None,
        "text": "the frame every socket alike gets",
    }
    assert session.route(Push(envelope, SEAT, USER)) is Route.IN_ORDER
    (text,) = page.delta_texts(session, envelope, drawn)
    frame = json.loads(text)
    assert frame["parts"] == [["d-time", "<time 2>", "t2"]]  # d-me was shown already
    assert frame["lines"] == [[11, "log", "day-2", "<p>11</p>"]]
    assert session.cursor == 11 and page.shown["d-time"] == "t2"
    assert page.delta_texts(session, envelope, drawn) == []  # nothing new a second time


def test_a_screen_page_that_lacks_everything_gets_the_frame_drawn_for_all():
    session = seated(cursor=10)
    page = Page()
    envelope = village_screen({"prev": 10, "last": 11}, version=7)
    drawn = {
        "parts": [["d-time", "<time>", "t", True]],
        "lines": [[11, "log", "day-2", "<p>11</p>"]],
        "text": "shared",
    }
    assert page.delta_texts(session, envelope, drawn) == ["shared"]


def test_after_a_catch_up_the_pushes_it_covered_send_nothing():
    """A catch-up (the hub could not follow, the user moved seats) is no push: a socket
    reads what it lacks; its session then skips what that read brought."""
    session = seated(cursor=10)
    session.read_up_to(15)  # the catch-up after the notice
    assert session.frames_of(push(14, 15, prev=13)) == []
    assert sent_ids(session.frames_of(push(16, prev=15))) == [16]
