"""The site's channel layers: the Channels layer API as the specification says, and what
the site adds beside it (who listens, posting from threads, a notice of lost pushes).

The in-process layer's tests need nothing; the Redis layer's run against a real Redis
(CI's services step).
"""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest
import redis
from channels.exceptions import ChannelFull
from redis.exceptions import ConnectionError as RedisConnectionError

from jinro_site import logfilters, redis_layer
from jinro_site.logfilters import OUTAGE_MARK, QuietRedisOutage, RefusalsAreNotFaults
from jinro_site.memory_layer import RECONNECTED, ProcessChannelLayer

pytestmark = [pytest.mark.timeout(60)]


# --- The in-process layer ----------------------------------------------------------------


async def test_the_in_process_layer_keeps_the_layer_contract():
    layer = ProcessChannelLayer(capacity=2, expiry=60)
    one, two = await layer.new_channel(), await layer.new_channel()
    assert one != two and "!" in one
    await layer.send(one, {"type": "hello", "n": 1})
    assert await layer.receive(one) == {"type": "hello", "n": 1}
    await layer.send(one, {"type": "a"})
    await layer.send(one, {"type": "b"})
    with pytest.raises(ChannelFull):
        await layer.send(one, {"type": "c"})
    assert [await layer.receive(one) for _ in range(2)] == [{"type": "a"}, {"type": "b"}]
    await layer.group_add("g", one)
    await layer.group_add("g", two)
    await layer.group_send("g", {"type": "both"})
    assert await layer.receive(two) == {"type": "both"}
    await layer.group_discard("g", two)
    await layer.group_send("g", {"type": "only-one"})
    assert await layer.receive(one) == {"type": "both"}
    assert await layer.receive(one) == {"type": "only-one"}
    with pytest.raises(TypeError):
        await layer.group_add("not a valid name", one)
    await layer.flush()
    assert layer.listening_now(["g"]) == set()


async def test_an_expired_message_is_not_received():
    layer = ProcessChannelLayer(expiry=0.05)
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "old"})
    await asyncio.sleep(0.1)
    await layer.send(channel, {"type": "fresh"})
    assert await layer.receive(channel) == {"type": "fresh"}


async def test_a_channel_that_missed_a_group_message_is_told_to_catch_up():
    layer = ProcessChannelLayer(capacity=2)
    channel = await layer.new_channel()
    await layer.group_add("g", channel)
    for n in range(3):  # the third finds the queue full
        await layer.group_send("g", {"type": "push", "n": n})
    got = [await layer.receive(channel) for _ in range(3)]
    assert got == [{"type": "push", "n": 0}, {"type": "push", "n": 1}, RECONNECTED]
    await layer.group_send("g", {"type": "push", "n": 3})
    assert await layer.receive(channel) == {"type": "push", "n": 3}  # told once


async def test_a_message_posted_to_many_groups_is_copied_once_and_is_no_longer_the_senders():
    """A push sends one envelope to the groups of every viewer who sees a commit alike:
    each member gets it, in order, as it was when sent, and the copy is made once."""
    layer = ProcessChannelLayer()
    channels = {f"g{n}": await layer.new_channel() for n in range(5)}
    extra = await layer.new_channel()
    for group, channel in channels.items():
        await layer.group_add(group, channel)
    await layer.group_add("g0", extra)
    envelope = {"type": "push", "viewers": [[n, 100 + n] for n in range(5)]}
    first, second = {"type": "push", "n": 1}, {"type": "push", "n": 2}
    sends = [(g, envelope) for g in channels] + [("g0", first), ("nobody", first)]
    assert layer.post_many([*sends, ("g4", second)])
    envelope["viewers"].append([9, 9])  # the sender's dict: no receiver sees this
    got = [await layer.receive(c) for c in [*channels.values(), extra]]
    sent = {"type": "push", "viewers": [[n, 100 + n] for n in range(5)]}
    assert all(m == sent for m in got)
    assert len({id(m) for m in got}) == 1  # one copy for every receiver
    assert await layer.receive(channels["g0"]) == first
    assert await layer.receive(extra) == first
    assert await layer.receive(channels["g4"]) == second


