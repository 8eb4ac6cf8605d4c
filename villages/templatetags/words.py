"""Template filters for the words of the game that depend on the page's language."""

from __future__ import annotations

from django import template

from villages import wording

register = template.Library()


@register.filter
def seat_name(name: str) -> str:
    """A seat's name as the page calls it (a bot's in the page's language)."""
    return wording.seat_name(str(name))


@register.filter
def site_name(text: str) -> str:
    """A name the site gave its own rows (icons, the rules page) in the page's language."""
    return wording.site_name(str(text))
