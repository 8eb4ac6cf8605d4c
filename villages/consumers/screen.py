"""The game screen's socket: `/ws/villages/<id>/?screen=1` (`static/villages/js/jinro.js`).

HTML drawn by the site's templates (`villages.views.parts`, through `villages.views.live`),
one frame `{"type": "screen", ...}` per change: `parts` `[[id, html, digest]]` (elements to
replace by id), `lines` `[[id, pane, phase, html]]` (new lines of the log or the heaven
pane), `hide` `[id]`, `restore` (lines shown again, like `lines`), `cues` `[{"kind",
"text"}]` (sounds and the cue box) and `marks` (a fingerprint of the hidden lines this
viewer could see, `selectors.log_marks`). The client's first frame is `{"type": "hello",
"after", "parts": {id: digest}, "marks", "lang"}`: what its page shows, from which the
socket sends only what differs; it sends the same again after a reconnection. Errors,
limits and close codes are the API socket's (`villages.consumers.api`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from villages.consumers.base import (
    CLOSE_NOT_FOUND,
    NOTHING,
    VillageSocket,
    in_thread,
    whole_number,
)
from villages.consumers.session import Page, Push, Route
from villages.groups import encode
from villages.views.live import Screen, draw_delta, read_screen
from villages.views.standing import Local

LANGUAGES = {code for code, _name in settings.LANGUAGES}
AT_CURSOR = -1  # `redraw(after=...)`: the lines after the socket's cursor

# What one WebSocket message may carry: daphne's `websocket_max_message_size` (1 MiB by
# default), less a margin. A screen frame past it (a long day's logs drawn again for a
# viewer who now sees more, a catch-up of hundreds of long lines) would fail the socket,
# and its page would try again and again: instead the page is told to load itself anew
# over HTTP (`RELOAD`), which draws it whole.
MAX_FRAME_BYTES = 1024 * 1024 - 4096
RELOAD = encode({"type": "screen", "reload": True})


class ScreenSocket(VillageSocket):
    flavour = "screen"

    def __init__(self, scope: dict[str, Any], send: Any) -> None:
        super().__init__(scope, send)
        self.lang = settings.LANGUAGE_CODE
        self.page = Page()
        self.local = Local()

    async def send_texts(self, texts: list[str]) -> None:
        """The texts, or the page told to load itself anew in place of one too big for a
        WebSocket message (and of those after it)."""
        for n, text in enumerate(texts):
            if not fits(text):
                await super().send_texts([*texts[:n], RELOAD])
                return
        await super().send_texts(texts)

    async def identify(self, token: str) -> bool:
        identified = await super().identify(token)
        self.local = Local(authenticated=self.user_id is not None)
        return identified

    async def start(self, after: int | None) -> None:
        self.hold_a_while()  # the page says what it shows in its first frame; until then, hold

    async def never_said(self) -> None:
        await self.redraw(after=None)  # a page that never said what it shows

    async def client_message(self, content: Any) -> None:
        kind = content.get("type") if content is not None else None
        after = whole_number(content.get("after")) if kind in ("resume", "hello") else None
        if kind == "hello":
            lang = content.get("lang")
            if isinstance(lang, str) and lang in LANGUAGES:
                self.lang = lang
            self.page.says(content.get("parts"), content.get("marks"))
            await self.redraw(after=after)
        elif after is not None:
            await self.redraw(after=after)
        await self.release()
        await self.answer_unknown(kind, after=after)

    async def place(self, push: Push) -> None:
        route = self.session.route(push)
        envelope = push.envelope
        if route is Route.IGNORE:
            return
        if route is Route.REREAD:
            await self.redraw()  # the seat number now belongs to someone else
            return
        drawn = draw_delta(envelope, self.lang, self.local)
        if route is Route.WIDEN:
            await self.redraw(logs=True, cues=drawn["cues"])
            return
        if route is Route.GAP:
            await self.redraw()  # a push before this one never arrived (yet)
        await self.send_texts(self.page.delta_texts(self.session, envelope, drawn))

    async def catch_up(self) -> None:
        await self.redraw()

    async def reload(self) -> None:
        await self.redraw(logs=True)

    async def standing_changed(self, notice: str) -> None:
        await self.redraw()  # the notice, and the controls a ban takes away

    async def redraw(
        self,
        *,
        logs: bool = False,
        cues: list[dict[str, str]] | None = None,
        after: int | None = AT_CURSOR,
    ) -> None:
        """Draw the screen as the database has it, and send what differs from the page:
        its parts, and its lines after `after` (the cursor by default; None: no lines);
        `cues`, drawn already, go with them."""
        since = self.session.cursor if after == AT_CURSOR else (NOTHING if after is None else after)
        screen = await self.screen(logs=logs, after=since)
        if screen is None:
            return
        if screen.marks != self.page.marks and not screen.logs:
            # Lines were hidden or shown while the socket was away: the logs again.
            screen = await self.screen(logs=True, after=since) or screen
        frame: dict[str, Any] = {"type": "screen"}
        parts = self.page.redrawn(
            {**screen.parts, **screen.logs}, screen.send, screen.version, set(screen.parts)
        )
        if parts:
            frame["parts"] = parts
        if not screen.logs and screen.lines:
            # A page that was drawn anew may lack lines this socket sent to the old one:
            # all of them after its own last (the page skips those it has).
            frame["lines"] = screen.lines
        self.session.read_up_to(screen.last)
        if cues:
            frame["cues"] = cues
        if screen.marks != self.page.marks:
            frame["marks"] = self.page.marks = screen.marks
        if len(frame) > 1:
            await self.send_frames([frame])

    async def screen(self, *, logs: bool, after: int) -> Screen | None:
        reads = 0

        async def read() -> Screen | None:
            nonlocal reads
            reads += 1
            screen = await in_thread(read_screen)(
                self.village_id,
                self.user_id,
                after=after,
                lang=self.lang,
                logs=logs or reads > 1,  # a new viewer's page needs its logs drawn anew
            )
            if screen is None:
                await self.refuse(CLOSE_NOT_FOUND, "not_found")
                return None
            self.local = screen.local
            return screen

        return await self.as_viewer(read)

    async def move_to(self, viewer: int | None) -> None:
        await super().move_to(viewer)
        self.page.forget_versions()


def fits(text: str) -> bool:
    """`text` in UTF-8 is within MAX_FRAME_BYTES (encoded only when it may not be)."""
    return len(text) <= MAX_FRAME_BYTES // 4 or len(text.encode()) <= MAX_FRAME_BYTES
