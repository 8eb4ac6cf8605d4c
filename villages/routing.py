from django.urls import path

from villages.consumers.endpoint import village_socket

websocket_urlpatterns = [
    path("ws/villages/<int:village_id>/", village_socket),
]
# The same patterns as a URLconf, for Django's resolve(): which addresses have a socket.
urlpatterns = websocket_urlpatterns
