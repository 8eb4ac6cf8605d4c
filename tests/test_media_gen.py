"""The generated media: player icons, option icons and sounds (no Django needed)."""

import array
import io
import json
import sys
import wave
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from villages import media_gen

SVG = "{http://www.w3.org/2000/svg}"
SOUND_NAMES = {"dawn", "revote", "objection", "alert", "start"}
OPTION_NAMES = {
    "realtime",
    "cupid",
    "poison",
    "decider",
    "authority",
    "hide_roles_in_heaven",
    "dummy_boy",
    "alive",
    "dead",
    "voted",
    "practice",
    "agents",
}
REPO_STATIC = Path(__file__).resolve().parent.parent / "static"


@pytest.fixture(scope="module")
def icons():
    return media_gen.icon_svgs()


@pytest.fixture(scope="module")
def sounds():
    return media_gen.sound_wavs()


def _root(svg_text):
    root = ET.fromstring(svg_text)
    assert root.tag == f"{SVG}svg"
    return root


def _samples(data):
    with wave.open(io.BytesIO(data)) as wav:
        params = (wav.getframerate(), wav.getnchannels(), wav.getsampwidth())
        frames = wav.readframes(wav.getnframes())
    samples = array.array("h", frames)
    if sys.byteorder == "big":
        samples.byteswap()
    return params, samples


def test_there_are_at_least_twenty_icons(icons):
    assert len(icons) >= 20


def test_icon_slugs_and_names_are_unique(icons):
    slugs = [slug for slug, _, _ in icons]
    names = [name for _, name, _ in icons]
    assert len(set(slugs)) == len(slugs)
    assert len(set(names)) == len(names)
    assert all(slug.replace("-", "").isalnum() and slug.islower() for slug in slugs)


def test_every_icon_is_a_64_square_svg_titled_with_its_name(icons):
    for slug, name, svg in icons:
        root = _root(svg)
        assert root.get("viewBox") == "0 0 64 64", slug
        assert root.find(f"{SVG}title").text == name


def test_icons_are_all_different(icons):
    bodies = [svg.split("</title>", 1)[1] for _, _, svg in icons]
    assert len(set(bodies)) == len(bodies)
    # Each shape and colour pair is used once, so no two icons look alike.
    looks = [(shape, fill) for _, _, shape, fill, _ in media_gen.ICONS]
    assert len(set(looks)) == len(looks)


def test_option_icons_cover_every_option_and_status_mark():
    options = media_gen.option_icon_svgs()
    assert set(options) == OPTION_NAMES
    for name, svg in options.items():
        assert _root(svg).get("viewBox") == "0 0 24 24", name
    assert len(set(options.values())) == len(options)


def test_sounds_are_short_mono_16_bit_and_never_clip(sounds):
    assert set(sounds) == SOUND_NAMES
    for name, data in sounds.items():
        (rate, channels, width), samples = _samples(data)
        assert (rate, channels, width) == (22050, 1, 2), name
        assert 0.1 <= len(samples) / rate <= 2.0, name
        peak = max(abs(s) for s in samples)
        assert 0 < peak < 32767, f"{name} is silent or clips"
        # Faded in and out, so the speaker does not click at either end.
        assert abs(samples[0]) < 100 and abs(samples[-1]) < 100, name


def test_sounds_are_distinct(sounds):
    assert len(set(sounds.values())) == len(sounds)


def test_write_all_writes_icons_options_sounds_and_an_index(tmp_path):
    written = media_gen.write_all(tmp_path)
    base = tmp_path / "villages"
    assert all(path.is_file() for path in written)
    index = json.loads((base / "icons" / "index.json").read_text(encoding="utf-8"))
    assert [entry["slug"] for entry in index] == [slug for slug, _, _ in media_gen.icon_svgs()]
    for entry in index:
        assert set(entry) == {"slug", "name", "file"}
        assert (tmp_path / entry["file"]).is_file()
    for name in OPTION_NAMES:
        assert (base / "options" / f"{name}.svg").is_file()
    for name in SOUND_NAMES:
        assert (base / "sounds" / f"{name}.wav").is_file()


def test_committed_media_match_the_generator(tmp_path):
    """The files under static/villages/ are what the generator makes today."""
    if not (REPO_STATIC / "villages" / "icons" / "index.json").exists():
        pytest.skip("static media not generated in this checkout")
    for path in media_gen.write_all(tmp_path):
        committed = REPO_STATIC / path.relative_to(tmp_path)
        assert committed.is_file(), f"{committed} is missing: run manage.py make_media"
        assert committed.read_bytes() == path.read_bytes(), (
            f"{committed} is stale: run manage.py make_media"
        )
