"""Option and status icons (24x24) for the top page and the player list."""

from __future__ import annotations

import math
from collections.abc import Callable

from .svg import document, el, line, num, outline


def _opt_realtime() -> list[str]:
    ticks = []
    for k in range(12):
        angle = math.pi * k / 6
        inner = 7.2 if k % 3 == 0 else 8.0
        ticks.append(
            f"M{num(12 + inner * math.sin(angle))} {num(12 - inner * math.cos(angle))}"
            f"L{num(12 + 8.6 * math.sin(angle))} {num(12 - 8.6 * math.cos(angle))}"
        )
    return [
        el("circle", cx=12, cy=12, r=10.5, fill="#ffffff", stroke="#355f9e", stroke_width=2),
        line("".join(ticks), "#7c8ea8", 1),
        el(
            "path",
            d="M12 12V6M12 12L16 14.5",
            stroke="#23344f",
            stroke_width=1.8,
            stroke_linecap="round",
            fill="none",
        ),
        el("circle", cx=12, cy=12, r=1.3, fill="#d2453b"),
    ]


def _opt_cupid() -> list[str]:
    heart = "M12 20C6.5 16.3 3.5 13 3.5 9.4C3.5 6.8 5.4 5 7.7 5C9.6 5 11.1 6.2 12 7.8"
    heart += "C12.9 6.2 14.4 5 16.3 5C18.6 5 20.5 6.8 20.5 9.4C20.5 13 17.5 16.3 12 20Z"
    return [
        el("path", d=heart, fill="#f26d91", stroke="#b53a5d", stroke_width=1.3),
        line("M2.5 21.5L20 4", "#6b4a2b", 1.6),
        el("polygon", points="21.8,2.2 16.3,3.6 20.4,7.7", fill="#6b4a2b"),
        # Fletching: two pairs of short feathers swept back from the shaft.
        line("M3.2 20.8L2.2 17.8M3.2 20.8L6.2 21.8M5 19L4 16M5 19L8 20", "#e0932e", 1.3),
    ]


def _opt_poison() -> list[str]:
    return [
        outline(
            "M12 2.5C14.5 7 19 11 19 15A7 7 0 0 1 5 15C5 11 9.5 7 12 2.5Z",
            "#8a3fb0",
            "#55206f",
            1.3,
        ),
        # A small skull-like mark: two eyes and a jaw line.
        el("circle", cx=9.8, cy=14.2, r=1.5, fill="#e6f7a6"),
        el("circle", cx=14.2, cy=14.2, r=1.5, fill="#e6f7a6"),
        line("M9.5 18.2H14.5", "#e6f7a6", 1.3),
        el("ellipse", cx=8.6, cy=10.6, rx=1.1, ry=1.8, fill="#ffffff", opacity="0.45"),
    ]


def _opt_decider() -> list[str]:
    # A judge's gavel: the head lies across the handle, a sound block below.
    return [
        el("rect", x=2.5, y=19, width=11, height=3, rx=1, fill="#8a5a32", stroke="#5a3618"),
        line("M9 9L20.5 20.5", "#8a5a32", 2.6),
        el(
            "rect",
            x=3.5,
            y=6,
            width=11,
            height=6,
            rx=1.2,
            fill="#b9844f",
            stroke="#5a3618",
            stroke_width=1.2,
            transform="rotate(-45 9 9)",
        ),
    ]


def _opt_authority() -> list[str]:
    return [
        outline("M3 8L7.5 12.5L12 5L16.5 12.5L21 8L19.2 18H4.8Z", "#f5c02f", "#a87710", 1.3),
        el("rect", x=4.8, y=18, width=14.4, height=2.8, rx=0.8, fill="#e0a81c", stroke="#a87710"),
        el("circle", cx=12, cy=14.3, r=1.6, fill="#d8334a"),
        el("circle", cx=3, cy=8, r=1.3, fill="#f5c02f", stroke="#a87710", stroke_width=0.8),
        el("circle", cx=12, cy=5, r=1.3, fill="#f5c02f", stroke="#a87710", stroke_width=0.8),
        el("circle", cx=21, cy=8, r=1.3, fill="#f5c02f", stroke="#a87710", stroke_width=0.8),
    ]


def _opt_hide_roles() -> list[str]:
    cloud = "M6.5 18.5A3.8 3.8 0 0 1 6 11A5.3 5.3 0 0 1 16.2 9.3A4 4 0 0 1 18.3 18.5Z"
    return [
        outline(cloud, "#ffffff", "#7e8ea3", 1.5),
        line("M4 4L20 20", "#d23a3a", 2.4),
    ]


