"""Victory (SPEC §9), checked after every death event."""

from __future__ import annotations

from dataclasses import dataclass

from .roles import Role, SubRole, Team, Winner, team_of
from .state import GameState, Seat


def winner_of(state: GameState) -> Winner | None:
    """The winner if the game is over now, else None.

    Counts among the living: wolves (not madman or fanatic), foxes, and
    humans = living − wolves − foxes. The game ends when no wolf lives or
    humans ≤ wolves; then lovers, fox, village, wolves in that precedence.
    """
    living = state.living
    if not living:
        return Winner.DRAW
    wolves = sum(1 for x in living if x.role is Role.WOLF)
    foxes = sum(1 for x in living if x.role is Role.FOX)
    humans = len(living) - wolves - foxes
    if wolves and humans > wolves:
        return None
    if any(x.has(SubRole.LOVERS) for x in living):
        return Winner.LOVERS
    if foxes:
        return Winner.FOX
    if not wolves:
        return Winner.VILLAGE
    return Winner.WOLVES


@dataclass(frozen=True)
class SeatResult:
    seat_no: int
    team: Team
    won: bool
    survived: bool
    drawn: bool = False  # the village ended in a draw: nobody won, nobody lost

    @property
    def result(self) -> str:
        """The result as API.md's history says it: "win", "loss" or "draw"."""
        return "draw" if self.drawn else "win" if self.won else "loss"


def seat_result(state: GameState, seat: Seat) -> SeatResult | None:
    """A player's result is their team's; the dummy boy never wins. None before the end."""
    return result_of(state.winner, seat)


def result_of(winner: Winner | None, seat: Seat) -> SeatResult | None:
    """`seat_result` for a village that ended with `winner` (a history reads only that)."""
    if winner is None or seat.role is None:
        return None
    team = team_of(seat.role, seat.sub_roles)
    drawn = winner is Winner.DRAW
    won = not seat.dummy and not drawn and team.value == winner.value
    return SeatResult(seat.no, team, won, seat.alive, drawn)