async def test_pushes_posted_from_threads_arrive_in_the_order_they_were_posted():
    """A commit's push is posted to the consumers' loop without waiting for it (the gate
    holds a village's turn until then): pushes keep their order, and each is the copy
    made when it was posted."""
    layer = ProcessChannelLayer()
    assert not layer.post_many([("g", {"type": "push", "n": -1})])  # no loop listens yet
    channel = await layer.new_channel()
    await layer.group_add("g", channel)

    def post_from_a_thread() -> None:
        for n in range(50):
            message = {"type": "push", "n": n}
            assert layer.post_many([("g", message)])
            message["n"] = "changed after posting"

    await asyncio.to_thread(post_from_a_thread)
    got = [await layer.receive(channel) for _ in range(50)]
    assert [m["n"] for m in got] == list(range(50))


async def test_the_in_process_layer_says_which_groups_have_a_member():
    layer = ProcessChannelLayer()
    channel = await layer.new_channel()
    await layer.group_add("watched", channel)
    asked = ["watched", "unwatched"]
    assert await asyncio.to_thread(layer.listening_now, asked) == {"watched"}
    await layer.group_discard("watched", channel)
    assert layer.listening_now(asked) == set()


async def test_a_receiver_that_goes_away_leaves_no_queue_behind():
    layer = ProcessChannelLayer()
    channel = await layer.new_channel()
    receiving = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0)
    receiving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await receiving
    assert channel not in layer.queues


# --- The Redis layer ----------------------------------------------------------------------


def the_redis_layer(channel_layer):
    if not isinstance(channel_layer, redis_layer.RedisChannelLayer):
        pytest.skip("needs services: the configured layer is not Redis's")
    return channel_layer


@pytest.mark.services
async def test_the_redis_layer_says_which_groups_some_process_listens_to(channel_layer):
    layer = the_redis_layer(channel_layer)
    channel = await layer.new_channel()
    await layer.group_add("contract-listened", channel)
    asked = ["contract-listened", "contract-nobody-here"]
    assert await asyncio.to_thread(layer.listening_now, asked) == {"contract-listened"}
    await layer.group_send("contract-listened", {"type": "hello"})
    assert await asyncio.wait_for(layer.receive(channel), 5) == {"type": "hello"}
    await layer.group_discard("contract-listened", channel)
    assert await asyncio.to_thread(layer.listening_now, asked) == set()


@pytest.mark.services
async def test_commits_posted_from_threads_arrive_whole_and_in_order(channel_layer):
    layer = the_redis_layer(channel_layer)
    first, second, third = [await layer.new_channel() for _ in range(3)]
    await layer.group_add("contract-many-a", first)
    await layer.group_add("contract-many-a", second)
    await layer.group_add("contract-many-b", third)
    shared = {"type": "shared", "text": "遠吠え", "seats": [1, 2, None]}
    commits = [[("contract-many-a", {"type": "one", "n": 1})]]
    commits += [[("contract-many-a", shared), ("contract-many-b", shared)]]
    commits += [[("contract-many-b", {"type": "two", "n": n})] for n in range(30)]
    commits += [[("contract-nobody", {"type": "lost"}), ("contract-many-a", {"type": "last"})]]

    def post_all() -> None:
        for sends in commits:
            assert layer.post_many(sends)

    await asyncio.to_thread(post_all)

    async def all_of(channel: str, count: int) -> list[dict]:
        return [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(count)]

    a = [{"type": "one", "n": 1}, shared, {"type": "last"}]
    assert await all_of(first, 3) == a
    assert await all_of(second, 3) == a
    assert await all_of(third, 31) == [shared] + [{"type": "two", "n": n} for n in range(30)]


@pytest.mark.services
async def test_a_cut_subscription_comes_back_and_every_socket_is_told(channel_layer):
    from django.conf import settings

    layer = the_redis_layer(channel_layer)
    first, second = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("contract-cut", first)
    await asyncio.sleep(2 * redis_layer.PROBE_EVERY + 0.5)  # the probe reads its ticks
    address = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]["address"]
    killer = redis.Redis.from_url(address)
    try:
        assert await asyncio.to_thread(killer.client_kill_filter, _type="pubsub") >= 1
    finally:
        killer.close()
    told = await asyncio.gather(
        asyncio.wait_for(layer.receive(first), 15), asyncio.wait_for(layer.receive(second), 15)
    )
    assert told == [redis_layer.RECONNECTED, redis_layer.RECONNECTED]
    await layer.group_send("contract-cut", {"type": "after"})
    assert await asyncio.wait_for(layer.receive(first), 5) == {"type": "after"}


