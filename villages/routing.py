from django.urls import path

from villages.consumers import VillageConsumer

websocket_urlpatterns = [
    path("ws/villages/<int:village_id>/", VillageConsumer.as_asgi()),
]
