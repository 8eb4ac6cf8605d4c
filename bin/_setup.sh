# Sourced by bin/run and bin/test: create .venv and install the project into it when needed.
# `jinro_setup` installs the site; `jinro_setup dev` also the test tools, at the versions
# the site is tested with (deploy/constraints.txt). A re-run installs again only when
# pyproject.toml or the constraints changed. PYTHON picks the interpreter (default python3).

jinro_setup() {
  local extras=${1:-} python=${PYTHON:-python3}
  if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
    if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "jinro_site needs Python 3.11 or newer as '$python' (set PYTHON=/path/to/python3.11)." >&2
      return 1
    fi
    echo "Creating .venv with $("$python" --version) ..."
    rm -rf .venv
    if ! "$python" -m venv .venv; then
      echo "Could not create .venv. On Debian/Ubuntu: sudo apt-get install python3-venv" >&2
      return 1
    fi
  fi
  # The stamp says what was installed for which pyproject.toml; "dev" includes the site.
  local installed want
  installed=$(cat .venv/.jinro-installed 2>/dev/null || true)
  want="$(cat pyproject.toml deploy/constraints.txt | sha256sum | cut -d' ' -f1) ${extras:-site}"
  if [ "$installed" != "$want" ] && [ "$installed" != "${want% *} dev" ]; then
    echo "Installing jinro_site${extras:+ with its $extras tools} into .venv (the first time takes a few minutes) ..."
    .venv/bin/python -m pip install --quiet --disable-pip-version-check \
      --constraint deploy/constraints.txt -e ".${extras:+[$extras]}"
    echo "$want" > .venv/.jinro-installed
  fi
}
