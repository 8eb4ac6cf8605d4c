"""The default player icons (64x64): a shape in a colour, with a face."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .svg import coords, darken, document, el, is_dark, num

# ---------------------------------------------------------------------------
# Icon shapes.  Each shape gives its parts (tag, attributes) in a 64x64 box and
# where a face sits on it (centre x, centre y, scale).

Part = tuple[str, dict[str, object]]


@dataclass(frozen=True)
class Shape:
    parts: list[Part]
    face_at: tuple[float, float, float]
    # Parts drawn over the body with their own colours (flower heart, cat ears).
    extras: list[str] | None = None


def _regular_polygon(sides: int, radius: float, rotation: float) -> list[tuple[float, float]]:
    """A regular polygon centred in the 64x64 box by its bounding box."""
    raw = [
        (
            radius * math.cos(rotation + 2 * math.pi * k / sides),
            radius * math.sin(rotation + 2 * math.pi * k / sides),
        )
        for k in range(sides)
    ]
    xs = [x for x, _ in raw]
    ys = [y for _, y in raw]
    dx = 32 - (min(xs) + max(xs)) / 2
    dy = 32 - (min(ys) + max(ys)) / 2
    return [(x + dx, y + dy) for x, y in raw]


def _polygon_shape(
    sides: int, radius: float, rotation: float, face: tuple[float, float, float]
) -> Shape:
    points = _regular_polygon(sides, radius, rotation)
    return Shape([("polygon", {"points": coords(points)})], face)


def _star() -> Shape:
    outer, inner = 30.0, 15.5
    raw = []
    for k in range(10):
        radius = outer if k % 2 == 0 else inner
        angle = -math.pi / 2 + math.pi * k / 5
        raw.append((radius * math.cos(angle), radius * math.sin(angle)))
    ys = [y for _, y in raw]
    dy = 32 - (min(ys) + max(ys)) / 2
    points = [(32 + x, y + dy) for x, y in raw]
    return Shape([("polygon", {"points": coords(points)})], (32, dy + 2.5, 0.62))


def _moon() -> Shape:
    """A crescent: a disc minus an offset disc, drawn as two arcs."""
    c1, r1 = (32.0, 32.0), 27.0
    c2, r2 = (46.0, 25.0), 21.0
    dx, dy = c2[0] - c1[0], c2[1] - c1[1]
    d = math.hypot(dx, dy)
    ux, uy = dx / d, dy / d
    a = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
    h = math.sqrt(r1 * r1 - a * a)
    bx, by = c1[0] + a * ux, c1[1] + a * uy
    p1 = (bx - h * uy, by + h * ux)
    p2 = (bx + h * uy, by - h * ux)
    path = (
        f"M{num(p1[0])} {num(p1[1])} A{num(r1)} {num(r1)} 0 1 1 {num(p2[0])} {num(p2[1])}"
        f" A{num(r2)} {num(r2)} 0 1 0 {num(p1[0])} {num(p1[1])}Z"
    )
    # The face goes in the middle of the thickest part of the crescent.
    mid = (r1 + (r2 - d)) / 2
    return Shape([("path", {"d": path})], (c1[0] - ux * mid + 1, c1[1] - uy * mid, 0.66))


def _heart() -> Shape:
    path = (
        "M32 57C15 45 5 35 5 22C5 13 12 7 20 7C26 7 30 10.5 32 15"
        "C34 10.5 38 7 44 7C52 7 59 13 59 22C59 35 49 45 32 57Z"
    )
    return Shape([("path", {"d": path})], (32, 29, 0.85))


def _drop() -> Shape:
    path = "M32 4C38 15 52 27 52 40A20 20 0 0 1 12 40C12 27 26 15 32 4Z"
    return Shape([("path", {"d": path})], (32, 40, 0.85))


def _shield() -> Shape:
    path = "M32 5L55 12V30C55 45 45 54 32 60C19 54 9 45 9 30V12Z"
    return Shape([("path", {"d": path})], (32, 31, 0.9))


def _ghost() -> Shape:
    path = "M10 31A22 22 0 0 1 54 31V56Q48.5 49 43 56Q37.5 49 32 56Q26.5 49 21 56Q15.5 49 10 56Z"
    return Shape([("path", {"d": path})], (32, 32, 0.9))


def _cloud() -> Shape:
    parts: list[Part] = [
        ("rect", {"x": 7, "y": 35, "width": 50, "height": 16, "rx": 8}),
        ("circle", {"cx": 20, "cy": 35, "r": 12}),
        ("circle", {"cx": 35, "cy": 28, "r": 15}),
        ("circle", {"cx": 48, "cy": 38, "r": 10}),
    ]
    return Shape(parts, (33, 38, 0.8))


def _flower() -> Shape:
    parts: list[Part] = []
    for k in range(6):
        angle = -math.pi / 2 + math.pi * k / 3
        parts.append(
            (
                "circle",
                {
                    "cx": 32 + 18 * math.cos(angle),
                    "cy": 32 + 18 * math.sin(angle),
                    "r": 11.5,
                },
            )
        )
    centre = el("circle", cx=32, cy=32, r=13, fill="#fff4c2", stroke="#c9a53a", stroke_width=2)
    return Shape(parts, (32, 32, 0.58), [centre])


def _cat() -> Shape:
    parts: list[Part] = [
        ("polygon", {"points": "9,26 12,5 29,16"}),
        ("polygon", {"points": "55,26 52,5 35,16"}),
        ("ellipse", {"cx": 32, "cy": 36, "rx": 25, "ry": 22}),
    ]
    return Shape(parts, (32, 37, 0.9))


def _square() -> Shape:
    return Shape([("rect", {"x": 7, "y": 7, "width": 50, "height": 50, "rx": 11})], (32, 32, 1.0))


def _circle() -> Shape:
    return Shape([("circle", {"cx": 32, "cy": 32, "r": 27})], (32, 32, 1.0))


def _diamond() -> Shape:
    return Shape(
        [("polygon", {"points": "32,3 60,32 32,61 4,32"})],
        (32, 32, 0.8),
    )


def _triangle() -> Shape:
    return Shape([("polygon", {"points": "32,5 60,56 4,56"})], (32, 40, 0.75))


SHAPES: dict[str, Callable[[], Shape]] = {
    "circle": _circle,
    "square": _square,
    "diamond": _diamond,
    "triangle": _triangle,
    "hexagon": lambda: _polygon_shape(6, 30, 0, (32, 32, 1.0)),
    "pentagon": lambda: _polygon_shape(5, 30, -math.pi / 2, (32, 34, 0.9)),
    "octagon": lambda: _polygon_shape(8, 30, math.pi / 8, (32, 32, 1.0)),
    "star": _star,
    "heart": _heart,
    "moon": _moon,
    "drop": _drop,
    "shield": _shield,
    "ghost": _ghost,
    "cloud": _cloud,
    "flower": _flower,
    "cat": _cat,
}


# ---------------------------------------------------------------------------
# Faces


def _curve(*points: tuple[float, float]) -> str:
    """A path through quadratic Bézier segments: start, then (control, end) pairs."""
    (x0, y0), rest = points[0], points[1:]
    d = f"M{num(x0)} {num(y0)}"
    for (cx, cy), (ex, ey) in zip(rest[0::2], rest[1::2], strict=True):
        d += f"Q{num(cx)} {num(cy)} {num(ex)} {num(ey)}"
    return d


def _eye(kind: str, x: float, y: float, s: float, ink: str) -> str:
    if kind == "dot":
        return el("circle", cx=x, cy=y, r=2.8 * s, fill=ink)
    if kind == "happy":  # closed, curving up: ^
        d = _curve((x - 3 * s, y + 1.2 * s), (x, y - 3 * s), (x + 3 * s, y + 1.2 * s))
    elif kind == "sleepy":  # closed, curving down
        d = _curve((x - 3 * s, y - 0.8 * s), (x, y + 2.6 * s), (x + 3 * s, y - 0.8 * s))
    else:
        raise ValueError(f"unknown eye kind {kind!r}")
    return el("path", d=d, fill="none", stroke=ink, stroke_width=num(2.2 * s))


def _mouth(kind: str, x: float, y: float, s: float, ink: str) -> str:
    stroke = {"fill": "none", "stroke": ink, "stroke_width": num(2.2 * s)}
    if kind == "smile":
        d = _curve((x - 6 * s, y + 4 * s), (x, y + 10 * s), (x + 6 * s, y + 4 * s))
        return el("path", d=d, **stroke)
    if kind == "grin":
        d = (
            f"M{num(x - 6.5 * s)} {num(y + 3.5 * s)}H{num(x + 6.5 * s)}"
            f"Q{num(x + 6 * s)} {num(y + 11 * s)} {num(x)} {num(y + 11 * s)}"
            f"Q{num(x - 6 * s)} {num(y + 11 * s)} {num(x - 6.5 * s)} {num(y + 3.5 * s)}Z"
        )
        return el("path", d=d, fill=ink, stroke=ink, stroke_width=num(1.2 * s))
    if kind == "o":
        return el("ellipse", cx=x, cy=y + 6.5 * s, rx=2.8 * s, ry=3.4 * s, fill=ink)
    if kind == "flat":
        d = f"M{num(x - 4 * s)} {num(y + 6 * s)}H{num(x + 4 * s)}"
        return el("path", d=d, **stroke)
    if kind == "cat":  # the ω mouth
        d = _curve(
            (x - 6 * s, y + 4 * s),
            (x - 3 * s, y + 9 * s),
            (x, y + 4.5 * s),
            (x + 3 * s, y + 9 * s),
            (x + 6 * s, y + 4 * s),
        )
        return el("path", d=d, **stroke)
    raise ValueError(f"unknown mouth kind {kind!r}")


def _face(face: str, at: tuple[float, float, float], fill: str) -> list[str]:
    """Draw a face described as "eyes-mouth[-blush]", e.g. "dot-smile-blush"."""
    x, y, s = at
    eyes, mouth, *rest = face.split("-")
    ink = "#fffaf0" if is_dark(fill) else "#3b2a2a"
    out = []
    if rest == ["blush"]:
        for side in (-1, 1):
            out.append(
                el(
                    "ellipse",
                    cx=x + side * 10.5 * s,
                    cy=y + 4 * s,
                    rx=3.4 * s,
                    ry=2.2 * s,
                    fill="#ff6f8e",
                    opacity="0.45",
                )
            )
    left, right = (eyes, eyes) if eyes != "wink" else ("dot", "happy")
    out.append(_eye(left, x - 7 * s, y - 3 * s, s, ink))
    out.append(_eye(right, x + 7 * s, y - 3 * s, s, ink))
    out.append(_mouth(mouth, x, y, s, ink))
    return out


def _icon(name: str, shape_name: str, fill: str, face: str) -> str:
    shape = SHAPES[shape_name]()
    edge = darken(fill)
    body: list[str] = []
    if len(shape.parts) == 1:
        tag, attrs = shape.parts[0]
        body.append(el(tag, **attrs, fill=fill, stroke=edge, stroke_width="2.5"))
    else:
        # Composite shapes: a thick outline layer under a flat fill layer, so
        # overlapping parts read as one silhouette with a single outer edge.
        outline = "".join(el(tag, **attrs) for tag, attrs in shape.parts)
        fills = "".join(el(tag, **attrs) for tag, attrs in shape.parts)
        body.append(f'<g fill="{edge}" stroke="{edge}" stroke-width="5">{outline}</g>')
        body.append(f'<g fill="{fill}">{fills}</g>')
    if shape_name == "cat":
        inner = darken(fill, 0.85) if not is_dark(fill) else "#f4a6b8"
        body.append(el("polygon", points="14,21 15.5,11 24,17", fill=inner))
        body.append(el("polygon", points="50,21 48.5,11 40,17", fill=inner))
    body.extend(shape.extras or [])
    # A soft highlight keeps flat colours from looking dull on a pale page.
    hx, hy, hs = shape.face_at
    if shape_name not in {"flower", "moon", "star"}:
        body.append(
            el(
                "ellipse",
                cx=hx - 12 * hs,
                cy=hy - 14 * hs,
                rx=6 * hs,
                ry=3.5 * hs,
                fill="#ffffff",
                opacity="0.35",
                transform=f"rotate(-30 {num(hx - 12 * hs)} {num(hy - 14 * hs)})",
            )
        )
    face_fill = "#fff4c2" if shape_name == "flower" else fill
    body.extend(_face(face, shape.face_at, face_fill))
    return document(64, name, ['<g stroke-linejoin="round" stroke-linecap="round">', *body, "</g>"])


def _(text: str) -> str:
    """Mark a name for translation without importing Django: English pages show the icons'
    names from the catalogue (`villages.wording.site_name`)."""
    return text


# (slug, Japanese name, shape, fill colour, face)
ICONS: list[tuple[str, str, str, str, str]] = [
    ("red-circle", _("赤い丸"), "circle", "#e8574f", "dot-smile"),
    ("blue-star", _("青い星"), "star", "#4f86dc", "dot-smile"),
    ("green-triangle", _("緑の三角"), "triangle", "#46ad63", "happy-smile"),
    ("yellow-moon", _("黄色い月"), "moon", "#f4c936", "sleepy-smile"),
    ("purple-hexagon", _("紫の六角形"), "hexagon", "#9160c9", "dot-flat"),
    ("pink-heart", _("桃色のハート"), "heart", "#f47fae", "happy-smile-blush"),
    ("orange-square", _("橙色の四角"), "square", "#f58c3a", "dot-grin"),
    ("sky-diamond", _("水色のひし形"), "diamond", "#4cc3e3", "dot-o"),
    ("brown-pentagon", _("茶色の五角形"), "pentagon", "#a5714a", "wink-smile"),
    ("navy-octagon", _("紺色の八角形"), "octagon", "#34498f", "dot-smile"),
    ("aqua-drop", _("空色のしずく"), "drop", "#6cb8f0", "dot-smile-blush"),
    ("white-cloud", _("白い雲"), "cloud", "#f7f5f0", "sleepy-flat"),
    ("coral-flower", _("珊瑚色の花"), "flower", "#f58a78", "happy-grin"),
    ("teal-shield", _("青緑の盾"), "shield", "#27a398", "dot-flat"),
    ("lilac-ghost", _("藤色のおばけ"), "ghost", "#b9a3e3", "dot-o"),
    ("black-cat", _("黒い猫"), "cat", "#3d3a45", "dot-cat"),
    ("lime-circle", _("黄緑の丸"), "circle", "#a4cf3f", "wink-grin"),
    ("gold-star", _("金色の星"), "star", "#f2b01e", "happy-grin"),
    ("gray-square", _("灰色の四角"), "square", "#98a2ae", "sleepy-smile"),
    ("vermilion-triangle", _("朱色の三角"), "triangle", "#ec5b2f", "dot-o"),
    ("crimson-heart", _("紅色のハート"), "heart", "#d23a5a", "dot-smile"),
    ("silver-moon", _("銀色の月"), "moon", "#c4ccd6", "happy-smile"),
    ("orange-cat", _("茶トラの猫"), "cat", "#f0a04b", "happy-cat"),
    ("mint-hexagon", _("若草色の六角形"), "hexagon", "#8fd694", "dot-smile-blush"),
    ("indigo-drop", _("藍色のしずく"), "drop", "#3f5bb5", "sleepy-smile"),
    ("pink-flower", _("桃色の花"), "flower", "#f7a6c8", "dot-smile"),
    ("white-ghost", _("白いおばけ"), "ghost", "#f4f3f8", "happy-o"),
    ("wine-shield", _("えんじ色の盾"), "shield", "#9c2f45", "dot-smile"),
]


def icon_svgs() -> list[tuple[str, str, str]]:
    """The default player icons as (slug, Japanese display name, SVG text)."""
    return [(slug, name, _icon(name, shape, fill, face)) for slug, name, shape, fill, face in ICONS]
