"""The AIWolf agents' door: `/ws/aiwolf/villages/<id>/` (API.md, "AIWolf agents").

The contest's protocol on an ASGI WebSocket: the agent's owner is the account of its API
token (`Authorization: Bearer <token>`, what `aiwolf-nlp-common` sends, or `?token=`); a
village that cannot take the agent refuses it with an `error` frame (API.md's shape) and
a close code, before its name is asked. Then `NAME`, its seat (`services.agents`), and
the dialogue (`villages.aiwolf.Dialogue`): each packet is built from the seat's view at
that moment, each answer goes through the players' services. The socket registers with
its loop's hub (`villages.consumers.hub`) only to know when to look again: the hub wakes
it when what the seat sees changed, and tells it when a newer socket of its agent took
the seat over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import Any

from accounts.services import user_for_token
from villages.aiwolf import Act, Ask, Dialogue, Look, Say, Sleep, Tell, Vote
from villages.consumers.base import CLOSE_BANNED, CLOSE_TRY_AGAIN, ClientLink, in_thread, query_of
from villages.consumers.hub import Hub, LayerAway
from villages.engine.errors import RuleError
from villages.groups import AGENT_REPLACED, encode
from villages.services import agents, push
from villages.services.errors import Banned
from villages.wording import AGENT_REFUSALS

logger = logging.getLogger(__name__)

CLOSE_DONE = 1000
CLOSE_REFUSED = 4403
CLOSE_NO_NAME = 4408
CLOSE_REPLACED = 4409
REFUSAL_PAUSE = 2.0  # seconds before a refusal: an agent that reconnects at once, in a loop,
# (the contest's sample agent does) knocks every few seconds, not hundreds of times a second


def bearer_token(scope: dict[str, Any]) -> str:
    """The token of `Authorization: Bearer …`, else of `?token=`."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            if kind.lower() == "bearer":
                return token.strip()
    return query_of(scope).get("token", [""])[0]


