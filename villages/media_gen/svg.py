"""SVG text for the generated icons: elements, paths and documents, and their colours."""

from __future__ import annotations

from collections.abc import Iterable

SVG_NS = "http://www.w3.org/2000/svg"


def num(value: float) -> str:
    """Format a coordinate compactly (at most two decimals, no trailing zeros)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in {"-0", ""} else text


def _attrs(attrs: dict[str, object]) -> str:
    parts = []
    for key, value in attrs.items():
        text = num(value) if isinstance(value, float) else str(value)
        parts.append(f'{key.replace("_", "-")}="{text}"')
    return " ".join(parts)


def el(tag: str, **attrs: object) -> str:
    return f"<{tag} {_attrs(attrs)}/>"


def line(d: str, stroke: str, width: float) -> str:
    """A stroked path with round ends."""
    return el("path", d=d, stroke=stroke, stroke_width=width, stroke_linecap="round")


def outline(d: str, fill: str, stroke: str, width: float, **more: object) -> str:
    """A filled path outlined with round corners."""
    return el(
        "path", d=d, fill=fill, stroke=stroke, stroke_width=width, stroke_linejoin="round", **more
    )


def coords(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in points)


def document(size: int, title: str, body: list[str]) -> str:
    inner = "\n".join(f"  {part}" for part in body)
    return (
        f'<svg xmlns="{SVG_NS}" viewBox="0 0 {size} {size}" width="{size}" height="{size}"'
        f' role="img" aria-label="{title}">\n'
        f"  <title>{title}</title>\n"
        f"{inner}\n"
        "</svg>\n"
    )


# ---------------------------------------------------------------------------
# Colours


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _hex(rgb: Iterable[float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in rgb)


def darken(colour: str, factor: float = 0.62) -> str:
    return _hex(c * factor for c in _rgb(colour))


def is_dark(colour: str) -> bool:
    r, g, b = _rgb(colour)
    return (0.299 * r + 0.587 * g + 0.114 * b) / 255 < 0.45
