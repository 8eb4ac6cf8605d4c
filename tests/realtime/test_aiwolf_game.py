"""A whole game of AIWolf agents and our bots on a real site, the agents built on the
contest's own library (`aiwolf-nlp-common`'s `Client` and `Packet`: it parses every
packet the site sends). Five agents hold the protocol's roles (seer, medium, guard, a
wolf, the possessed); the dummy boy and five bots fill the village. Each agent's packets
are then held to what its seat may see (SPEC §8), night by night."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import pytest
from aiwolf_nlp_common.client import Client
from aiwolf_nlp_common.packet import Packet, Request, Role, Status

from villages.models import Seat, Village
from villages.services import bots, lifecycle

from ..conftest import restore_icons, serve_site
from .game import icon_id, make_user, token_of
from .processes import SHORT_RULES, rules_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(420)]

RULES = SHORT_RULES | {
    "JINRO_SUDDEN_DEATH_GRACE": 10,
    "JINRO_SILENCE_REAL_SECONDS": 5,
    "JINRO_BOT_DELAY": 1,
    "JINRO_AIWOLF_ROUND_SECONDS": 1,
    "JINRO_AIWOLF_TALKS_PER_DAY": 2,
    "JINRO_AIWOLF_WHISPERS_PER_NIGHT": 2,
    "JINRO_AIWOLF_TIMEOUT": 20,
}
# The agents' seats, in the order they sit (seats 2-6; the dummy boy is seat 1).
CAST = {
    "ai_seer": "seer",
    "ai_medium": "medium",
    "ai_guard": "guard",
    "ai_wolf": "wolf",
    "ai_possessed": "madman",
}
ASKS = {Request.TALK, Request.WHISPER, Request.VOTE, Request.DIVINE, Request.GUARD, Request.ATTACK}


@pytest.fixture(scope="module")
def agents_site(django_db_setup, tmp_path_factory):
    """A site of its own with the short rules, sweeping (bots, deadlines) itself."""
    env = rules_env(RULES) | {"JINRO_SERVE_STATIC": "1"}
    with serve_site("agents-site", tmp_path_factory.mktemp("agents"), env, ("--ticker",)) as site:
        yield site


@pytest.fixture(autouse=True)
def short_rules(settings):
    restore_icons()
    for name, value in RULES.items():
        setattr(settings, name, value)
    yield
    Village.objects.update(deadline_at=None)
    Seat.objects.update(bot_next_at=None)


@dataclass
class Agent:
    """A test agent that plays by a script, on the contest's library."""

    name: str
    url: str
    token: str
    spare: str = ""  # a name the script never votes for (the bot wolf: two wolves whisper)
    packets: list[Packet] = field(default_factory=list)
    error: BaseException | None = None
    said: int = 0

    def run(self) -> None:
        try:
            client = Client(self.url, self.token)
            client.connect()
            client.socket.settimeout(180)
            while True:
                packet = client.receive()
                self.packets.append(packet)
                answer = self.answer(packet)
                if answer is not None:
                    client.send(answer)
                if packet.request == Request.FINISH:
                    break
            client.close()
        except BaseException as error:
            self.error = error

    def me(self) -> str:
        return f"{self.name}(AI)"

    def answer(self, packet: Packet) -> str | None:
        if packet.request == Request.NAME:
            return self.name
        info = packet.info
        if packet.request in (Request.TALK, Request.WHISPER):
            self.said += 1
            if self.said % 3 == 0:
                return "Over"
            kind = "囁き" if packet.request == Request.WHISPER else "発言"
            return f"{kind}:{self.name}:{self.said}"
        if packet.request not in ASKS:
            return None
        assert info is not None
        living = sorted(n for n, s in info.status_map.items() if s == Status.ALIVE)
        pack = {n for n, r in info.role_map.items() if r == Role.WEREWOLF}
        bots_alive = [
            n for n in living if n.endswith("(ボット)") and n not in pack and n != self.spare
        ]
        if packet.request == Request.ATTACK and "身代わり君" in living:
            return "身代わり君"  # the first night's bite is the dummy boy's
        if packet.request == Request.GUARD:
            return "ai_medium(AI)" if "ai_medium(AI)" in living else bots_alive[0]
        # Everyone votes (divines, attacks) the first living bot: the day's execution
        # falls on a bot, so the medium has a reading the next morning.
        return bots_alive[0] if bots_alive else next(n for n in living if n != self.me())


def seat_bots(village_id: int, count: int) -> list:
    """Bots that sit without voting to start yet (bots.add_bots votes at once). They play
    the random strategy: the reasoning bots vote together, five against the agents' five,
    and a day of four ties ended in a draw before the medium had anything to read."""
    users = bots._pool()[:count]
    for n, user in enumerate(users):
        lifecycle.sit(
            village_id=village_id,
            user=user,
            handle_name=bots.NAMES[n],
            icon_id=icon_id(),
            bot="random",
        )
    return users


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {timeout} s")


