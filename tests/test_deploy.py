"""What an operator meets (issue 13): safe defaults, `check --deploy` with docs/deployment.md's
production environment, hashed and compressed static files, the site's own error pages,
and the deploy files (nginx in front of a real site process, systemd units)."""

import gzip
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.core.management.utils import get_random_secret_key

from tests.conftest import ROOT, free_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def site_python(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """`python *args` in the project with only `env` (and PATH) for the site's variables."""
    clean = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "jinro_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def setting(env: dict[str, str], expression: str) -> subprocess.CompletedProcess:
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps({expression}))"
    )
    return site_python(env, "-c", code)


def readme_production_env() -> dict[str, str]:
    page = (ROOT / "docs" / "deployment.md").read_text()
    block = re.search(r"<!-- production-env -->\n```sh\n(.*?)```", page, flags=re.DOTALL)
    assert block, "docs/deployment.md shows the production environment between its markers"
    env = {}
    for line in block[1].splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            env[name.strip()] = value.strip()
    return env


# --- Defaults and check --deploy ------------------------------------------------------------


def test_debug_is_off_unless_asked_for_and_the_embedded_site_keeps_its_key_under_var():
    answer = setting({}, "[settings.DEBUG, settings.EMBEDDED, settings.ALLOWED_HOSTS]")
    assert answer.returncode == 0, answer.stderr
    assert json.loads(answer.stdout) == [False, True, ["localhost", "127.0.0.1", "[::1]"]]
    key = (ROOT / "var" / "secret_key").read_text().strip()
    answer = setting({}, "settings.SECRET_KEY")
    assert json.loads(answer.stdout) == key and len(key) >= 50
    assert (ROOT / "var" / "secret_key").stat().st_mode & 0o077 == 0, "only its owner reads it"
    assert json.loads(setting({"DEBUG": "1"}, "settings.DEBUG").stdout) is True


def test_the_production_layout_refuses_to_start_without_a_secret_key():
    answer = setting({"REDIS_URL": "redis://127.0.0.1:6379/9"}, "settings.SECRET_KEY")
    assert answer.returncode != 0
    assert "SECRET_KEY must be set" in answer.stderr


def test_a_malformed_proxy_ssl_header_is_refused_by_name():
    answer = setting({"SECURE_PROXY_SSL_HEADER": "https"}, "settings.SECURE_PROXY_SSL_HEADER")
    assert answer.returncode != 0 and "SECURE_PROXY_SSL_HEADER='https'" in answer.stderr


