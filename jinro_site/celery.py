"""The Celery application: `celery -A jinro_site worker` and `celery -A jinro_site beat`.

Configuration comes from Django settings prefixed CELERY_ (broker and results on
REDIS_URL; the beat schedule runs `villages.tasks.sweep` every JINRO_SWEEP_INTERVAL s).
"""

import os

from celery import Celery
from celery.signals import worker_process_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "jinro_site.settings")

app = Celery("jinro_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_shutdown.connect
def _close_process_loop(**_kwargs: object) -> None:
    # The process's loop (where its tasks' sends ran) ends with the process, its sends done.
    # (Imported here: this module is imported by jinro_site/__init__.py, before Django is
    # set up.)
    from jinro_site.runtime import stop_process_loop

    stop_process_loop()