def test_agents_and_bots_play_a_whole_game_each_agent_told_what_its_seat_may_know(agents_site):
    host = make_user(staff=True)
    owner = make_user()
    village = lifecycle.create_village(
        user=host, name="人狼知能の村", capacity=11, options={"agents": True, "dummy_boy": True}
    ).pk
    url = agents_site.url.replace("http://", "ws://") + f"/ws/aiwolf/villages/{village}/"
    agents = [Agent(name, url, token_of(owner)) for name in CAST]
    threads = []
    for agent in agents:  # one after the other: the seats follow CAST's order
        threads.append(threading.Thread(target=agent.run, daemon=True))
        threads[-1].start()
        n = len(threads)
        wait_for(
            lambda n=n: Seat.objects.filter(village_id=village).exclude(agent="").count() == n,
            30,
            "seated",
        )
    bot_users = seat_bots(village, 5)
    seat_of = dict(Seat.objects.filter(village_id=village).values_list("handle_name", "seat_no"))
    roles = {str(seat_of[f"{name}(AI)"]): role for name, role in CAST.items()}
    others = [no for no in seat_of.values() if str(no) not in roles and no != 1]
    roles |= {str(no): "villager" for no in others} | {str(others[0]): "wolf", "1": "villager"}
    bot_wolf = next(name for name, no in seat_of.items() if no == others[0])
    for agent in agents:
        agent.spare = bot_wolf
    lifecycle.fix_cast(village_id=village, user=host, roles=roles, sub_roles={})
    for user in bot_users:
        lifecycle.vote_start(village_id=village, user=user)

    for thread in threads:
        thread.join(360)
    for agent in agents:
        assert agent.error is None, f"{agent.name}: {agent.error!r}\n{agent_site_log(agents_site)}"
    ended = Village.objects.get(pk=village)
    assert ended.status == Village.Status.ENDED and ended.winner
    assert not Seat.objects.filter(village_id=village, death_cause="sudden").exists()

    by_name = {agent.name: agent for agent in agents}
    for agent in agents:
        asked = {p.request for p in agent.packets}
        assert {
            Request.NAME,
            Request.INITIALIZE,
            Request.DAILY_INITIALIZE,
            Request.TALK,
            Request.VOTE,
            Request.FINISH,
        } <= asked, agent.name
        assert agent.packets[-1].request == Request.FINISH
        finish = agent.packets[-1].info
        assert finish is not None and len(finish.role_map) == 11  # FINISH reveals every role
        held_to_its_seat(agent)
        silent_nights(agent)
    assert any(p.info and p.info.divine_result for p in by_name["ai_seer"].packets)
    assert any(p.info and p.info.medium_result for p in by_name["ai_medium"].packets)
    assert Request.GUARD in {p.request for p in by_name["ai_guard"].packets}
    wolf = {p.request for p in by_name["ai_wolf"].packets}
    assert {Request.WHISPER, Request.ATTACK} <= wolf


def held_to_its_seat(agent: Agent) -> None:
    """What the agent was sent while alive, before FINISH, is what its seat may see."""
    role = CAST[agent.name]
    for packet in agent.packets[1:-1]:
        info = packet.info
        assert info is not None and info.agent == agent.me()
        alive = info.status_map[agent.me()] == Status.ALIVE
        if not alive:
            assert packet.request not in ASKS, f"{agent.name} was asked {packet.request} dead"
            continue
        own = {
            agent.me(): {
                "seer": Role.SEER,
                "medium": Role.MEDIUM,
                "guard": Role.BODYGUARD,
                "wolf": Role.WEREWOLF,
                "madman": Role.POSSESSED,
            }[role]
        }
        known = dict(info.role_map)
        if role == "wolf":
            known = {n: r for n, r in known.items() if n == agent.me() or r != Role.WEREWOLF}
        assert known == own, f"{agent.name} was told roles {info.role_map}"
        whispers = [t.text for t in packet.whisper_history or []]
        if role != "wolf":
            assert not whispers, f"{agent.name} heard the wolves: {whispers}"
            assert not any(t.text.startswith("囁き") for t in packet.talk_history or []), agent.name
        if role != "seer":
            assert info.divine_result is None, agent.name
        elif info.divine_result is not None:
            assert info.divine_result.agent == agent.me()
        if role != "medium":
            assert info.medium_result is None, agent.name


def silent_nights(agent: Agent) -> None:
    """A seat with nothing to do at night is sent nothing until the morning (the guard
    guards from night 2): the night's packets go only to those they concern."""
    role = CAST[agent.name]
    requests = [p.request for p in agent.packets]
    for i, request in enumerate(requests[:-1]):
        night_without_duty = (request == Request.DAILY_FINISH and role in ("medium", "madman")) or (
            request == Request.INITIALIZE and role in ("medium", "madman", "guard")
        )
        if night_without_duty:
            assert requests[i + 1] in (Request.DAILY_INITIALIZE, Request.FINISH), (
                f"{agent.name} was sent {requests[i + 1]} at night"
            )


def agent_site_log(site) -> str:
    return site.log()[-3000:]
