"""API.md's WebSocket: JSON frames for bots and clients, `/ws/villages/<id>/`.

Server → client: `state` `{"state": State}`, `message` `{"message": Message}`, `objection`
`{"seat_no"}`, `revote` `{"day", "round"}`, `dawn` `{"day"}`, `game_over` `{"winner"}`;
extras: `alert` `{"seconds_left"}` (the sudden-death warning sound); `log` `{"messages":
[Message]}` — what the viewer may see has widened (its death, the end of the game): after
the commit's own lines (sent as `message` frames), the whole log as the viewer now sees
it; `hidden` `{"id"}` and `shown` `{"message"}` — the staff hid a line, or showed it
again; `error` `{"error": {"code", "message"}}` (before the server closes the socket:
4401 bad token, 4403 the account was banned from logging in, 4404 no such village; or
`banned`, when the user's account was banned from playing or talking; 4429 the client kept
sending faster than a socket may, see below).

Client → server: `{"type": "resume", "after": <last message id>}` sends every visible
message with a larger id, in order, before any new one (send it first, right after the
socket opens: until the first client frame, or HOLD_SECONDS, pushed frames are held so
that nothing new overtakes the missed ones). `?after=<id>` on the URL does the same at
connection time. The catch-up is read a page (`RESUME_PAGE` lines) at a time, the socket
sending each page before reading the next, so that one resume is never one long read.
`{"type": "ping"}` is accepted and answered by nothing.

What a socket may send is limited (unless JINRO_RATE_LIMIT_ENABLED is off): a burst of
`JINRO_WS_BURST` frames, then `JINRO_WS_PER_MINUTE` a minute. A frame beyond that is
answered `error` `rate_limited` and otherwise ignored; a client that goes on regardless
(`JINRO_WS_BURST` refused frames in a row) is closed with 4429.
"""

from __future__ import annotations

from typing import Any

from villages.consumers.base import (
    CLOSE_NOT_FOUND,
    NOTHING,
    VillageSocket,
    in_thread,
    whole_number,
)
from villages.consumers.session import Push, Route
from villages.live_reads import Snapshot, read_snapshot

RESUME_PAGE = 200  # lines read at a time by a resume


class ApiSocket(VillageSocket):
    flavour = "api"

    async def start(self, after: int | None) -> None:
        snap = await self.snapshot(after=NOTHING if after is None else after)
        if snap is None:
            return
        await self.send_state(snap)
        self.session.started_at(after, snap.last)
        if after is None:
            self.hold_a_while()
        else:
            await self.send_lines(snap.messages)
            await self.release()

    async def client_message(self, content: Any) -> None:
        kind = content.get("type") if content is not None else None
        after = whole_number(content.get("after")) if kind in ("resume", "hello") else None
        if after is not None:
            await self.resume(after)  # before anything held: the missed lines first
        await self.release()
        await self.answer_unknown(kind, after=after)

    async def resume(self, after: int) -> None:
        """Every visible line after `after` not yet sent on this socket, in order, read
        and sent a page at a time."""
        plan = self.session.resume(after)
        start = plan.start
        while True:
            snap = await self.snapshot(after=start, page=RESUME_PAGE)
            if snap is None:
                return
            await self.send_lines([m for m in snap.messages if plan.wanted(m["id"])])
            if snap.complete:
                break
            start = plan.next_start(snap.last)
        self.session.resumed(after, snap.last)
        await self.send_state(snap)

    async def place(self, push: Push) -> None:
        route = self.session.route(push)
        envelope = push.envelope
        if route is Route.IGNORE:
            return
        if route is Route.REREAD:
            await self.catch_up()
            return
        if route is Route.WIDEN:
            await self.catch_up(whole_log=True, cues=self.session.cues_of(envelope))
            return
        if route is Route.GAP:
            await self.catch_up()  # a push before this one never arrived (yet)
        await self.send_texts(self.session.frames_of(envelope))

    async def reload(self) -> None:
        await self.catch_up(whole_log=True)

    async def catch_up(self, *, whole_log: bool = False, cues: list[str] | None = None) -> None:
        """Send what the database has beyond the cursor (or the whole log), then the
        state; `cues` (encoded frames) after the lines."""
        snap = await self.snapshot(after=0 if whole_log else self.session.cursor)
        if snap is None:
            return
        await self.send_lines([m for m in snap.messages if m["id"] > self.session.cursor])
        if whole_log:
            # The new lines came as `message` frames (API.md); `log` then gives the older
            # lines as they are seen now, for a client that shows the whole log.
            await self.send_frames([{"type": "log", "messages": snap.messages}])
        self.session.read_up_to(snap.last)
        await self.send_texts(cues or [])
        await self.send_state(snap)

    async def snapshot(self, *, after: int, page: int | None = None) -> Snapshot | None:
        """A snapshot for the user's current viewer (moving the socket to its group first)."""

        async def read() -> Snapshot | None:
            snap = await in_thread(read_snapshot)(
                self.village_id, self.user_id, after=after, page=page
            )
            if snap is None:
                await self.refuse(CLOSE_NOT_FOUND, "not_found")
            return snap

        return await self.as_viewer(read)

    async def send_lines(self, messages: list[dict[str, Any]]) -> None:
        await self.send_frames([{"type": "message", "message": m} for m in messages])

    async def send_state(self, snap: Snapshot) -> None:
        if self.session.state_is_news(snap.version):
            await self.send_frames([{"type": "state", "state": snap.state}])
