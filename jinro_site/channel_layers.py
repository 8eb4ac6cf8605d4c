"""channels-redis's pub/sub layer, made to say when it lost Redis and got it back.

Redis pub/sub keeps nothing: whatever is published while a subscriber is disconnected
is gone. redis-py reconnects the subscription by itself (and subscribes again to every
channel), but nobody above it learns that there was a hole. This layer

* tells every consumer of this process, once the subscription is back, with a
  `{"type": "layer.reconnected"}` message on its channel, so that it can read what it
  missed from the database (`villages.consumers.VillageConsumer.layer_reconnected`);
* logs a lost connection once, as a warning, instead of a traceback every second.

Settings: `"BACKEND": "jinro_site.channel_layers.RedisPubSubChannelLayer"`, with the
same CONFIG as channels-redis's (`hosts`, `prefix`, ...).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import time
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer as _InMemory
from channels_redis import pubsub
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

RECONNECTED = {"type": "layer.reconnected"}
CONSUMER_CHANNEL_MARK = "specific."  # channels' AsyncConsumer.new_channel() default prefix


class _WatchedPubSub(PubSub):
    """A PubSub that reports a reconnection once it has subscribed again."""

    def __init__(self, *args: Any, on_reconnect: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_reconnect = on_reconnect

    async def on_connect(self, connection: Any) -> None:
        # redis-py calls this when the connection is made again (not on the first
        # connection, which the pool makes before the callback is registered).
        restoring = self.subscribed
        await super().on_connect(connection)  # subscribes again to every channel
        if restoring:
            self._on_reconnect()


class _Shard(pubsub.RedisSingleShardConnection):
    def __init__(self, host: Any, channel_layer: Any) -> None:
        super().__init__(host, channel_layer)
        self._lost = False

    def _ensure_redis(self) -> None:
        if self._redis is None:
            super()._ensure_redis()
            self._pubsub = _WatchedPubSub(
                self._redis.connection_pool,
                event_dispatcher=self._redis._event_dispatcher,
                on_reconnect=self._reconnected,
            )

    def _reconnected(self) -> None:
        logger.warning("channel layer: Redis subscription restored (%s)", _where(self.host))
        self._lost = False
        self.channel_layer.notify_reconnected()

    async def _do_receiving(self) -> None:
        while True:
            try:
                if self._pubsub and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=0.1
                    )
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except (TimeoutError, asyncio.CancelledError, GeneratorExit):
                raise
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                if not self._lost:
                    logger.warning(
                        "channel layer: lost Redis (%s): %s; retrying", _where(self.host), error
                    )
                self._lost = True
                await asyncio.sleep(0.5)
            except Exception:
                logger.exception("channel layer: unexpected error in the receive task")
                await asyncio.sleep(1)


class _LoopLayer(pubsub.RedisPubSubLoopLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shards = [_Shard(shard.host, self) for shard in self._shards]

    def notify_reconnected(self) -> None:
        message = self.channel_layer.serialize(RECONNECTED)
        for name, queue in self.channels.items():
            if CONSUMER_CHANNEL_MARK in name:
                queue.put_nowait(message)


class RedisPubSubChannelLayer(pubsub.RedisPubSubChannelLayer):
    async def listening(self, groups: list[str]) -> set[str]:
        """The groups that some process subscribes to now (one NUMSUB per shard)."""
        layer = self._get_layer()
        by_shard: dict[Any, dict[str, str]] = {}
        for group in groups:
            channel = layer._get_group_channel_name(group)
            by_shard.setdefault(layer._get_shard(channel), {})[channel] = group
        found: set[str] = set()
        for shard, names in by_shard.items():
            async with shard._lock:
                shard._ensure_redis()
                counts = await shard._redis.pubsub_numsub(*names)
            for channel, count in counts:
                name = channel.decode() if isinstance(channel, bytes) else channel
                if count and name in names:
                    found.add(names[name])
        return found

    def _get_layer(self) -> Any:
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            pubsub._wrap_close(self, loop)
        return layer


def _where(host: dict[str, Any]) -> str:
    address = str(host.get("address", host.get("host", "?")))
    return address.rsplit("@", 1)[-1]  # never log a password


class InMemoryChannelLayer(_InMemory):
    """channels' in-memory layer (one process: the embedded site), made cheap per message.

    The original creates a queue object on every send and receive (`setdefault`'s default
    is built each time), walks every channel and group for expired entries on each of them,
    and starts a task per member of a group. Here a queue is made when a channel has none,
    expired entries are swept at most once a second, and a group's members are sent to in
    turn. It also says which groups have members, so that a push computes frames only for
    viewers somebody watches (`listening_now`).
    """

    SWEEP_EVERY = 1.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._swept = 0.0
        # Channels whose queue was full when a group message came: it missed that one.
        self._missed: set[str] = set()

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
        try:
            self._queue(channel).put_nowait((time.time() + self.expiry, copy.deepcopy(message)))
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

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        self._sweep()
        for channel in list(self.groups.get(group, ())):
            try:
                await self.send(channel, message)
            except ChannelFull:  # as channels does, a full one misses it; but it will know
                self._missed.add(channel)

    def listening_now(self, groups: list[str]) -> set[str]:
        return {group for group in groups if self.groups.get(group)}

    async def listening(self, groups: list[str]) -> set[str]:
        return self.listening_now(groups)