def _opt_dummy_boy() -> list[str]:
    return [
        # Pole and cross-bar arms.
        line("M12 12V23", "#7a5230", 1.8),
        line("M3 13.5H21", "#7a5230", 1.8),
        # A patched shirt.
        outline("M8 12.5H16L15 19H9Z", "#5f8fc9", "#38608f", 1),
        el("rect", x=12.6, y=14.5, width=2, height=2, fill="#e5b85b"),
        # Sack head with a straw hat.
        el("circle", cx=12, cy=8.3, r=3.8, fill="#e9d3a4", stroke="#9f7c44", stroke_width=1),
        outline(
            "M6.5 6H17.5M9 6L10 2.5H14L15 6", "#e8c25a", "#a67c1d", 1.1, stroke_linecap="round"
        ),
        el("circle", cx=10.6, cy=8.6, r=0.7, fill="#3b2a2a"),
        el("circle", cx=13.4, cy=8.6, r=0.7, fill="#3b2a2a"),
        line("M10.8 10.4H13.2", "#3b2a2a", 0.7),
    ]


def _opt_alive() -> list[str]:
    heart = "M12 20.5C6.8 17 3.5 13.8 3.5 10C3.5 7.3 5.5 5.5 7.9 5.5C9.8 5.5 11.2 6.6 12 8.2"
    heart += "C12.8 6.6 14.2 5.5 16.1 5.5C18.5 5.5 20.5 7.3 20.5 10C20.5 13.8 17.2 17 12 20.5Z"
    return [
        el("path", d=heart, fill="#4cb86a", stroke="#2a7a40", stroke_width=1.3),
        el("ellipse", cx=8, cy=9.5, rx=1.6, ry=1, fill="#ffffff", opacity="0.5"),
    ]


def _opt_dead() -> list[str]:
    return [
        el("rect", x=3, y=19.5, width=18, height=2.5, rx=1, fill="#8a9a6a"),
        outline("M6 20.5V9A6 6 0 0 1 18 9V20.5Z", "#b5bcc6", "#5d6673", 1.3),
        line("M12 7V16.5M9 10H15", "#5d6673", 1.6),
    ]


def _opt_voted() -> list[str]:
    return [
        el("circle", cx=12, cy=12, r=10, fill="#e3f5e6", stroke="#2e9b4f", stroke_width=1.5),
        outline("M7 12.5L10.5 16L17.5 8.5", "none", "#2e9b4f", 2.6, stroke_linecap="round"),
    ]


def _opt_practice() -> list[str]:
    # A practice village (bot seats): a small robot's head with an antenna.
    return [
        line("M12 3.5V7", "#4f6a8a", 1.4),
        el("circle", cx=12, cy=3, r=1.4, fill="#f29a38"),
        el("rect", x=4.5, y=7, width=15, height=12, rx=3, fill="#cfe3f5", stroke="#4f6a8a"),
        el("circle", cx=9, cy=12, r=1.8, fill="#2d4661"),
        el("circle", cx=15, cy=12, r=1.8, fill="#2d4661"),
        line("M9 16H15", "#2d4661", 1.4),
        el("rect", x=2.5, y=11, width=2, height=4, rx=0.8, fill="#4f6a8a"),
        el("rect", x=19.5, y=11, width=2, height=4, rx=0.8, fill="#4f6a8a"),
    ]


def _opt_agents() -> list[str]:
    # Open to the AIWolf contest's agents: the letters "AI" on a badge.
    return [
        el("rect", x=2, y=4, width=20, height=16, rx=3, fill="#2f6f6a", stroke="#1b4643"),
        outline(
            "M4.8 17L8.5 7L12.2 17M6.1 13.6H10.9", "none", "#ffffff", 2, stroke_linecap="round"
        ),
        line("M16.5 7.5V16.5M14.3 7.5H18.7M14.3 16.5H18.7", "#ffffff", 2),
    ]


# name -> (Japanese title, drawing)
OPTION_ICONS: dict[str, tuple[str, Callable[[], list[str]]]] = {
    "realtime": ("リアルタイム制", _opt_realtime),
    "cupid": ("キューピッド", _opt_cupid),
    "poison": ("埋毒者", _opt_poison),
    "decider": ("決定者", _opt_decider),
    "authority": ("権力者", _opt_authority),
    "hide_roles_in_heaven": ("霊界で配役を公開しない", _opt_hide_roles),
    "dummy_boy": ("身代わり君", _opt_dummy_boy),
    "alive": ("生存", _opt_alive),
    "dead": ("死亡", _opt_dead),
    "voted": ("投票済み", _opt_voted),
    "practice": ("練習村（ボットあり）", _opt_practice),
    "agents": ("人狼知能エージェント受け入れ", _opt_agents),
}


def option_icon_svgs() -> dict[str, str]:
    """Village option icons and status marks (24x24), by name."""
    return {name: document(24, title, draw()) for name, (title, draw) in OPTION_ICONS.items()}