def test_check_deploy_reports_nothing_with_readmes_production_environment():
    env = readme_production_env()
    assert env["SECRET_KEY"] == "", "the page leaves the key to the operator"
    env["SECRET_KEY"] = get_random_secret_key()
    answer = site_python(env, "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert answer.returncode == 0, answer.stdout + answer.stderr
    assert "System check identified no issues (1 silenced)." in answer.stdout
    values = setting(
        env,
        "[settings.DEBUG, settings.SECURE_PROXY_SSL_HEADER, settings.SESSION_COOKIE_SECURE, "
        "settings.CSRF_COOKIE_SECURE, settings.SECURE_HSTS_SECONDS, settings.CSRF_TRUSTED_ORIGINS]",
    )
    assert json.loads(values.stdout) == [
        False,
        ["HTTP_X_FORWARDED_PROTO", "https"],
        True,
        True,
        31536000,
        ["https://jinro.example.org"],
    ]
    # The same environment without its HTTPS lines is what check --deploy warns about.
    bare = {k: v for k, v in env.items() if not k.startswith(("SECURE_", "SESSION_", "CSRF_"))}
    answer = site_python(bare, "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert answer.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in answer.stderr + answer.stdout


# --- Static files and error pages ------------------------------------------------------------


def new_village_id() -> int:
    from villages.models import Village

    return Village.objects.create(name="静的ファイル", capacity=8).pk


def fetch(url: str, headers: dict[str, str] | None = None):
    return urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10)


def test_pages_name_the_hashed_script_served_compressed_and_cached_for_a_year(daphne_server):
    village_id = new_village_id()
    with fetch(f"{daphne_server}/villages/{village_id}/") as response:
        page = response.read().decode()
    script = re.search(r'src="(/static/villages/js/jinro\.([0-9a-f]{12})\.js)"', page)
    assert script, "the screen names jinro.js by its hashed name"
    source = (ROOT / "static" / "villages" / "js" / "jinro.js").read_bytes()
    with fetch(daphne_server + script[1], {"Accept-Encoding": "gzip"}) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert "max-age=315360000" in response.headers["Cache-Control"]
        assert "immutable" in response.headers["Cache-Control"]
        assert gzip.decompress(response.read()) == source
    with fetch(daphne_server + script[1]) as response:  # a client that takes no gzip
        assert response.headers.get("Content-Encoding") is None
        assert response.read() == source


@pytest.mark.django_db
def test_a_missing_page_is_the_sites_own_and_the_api_keeps_its_shape(client):
    response = client.get("/no/such/page/<script>")
    assert response.status_code == 404
    page = response.content.decode()
    assert "ページが見つかりません" in page and 'class="site-header"' in page
    assert "<script>" not in page  # the address is not echoed
    response = client.get("/api/v1/no-such-thing")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_a_form_without_its_csrf_token_gets_the_sites_page_and_changes_nothing():
    from django.contrib.auth import get_user_model
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    response = browser.post("/accounts/register/", {"username": "csrf", "password1": "x" * 12})
    assert response.status_code == 403
    page = response.content.decode()
    assert "送信を受け付けられません" in page and "何も変更していません" in page
    assert not get_user_model().objects.filter(username="csrf").exists()


# --- Deploy files ------------------------------------------------------------------------------


def nginx_site_for_test(tmp_path: Path, *site_urls: str) -> tuple[Path, int, int]:
    """deploy/nginx's site, made to run here: loopback ports, this checkout, a self-signed
    certificate, the test's site processes as its upstreams."""
    site = (ROOT / "deploy" / "nginx" / "jinro_site.conf").read_text()
    http_port, https_port = free_port(), free_port()
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=jinro.example.org", "-keyout", str(tmp_path / "key.pem"),
         "-out", str(tmp_path / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    upstreams = "\n    ".join(f"server {url.removeprefix('http://')};" for url in site_urls)
    replacements = {
        "server 127.0.0.1:8001;\n    server 127.0.0.1:8002;": upstreams,
        "listen 80;\n    listen [::]:80;": f"listen 127.0.0.1:{http_port};",
        "listen 443 ssl http2;\n    listen [::]:443 ssl http2;": (
            f"listen 127.0.0.1:{https_port} ssl http2;"
        ),
        "/etc/letsencrypt/live/jinro.example.org/fullchain.pem": str(tmp_path / "cert.pem"),
        "/etc/letsencrypt/live/jinro.example.org/privkey.pem": str(tmp_path / "key.pem"),
        "/srv/jinro_site/": f"{ROOT}/",
    }
    for old, new in replacements.items():
        assert old in site, f"deploy/nginx/jinro_site.conf no longer has {old!r}"
        site = site.replace(old, new)
    (tmp_path / "site.conf").write_text(site)
    temp = tmp_path / "temp"
    temp.mkdir()
    # Its workers read this checkout as the user who runs the test (nginx's default,
    # nobody, may not enter a checkout made private, as a `mktemp -d` clone is).
    user = pwd.getpwuid(os.geteuid()).pw_name
    (tmp_path / "nginx.conf").write_text(
        f"""
        daemon off;
        {f"user {user};" if os.geteuid() == 0 else ""}
        pid {tmp_path}/nginx.pid;
        error_log {tmp_path}/error.log warn;
        events {{ worker_connections 256; }}
        http {{
            include /etc/nginx/mime.types;
            access_log {tmp_path}/access.log;
            client_body_temp_path {temp}/body;
            proxy_temp_path {temp}/proxy;
            fastcgi_temp_path {temp}/fastcgi;
            uwsgi_temp_path {temp}/uwsgi;
            scgi_temp_path {temp}/scgi;
            include {tmp_path}/site.conf;
        }}
        """
    )
    return tmp_path / "nginx.conf", http_port, https_port


def test_the_nginx_site_passes_nginx_t_and_serves_the_site_static_files_and_sockets(
    daphne_server, tmp_path
):
    if not os.path.exists(NGINX):
        pytest.skip(f"{NGINX} is absent (CI installs it)")
    conf, http_port, https_port = nginx_site_for_test(tmp_path, daphne_server)
    checked = subprocess.run([NGINX, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    nginx = subprocess.Popen([NGINX, "-c", str(conf)], stderr=subprocess.PIPE)
    try:
        import ssl
        import time

        context = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
        context.check_hostname = False
        base = f"https://127.0.0.1:{https_port}"
        deadline = time.monotonic() + 10
        while True:
            try:
                urllib.request.urlopen(f"{base}/healthz", context=context, timeout=5)
                break
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline or nginx.poll() is not None:
                    raise

        def get(path: str, **headers: str):
            request = urllib.request.Request(base + path, headers={"Host": "localhost", **headers})
            return urllib.request.urlopen(request, context=context, timeout=10)

        village_id = new_village_id()
        with get(f"/villages/{village_id}/") as response:
            page = response.read().decode()
        script = re.search(r'src="(/static/villages/js/jinro\.[0-9a-f]{12}\.js)"', page)
        assert script, page[:500]
        with get(script[1], **{"Accept-Encoding": "gzip"}) as response:
            assert response.headers["Content-Encoding"] == "gzip"
            assert response.headers.get_all("Cache-Control") == [
                "public, max-age=31536000, immutable"
            ]
        # Plain HTTP is sent to HTTPS.
        plain = urllib.request.Request(f"http://127.0.0.1:{http_port}/", headers={"Host": "h"})
        with pytest.raises(urllib.error.HTTPError) as redirect:
            urllib.request.build_opener(NoRedirect).open(plain, timeout=5)
        assert redirect.value.code == 301
        assert redirect.value.headers["Location"] == "https://h/"
        # The game screen's socket goes through the upgrade.
        import asyncio

        import websockets

        async def hello() -> dict:
            url = f"wss://127.0.0.1:{https_port}/ws/villages/{village_id}/"
            async with websockets.connect(url, ssl=context) as socket:
                return json.loads(await asyncio.wait_for(socket.recv(), 10))

        first = asyncio.run(hello())
        assert first["type"] == "state", first
    finally:
        nginx.terminate()
        nginx.wait(10)


def test_nginx_sends_each_villages_requests_to_one_instance_and_the_rest_anywhere(tmp_path):
    """deploy/nginx's upstream with two instances: a village's pages and API calls all go
    to one of them (its snapshot there stays the newest), other requests to both."""
    if not os.path.exists(NGINX):
        pytest.skip(f"{NGINX} is absent (CI installs it)")
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    heard: dict[int, list[str]] = {}

    class Instance(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            heard.setdefault(self.server.server_address[1], []).append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET

        def log_message(self, *args) -> None:
            pass

    instances = [ThreadingHTTPServer(("127.0.0.1", 0), Instance) for _ in range(2)]
    for instance in instances:
        threading.Thread(target=instance.serve_forever, daemon=True).start()
    urls = [f"http://127.0.0.1:{i.server_address[1]}" for i in instances]
    conf, _http, https_port = nginx_site_for_test(tmp_path, *urls)
    nginx = subprocess.Popen([NGINX, "-c", str(conf)], stderr=subprocess.PIPE)
    try:
        import ssl
        import time

        context = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
        context.check_hostname = False

        def get(path: str) -> None:
            request = urllib.request.Request(
                f"https://127.0.0.1:{https_port}{path}", headers={"Host": "localhost"}
            )
            urllib.request.urlopen(request, context=context, timeout=5).close()

        deadline = time.monotonic() + 10
        while True:
            try:
                get("/healthz")
                break
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline or nginx.poll() is not None:
                    raise

        def instances_of(paths: list[str]) -> set[int]:
            heard.clear()
            for path in paths:
                get(path)
            return set(heard)

        for village in (7, 8, 1234):
            paths = [
                f"/villages/{village}/",
                f"/villages/{village}/lower",
                f"/api/v1/villages/{village}/messages",
                f"/api/v1/villages/{village}",
            ]
            assert len(instances_of(paths * 5)) == 1, heard
        assert len(instances_of([f"/villages/{n}/" for n in range(1, 41)])) == 2
        assert len(instances_of(["/healthz"] * 40)) == 2
        assert len(instances_of(["/villages/"] * 40)) == 2  # the list is no village's
    finally:
        nginx.terminate()
        nginx.wait(10)
        for instance in instances:
            instance.shutdown()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_the_systemd_units_verify(tmp_path):
    if SYSTEMD_ANALYZE is None:
        pytest.skip("systemd-analyze is absent (CI installs it)")
    units = ROOT / "deploy" / "systemd"
    names = sorted(p.name for p in units.iterdir())
    assert names == [
        "jinro-celery-beat.service",
        "jinro-celery-worker.service",
        "jinro-daphne@.service",
        "jinro_site.target",
    ]
    env = tmp_path / "env"
    env.write_text("SECRET_KEY=x\n")
    for name in names:  # this checkout stands for /srv/jinro_site
        text = (units / name).read_text().replace("/srv/jinro_site", str(ROOT))
        (tmp_path / name).write_text(text.replace("/etc/jinro_site/env", str(env)))
    (tmp_path / "jinro-daphne@8001.service").symlink_to(tmp_path / "jinro-daphne@.service")
    (tmp_path / "jinro-daphne@8002.service").symlink_to(tmp_path / "jinro-daphne@.service")
    verified = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", "--man=no",
         *(str(tmp_path / n) for n in names if "@." not in n),
         str(tmp_path / "jinro-daphne@8001.service")],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    problems = [
        line
        for line in verified.stderr.splitlines()
        # Units this one names but this machine lacks (its databases run without systemd).
        if not re.search(r"(postgresql|redis-server)\.service", line)
    ]
    assert verified.returncode == 0 or not problems, verified.stderr
    assert not problems, "\n".join(problems)
    beat = (units / "jinro-celery-beat.service").read_text()
    assert "celery -A jinro_site beat" in beat and "Exactly one" in beat
