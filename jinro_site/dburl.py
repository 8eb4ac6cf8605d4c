"""DATABASE_URL ⇄ Django DATABASES entry, for the two engines the site supports.

`postgres://user:password@host:port/name?sslmode=require` (also `postgresql://`; a
percent-encoded host such as `%2Fvar%2Frun%2Fpostgresql` is a Unix socket directory)
and `sqlite:///relative/to/project.sqlite3`, `sqlite:////absolute/path.sqlite3`,
`sqlite:///:memory:`. Query parameters become the entry's OPTIONS.
"""

from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlsplit

POSTGRES_SCHEMES = frozenset({"postgres", "postgresql", "pgsql"})
POSTGRES_ENGINE = "django.db.backends.postgresql"
SQLITE_ENGINE = "django.db.backends.sqlite3"


def parse_database_url(url: str, *, base_dir: Path) -> dict:
    """Return a `DATABASES["default"]`-style dict for `url`."""
    parts = urlsplit(url)
    options = dict(parse_qsl(parts.query))
    if parts.scheme in POSTGRES_SCHEMES:
        return {
            "ENGINE": POSTGRES_ENGINE,
            "NAME": unquote(parts.path.lstrip("/")),
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": unquote(parts.hostname or ""),
            "PORT": str(parts.port or ""),
            "OPTIONS": options,
        }
    if parts.scheme == "sqlite":
        # sqlite:///x → path "/x" (relative x); sqlite:////x → path "//x" (absolute /x).
        path = unquote(parts.netloc + parts.path)[1:] if parts.path else unquote(parts.netloc)
        if path in ("", ":memory:"):
            name: str | Path = ":memory:"
        else:
            name = Path(path) if Path(path).is_absolute() else base_dir / path
        return {"ENGINE": SQLITE_ENGINE, "NAME": name, "OPTIONS": options}
    raise ValueError(f"DATABASE_URL: unsupported scheme {parts.scheme!r} in {url!r}")


def database_url(entry: dict) -> str:
    """The inverse of `parse_database_url` (used to hand a test database to a subprocess)."""
    if entry["ENGINE"] == SQLITE_ENGINE:
        name = str(entry["NAME"])
        if name == ":memory:":
            return "sqlite:///:memory:"
        return f"sqlite:///{quote(str(Path(name).resolve()))}"
    if entry["ENGINE"] == POSTGRES_ENGINE:
        options = entry.get("OPTIONS") or {}
        query = "&".join(f"{quote(k)}={quote(v)}" for k, v in options.items() if isinstance(v, str))
        suffix = f"?{query}" if query else ""
        user = quote(entry.get("USER") or "", safe="")
        password = entry.get("PASSWORD") or ""
        auth = f"{user}:{quote(password, safe='')}@" if password else (f"{user}@" if user else "")
        host = quote(entry.get("HOST") or "", safe="")
        port = f":{entry['PORT']}" if entry.get("PORT") else ""
        return f"postgres://{auth}{host}{port}/{quote(entry['NAME'], safe='')}{suffix}"
    raise ValueError(f"no URL form for database engine {entry['ENGINE']!r}")
