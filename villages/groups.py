"""Channel-layer group names and the envelope of a pushed event, shared by both ends.

A service publishes `village_event({...})` to a group; `VillageConsumer.village_event`
relays the inner `event` dict to the socket as JSON.
"""

VILLAGE_EVENT = "village.event"


def public_group(village_id: int) -> str:
    """Every socket watching the village: what anyone, spectators included, may see."""
    return f"village.{village_id}.public"


def village_event(event: dict) -> dict:
    """The channel-layer message that delivers `event` (a JSON-able dict) to sockets."""
    return {"type": VILLAGE_EVENT, "event": event}


def viewer_group(village_id: int, seat_no: int | None) -> str:
    """The group of one viewer of a village: a seat, or every spectator (seat None).

    Each group hears exactly what its viewer may see: the fan-out computes every
    frame per viewer with the engine's visibility function.
    """
    if seat_no is None:
        return f"village.{village_id}.spectators"
    return f"village.{village_id}.seat.{seat_no}"


VILLAGE_EVENTS = "village.events"


def village_events(events: list[dict]) -> dict:
    """The channel-layer message that delivers several events, in order, to one viewer."""
    return {"type": VILLAGE_EVENTS, "events": events}