class AgentSocket(ClientLink):
    flavour = "agent"

    def __init__(self, scope: dict[str, Any], send: Any) -> None:
        super().__init__(send)
        self.scope = scope
        self.village_id = int(scope["url_route"]["kwargs"]["village_id"])
        self.ident = uuid.uuid4().hex  # tells this socket from a newer one of its agent
        self.seat_no: int | None = None
        self.user_id: int | None = None
        self.hub: Hub | None = None
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.answers: asyncio.Queue[str] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.gone = asyncio.Event()
        self.late = 0  # answers still owed to asks that timed out: dropped when they come

    @property
    def viewer(self) -> int | None:
        return self.seat_no

    def deliver(self, message: dict[str, Any]) -> None:
        """From the hub: a wake-up (what the seat sees changed), or a take-over."""
        if message.get("type") == AGENT_REPLACED:
            if message.get("by") != self.ident:
                self.inbox.put_nowait(message)
            return
        self.changed.set()

    async def run(self, receive: Any) -> None:
        if (await receive())["type"] != "websocket.connect":
            return
        await self.asgi_send({"type": "websocket.accept"})
        reading = asyncio.ensure_future(self.read(receive))
        listening: asyncio.Future[None] | None = None
        try:
            seat = await self.seat()
            if seat is not None:
                listening = asyncio.ensure_future(self.listen())
                await self.play(*seat)
        except Exception:
            logger.exception("village %s: an agent's socket failed", self.village_id)
            await self.close(1011)
        finally:
            self.closed = True
            for task in (reading, listening):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            if self.hub is not None:
                await self.hub.unwatch(self)

    async def read(self, receive: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                self.closed = True
                self.gone.set()
                return
            if message["type"] == "websocket.receive" and message.get("text") is not None:
                await self.answers.put(message["text"])

    async def listen(self) -> None:
        """A newer socket of the seat's agent takes the seat over: this one closes."""
        await self.inbox.get()
        await self.refuse_with("replaced", CLOSE_REPLACED, pause=False)
        self.gone.set()

    # -- admission ------------------------------------------------------------------------

    async def error(self, code: str, message: str) -> None:
        """API.md's error frame, with the reason also as `request`: the contest's library
        reads every frame as a packet, and logs a request it does not know, reason and all."""
        error = {"code": code, "message": message}
        await self.send_frames([{"type": "error", "error": error, "request": f"{code}: {message}"}])

    async def refuse_with(
        self, key: str, close_code: int = CLOSE_REFUSED, *, pause: bool = True
    ) -> None:
        code, message = AGENT_REFUSALS[key]
        if pause:
            await self.refuse_after_pause(close_code, code, message)
        else:
            await self.fail(close_code, code, message)

    async def refuse_after_pause(self, close_code: int, code: str, message: str) -> None:
        await self.wait(REFUSAL_PAUSE)
        await self.fail(close_code, code, message)

    async def seat(self) -> tuple[int, Any] | None:
        """Who the agent is, and its seat (None: refused, and closed)."""
        try:
            owner = await in_thread(user_for_token)(bearer_token(self.scope))
            if owner is None:
                await self.refuse_with("bad_token", 4401)
                return None
            refusal = await in_thread(agents.refusal)(self.village_id, owner)
        except Banned as banned:
            await self.refuse_after_pause(CLOSE_BANNED, banned.code, banned.message)
            return None
        if refusal is not None:
            await self.refuse_with(refusal, 4404 if refusal == "not_found" else CLOSE_REFUSED)
            return None
        await self.send_texts([encode({"request": "NAME"})])
        name = await self.answer(agents.limits().timeout_ms / 1000)
        if name is None or not name.strip():
            await self.refuse_with("no_name", CLOSE_NO_NAME)
            return None
        try:
            seat_no = await in_thread(agents.take_seat)(
                village_id=self.village_id, owner=owner, name=name
            )
        except RuleError as error:
            logger.info("village %s: agent %r refused: %s", self.village_id, name, error.message)
            await self.refuse_after_pause(CLOSE_REFUSED, error.code, error.message)
            return None
        user = await in_thread(agents.seat_user)(self.village_id, seat_no)
        self.seat_no, self.user_id = seat_no, user.pk if user is not None else None
        hub = Hub.here()
        try:
            await hub.watch(self)
        except LayerAway as away:  # the agent comes back later
            logger.warning("village %s: channel layer unavailable: %s", self.village_id, away)
            await self.close(CLOSE_TRY_AGAIN)
            return None
        self.hub = hub
        push.publish_agent_replaced(self.village_id, seat_no, self.ident)
        return seat_no, user

    # -- the dialogue -------------------------------------------------------------------

    async def answer(self, seconds: float) -> str | None:
        """The agent's next line within `seconds` (None: none came, or it left). A line
        owed to an ask that timed out comes first, and is dropped."""
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        while not self.closed:
            left = until - loop.time()
            if left <= 0:
                return None
            line = asyncio.ensure_future(self.answers.get())
            gone = asyncio.ensure_future(self.gone.wait())
            await asyncio.wait((line, gone), timeout=left, return_when=asyncio.FIRST_COMPLETED)
            gone.cancel()
            if not line.done():
                line.cancel()
                return None
            text = line.result()
            if self.late:
                self.late -= 1
                continue
            return text.rstrip("\r\n")
        return None

    async def play(self, seat_no: int, user: Any) -> None:
        dialogue = Dialogue()
        timeout = agents.limits().timeout_ms / 1000
        while not self.closed:
            self.changed.clear()
            look = await in_thread(agents.look)(self.village_id, seat_no)
            if look is None:  # the seat was removed (before the start)
                await self.refuse_with("removed", pause=False)
                return
            step = dialogue.next(look)
            if isinstance(step, Tell):
                await self.send_texts([encode(step.packet)])
                if step.packet["request"] == "FINISH":
                    await self.close(CLOSE_DONE)
                continue
            if isinstance(step, Ask):
                await self.send_texts([encode(step.packet)])
                text = await self.answer(timeout)
                if text is None:
                    self.late += 1
                    dialogue.timed_out(step)
                    continue
                command = dialogue.answered(step, text, look)
                if command is not None:
                    refused = await in_thread(_carry_out)(self.village_id, user, command, look)
                    if refused and not isinstance(command, Say):
                        dialogue.refused("vote" if isinstance(command, Vote) else command.ability)
                continue
            assert isinstance(step, Sleep)
            await self.wait(step.seconds)

    async def wait(self, seconds: float) -> None:
        """Until the seat's view changes, `seconds` pass, or the agent leaves."""
        waits = [asyncio.ensure_future(e.wait()) for e in (self.changed, self.gone)]
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()


def _carry_out(village_id: int, user: Any, command: Say | Vote | Act, asked: Look) -> str | None:
    """The agent's answer, taken in the scene it was asked in (`asked`) or not at all."""
    if isinstance(command, Say):
        return agents.say(village_id, user, command.text, asked)
    if isinstance(command, Vote):
        return agents.vote(village_id, user, command.target, asked)
    return agents.act(village_id, user, command.ability, command.target, asked)


async def agent_socket(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The ASGI application of `/ws/aiwolf/villages/<id>/`."""
    await AgentSocket(scope, send).run(receive)