def test_a_subscription_made_again_between_two_ticks_is_a_hole():
    """redis-py may make a cut subscription again within milliseconds: no tick is lost,
    but what was published meanwhile is. The probe sees the connection's new id."""
    probe = object.__new__(redis_layer.Probe)  # its bookkeeping only, no tasks
    probe.hole, probe.connection = False, None
    probe.note_subscription(frozenset())  # not subscribed yet: nothing to say
    assert (probe.hole, probe.connection) == (False, None)
    probe.note_subscription(frozenset({5}))
    probe.note_subscription(frozenset({5}))
    assert not probe.hole
    probe.note_subscription(frozenset({9}))  # cut and made again since the last look
    assert probe.hole and probe.connection == {9}
    probe.hole = False  # told
    probe.note_subscription(frozenset())  # cut, not yet made again
    assert probe.hole and probe.connection == {9}


async def test_the_probe_stops_when_cancelled_even_if_the_cancellation_came_out_as_an_error():
    """A cancellation that reaches the probe as a connection error (redis-py turning it
    into one while it read or connected) still stops it: it must not go on retrying,
    which is what hung CI's teardown of an event loop."""
    layer = redis_layer.RedisChannelLayer(hosts=["redis://127.0.0.1:1/0"])  # never dialled
    sending = asyncio.Event()

    class Inner:
        async def group_send(self, group: str, message: dict) -> None:
            sending.set()
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                raise RedisConnectionError("Connection closed by server.") from None

        async def new_channel(self, prefix: str) -> str:
            return prefix + "x"

        async def group_add(self, group: str, channel: str) -> None:
            return None

        async def receive(self, channel: str) -> dict:
            await asyncio.sleep(30)
            return {}

    loop = asyncio.get_running_loop()
    layer.layers[loop] = Inner()
    probe = redis_layer.Probe(layer, loop)
    await asyncio.wait_for(sending.wait(), 5)
    for task in probe.tasks:
        task.cancel()
    for task in probe.tasks:
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2)


# --- What the log is spared ---------------------------------------------------------------


def record(
    error: BaseException | None, name: str = "channels_redis.pubsub", **extra
) -> logging.LogRecord:
    try:
        if error is not None:
            raise error
    except BaseException:
        info = sys.exc_info()
    else:
        info = None
    made = logging.LogRecord(name, logging.ERROR, __file__, 1, "Unexpected", (), info)
    made.__dict__.update(extra)
    return made


def test_an_outage_is_one_warning_not_a_traceback_a_second():
    quiet = QuietRedisOutage()
    first = record(RedisConnectionError("refused"))
    assert quiet.filter(first) and first.levelno == logging.WARNING and first.exc_info is None
    assert "refused" in first.getMessage()
    assert not quiet.filter(record(RedisConnectionError("refused")))
    assert quiet.filter(record(ValueError("a real bug"))), "other errors pass as they are"
    # daphne stopping with sockets open cancels each channel's unsubscribe: no traceback
    assert not quiet.filter(record(asyncio.CancelledError()))


def probe(mark: str) -> logging.LogRecord:
    """The channel layer probe's warning of a lost Redis, or of pushes flowing again."""
    made = record(None, "jinro_site.redis_layer", **{OUTAGE_MARK: mark})
    made.levelno, made.levelname, made.msg = logging.WARNING, "WARNING", f"probe: {mark}"
    return made


def said(message: str, *args: object) -> logging.LogRecord:
    """A socket's warning that gives the error in its message (no traceback)."""
    return logging.LogRecord(
        "villages.consumers.base", logging.WARNING, __file__, 1, message, args, None
    )


def wrapped(cause: BaseException) -> BaseException:
    try:
        try:
            raise cause
        except BaseException as inner:
            raise RuntimeError("the cache could not read the session") from inner
    except RuntimeError as outer:
        return outer


