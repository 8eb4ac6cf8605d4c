"""What the site's Redis layer needs of channels-redis and redis-py, checked against a real
Redis (CI's services step): an upgrade that breaks it fails here, loudly.

* a group's pub/sub channel is named `prefix + "__group__" + group` (listening() counts
  subscribers of that name);
* redis-py subscribes a cut connection again by itself, under the process's client name,
  and the layer then tells each consumer `layer.reconnected`; what is sent after that
  arrives;
* one commit's pushes, published as one pipeline from a plain thread (`post_many`),
  reach each group's members in order, as channels-redis's own receivers read them.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from jinro_site.channel_layers import GROUP_CHANNEL, RECONNECTED, QuietRedisOutage

pytestmark = [pytest.mark.timeout(60)]


def redis_layer(channel_layer):
    if type(channel_layer).__name__ != "RedisPubSubChannelLayer":
        pytest.skip("needs services: the configured layer is not Redis's")
    return channel_layer


@pytest.mark.services
async def test_a_groups_pubsub_channel_has_the_name_listening_counts(channel_layer):
    layer = redis_layer(channel_layer)
    channel = await layer.new_channel()
    await layer.group_add("contract-group", channel)
    name = GROUP_CHANNEL.format(prefix=layer.prefix, group="contract-group")
    counts = dict(await layer._client().pubsub_numsub(name))
    assert counts.get(name.encode(), counts.get(name)) == 1, counts
    asked = ["contract-group", "nobody-here"]
    assert await asyncio.to_thread(layer.listening_now, asked) == {"contract-group"}
    await layer.group_send("contract-group", {"type": "hello"})
    assert await asyncio.wait_for(layer.receive(channel), 5) == {"type": "hello"}


@pytest.mark.services
async def test_a_pipeline_of_group_sends_arrives_whole_and_in_order(channel_layer):
    layer = redis_layer(channel_layer)
    first, second, third = [await layer.new_channel() for _ in range(3)]
    await layer.group_add("contract-many-a", first)
    await layer.group_add("contract-many-a", second)
    await layer.group_add("contract-many-b", third)
    shared = {"type": "shared", "text": "遠吠え", "seats": [1, 2, None]}
    sends = [("contract-many-a", {"type": "one", "n": 1})]
    sends += [("contract-many-a", shared), ("contract-many-b", shared)]
    sends += [("contract-many-b", {"type": "two", "n": n}) for n in range(30)]
    sends += [("contract-nobody", {"type": "lost"}), ("contract-many-a", {"type": "last"})]
    assert await asyncio.to_thread(layer.post_many, sends)
    assert await asyncio.to_thread(layer.post_many, [("contract-many-a", {"type": "z"})])

    async def all_of(channel: str, count: int) -> list[dict]:
        return [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(count)]

    a = [{"type": "one", "n": 1}, shared, {"type": "last"}, {"type": "z"}]
    assert await all_of(first, 4) == a
    assert await all_of(second, 4) == a
    assert await all_of(third, 31) == [shared] + [{"type": "two", "n": n} for n in range(30)]


@pytest.mark.services
async def test_a_cut_subscription_comes_back_and_every_consumer_is_told(channel_layer):
    layer = redis_layer(channel_layer)
    first, second = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("contract-cut", first)
    ids = set()
    for _ in range(50):  # the subscription connection, under this process's name
        ids = await layer.subscription_ids()
        if ids:
            break
        await asyncio.sleep(0.1)
    assert len(ids) == 1, ids
    (connection,) = ids
    await asyncio.sleep(1.5)  # the watcher has seen it
    await layer._client().client_kill_filter(_id=connection)
    told = await asyncio.gather(
        asyncio.wait_for(layer.receive(first), 15), asyncio.wait_for(layer.receive(second), 15)
    )
    assert told == [RECONNECTED, RECONNECTED]
    new = await layer.subscription_ids()
    assert new and not new & ids, "a new connection holds the subscriptions"
    await layer.group_send("contract-cut", {"type": "after"})
    assert await asyncio.wait_for(layer.receive(first), 5) == {"type": "after"}


def test_an_outage_is_one_warning_not_a_traceback_a_second():
    quiet = QuietRedisOutage()

    def record(error: BaseException) -> logging.LogRecord:
        try:
            raise error
        except BaseException:
            import sys

            return logging.LogRecord(
                "channels_redis.pubsub",
                logging.ERROR,
                __file__,
                1,
                "Unexpected",
                (),
                sys.exc_info(),
            )

    first = record(RedisConnectionError("refused"))
    assert quiet.filter(first) and first.levelno == logging.WARNING and first.exc_info is None
    assert "refused" in first.getMessage()
    assert not quiet.filter(record(RedisConnectionError("refused")))
    assert quiet.filter(record(ValueError("a real bug"))), "other errors pass as they are"
    # daphne stopping with sockets open cancels each channel's unsubscribe: no traceback
    assert not quiet.filter(record(asyncio.CancelledError()))


async def test_the_watcher_stops_when_cancelled_even_if_the_cancellation_came_out_as_an_error(
    monkeypatch,
):
    """A cancellation that reaches the watcher as a connection error (redis-py turning it
    into one while it read or connected) still stops it: it must not go on retrying every
    second, which is what hung CI's teardown of an event loop."""
    import jinro_site.channel_layers as layers

    layer = layers.RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:1/0"])  # never dialled
    asking = asyncio.Event()

    async def subscription_ids() -> set[str]:
        asking.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            raise RedisConnectionError("Connection closed by server.") from None
        return set()

    monkeypatch.setattr(layers, "WATCH_EVERY", 0.01)
    monkeypatch.setattr(layer, "subscription_ids", subscription_ids)
    watcher = asyncio.ensure_future(layer._watch(asyncio.get_running_loop()))
    await asyncio.wait_for(asking.wait(), 5)
    watcher.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(watcher, 2)
