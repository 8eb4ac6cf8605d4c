from django.urls import path
from django.views.generic import TemplateView

app_name = "villages"

urlpatterns = [
    # Temporary top page until the village list replaces it.
    path("", TemplateView.as_view(template_name="villages/index.html"), name="index"),
]
