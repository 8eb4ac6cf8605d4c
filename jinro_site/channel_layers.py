"""The site's channel layers: channels-redis's pub/sub layer in production, channels'
in-memory one in the embedded site, each with what the site needs beside the channel API.

The Redis layer wraps channels-redis's `RedisPubSubChannelLayer` and uses only its public
channel-layer API (new_channel, send, receive, group_add, group_discard, group_send,
flush) and its documented CONFIG. It adds two things that layer lacks:

* **a reconnection notice.** Redis pub/sub keeps nothing: whatever is published while a
  subscription is broken is gone. redis-py reconnects and subscribes again by itself, but
  nobody above it learns of the hole (channels-redis documents `on_disconnect` /
  `on_reconnect` options, which its 4.x no longer calls: django/channels_redis#406). Each
  process names its connections (`client_name`), and a watcher asks Redis every second,
  with its own connection, which of them hold subscriptions (`CLIENT LIST TYPE pubsub`):
  when that connection is a new one (Redis restarted, or the link was cut and made again),
  every consumer of the process gets `{"type": "layer.reconnected"}` on its channel and
  reads what it missed from the database (`VillageConsumer.layer_reconnected`).
* **`listening_now(groups)`**: which groups some process subscribes to now (`PUBSUB
  NUMSUB`), so that a push renders frames only for viewers somebody watches. A group's
  pub/sub channel is named as channels-redis names it (`prefix + "__group__" + group`);
  tests/realtime/test_layer_contract.py fails loudly if an upgrade changes that, or stops
  restoring subscriptions.
* **`post_many(sends)`**: one commit's pushes (an envelope per audience, 20 or more) as one
  pipeline of PUBLISHes: one write and one read, where `group_send` makes a round trip per
  group. Each message is serialized by the layer's own `serialize`, once however many
  groups it goes to.

Both are for the synchronous code that commits (request threads, tasks) and answer there,
on a synchronous connection pool of their own: no hop to an event loop and back.

channels-redis logs each failed read of its receive loop with a traceback, once a second
while Redis is away; `QuietRedisOutage` (a logging filter, in settings.LOGGING) turns that
into one warning per outage, and drops the traceback it logs for each open socket when
daphne stops.

Settings: `"BACKEND": "jinro_site.channel_layers.RedisPubSubChannelLayer"`, with the same
CONFIG as channels-redis's pub/sub layer (`hosts`, `prefix`, ...); one Redis host.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os
import socket
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import redis
from channels.exceptions import ChannelFull
from channels.layers import BaseChannelLayer
from channels.layers import InMemoryChannelLayer as _InMemory
from channels_redis.pubsub import RedisPubSubChannelLayer as _RedisPubSub
from redis import asyncio as aioredis
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

RECONNECTED = {"type": "layer.reconnected"}
WATCH_EVERY = 1.0  # seconds between two looks at this process's subscription
GROUP_CHANNEL = "{prefix}__group__{group}"  # channels-redis's name of a group's channel


def process_client_name() -> str:
    """The name this process's Redis connections carry (CLIENT SETNAME)."""
    return f"jinro:{socket.gethostname()}:{os.getpid()}"


