"""WebSocket endpoint of a village: `/ws/villages/<id>/` (API.md, "WebSocket")."""

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from villages.groups import public_group


class VillageConsumer(AsyncJsonWebsocketConsumer):
    """Joins the village's groups and relays their events to the socket."""

    async def connect(self) -> None:
        village_id = self.scope["url_route"]["kwargs"]["village_id"]
        group = public_group(village_id)
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups.append(group)  # the base class leaves self.groups on disconnect
        await self.accept()

    async def village_event(self, message: dict) -> None:
        """Handler of `villages.groups.VILLAGE_EVENT` messages."""
        await self.send_json(message["event"])
