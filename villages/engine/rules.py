"""The numbers of SPEC §12 that the rules use, passed in by the caller."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Rules:
    kick_votes: int = 3
    abandon_seconds: int = 1200
    cupid_min_players: int = 6
    poison_min_players: int = 20
    decider_min_players: int = 16
    authority_min_players: int = 16
    cupid_self_below: int = 18
    min_phase_seconds: int = 60
    day_virtual_seconds: int = 12 * 3600
    night_virtual_seconds: int = 6 * 3600
    speech_units_cap: int = 4
    day_seconds_per_unit: int = 450
    night_seconds_per_unit: int = 900
    silence_real_seconds: int = 60
    silence_day_penalty: int = 3600
    silence_night_penalty: int = 7200
    speech_max_chars: int = 2000
    speech_max_lines: int = 50
    max_revotes: int = 4
    sudden_death_grace: int = 180
    alert_every: int = 6
    alert_from: int = 90
    outage_seconds: int = 90
    objections_per_player: int = 5

    @classmethod
    def from_mapping(cls, values: dict[str, object]) -> Rules:
        """Build from `{"SUDDEN_DEATH_GRACE": 3, ...}`; unknown keys are ignored."""
        kwargs: dict[str, int] = {}
        for f in fields(cls):
            raw = values.get(f.name.upper())
            if raw is not None:
                kwargs[f.name] = int(str(raw))
        return cls(**kwargs)
