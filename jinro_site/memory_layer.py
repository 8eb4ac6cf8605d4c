"""The embedded site's channel layer: one process, in memory, written to the Channels
layer specification (https://channels.readthedocs.io/en/latest/channel_layer_spec.html).

It keeps the specification's contract — `new_channel`, `send` (ChannelFull past the
capacity), `receive`, messages expiring after `expiry` seconds, the `groups` extension
(`group_add`, `group_discard`, `group_send`, memberships expiring after `group_expiry`)
and `flush` — and adds what the site needs beside it:

* `post_many(sends)`: one commit's pushes (an envelope per audience, 20 or more), posted
  from any thread (a request's, the sweep ticker's) to the consumers' event loop without
  waiting for it; the loop delivers them in the order they were posted;
* `listening_now(groups)`: which groups have a member, so that a push computes frames only
  for viewers somebody watches;
* a receiver whose queue was full when a group message came missed it (the specification
  lets a layer drop it): once it has read what it holds, it is sent `{"type":
  "layer.reconnected"}`, on which a village socket reads what it missed from the database.

A message is copied once when it is sent (as a layer that serializes would), not once per
receiver: the members of a group share the copy, and must not change it.
"""

from __future__ import annotations

import asyncio
import copy
import re
import threading
import time
import uuid
from typing import Any

from channels.exceptions import ChannelFull

RECONNECTED = {"type": "layer.reconnected"}
_NAME = re.compile(r"^[a-zA-Z\d\-_.]+(![\d\w\-_.]*)?$")
_NAME_MAX = 100


def _valid(name: str, what: str) -> str:
    if not isinstance(name, str) or len(name) >= _NAME_MAX or not _NAME.match(name):
        raise TypeError(f"{what} name {name!r} is not valid (ASCII letters, digits, -_., < 100)")
    return name


class ProcessChannelLayer:
    """See the module's text. One event loop (daphne's) holds the receivers."""

    extensions = ["groups", "flush"]

    def __init__(
        self,
        expiry: float = 60,
        group_expiry: float = 86400,
        capacity: int = 100,
        **_unknown: Any,
    ) -> None:
        self.expiry, self.group_expiry, self.capacity = expiry, group_expiry, capacity
        self.queues: dict[str, asyncio.Queue[tuple[float, dict[str, Any]]]] = {}
        self.groups: dict[str, dict[str, float]] = {}  # group -> channel -> joined at
        self.missed: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.guard = threading.Lock()  # `groups` is read from other threads

    # -- the specification ---------------------------------------------------------------

    async def new_channel(self, prefix: str = "specific.") -> str:
        self.loop = asyncio.get_running_loop()
        name = f"{prefix}inmemory!{uuid.uuid4().hex}"
        self.queues[name] = asyncio.Queue()
        return name

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "a message is a dict"
        self._put(_valid(channel, "channel"), copy.deepcopy(message))

    async def receive(self, channel: str) -> dict[str, Any]:
        queue = self._queue(_valid(channel, "channel"))
        try:
            while True:
                expires, message = await queue.get()
                if expires >= time.monotonic():
                    break
        except asyncio.CancelledError:
            if queue.empty():  # its consumer is gone
                self.queues.pop(channel, None)
                self.missed.discard(channel)
            raise
        if channel in self.missed:  # told after what it holds, which it reads first
            self.missed.discard(channel)
            queue.put_nowait((time.monotonic() + self.expiry, dict(RECONNECTED)))
        return message

    async def group_add(self, group: str, channel: str) -> None:
        with self.guard:
            self.groups.setdefault(_valid(group, "group"), {})[_valid(channel, "channel")] = (
                time.monotonic()
            )

    async def group_discard(self, group: str, channel: str) -> None:
        with self.guard:
            members = self.groups.get(group)
            if members is not None:
                members.pop(channel, None)
                if not members:
                    del self.groups[group]

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        self._deliver(self._copied([(group, message)]))

    async def flush(self) -> None:
        with self.guard:
            self.groups.clear()
        self.queues.clear()
        self.missed.clear()

    async def close(self) -> None:
        """Nothing to close: the layer holds no connection."""

    # -- what the site adds ----------------------------------------------------------------

    def post_many(self, sends: list[tuple[str, dict[str, Any]]]) -> bool:
        """`group_send` of each (group, message), from any thread, without waiting: copied
        here, then delivered on the consumers' loop, in the order posted. False where no
        loop listens (nothing is sent)."""
        loop = self.loop
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

    def listening_now(self, groups: list[str]) -> set[str]:
        """The groups that have a member now."""
        with self.guard:
            return {group for group in groups if self.groups.get(group)}

    # -- inside ----------------------------------------------------------------------------

    def _queue(self, channel: str) -> asyncio.Queue[tuple[float, dict[str, Any]]]:
        queue = self.queues.get(channel)
        if queue is None:
            queue = self.queues[channel] = asyncio.Queue()
        return queue

    def _put(self, channel: str, message: dict[str, Any]) -> None:
        queue = self._queue(channel)
        if queue.qsize() >= self.capacity:
            raise ChannelFull(channel)
        queue.put_nowait((time.monotonic() + self.expiry, message))

    def _copied(self, sends: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
        """The sends, each message copied once however many groups it goes to."""
        copies: dict[int, dict[str, Any]] = {}  # by id(): `sends` keeps the originals alive
        out = []
        for group, message in sends:
            assert isinstance(message, dict), "a message is a dict"
            copied = copies.get(id(message))
            if copied is None:
                copied = copies[id(message)] = copy.deepcopy(message)
            out.append((_valid(group, "group"), copied))
        return out

    def _deliver(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        """Messages copied already, to every member of their groups (on the loop)."""
        oldest = time.monotonic() - self.group_expiry
        for group, message in sends:
            with self.guard:
                members = self.groups.get(group, {})
                expired = [channel for channel, joined in members.items() if joined < oldest]
                for channel in expired:
                    del members[channel]
                channels = list(members)
            for channel in channels:
                try:
                    self._put(channel, message)
                except ChannelFull:  # it misses this one, but will know (see the module)
                    self.missed.add(channel)