def test_a_redis_outage_is_one_warning_going_one_coming_back_with_a_count():
    """Issue 32 item 17: a 15-second outage wrote ~1,400 lines in daphne's log. Everything
    that used Redis logged its failure: channels-redis's loop, daphne for each socket that
    connected, the health check (and Django's line for its 503), the pushes of each commit,
    a request whose session the cache could not read. Through the console handler's one
    filter, the log keeps the probe's two warnings, the second counting what it left."""
    quiet = QuietRedisOutage()
    kept = [r for r in [probe("lost")] if quiet.filter(r)]
    during = [
        record(RedisConnectionError("Error 111"), "channels_redis.pubsub"),
        record(OSError("Connection reset"), "channels_redis.pubsub"),
        record(RedisConnectionError("Error 111"), "daphne.server"),
        said("village %s: channel layer unavailable: %s", 1, RedisConnectionError("111")),
        record(RedisConnectionError("Error 111"), "jinro_site.views"),
        record(None, "django.request", status_code=503),
        record(RedisConnectionError("Error 111"), "villages.services.push"),
        record(wrapped(RedisConnectionError("Error 111")), "django.request", status_code=500),
        probe("lost"),  # another loop's probe
    ] * 25
    kept += [r for r in during if quiet.filter(r)]
    assert [r.name for r in kept] == ["jinro_site.redis_layer"]
    back = probe("back")
    assert quiet.filter(back)
    assert f"{len(during)} log records about it were left out" in back.getMessage()
    assert not quiet.filter(probe("back")), "another loop's probe says it once more"
    # Once it is back, a fault is a fault again, and a 503 is written.
    assert quiet.filter(record(None, "django.request", status_code=503))
    assert quiet.filter(record(ValueError("a real bug"), "daphne.server"))


def test_an_outage_seen_first_by_an_error_is_that_error_as_one_line():
    """The first error may come before the probe's tick: it stands for the warning, as one
    line; the probe's own "lost" is then left out, and "back" counts it."""
    quiet = QuietRedisOutage()
    first = record(RedisConnectionError("Error 111"), "daphne.server")
    assert quiet.filter(first) and first.exc_info is None and first.levelno == logging.WARNING
    assert "Redis unreachable" in first.getMessage() and "Error 111" in first.getMessage()
    assert not quiet.filter(probe("lost"))
    back = probe("back")
    assert quiet.filter(back) and "1 log records about it were left out" in back.getMessage()


def test_without_a_probe_an_outage_ends_after_a_quiet_while(monkeypatch):
    """A process with no channel layer probe (a Celery worker) never hears "back": after
    QUIET_FOR seconds with no error about Redis, the next error is a new outage's warning,
    which says how many records the last one left out."""
    clock = [1000.0]
    monkeypatch.setattr(logfilters.time, "monotonic", lambda: clock[0])
    quiet = QuietRedisOutage()
    assert quiet.filter(record(RedisConnectionError("Error 111"), "celery.worker"))
    for _ in range(7):
        clock[0] += 1
        assert not quiet.filter(record(RedisConnectionError("Error 111"), "celery.worker"))
    clock[0] += QuietRedisOutage.QUIET_FOR
    again = record(RedisConnectionError("Error 111"), "celery.worker")
    assert quiet.filter(again) and "7 records of an earlier outage left out" in again.getMessage()


def test_the_settings_put_the_filter_on_the_console_handler(settings):
    """One filter on the handler sees every logger's records (a filter on one logger saw
    only channels-redis's)."""
    console = settings.LOGGING["handlers"]["console"]
    assert console["filters"] == ["quiet_redis_outage"]
    assert settings.LOGGING["filters"]["quiet_redis_outage"]["()"].endswith("QuietRedisOutage")


def test_a_refusal_for_load_is_logged_as_information_not_as_a_fault():
    refusals = RefusalsAreNotFaults()
    for status in (429, 503):
        refused = record(None, "django.request", status_code=status)
        assert refusals.filter(refused) and refused.levelno == logging.INFO
    fault = record(None, "django.request", status_code=500)
    assert refusals.filter(fault) and fault.levelno == logging.ERROR
