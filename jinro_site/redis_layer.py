"""The production channel layer: channels-redis's pub/sub layer, used through the Channels
layer API only, with what the site needs beside it.

`RedisChannelLayer` passes the layer API (new_channel, send, receive, group_add,
group_discard, group_send, flush) to `channels_redis.pubsub.RedisPubSubChannelLayer`,
configured with the same CONFIG (`hosts`, `prefix`, ...), and adds:

* **a notice of lost pushes.** Redis pub/sub keeps nothing: whatever is published while a
  subscription is broken is gone, and nobody above redis-py learns of the hole. So each
  event loop that holds sockets runs a probe: every `PROBE_EVERY` seconds it sends a
  numbered tick through the layer to a group of its own, and reads the ticks back. A tick
  that could not be sent (Redis away) or that never came back (the subscription was cut
  and made again) means pushes may have been lost too: when ticks come back again, every
  socket of that loop gets `{"type": "layer.reconnected"}` on its channel and reads what
  it missed from the database (`villages.consumers`). redis-py may make a cut
  subscription again within milliseconds, between two ticks, which then all come back:
  so the probe also asks Redis (CLIENT LIST) for the id of the loop's subscribing
  connection, which it knows by name (each loop's channels-redis layer gets its own
  `client_name`, a redis-py connection option), and a new id is a hole too.
* **`listening_now(groups)`**: which groups some process has a member in now, so that a
  push computes frames only for viewers somebody watches. Each process says which groups
  it holds in Redis keys of the site's own (`<prefix>listen:<group>`, a sorted set of
  processes by the time their word lapses), renewed while it holds them.
* **`post_many(sends)`**: one commit's `group_send`s from synchronous code (request
  threads, tasks, the ticker), run in the calling thread on an event loop it keeps, the
  groups of one commit at once.

channels-redis logs each failed read of its receive loop with a traceback, once a second
while Redis is away, and so does everything else that uses it: the probe marks its two
warnings (lost, back) for `jinro_site.logfilters.QuietRedisOutage`, which keeps those
two, the second with a count of the records it left out.

Settings: `"BACKEND": "jinro_site.redis_layer.RedisChannelLayer"`, CONFIG as channels-redis's
pub/sub layer's; one Redis host.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import socket
import threading
import time
import uuid
import weakref
from typing import Any

import redis
from channels_redis.pubsub import RedisPubSubChannelLayer
from redis import asyncio as aioredis
from redis.exceptions import RedisError

from jinro_site.logfilters import OUTAGE_MARK
from jinro_site.runtime import run_on_process_loop

logger = logging.getLogger(__name__)

RECONNECTED = {"type": "layer.reconnected"}
PROBE = "layer.probe"
PROBE_EVERY = 0.5  # seconds between two ticks
LISTEN_FOR = 30.0  # seconds a process's word that it listens to a group lasts
RENEW_EVERY = 10.0  # seconds between two renewals of that word


class RedisChannelLayer:
    extensions = ["groups", "flush"]

    def __init__(self, hosts: list[Any] | None = None, prefix: str = "asgi", **config: Any):
        self.prefix = prefix
        self.config = config
        self.hosts = [as_options(host) for host in hosts or ["redis://localhost:6379"]]
        self.process = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        # Per event loop: a channels-redis layer whose connections carry a name of their
        # own (CLIENT SETNAME), by which the probe finds that loop's subscription.
        self.layers: weakref.WeakKeyDictionary[Any, RedisPubSubChannelLayer] = (
            weakref.WeakKeyDictionary()
        )
        self.names: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self.loop_numbers = itertools.count(1)
        # Per event loop: its sockets' channels, its probe, its members of each group.
        self.sockets: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self.probes: weakref.WeakKeyDictionary[Any, Probe] = weakref.WeakKeyDictionary()
        self.members: weakref.WeakKeyDictionary[Any, dict[str, set[str]]] = (
            weakref.WeakKeyDictionary()
        )
        self.clients: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        self.sync_client: Any = None
        self.thread_loops = threading.local()  # each publishing thread's event loop
        self.unsaid = False  # a word that this process listens was not written: say it again

    # -- the layer API, passed on --------------------------------------------------------

    @property
    def layer(self) -> RedisPubSubChannelLayer:
        """The running event loop's channels-redis layer."""
        loop = asyncio.get_running_loop()
        layer = self.layers.get(loop)
        if layer is None:
            name = self.names[loop] = f"jinro:{self.process}:{next(self.loop_numbers)}"
            hosts = [{**host, "client_name": name} for host in self.hosts]
            layer = RedisPubSubChannelLayer(hosts=hosts, prefix=self.prefix, **self.config)
            self.layers[loop] = layer
        return layer

    async def new_channel(self, prefix: str = "specific.") -> str:
        channel = await self.layer.new_channel(prefix)
        loop = asyncio.get_running_loop()
        self.sockets.setdefault(loop, set()).add(channel)
        if loop not in self.probes:
            self.probes[loop] = Probe(self, loop)
        return channel

    async def receive(self, channel: str) -> dict[str, Any]:
        try:
            return await self.layer.receive(channel)
        except (asyncio.CancelledError, GeneratorExit):  # the socket is gone
            self.sockets.get(asyncio.get_running_loop(), set()).discard(channel)
            raise

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        await self.layer.send(channel, message)

    async def group_add(self, group: str, channel: str) -> None:
        await self.layer.group_add(group, channel)
        members = self.members.setdefault(asyncio.get_running_loop(), {})
        first = group not in members
        members.setdefault(group, set()).add(channel)
        if first:
            await self._say_listening([group])

    async def group_discard(self, group: str, channel: str) -> None:
        await self.layer.group_discard(group, channel)
        members = self.members.get(asyncio.get_running_loop(), {})
        held = members.get(group)
        if held is not None:
            held.discard(channel)
            if not held:
                del members[group]
                await self._say_left(group)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await self.layer.group_send(group, message)

    async def flush(self) -> None:
        await self.layer.flush()  # the running loop's; another loop's is not ours to run
        for members in self.members.values():
            members.clear()

    # -- who listens --------------------------------------------------------------------

    def _key(self, group: str) -> str:
        return f"{self.prefix}listen:{group}"

    async def _say_listening(self, groups: list[str]) -> bool:
        """Write (or renew) this process's word that it listens to `groups`; False when it
        could not (the probe says it again at its next tick)."""
        if not groups:
            return True
        lapses = time.time() + LISTEN_FOR
        try:
            pipe = self.client().pipeline(transaction=False)
            for group in groups:
                pipe.zadd(self._key(group), {self.process: lapses})
                pipe.expire(self._key(group), int(LISTEN_FOR * 2))
            await pipe.execute()
        except (RedisError, OSError) as error:
            stop_if_cancelled(error)
            self.unsaid = True
            return False
        return True

    async def _say_left(self, group: str) -> None:
        with contextlib.suppress(RedisError, OSError):  # else its word lapses by itself
            await self.client().zrem(self._key(group), self.process)

    async def renew(self, loop: Any) -> bool:
        """Say again which groups this loop's sockets listen to (a Redis that restarted
        lost every word)."""
        return await self._say_listening(list(self.members.get(loop, {})))

    def listening_now(self, groups: list[str]) -> set[str]:
        """The groups some process listens to now (one round trip), from synchronous code;
        every group, when Redis cannot tell."""
        if not groups:
            return set()
        try:
            pipe = self._synchronous().pipeline(transaction=False)
            now = time.time()
            for group in groups:
                pipe.zcount(self._key(group), now, "+inf")
            counts = pipe.execute()
        except (RedisError, OSError):
            return set(groups)
        return {group for group, count in zip(groups, counts, strict=True) if count}

    # -- publishing from synchronous code ------------------------------------------------

    def post_many(self, sends: list[tuple[str, dict[str, Any]]]) -> bool:
        """`group_send` of each (group, message), from synchronous code, in this thread: on
        an event loop the thread keeps for it (channels-redis keeps its connections per
        loop), so that a commit's sends never wait for another thread's turn at the GIL.
        The caller's order holds: a village's commits push one after another (the gate
        holds its turn until the push is sent), and a commit's groups take one each."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            loop = getattr(self.thread_loops, "loop", None)
            if loop is None:
                loop = self.thread_loops.loop = asyncio.new_event_loop()
            loop.run_until_complete(self._send_commit(sends))
        else:  # called from a coroutine's thread: its loop is not ours to run
            run_on_process_loop(self._send_commit(sends))
        return True

    async def _send_commit(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        outcomes = await asyncio.gather(
            *(self.layer.group_send(group, message) for group, message in sends),
            return_exceptions=True,
        )
        failed = [o for o in outcomes if isinstance(o, BaseException)]
        if failed:
            raise failed[0]

    # -- clients of our own (the probe, the listening word) ------------------------------

    def client(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self.clients.get(loop)
        if client is None:
            client = self.clients[loop] = connect(aioredis.Redis, self.hosts[0])
        return client

    def _synchronous(self) -> Any:
        if self.sync_client is None:
            self.sync_client = connect(redis.Redis, self.hosts[0])
        return self.sync_client

    def tell_sockets(self, loop: Any) -> list[str]:
        return list(self.sockets.get(loop, ()))


class Probe:
    """The ticks of one event loop (see the module): a hole is a tick not sent, a jump in
    the ticks read back, or a new connection under the loop's subscription; when ticks
    come back after a hole, the loop's sockets are told."""

    def __init__(self, layer: RedisChannelLayer, loop: Any) -> None:
        self.layer = layer
        self.group = f"jinro.probe.{uuid.uuid4().hex}"
        self.numbers = itertools.count(1)
        self.read = 0  # the last tick read back
        self.hole = False
        self.connection: frozenset[int] | None = None  # the subscription's, once seen
        self.tasks = [loop.create_task(self.tick()), loop.create_task(self.listen())]

    async def tick(self) -> None:
        renewed = time.monotonic()
        while True:
            await asyncio.sleep(PROBE_EVERY)
            try:
                await self.layer.layer.group_send(
                    self.group, {"type": PROBE, "n": next(self.numbers)}
                )
                self.note_subscription(await self.subscription())
            except (RedisError, OSError) as error:
                stop_if_cancelled(error)
                if not self.hole:
                    logger.warning(
                        "channel layer: lost Redis (%s): %s",
                        where(self.layer.hosts),
                        error,
                        extra={OUTAGE_MARK: "lost"},
                    )
                self.hole = True
                continue
            if self.layer.unsaid or time.monotonic() - renewed >= RENEW_EVERY:
                self.layer.unsaid = False
                renewed = time.monotonic()
                await self.layer.renew(asyncio.get_running_loop())

    async def subscription(self) -> frozenset[int]:
        """The ids Redis gives this loop's subscribing connection (none while it is cut):
        redis-py makes a cut one again so fast that no tick may be lost, but not what
        was published in between."""
        listed = await self.layer.client().client_list(_type="pubsub")
        name = self.layer.names.get(asyncio.get_running_loop())
        return frozenset(int(client["id"]) for client in listed if client.get("name") == name)

    def note_subscription(self, ids: frozenset[int]) -> None:
        if not ids:
            self.hole = self.hole or self.connection is not None  # cut, not yet made again
        elif self.connection is None:
            self.connection = ids
        elif ids != self.connection:
            self.hole, self.connection = True, ids  # made again: what came between is lost

    async def listen(self) -> None:
        channel = await self.layer.layer.new_channel("probe.")
        await self.layer.layer.group_add(self.group, channel)
        while True:
            tick = await self.layer.layer.receive(channel)
            n = tick.get("n", 0)
            if n != self.read + 1 and self.read:
                self.hole = True  # ticks were lost between these two
            self.read = max(self.read, n)
            if self.hole:
                self.hole = False
                logger.warning(
                    "channel layer: Redis pushes may have been lost (%s): sockets catch up",
                    where(self.layer.hosts),
                    extra={OUTAGE_MARK: "back"},
                )
                # A Redis that restarted forgot who listens: say it before the sockets read
                # what they missed, so that the next pushes reach them.
                self.hole = not await self.layer.renew(asyncio.get_running_loop())
                with contextlib.suppress(RedisError, OSError):  # else the next tick asks
                    self.connection = (await self.subscription()) or self.connection
                await self.tell()

    async def tell(self) -> None:
        loop = asyncio.get_running_loop()
        for channel in self.layer.tell_sockets(loop):
            try:
                await self.layer.layer.send(channel, RECONNECTED)
            except (RedisError, OSError):
                self.hole = True  # lost again: the next tick read back tells them
                return


def stop_if_cancelled(error: BaseException) -> None:
    """A cancellation that reached redis-py while it read or connected comes out as a
    connection error: stop as the cancellation asked."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError from error


def as_options(host: Any) -> dict[str, Any]:
    """A host of the CONFIG (a URL, a (host, port) pair, or redis-py connection options)
    as connection options."""
    if isinstance(host, dict):
        return dict(host)
    if isinstance(host, (tuple, list)):
        return {"host": host[0], "port": host[1]}
    return {"address": host}


def connect(kind: Any, host: dict[str, Any]) -> Any:
    """A client of `kind` (redis-py's, synchronous or asyncio) for a host of the CONFIG."""
    options = dict(host)
    address = options.pop("address", None)
    return kind.from_url(address, **options) if address else kind(**options)


def where(hosts: list[dict[str, Any]]) -> str:
    address = str(hosts[0].get("address", hosts[0].get("host", "?"))) if hosts else "?"
    return address.rsplit("@", 1)[-1]  # never log a password
