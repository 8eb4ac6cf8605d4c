"""A person at a browser: logs in, sits, talks, votes — through the pages only."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from playwright.sync_api import BrowserContext, FrameLocator, Page, expect
from playwright.sync_api import Error as PlaywrightError

PASSWORD = "pw-Secret-123"


def session_cookie(site: str, username: str) -> dict[str, str]:
    """The cookie of a logged-in session of `username`, made here in the database the site
    shares (as django.contrib.auth.login makes one): a browser given it is logged in."""
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    user = get_user_model().objects.get(username=username)
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "accounts.backends.BanAwareBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return {"name": "sessionid", "value": session.session_key, "url": site}


@dataclass
class Player:
    base: str
    context: BrowserContext
    username: str
    page: Page = field(init=False)
    role: str = ""
    seat_name: str = ""

    def __post_init__(self) -> None:
        self.page = self.context.new_page()

    # -- pages -------------------------------------------------------------
    def login(self, *, through_the_form: bool = False) -> None:
        """Logged in: by the session cookie a login gives (`session_cookie`), or, where the
        test is about it, through the login page."""
        if not through_the_form:
            self.context.add_cookies([session_cookie(self.base, self.username)])
            return
        self.page.goto(f"{self.base}/accounts/login/")
        self.page.fill("#id_username", self.username)
        self.page.fill("#id_password", PASSWORD)
        self.page.click("form.account-form button[type=submit]")
        expect(self.page.locator(".site-nav")).to_contain_text(self.username)

    def sit(self, village_id: int, name: str, icon_index: int) -> None:
        self.seat_name = name
        self.page.goto(f"{self.base}/villages/{village_id}/seat/")
        self.page.fill("#id_handle_name", name)
        self.page.locator(".icon-choice").nth(icon_index).click()
        self.page.click(".seat-form button[type=submit]")
        self.page.wait_for_url(re.compile(rf"/villages/{village_id}/$"))

    def open_screen(self, village_id: int) -> None:
        url = f"{self.base}/villages/{village_id}/"
        try:
            self.page.goto(url)
        except PlaywrightError as exc:
            # The screen reloads itself when the game starts; our own navigation to the
            # same address may lose that race, which leaves the page where we wanted it.
            if "interrupted by another navigation" not in str(exc):
                raise
            self.page.wait_for_url(url)
            self.page.wait_for_load_state()
        self.up.locator("body").wait_for()
        self.lower.locator("body").wait_for()

    @property
    def up(self) -> FrameLocator:
        return self.page.frame_locator("iframe[name=up]")

    @property
    def lower(self) -> FrameLocator:
        return self.page.frame_locator("iframe[name=lower]")

    @property
    def heaven(self) -> FrameLocator:
        return self.page.frame_locator("iframe[name=heaven]")

    # -- actions -------------------------------------------------------------
    def say(self, text: str, mode: str = "normal") -> None:
        self.up.locator("#talk-text").fill(text)
        self.up.locator("#talk-mode").select_option(mode)
        self.up.locator("#talk-form button[type=submit]").click()
        expect(self.up.locator("#talk-text")).to_have_value("")

    def read_role(self) -> str:
        box = self.lower.locator(".my-role")
        expect(box).to_be_visible()
        classes = box.get_attribute("class") or ""
        self.role = next(c[5:] for c in classes.split() if c.startswith("role-"))
        return self.role

    def act(self, action: str, target_name: str | None = None) -> None:
        """Open the action page from the upper pane's link and choose a target."""
        self.up.locator(f"a.act-{action}").click()
        form = self.lower.locator("form.targets")
        expect(form).to_be_visible()
        if target_name is None:
            self.lower.locator("form.targets input[name=target]").first.check()
        else:
            self.lower.locator("form.targets label", has_text=target_name).locator("input").check()
        self.lower.locator("form.targets button[type=submit]").click()
        expect(self.lower.locator("#d-log")).to_be_visible()
