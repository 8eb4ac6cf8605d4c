"""SPEC §9: victory, counted after every death event, as an outcome value."""

from __future__ import annotations

import pytest

from villages.engine.cast import Options
from villages.engine.outcome import seat_result, winner_of
from villages.engine.roles import Role, SubRole, Team, Winner
from villages.engine.state import GameState, Seat

ROLE = {
    "W": Role.WOLF,
    "V": Role.VILLAGER,
    "M": Role.MADMAN,
    "F": Role.FOX,
    "C": Role.CUPID,
    "N": Role.FANATIC,
    "S": Role.SEER,
}


def living(spec: str, dead: str = "") -> GameState:
    """'W V V L' : a wolf and villagers alive; a trailing '+' marks a lover."""
    seats = []
    for i, word in enumerate(spec.split() + dead.split()):
        subs = frozenset({SubRole.LOVERS}) if word.endswith("+") else frozenset()
        seats.append(
            Seat(
                no=i + 1,
                name=f"p{i + 1}",
                role=ROLE[word[0]],
                sub_roles=subs,
                alive=i < len(spec.split()),
            )
        )
    return GameState(capacity=8, options=Options(), seats=seats)


@pytest.mark.parametrize(
    ("alive", "winner"),
    [
        ("W V V", None),  # humans 2 > wolves 1
        ("W W V V V", None),
        ("W V", Winner.WOLVES),  # humans ≤ wolves
        ("W W V", Winner.WOLVES),
        ("W M", Winner.WOLVES),  # the madman counts as a human
        ("W N V", None),  # so does the fanatic
        ("W C V", None),  # and the cupid
        ("V V S", Winner.VILLAGE),  # all wolves dead
        ("M V", Winner.VILLAGE),  # the madman alone is not a wolf
        ("F V V", Winner.FOX),  # all wolves dead, a fox alive
        ("W F V", Winner.FOX),  # humans 1 ≤ wolves 1, a fox alive
        ("W F V V", None),  # foxes are not humans: 2 > 1
        ("V+ V+ F", Winner.LOVERS),  # lovers above the fox
        ("W+ V+", Winner.LOVERS),  # lovers across teams
        ("W W+ V", Winner.LOVERS),
        ("", Winner.DRAW),  # nobody alive
    ],
)
def test_victory_counts_and_precedence(alive: str, winner: Winner | None) -> None:
    """SPEC §9 counts among the living (wolves; foxes; humans = living − wolves − foxes); the
    game ends when all wolves are dead or humans ≤ wolves; then lovers → fox → village →
    wolves; nobody alive → draw."""
    assert winner_of(living(alive, "V")) is winner


def test_dead_lovers_do_not_win_the_lovers_team() -> None:
    """SPEC §9 'a lover alive → lovers'."""
    assert winner_of(living("V V", "V+ W+ W")) is Winner.VILLAGE


def _result(state: GameState, no: int) -> tuple[Team, bool, bool]:
    r = seat_result(state, state.seats[no - 1])
    assert r is not None
    return r.team, r.won, r.survived


def test_a_players_result_is_their_teams_and_lovers_override() -> None:
    """SPEC §9 a player's result is that of their team (the lovers' team overrides a lover's
    main role); the cupid wins with the lovers dead or alive."""
    s = living("W+ V+", "V C M")
    s.winner = winner_of(s)
    assert s.winner is Winner.LOVERS
    assert _result(s, 1) == (Team.LOVERS, True, True)
    assert _result(s, 2) == (Team.LOVERS, True, True)
    assert _result(s, 3) == (Team.VILLAGE, False, False)
    assert _result(s, 4) == (Team.LOVERS, True, False)  # the dead cupid
    assert _result(s, 5) == (Team.WOLVES, False, False)


def test_dead_members_of_the_winning_team_win() -> None:
    """SPEC §9 results are by team, dead or alive."""
    s = living("V V", "W S F")
    s.winner = winner_of(s)
    assert _result(s, 4) == (Team.VILLAGE, True, False)
    assert _result(s, 5) == (Team.FOX, False, False)


def test_a_draw_is_won_by_nobody_and_the_dummy_boy_never_wins() -> None:
    """SPEC §9 draw; SPEC §3 the dummy boy never wins."""
    s = living("", "W V")
    s.winner = winner_of(s)
    assert s.winner is Winner.DRAW
    assert not any(seat_result(s, x).won for x in s.seats)  # type: ignore[union-attr]
    s = living("V V", "V W")
    s.seats[0].dummy = True
    s.winner = winner_of(s)
    assert s.winner is Winner.VILLAGE and not seat_result(s, s.seats[0]).won  # type: ignore[union-attr]


def test_no_result_before_the_end() -> None:
    """SPEC §9 the outcome is a value set once, at the end."""
    s = living("W V V")
    assert seat_result(s, s.seats[0]) is None
