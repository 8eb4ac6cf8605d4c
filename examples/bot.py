#!/usr/bin/env python3
"""A complete bot that plays one village through the public API and WebSocket.

    python examples/bot.py --base http://127.0.0.1:8000 --village 3 --name mybot

It signs up (or, if the name is taken, logs in with the same password; or takes --token),
sits in the village, votes to start, and then plays until the game is over: it follows
the WebSocket's `state` frames (and asks for the state itself when the socket is quiet
or lost), votes by day, and does its role's night action. Its choices are random but legal.
It needs only the standard library and `websockets` (pip install websockets); see
docs/bots.md for the API it uses.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

import websockets

ATTEMPTS = 8  # tries of one request before the bot gives up on it
NIGHT_ABILITY = {"wolf": "attack", "seer": "divine", "guard": "guard", "cupid": "cupid"}


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, retry_after: float = 1) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.retry_after = status, code, retry_after


class Api:
    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/") + "/api/v1/"
        self.token = ""

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One request; a busy site's 503 (or a 429) is waited out as its Retry-After says,
        and a lost answer retried, under one Idempotency-Key: the command runs once."""
        key = uuid.uuid4().hex
        for attempt in range(ATTEMPTS):
            try:
                return self._send(method, path, body, key)
            except ApiError as error:
                if error.status not in (429, 503) or attempt == ATTEMPTS - 1:
                    raise
                time.sleep(error.retry_after)
            except OSError:  # the connection broke or timed out: the answer is lost
                if attempt == ATTEMPTS - 1:
                    raise
                time.sleep(1)
        raise AssertionError("unreachable")

    def _send(self, method: str, path: str, body: dict[str, Any] | None, key: str) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if method == "POST":
            request.add_header("Idempotency-Key", key)
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as error:
            try:
                failure = json.loads(error.read().decode())["error"]
            except (ValueError, KeyError):
                failure = {"code": "http_error", "message": str(error)}
            raise ApiError(
                error.code,
                failure["code"],
                failure["message"],
                retry_after=float(error.headers.get("Retry-After") or 1),
            ) from None
        return json.loads(text) if text else None

    def sign_in(self, username: str, password: str) -> None:
        credentials = {"username": username, "password": password}
        try:
            self.token = self.call("POST", "auth/register", credentials)["token"]
        except ApiError as error:
            if error.status not in (400, 409):
                raise
            self.token = self.call("POST", "auth/token", credentials)["token"]


class Bot:
    def __init__(self, api: Api, village: int, name: str, rng: random.Random) -> None:
        self.api, self.village, self.name, self.rng = api, village, name, rng
        self.acted: set[tuple[int, str, int]] = set()  # (day, phase, round) done

    def sit(self) -> None:
        state = self.api.call("GET", f"villages/{self.village}/state")
        if state["me"] is None:
            icons = self.api.call("GET", "icons")["icons"]
            icon = self.rng.choice(icons)["id"]
            body = {"handle_name": self.name, "icon": icon}
            self.api.call("POST", f"villages/{self.village}/seats", body)
        try:
            self.api.call("POST", f"villages/{self.village}/start-vote")
        except ApiError as error:
            if error.code not in ("already_voted", "wrong_phase"):
                raise

    def play(self, state: dict[str, Any]) -> bool:
        """Act on one state; returns False once the game is over."""
        village, me = state["village"], state["me"]
        if village["status"] == "ended":
            return False
        if me is None or not me["alive"] or village["phase"] not in ("day", "night"):
            return True
        living = [s for s in state["seats"] if s["alive"]]
        others = [s["seat_no"] for s in living if s["seat_no"] != me["seat_no"]]
        rounds = [v["round"] for v in state["votes"] if v["day"] == village["day"]]
        turn = (village["day"], village["phase"], max(rounds, default=0))
        if turn in self.acted or not others:
            return True
        try:
            if village["phase"] == "day" and me["vote"] is None:
                target = self.rng.choice(others)
                self.api.call("POST", f"villages/{self.village}/vote", {"target": target})
            elif village["phase"] == "night" and not me["action_done"]:
                self.night_action(village["day"], me, living, others)
        except ApiError as error:
            if error.code in ("wrong_phase", "already_voted", "already_acted", "dead"):
                return True  # the village moved on meanwhile; the next state tells
            if error.code != "invalid_target":
                raise
            return True  # try again with the next state
        self.acted.add(turn)
        return True

    def night_action(self, day: int, me: dict, living: list[dict], others: list[int]) -> None:
        ability = NIGHT_ABILITY.get(me["role"] or "")
        if ability is None or (ability == "guard" and day < 2) or (ability == "cupid" and day != 1):
            return
        if ability == "attack":
            dummy = [s["seat_no"] for s in living if s.get("dummy")]
            pack = set(me["partners"])
            allowed = dummy if day == 1 and dummy else [n for n in others if n not in pack]
            targets = [self.rng.choice(allowed)]
        elif ability == "cupid":
            targets = [me["seat_no"], self.rng.choice(others)]
        else:
            targets = [self.rng.choice(others)]
        body = {"action": ability, "targets": targets}
        self.api.call("POST", f"villages/{self.village}/night-action", body)

    async def run(self) -> None:
        ws_base = self.api.base.replace("http", "ws", 1).removesuffix("api/v1/")
        url = f"{ws_base}ws/villages/{self.village}/?token={self.api.token}"
        while True:
            try:
                async with websockets.connect(url) as socket:
                    if not await self.follow(socket):
                        return
            except (OSError, websockets.ConnectionClosed):
                await asyncio.sleep(1)  # lost: come back, and read the state meanwhile
                if not self.play(self.api.call("GET", f"villages/{self.village}/state")):
                    return

    async def follow(self, socket: Any) -> bool:
        while True:
            try:
                raw = await asyncio.wait_for(socket.recv(), timeout=5)
            except TimeoutError:  # a quiet socket: ask for the state ourselves
                state = await asyncio.to_thread(
                    self.api.call, "GET", f"villages/{self.village}/state"
                )
            else:
                frame = json.loads(raw)
                if frame.get("type") != "state":
                    continue
                state = frame["state"]
            if not await asyncio.to_thread(self.play, state):
                return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--village", type=int, required=True)
    parser.add_argument("--name", required=True, help="the account's name and the handle name")
    parser.add_argument("--password", default="", help="default: made from the name")
    parser.add_argument("--token", default="", help="an API token (the profile page shows it)")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    api = Api(args.base)
    if args.token:
        api.token = args.token
    else:
        api.sign_in(args.name, args.password or f"{args.name}-Plays-Werewolf-7391")
    bot = Bot(api, args.village, args.name, random.Random(args.seed))
    bot.sit()
    asyncio.run(bot.run())
    state = api.call("GET", f"villages/{args.village}/state")
    print(f"{args.name}: the game is over, winner {state['winner']}", file=sys.stderr)


if __name__ == "__main__":
    main()
