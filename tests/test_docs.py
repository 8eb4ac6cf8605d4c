"""README and docs/ are a newcomer's pages (issue 32, item 10): every relative link leads to
a file of the repository (and a heading that exists, where it names one), README names
nothing outside the repository, shows the two commands, and its "try it alone" timings
are real settings that the site accepts."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from django.conf import settings as django_settings

from tests.conftest import ROOT
from tests.test_foundation import settings_in_subprocess

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.MULTILINE | re.DOTALL)


def links(text: str) -> list[str]:
    """The targets of the page's Markdown links, outside its code blocks."""
    return LINK.findall(FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor a Markdown heading gets (as GitHub makes it)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    return {slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)}


def test_the_pages_are_readme_and_every_file_of_docs():
    names = {p.name for p in PAGES}
    assert {"README.md", "rules.md", "operations.md", "deployment.md", "api.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_to_a_file_of_the_repository(page):
    root = ROOT.resolve()
    for target in links(page.read_text()):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: …
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page.resolve()
        assert file.is_relative_to(root), f"{page.name}: {target} leaves the repository"
        assert file.exists(), f"{page.name}: {target} does not exist"
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file), f"{page.name}: {target} names no heading"


def test_the_readme_names_no_path_outside_the_repository():
    readme = (ROOT / "README.md").read_text()
    assert "../" not in readme
    assert not re.search(r"shared/(SPEC|API|STYLE)\.md", readme)


def test_the_readme_shows_the_two_commands_of_a_new_user():
    blocks = re.findall(r"^```sh\n(.*?)^```", (ROOT / "README.md").read_text(), re.M | re.S)
    commands = [line.strip() for block in blocks for line in block.splitlines()]
    assert "bin/run" in commands, "the command that sets up and serves the site"
    assert "bin/test" in commands, "the command that sets up and runs the tests"


def test_the_readmes_second_step_says_the_village_needs_a_name():
    """Issue 39, item 17: the create form refuses a village without a name."""
    readme = (ROOT / "README.md").read_text()
    step = readme[readme.index("2. **Create a village**") : readme.index("3. **Sit down**")]
    assert "name" in step, step


def test_the_readmes_several_accounts_advice_says_the_registration_limit():
    """Issue 39, item 8: trying several accounts alone meets the registration limit."""
    from villages.services.ratelimit import REGISTER_LIMIT

    readme = (ROOT / "README.md").read_text()
    advice = readme[readme.index("several accounts play from one machine") :]
    advice = " ".join(advice[: advice.index("\n\n")].split())
    count, window = REGISTER_LIMIT
    assert window == 3600 and f"register {count} accounts an hour" in advice, advice
    assert "JINRO_RATE_LIMIT_ENABLED=0" in advice


def try_alone() -> dict[str, str]:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- try-alone -->\n```sh\n(.*?)```", readme, flags=re.DOTALL)
    assert block, "README shows its 'try it alone' command between its markers"
    words = shlex.split(block[1].replace("\\\n", " "))
    assert words[-1] == "bin/run", "the recipe runs the site with the one command"
    return dict(word.split("=", 1) for word in words[:-1])


def test_the_try_alone_timings_are_settings_the_site_accepts():
    env = try_alone()
    assert set(env) <= set(django_settings.JINRO_DEFAULTS), "every variable is a game setting"
    assert env["JINRO_ONE_SEAT_PER_IP"] == "0", "several accounts may play from one machine"
    names = sorted(env)
    answer = settings_in_subprocess(env, "[" + ", ".join(f"settings.{n}" for n in names) + "]")
    assert answer.returncode == 0, answer.stderr
    values = dict(zip(names, json.loads(answer.stdout), strict=True))
    assert values["JINRO_ONE_SEAT_PER_IP"] is False
    for name in names:
        if name != "JINRO_ONE_SEAT_PER_IP":
            assert values[name] == int(env[name]), name
    # A bot owing a vote casts it within the grace (the setting's own rule), and a day is
    # over after a few silences rather than a dozen hours of them.
    assert values["JINRO_BOT_DELAY"] * 3 <= values["JINRO_SUDDEN_DEATH_GRACE"]
    silences = values["JINRO_DAY_VIRTUAL_SECONDS"] / values["JINRO_SILENCE_DAY_PENALTY"]
    assert silences * values["JINRO_SILENCE_REAL_SECONDS"] <= 120
