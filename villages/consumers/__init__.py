"""A village's WebSocket, `/ws/villages/<id>/`: two flavours on one address.

* API.md's JSON frames (the default; bots and clients): `villages.consumers.api`;
* the game screen's HTML parts (`?screen=1`): `villages.consumers.screen`.

Both stand on `villages.consumers.base` (the ASGI dialogue, who is watching, groups, turns)
and decide what to send with `villages.consumers.session` (pure: cursor, held pushes,
gaps). Ordering: a socket tracks the line number (`villages.line_numbers`) up to which it
has handled every line its viewer may see; a duplicate is skipped, a gap is read from the
database before going on, and after the channel layer lost pushes (Redis restarted, a full
queue) the socket catches up from the database, so that nothing is lost.
"""
