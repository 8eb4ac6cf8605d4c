"""Lines the reference shows and the site now shows too, in its own words (issue 39, items
19 and 20): each kick vote, the kick that clears the start votes, and the dummy boy's
will; in Japanese and, worded again from their codes, in English."""

from __future__ import annotations

from villages.services import lifecycle, play

from .conftest import Game, waiting_village


def lower(game: Game, seat_no: int | None, language: str = "ja") -> str:
    client = game.client(seat_no)
    client.cookies["django_language"] = language
    return client.get(f"/villages/{game.id}/down/").content.decode()


def test_each_kick_vote_is_a_line_of_the_waiting_room_and_so_is_the_cleared_start(waiting):
    lifecycle.vote_start(village_id=waiting.id, user=waiting.user(2))
    for voter in (3, 4, 6):  # through the kick page, as a player votes
        waiting.client(voter).post(f"/villages/{waiting.id}/kick/", {"target": "5"})
    page = lower(waiting, None)  # a spectator sees it: the lines are public
    for voter in (3, 4, 6):
        assert f"村人{voter}号さんは村人5号さんを村から追い出す票を入れました。" in page
    assert "村人5号さんは村から追い出されました。" in page
    assert "ゲーム開始への投票はすべて取り消されました" in page
    english = lower(waiting, 2, "en")
    assert "村人3号 voted to kick 村人5号 out of the village." in english
    assert "every vote to start was cleared" in english


def test_the_dummy_boy_eaten_on_night_one_leaves_a_will_shown_as_wills_are(db):
    game = waiting_village(n=7, capacity=8, dummy_boy=True)  # seat 1 is the dummy boy
    roles = ["villager", "wolf", "wolf", "seer"] + ["villager"] * 4
    lifecycle.fix_cast(
        village_id=game.id,
        user=game.staff,
        roles={str(no): role for no, role in enumerate(roles, start=1)},
        sub_roles={},
    )
    for user in game.users:
        lifecycle.vote_start(village_id=game.id, user=user)
    # users[i] holds seat i + 2 (seat 1 is the dummy boy's)
    wolf, seer = game.users[0], game.users[2]
    play.night_action(village_id=game.id, user=wolf, action="attack", targets=[1])
    play.night_action(village_id=game.id, user=seer, action="divine", targets=[2])
    page = lower(game, None)
    assert "身代わり君の遺言" in page
    assert "身代わりの役目はここまで。みんな、あとは頼んだよ……" in page
    english = lower(game, None, "en")
    assert "My part as the stand-in ends here." in english