class RedisPubSubChannelLayer(BaseChannelLayer):
    extensions = ["groups", "flush"]
    # Its connections are per event loop: synchronous callers use the process's own loop
    # (jinro_site.runtime.on_layer_loop), which keeps them.
    keeps_connections_per_loop = True

    def __init__(self, hosts: list[Any] | None = None, prefix: str = "asgi", **kwargs: Any):
        super().__init__(expiry=kwargs.pop("expiry", 60), capacity=kwargs.pop("capacity", 100))
        self.prefix = prefix
        self.hosts = [dict(h) if isinstance(h, dict) else {"address": h} for h in hosts or []]
        self.client_name = process_client_name()
        for host in self.hosts:
            host.setdefault("client_name", self.client_name)
        self.layer = _RedisPubSub(hosts=self.hosts, prefix=prefix, **kwargs)
        # Per event loop: the consumers' channels, the watcher, a connection of our own.
        self._consumers: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._watchers: weakref.WeakKeyDictionary[Any, asyncio.Task] = weakref.WeakKeyDictionary()
        self._clients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        # For synchronous callers: a client (thread-safe, a pool), and the publishing turn.
        self._sync_client: Any = None
        self._publishing = threading.Lock()

    # --- The channel layer API, passed on -------------------------------------------------

    async def new_channel(self, prefix: str = "specific.") -> str:
        channel = await self.layer.new_channel(prefix)
        loop = asyncio.get_running_loop()
        self._consumers.setdefault(loop, set()).add(channel)
        if loop not in self._watchers:
            self._watchers[loop] = loop.create_task(self._watch(loop))
        return channel

    async def receive(self, channel: str) -> dict[str, Any]:
        try:
            return await self.layer.receive(channel)
        except (asyncio.CancelledError, GeneratorExit):  # the consumer is gone
            self._consumers.get(asyncio.get_running_loop(), set()).discard(channel)
            raise

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        await self.layer.send(channel, message)

    async def group_add(self, group: str, channel: str) -> None:
        await self.layer.group_add(group, channel)

    async def group_discard(self, group: str, channel: str) -> None:
        await self.layer.group_discard(group, channel)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await self.layer.group_send(group, message)

    async def flush(self) -> None:
        await self.layer.flush()

    # --- What the site adds ---------------------------------------------------------------

    def post_many(self, sends: list[tuple[str, dict[str, Any]]]) -> bool:
        """`group_send` of each (group, message), in order, in one round trip to Redis,
        from synchronous code. Calls of this process publish one after another, in the order
        they come, so that one push never overtakes the one before it."""
        if len(self.hosts) != 1:  # sharded: a group's shard is channels-redis's business
            return False
        serialized: dict[int, bytes] = {}  # by id(): `sends` keeps the messages alive
        pipe = self._synchronous().pipeline(transaction=False)
        for group, message in sends:
            data = serialized.get(id(message))
            if data is None:
                data = serialized[id(message)] = self.layer.serialize(message)
            pipe.publish(GROUP_CHANNEL.format(prefix=self.prefix, group=group), data)
        with self._publishing:
            pipe.execute()
        return True

    def listening_now(self, groups: list[str]) -> set[str]:
        """The groups that some process subscribes to now (one NUMSUB), from synchronous
        code."""
        if not groups:
            return set()
        if len(self.hosts) != 1:
            return set(groups)  # sharded: say everybody listens (more work, nothing lost)
        names = {GROUP_CHANNEL.format(prefix=self.prefix, group=g): g for g in groups}
        counts = self._synchronous().pubsub_numsub(*names)
        found = set()
        for channel, count in counts:
            name = channel.decode() if isinstance(channel, bytes) else channel
            if count and name in names:
                found.add(names[name])
        return found

    def _synchronous(self) -> Any:
        if self._sync_client is None:
            self._sync_client = _connect(redis.Redis, self.hosts[0], f"{self.client_name}:push")
        return self._sync_client

    def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = _connect(
                aioredis.Redis, self.hosts[0], f"{self.client_name}:watch"
            )
        return client

    async def subscription_ids(self) -> set[str]:
        """The ids of this process's Redis connections that hold subscriptions."""
        listed = await self._client().client_list(_type="pubsub")
        return {
            str(c["id"])
            for c in listed
            if c.get("name") == self.client_name
            and int(c.get("sub", 0) or 0) + int(c.get("psub", 0) or 0) > 0
        }

    async def _watch(self, loop: Any) -> None:
        """Tell this loop's consumers when their subscription is a new connection."""
        known: set[str] = set()
        lost = False
        while True:
            await asyncio.sleep(WATCH_EVERY)
            try:
                ids = await self.subscription_ids()
            except (RedisError, OSError) as error:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    # Cancelled while redis-py read or connected, and the cancellation came
                    # out as a connection error: stop as the cancellation asked.
                    raise asyncio.CancelledError from error
                if not lost:
                    logger.warning("channel layer: lost Redis (%s): %s", _where(self.hosts), error)
                lost = True
                continue
            if not ids:
                continue  # no subscription (yet, or again): nothing to compare
            if known and ids - known:  # a connection subscribed anew: there was a hole
                logger.warning(
                    "channel layer: Redis subscription restored (%s)", _where(self.hosts)
                )
                await self._tell_consumers(loop)
            elif lost:
                logger.warning("channel layer: Redis reachable again (%s)", _where(self.hosts))
            lost = False
            known = ids

    async def _tell_consumers(self, loop: Any) -> None:
        for channel in list(self._consumers.get(loop, ())):
            try:
                await self.layer.send(channel, RECONNECTED)
            except (RedisError, OSError):
                return  # lost again: the next restoration tells them


