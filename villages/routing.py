from django.urls import path

from villages.consumers.aiwolf import agent_socket
from villages.consumers.endpoint import village_socket

websocket_urlpatterns = [
    path("ws/villages/<int:village_id>/", village_socket),
    path("ws/aiwolf/villages/<int:village_id>/", agent_socket),
]
# The same patterns as a URLconf, for Django's resolve(): which addresses have a socket.
urlpatterns = websocket_urlpatterns
