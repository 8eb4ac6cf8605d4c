from django.urls import path

from villages.views import actions, logs, pages, replay, screen, stats

app_name = "villages"

urlpatterns = [
    path("", pages.index, name="index"),
    path("villages/new/", pages.create, name="create"),
    path("villages/ended/", pages.ended, name="ended"),
    path("stats/", stats.statistics, name="stats"),
    path("info/", pages.info_index, name="info_index"),
    path("info/<slug:slug>/", pages.info_page, name="info_page"),
    path("villages/<int:village_id>/", screen.screen, name="screen"),
    path("villages/<int:village_id>/seat/", pages.seat, name="seat"),
    path("villages/<int:village_id>/up/", screen.upper, name="upper"),
    path("villages/<int:village_id>/down/", screen.lower, name="lower"),
    path("villages/<int:village_id>/heaven/", screen.heaven_log, name="heaven"),
    path("villages/<int:village_id>/act/", actions.act, name="act"),
    path("villages/<int:village_id>/kick/", actions.kick, name="kick"),
    path("villages/<int:village_id>/start/", actions.start_vote, name="start_vote"),
    path("villages/<int:village_id>/bots/", actions.add_bots, name="add_bots"),
    path("villages/<int:village_id>/agents/", actions.set_agents, name="agents"),
    path("villages/<int:village_id>/agents/remove/", actions.remove_agent, name="remove_agent"),
    path("villages/<int:village_id>/leave/", actions.leave, name="leave"),
    path("villages/<int:village_id>/objection/", actions.objection, name="objection"),
    path("villages/<int:village_id>/prefs/", actions.set_prefs, name="prefs"),
    path("villages/<int:village_id>/log/", logs.past_log, name="log"),
    path("villages/<int:village_id>/log/export.html", logs.export_html, name="log_export"),
    path("villages/<int:village_id>/replay/", replay.replay, name="replay"),
]