class QuietRedisOutage(logging.Filter):
    """channels-redis's receive loop logs a traceback each second while Redis is away:
    keep the first of an outage, as one line, and drop the rest until Redis answers.

    It also logs a traceback for every socket open when daphne stops: each socket's
    channel is unsubscribed as its task is cancelled, and daphne's shutdown cancels that
    cleanup too ("Unexpected exception while cleaning-up channel", a CancelledError).
    Nothing is wrong then (the subscriptions end with the process's connection), so
    those are dropped."""

    QUIET_FOR = 60.0

    def __init__(self) -> None:
        super().__init__()
        self._last = 0.0

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, asyncio.CancelledError):
            return False
        if not isinstance(error, RedisError | OSError):
            return True
        now = time.monotonic()
        if now - self._last < self.QUIET_FOR:
            self._last = now
            return False
        self._last = now
        record.msg = f"channel layer: Redis unreachable: {type(error).__name__}: {error}"
        record.args = ()
        record.exc_info = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _connect(kind: Any, host: dict[str, Any], name: str) -> Any:
    """A client of `kind` (redis-py's, synchronous or asyncio) for a host of the layer's
    CONFIG, its connections named `name`."""
    options = dict(host)
    options["client_name"] = name
    address = options.pop("address", None)
    return kind.from_url(address, **options) if address else kind(**options)


def _where(hosts: list[dict[str, Any]]) -> str:
    address = str(hosts[0].get("address", hosts[0].get("host", "?"))) if hosts else "?"
    return address.rsplit("@", 1)[-1]  # never log a password


