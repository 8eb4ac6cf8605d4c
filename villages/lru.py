"""A small thread-safe LRU for what this process keeps of immutable things (snapshots of
villages, rendered parts and phases): each is keyed by everything it depends on, so an
entry is never stale, only old."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most `size` entries; or, with `weigh`, entries weighing at most `size` together
    (the newest is kept whatever it weighs)."""

    def __init__(self, size: int, weigh: Callable[[V], int] | None = None) -> None:
        self.size = size
        self.data: OrderedDict[K, V] = OrderedDict()
        self.lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.weigh = weigh
        self.weight = 0

    def get(self, key: K) -> V | None:
        with self.lock:
            value = self.data.get(key)
            if value is None:
                self.misses += 1
                return None
            self.data.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: K, value: V) -> None:
        with self.lock:
            if self.weigh is None:
                self.data[key] = value
                self.data.move_to_end(key)
                while len(self.data) > self.size:
                    self.data.popitem(last=False)
                return
            if key in self.data:
                self.weight -= self.weigh(self.data.pop(key))
            self.data[key] = value
            self.weight += self.weigh(value)
            while self.weight > self.size and len(self.data) > 1:
                self.weight -= self.weigh(self.data.popitem(last=False)[1])

    def clear(self) -> None:
        with self.lock:
            self.data.clear()
            self.weight = 0
