"""Forms of the village screens. They only shape input: the rules are the services'."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import REFRESH_CHOICES
from villages import wording
from villages.engine import MAX_PLAYERS, MIN_PLAYERS
from villages.engine.cast import OPTION_FLAGS
from villages.models import Icon


class DateInput(forms.DateInput):
    input_type = "date"


class CreateVillageForm(forms.Form):
    name = forms.CharField(label=_("村の名前"), max_length=60)
    comment = forms.CharField(label=_("村の説明"), max_length=200, required=False)
    capacity = forms.TypedChoiceField(
        label=_("定員"),
        coerce=int,
        choices=[(n, n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)],
        initial=16,
    )
    realtime = forms.BooleanField(label=_("リアルタイム制"), required=False)
    day_minutes = forms.IntegerField(
        label=_("昼（分）"), min_value=1, max_value=120, initial=5, required=False
    )
    night_minutes = forms.IntegerField(
        label=_("夜（分）"), min_value=1, max_value=120, initial=3, required=False
    )
    cupid = forms.BooleanField(label=_("キューピッド"), required=False)
    poison = forms.BooleanField(label=_("埋毒者"), required=False)
    decider = forms.BooleanField(label=_("決定者"), required=False)
    authority = forms.BooleanField(label=_("権力者"), required=False)
    hide_roles_in_heaven = forms.BooleanField(label=_("霊界で配役を公開しない"), required=False)
    dummy_boy = forms.BooleanField(label=_("身代わり君"), required=False)
    agents = forms.BooleanField(
        label=_("人狼知能エージェントを受け入れる"),
        required=False,
        help_text=_(
            "人狼知能大会のエージェントが席に着ける練習村になります（統計には数えません）。"
        ),
    )
    bots = forms.IntegerField(
        label=_("ボットの席"),
        min_value=0,
        max_value=MAX_PLAYERS,
        initial=0,
        required=False,
        help_text=_("作成と同時にこの数の席をボットで埋めます（練習村）。"),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        bots, capacity = data.get("bots") or 0, data.get("capacity")
        if capacity and bots > capacity - (1 if data.get("dummy_boy") else 0):
            self.add_error("bots", _("ボットの席は空席の数までです。"))
        if data.get("realtime"):
            for name in ("day_minutes", "night_minutes"):
                if data.get(name) is None and name not in self.errors:
                    self.add_error(name, _("リアルタイム制では昼と夜の分数を入れてください。"))
        return data

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        time: dict[str, Any] = {"mode": "virtual"}
        if data["realtime"]:
            time = {
                "mode": "realtime",
                "day_seconds": data["day_minutes"] * 60,
                "night_seconds": data["night_minutes"] * 60,
            }
        return {"time": time, **{name: bool(data[name]) for name in OPTION_FLAGS}}


class IconChoice(forms.RadioSelect):
    """The icons as pictures, each marked with who in the village wears it already."""

    template_name = "villages/widgets/icon_radio.html"
    option_template_name = "villages/widgets/icon_option.html"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.worn_by: dict[int, list[str]] = {}

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(*args, **kwargs)
        instance = getattr(option["value"], "instance", None)
        option["worn_by"] = self.worn_by.get(instance.pk, []) if instance is not None else []
        return option


class IconField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return wording.site_name(obj.name)  # the site's own icons, in the page's language


class SeatForm(forms.Form):
    handle_name = forms.CharField(label=_("ハンドル名"), max_length=40)
    icon = IconField(
        label=_("アイコン"),
        queryset=Icon.objects.choosable(),
        widget=IconChoice,
        empty_label=None,
    )
    trip = forms.CharField(
        label=_("トリップ（任意）"),
        max_length=64,
        required=False,
        widget=forms.PasswordInput(render_value=True),
        help_text=_("合言葉から◆で始まる印が作られます。合言葉そのものは保存されません。"),
    )

    def __init__(self, *args: Any, worn_by: dict[int, list[str]] | None = None, **kwargs: Any):
        """`worn_by`: the village's icons already taken, by icon id → the seats' names."""
        super().__init__(*args, **kwargs)
        self.fields["icon"].widget.worn_by = worn_by or {}


TALK_MODES = (
    ("strong", _("強く発言する")),
    ("normal", _("通常どおり発言する")),
    ("weak", _("弱く発言する")),
    ("will", _("遺言を残す")),
)


class TalkForm(forms.Form):
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, strip=False)
    mode = forms.ChoiceField(choices=TALK_MODES, initial="normal")


class PrefsForm(forms.Form):
    refresh = forms.TypedChoiceField(
        coerce=int, choices=[(n, n) for n in REFRESH_CHOICES], required=False, empty_value=None
    )
    sound = forms.ChoiceField(choices=[("1", "1"), ("0", "0")], required=False)
    list_below = forms.ChoiceField(choices=[("1", "1"), ("0", "0")], required=False)


class LogSearchForm(forms.Form):
    """The past-log list's search (GET): every field optional, all given ones must match."""

    q = forms.CharField(label=_("村の名前"), max_length=60, required=False)
    player = forms.CharField(
        label=_("参加者"),
        max_length=150,
        required=False,
        help_text=_("ユーザー名、またはハンドル名の一部"),
    )
    role = forms.ChoiceField(label=_("役職"), required=False)
    winner = forms.ChoiceField(label=_("勝者"), required=False)
    players = forms.IntegerField(
        label=_("人数"), required=False, min_value=1, max_value=MAX_PLAYERS
    )
    option = forms.ChoiceField(label=_("オプション"), required=False)
    since = forms.DateField(label=_("終了日（から）"), required=False, widget=DateInput)
    until = forms.DateField(label=_("終了日（まで）"), required=False, widget=DateInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["role"].choices = [
            ("", "—"),
            *wording.ROLE.items(),
            *wording.SUB_ROLE.items(),
        ]
        self.fields["winner"].choices = [
            ("", "—"),
            *wording.WINNER.items(),
            ("abandoned", _("廃村")),
        ]
        self.fields["option"].choices = [("", "—"), *wording.OPTION.items()]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError(_("終了日の範囲が逆です。"))
        return data

    def criteria(self) -> dict[str, Any]:
        """The selector's keywords (villages.selectors.search_ended), dates as local days."""
        from datetime import datetime, time, timedelta

        from django.utils import timezone

        d = self.cleaned_data

        def start_of(day: Any) -> Any:
            return timezone.make_aware(datetime.combine(day, time.min)) if day else None

        return {
            "name": d.get("q") or "",
            "player": (d.get("player") or "").strip(),
            "role": d.get("role") or "",
            "winner": d.get("winner") or "",
            "players": d.get("players"),
            "option": d.get("option") or "",
            "since": start_of(d.get("since")),
            "until": start_of(d["until"] + timedelta(days=1)) if d.get("until") else None,
        }