class InMemoryChannelLayer(_InMemory):
    """channels' in-memory layer (one process: the embedded site), made cheap per message.

    The original creates a queue object on every send and receive (`setdefault`'s default
    is built each time), walks every channel and group for expired entries on each of them,
    and starts a task per member of a group. Here a queue is made when a channel has none,
    expired entries are swept at most once a second, and a group's members are sent to in
    turn. It also says which groups have members, so that a push computes frames only for
    viewers somebody watches (`listening_now`).

    A message is copied once when it is sent, not once per receiving channel: its
    receivers share the copy and only read it (as a message read from Redis is the
    receiver's own, one sent here is no longer the sender's). One commit's push sends one
    envelope to every socket of the viewers who see it alike (`group_send_many`, one copy
    for all of them); a copy per socket was a third of a line's cost with 21 screens. A
    push from a request's thread is posted to the consumers' loop without waiting for it
    (`post_many`): the thread does not wait for a loop that is busy with the sockets.
    """

    SWEEP_EVERY = 1.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._swept = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        # Channels whose queue was full when a group message came: it missed that one.
        self._missed: set[str] = set()
        self._at_once: dict[str, Callable[[dict[str, Any]], bool]] = {}

    def _sweep(self) -> None:
        now = time.monotonic()
        if now - self._swept >= self.SWEEP_EVERY:
            self._swept = now
            self._clean_expired()

    def _queue(self, channel: str) -> asyncio.Queue:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        return queue

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        self._sweep()
        self._put(channel, copy.deepcopy(message))

    def _put(self, channel: str, message: dict[str, Any]) -> None:
        try:
            self._queue(channel).put_nowait((time.time() + self.expiry, message))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def receive(self, channel: str) -> dict[str, Any]:
        self.require_valid_channel_name(channel)
        self._sweep()
        queue = self._queue(channel)
        try:
            _expires, message = await queue.get()
        except asyncio.CancelledError:
            if queue.empty():  # the consumer is gone
                self._missed.discard(channel)
                self.channels.pop(channel, None)
            raise
        if channel in self._missed:
            # It lost a push while full: once it has read what it holds, it is told to
            # catch up from the database, as after a lost Redis.
            self._missed.discard(channel)
            queue.put_nowait((time.time() + self.expiry, dict(RECONNECTED)))
        return message

    async def group_add(self, group: str, channel: str) -> None:
        self._loop = asyncio.get_running_loop()  # the loop of the consumers that listen
        await super().group_add(group, channel)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self._deliver(self._copied([(group, message)]))

    async def group_send_many(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        """`group_send` of each (group, message) in order; a message that goes to several
        groups is copied once for all of them."""
        self._deliver(self._copied(sends))

    def post_many(self, sends: list[tuple[str, dict[str, Any]]]) -> bool:
        """`group_send_many` from any thread, without waiting for it: copied here, then
        queued on the loop of the consumers, which runs such calls first in, first out, so
        that pushes keep the order in which they were posted. False where no loop listens
        (nothing is sent)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return False
        copied = self._copied(sends)
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is loop:
            self._deliver(copied)
            return True
        try:
            loop.call_soon_threadsafe(self._deliver, copied)
        except RuntimeError:  # the loop closed meanwhile
            return False
        return True

    def _copied(self, sends: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
        """The sends, each message copied once however many groups it goes to."""
        copies: dict[int, dict[str, Any]] = {}  # by id(): `sends` keeps the originals alive
        out = []
        for group, message in sends:
            assert isinstance(message, dict), "message is not a dict"
            self.require_valid_group_name(group)
            copied = copies.get(id(message))
            if copied is None:
                copied = copies[id(message)] = copy.deepcopy(message)
            out.append((group, copied))
        return out

    def take_at_once(self, channel: str, handler: Callable[[dict[str, Any]], bool]) -> None:
        """Hand the channel's group messages to `handler` as they are delivered, when
        nothing waits in its queue: one pass over a village's screens writes a pushed line
        to each, instead of a queue and a turn of the event loop for every socket. The
        handler says False for a message it leaves to the channel's reader (queued then,
        as usual): it must not hold on to the messages it takes, which others share."""
        self._at_once[channel] = handler

    def let_go(self, channel: str) -> None:
        self._at_once.pop(channel, None)

    def _deliver(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        """Messages copied already, to every member of their groups (on the loop)."""
        self._sweep()
        for group, message in sends:
            for channel in list(self.groups.get(group, ())):
                handler = self._at_once.get(channel)
                if handler is not None and channel not in self._missed:
                    queue = self.channels.get(channel)
                    if (queue is None or queue.empty()) and self._taken(handler, message):
                        continue
                try:
                    self._put(channel, message)
                except ChannelFull:  # as channels does, a full one misses it; but it will know
                    self._missed.add(channel)

    @staticmethod
    def _taken(handler: Callable[[dict[str, Any]], bool], message: dict[str, Any]) -> bool:
        try:
            return handler(message)
        except Exception:  # its reader meets it again, and closes the socket if it must
            logger.exception("a channel's handler of pushes failed")
            return False

    def listening_now(self, groups: list[str]) -> set[str]:
        return {group for group in groups if self.groups.get(group)}
