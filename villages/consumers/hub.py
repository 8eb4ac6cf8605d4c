"""A socket process's one ear on the channel layer: the hub of its event loop.

Every socket of a loop (the village sockets of both flavours, the AIWolf agents' door)
registers with the loop's hub instead of hearing the layer itself. The hub holds one
layer channel, in the groups of the villages its sockets watch (and `USERS_GROUP`), and
for each event:

* `village.changed`: it makes the village as committed now from the event when the event
  carries it (on the loop: most lines), or else reads it, once, in its thread; and works
  out what the change means to each distinct viewer among its sockets — once per viewer,
  and a screen delta once per set of viewers who see it alike (`villages.fanout`, from
  the engine's visibility function) — then hands each socket its share, in-process. A
  socket whose viewer may see nothing of the change gets nothing. A socket whose user
  sat, left or was kicked is told to read again as its new viewer.
* `agent.replaced`, `user.changed`: passed to the sockets they concern.

It follows each village by number (`villages.consumers.sequence`): a missed event is
caught up from the database, too big a gap makes the sockets read for themselves, and a
heartbeat (every `JINRO_LIVE_HEARTBEAT_MS`) asks the database for the versions of
quiet villages, so that an event lost anywhere is noticed within two heartbeats. The
heartbeat also sends the hub a ping through the layer: pings that stop coming back mean
the layer is away (said once in the log); when they come back, every village is read
again (a resync). Nothing introspects the layer's connections. Channels' in-memory layer
(the embedded default) is a queue in this process that cannot be away: it is not pinged.

The hub starts with its loop's first socket and stops with its last, leaving nothing
behind (its channel's receive is cancelled, which ends the channel).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings

from jinro_site import livebus
from jinro_site.logfilters import OUTAGE_MARK
from villages.consumers.following import (
    CommittedVersions,
    Listener,
    follow,
    follow_unread,
)
from villages.consumers.sequence import Sequence, Step
from villages.groups import (
    AGENT_REPLACED,
    USER_CHANGED,
    USERS_GROUP,
    VILLAGE_CATCH_UP,
    VILLAGE_CHANGED,
    VILLAGE_RELOAD,
    village_group,
)
from villages.snapshots import Loaded

logger = logging.getLogger(__name__)

PING = "hub.ping"
REGROUP_EVERY = 300  # heartbeats between renewals of the hub's group memberships


class LayerAway(Exception):
    """The hub could not join the layer (no connection, or a permission missing)."""


def in_thread(func: Any) -> Any:
    """`func` for awaiting in the process's one thread for such work (Channels'
    thread-sensitive executor): the hub's reads one after another, on one database
    connection, whatever the number of loops and villages (a pool of threads would keep a
    connection each). Nothing run there commits a village's change (`CommittedVersions`
    counts on it)."""
    return database_sync_to_async(func)


RETRY_SECONDS = 1.0  # after a read that failed (the database away): the same again


@dataclass
class Watched:
    """What the hub holds of one village."""

    village_id: int
    listeners: set[Listener] = field(default_factory=set)
    sequence: Sequence = field(default_factory=Sequence)
    known: Loaded | None = None
    events: list[dict[str, Any]] = field(default_factory=list)  # beyond `known`, unfollowed
    notes: list[dict[str, Any]] = field(default_factory=list)  # events whose cues are due
    reload: bool = False
    read: bool = False  # read the database even with no event to follow (a heartbeat's)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # the first read was made
    task: asyncio.Task[None] | None = None


class Hub:
    """See the module's docstring. One per event loop (`Hub.here()`)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.layer = get_channel_layer()
        self.channel = ""
        self.villages: dict[int, Watched] = {}
        self.users: dict[int, set[Listener]] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.started: asyncio.Future[None] | None = None
        self.pings = itertools.count(1)
        self.sent_ping = 0
        self.answered = 0
        self.away = False
        self.committed = CommittedVersions()

    # -- sockets come and go --------------------------------------------------------------

    @classmethod
    def here(cls) -> Hub:
        loop = asyncio.get_running_loop()
        hub = HUBS.get(loop)
        if hub is None:
            hub = HUBS[loop] = cls(loop)
        return hub

    async def watch(self, listener: Listener) -> None:
        """Hear `listener`'s village for it from now on (raises LayerAway)."""
        await self.start()
        village = self.villages.get(listener.village_id)
        if village is None:
            village = self.villages[listener.village_id] = Watched(listener.village_id)
            try:
                await self.layer.group_add(village_group(village.village_id), self.channel)
            except Exception as error:
                del self.villages[village.village_id]
                await self.stop_if_idle()
                raise LayerAway(livebus.what_failed(error)) from error
            village.task = self.loop.create_task(self.follow(village))
            village.wake.set()  # its first read
        village.listeners.add(listener)
        if listener.user_id is not None:
            self.users.setdefault(listener.user_id, set()).add(listener)
        # The socket reads the village itself next: after the hub's first read, so that
        # every change after that read reaches the socket from the hub.
        await village.ready.wait()

    async def unwatch(self, listener: Listener) -> None:
        village = self.villages.get(listener.village_id)
        if village is not None:
            village.listeners.discard(listener)
            if not village.listeners:
                del self.villages[village.village_id]
                if village.task is not None:
                    village.task.cancel()
                with contextlib.suppress(Exception):
                    await self.layer.group_discard(village_group(village.village_id), self.channel)
        if listener.user_id is not None:
            mine = self.users.get(listener.user_id, set())
            mine.discard(listener)
            if not mine:
                self.users.pop(listener.user_id, None)
        await self.stop_if_idle()

    async def start(self) -> None:
        if self.started is None:
            self.started = self.loop.create_future()
            try:
                self.channel = await self.layer.new_channel("hub.")
                await self.layer.group_add(USERS_GROUP, self.channel)
            except Exception as error:
                self.started.set_exception(LayerAway(livebus.what_failed(error)))
                self.started.exception()  # retrieved: every waiter raises it below
                self.started = None
                HUBS.pop(self.loop, None)
                raise LayerAway(livebus.what_failed(error)) from error
            self.tasks = [
                self.loop.create_task(self.receive()),
                self.loop.create_task(self.heartbeat()),
            ]
            livebus.serve_on(self.loop)
            self.started.set_result(None)
        await asyncio.shield(self.started)

    async def stop_if_idle(self) -> None:
        if self.villages or self.users or HUBS.get(self.loop) is not self:
            return
        HUBS.pop(self.loop, None)
        livebus.stop_serving(self.loop)
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.tasks = []
        if self.channel:
            with contextlib.suppress(Exception):
                await self.layer.group_discard(USERS_GROUP, self.channel)

    # -- the layer ------------------------------------------------------------------------

    async def receive(self) -> None:
        """Every message of the hub's channel (cancelling it ends the channel)."""
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the layer is away: the heartbeat says so
                logger.debug("hub: receive failed: %s", error)
                await asyncio.sleep(1)
                continue
            self.dispatch(message)

    def dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == VILLAGE_CHANGED:
            self.changed(message)
        elif kind == AGENT_REPLACED:
            for listener in self.listeners_of(message["village"]):
                if listener.flavour == "agent" and listener.viewer == message["seat_no"]:
                    listener.deliver(message)
        elif kind == USER_CHANGED:
            for listener in list(self.users.get(message["user"], ())):
                listener.deliver(message)
        elif kind == PING:
            self.answered = max(self.answered, message.get("n", 0))

    def listeners_of(self, village_id: int) -> list[Listener]:
        village = self.villages.get(village_id)
        return list(village.listeners) if village is not None else []

    def changed(self, event: dict[str, Any]) -> None:
        village = self.villages.get(event["village"])
        if village is None:
            return
        step = village.sequence.event(event["version"], event["since"])
        if step is not Step.DROP:
            village.events.append(event)
        if (event["cues"] or event.get("moderated")) and village.sequence.cues_due(
            event["version"]
        ):
            village.notes.append(event)
        if step is Step.RELOAD:
            village.reload = True
        if step is not Step.DROP or village.notes:
            village.wake.set()

    # -- following a village --------------------------------------------------------------

    async def follow(self, village: Watched) -> None:
        """The village's worker: each time it is woken, read the village once and hand
        its sockets what changed for them (several events at once when they came fast)."""
        while True:
            await village.wake.wait()
            village.wake.clear()
            events, village.events = village.events, []
            notes, village.notes = village.notes, []
            reload, village.reload = village.reload, False
            read, village.read = village.read, False
            targets = [(x, x.flavour, x.viewer, x.user_id) for x in village.listeners]
            try:
                # On this loop when the events carry the change; else in the thread, read.
                followed = None
                if not (reload or read):
                    followed = follow_unread(village.known, events, notes, targets)
                if followed is None:
                    followed = await in_thread(follow)(
                        village.village_id, village.known, events, notes, targets, reload or read
                    )
            except asyncio.CancelledError:
                raise
            except Exception:
                # Nothing is handed out (a reload for everyone would tell every viewer that
                # something happened): the same read again in a moment, events and all.
                logger.exception("village %s: the hub could not follow it", village.village_id)
                village.events[:0], village.notes[:0] = events, notes
                village.reload, village.read = village.reload or reload, True
                await asyncio.sleep(RETRY_SECONDS)
                village.wake.set()
                continue
            first = village.known is None
            if followed.now is not None:
                village.known = followed.now
                village.sequence.read(followed.now.village.version, whole=first or reload)
            for listener, message in followed.deliveries:
                listener.deliver(message)
            if not first:
                # Sockets that came during the read were not in it: they read what they lack.
                worked_for = {t[0] for t in targets}
                for listener in village.listeners - worked_for:
                    listener.deliver({"type": VILLAGE_CATCH_UP})
            village.ready.set()
            if first and village.sequence.behind():
                village.wake.set()  # an event came during the first read, for a later version

    # -- the heartbeat --------------------------------------------------------------------

    async def heartbeat(self) -> None:
        beats = itertools.count(1)
        while True:
            await asyncio.sleep(settings.JINRO_LIVE_HEARTBEAT_MS / 1000)
            if not isinstance(self.layer, InMemoryChannelLayer):
                await self.ping()
            if self.villages:
                try:
                    versions = await in_thread(self.committed)(list(self.villages))
                except asyncio.CancelledError:
                    raise
                except Exception:
                    logger.warning("hub: could not read the villages' versions", exc_info=True)
                    continue
                for village_id, village in list(self.villages.items()):
                    self.beat(village, versions.get(village_id))
            if next(beats) % REGROUP_EVERY == 0:
                await self.regroup()  # memberships that expire (the in-memory layer's)

    def beat(self, village: Watched, committed: int | None) -> None:
        if committed is None:  # the village was deleted: its sockets find it gone
            for listener in village.listeners:
                listener.deliver({"type": VILLAGE_RELOAD})
            return
        step = village.sequence.heartbeat(committed)
        if step is Step.RELOAD:
            village.reload = True
        if step in (Step.CATCH_UP, Step.RELOAD):
            village.read = True
            village.wake.set()

    async def ping(self) -> None:
        """One ping through the layer each heartbeat; the last one unanswered: away."""
        lost = self.sent_ping and self.answered < self.sent_ping
        if lost and not self.away:
            self.away = True
            logger.warning(
                "channel layer: the socket hub's pings no longer come back; open screens are"
                " kept current from the database until it is back",
                extra={OUTAGE_MARK: "lost"},
            )
        elif self.away and not lost:
            self.away = False
            logger.warning(
                "channel layer: back; every open screen catches up",
                extra={OUTAGE_MARK: "back"},
            )
            await self.regroup()
            for village in self.villages.values():
                if village.sequence.resync() is Step.CATCH_UP:
                    village.read = True
                    village.wake.set()
        self.sent_ping = next(self.pings)
        try:
            await self.layer.send(self.channel, {"type": PING, "n": self.sent_ping})
        except Exception as error:
            logger.debug("hub: ping failed: %s", error)

    async def regroup(self) -> None:
        for group in [USERS_GROUP, *map(village_group, self.villages)]:
            with contextlib.suppress(Exception):
                await self.layer.group_add(group, self.channel)

    def healthy(self) -> bool:
        return not self.away


HUBS: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub_healthy() -> bool:
    """False while a hub of this process hears nothing through the layer."""
    return all(hub.healthy() for hub in list(HUBS.values()))
