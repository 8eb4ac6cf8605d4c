"""Short notification sounds, synthesised: WAV files (22050 Hz, mono, 16-bit)."""

from __future__ import annotations

import io
import math
import struct
import wave
from collections.abc import Callable
from dataclasses import dataclass

SAMPLE_RATE = 22050
PEAK = 0.7  # loudest level, as a fraction of full scale: head-room so nothing clips


@dataclass(frozen=True)
class Note:
    start: float  # seconds
    length: float  # seconds
    freq: float  # Hz
    # (multiple of freq, relative amplitude) for each partial
    partials: tuple[tuple[float, float], ...] = ((1.0, 1.0),)
    decay: float = 0.0  # exponential decay rate per second (0 = sustained)
    gain: float = 1.0
    attack: float = 0.006
    release: float = 0.04


BELL = ((1.0, 1.0), (2.0, 0.35), (3.0, 0.12))
METAL = ((1.0, 1.0), (2.76, 0.45), (5.4, 0.2))
BUZZ = ((1.0, 1.0), (3.0, 0.3), (5.0, 0.15))
BRASS = ((1.0, 1.0), (2.0, 0.55), (3.0, 0.35), (4.0, 0.18), (5.0, 0.1))


def _semitone(base: float, steps: int) -> float:
    return base * 2 ** (steps / 12)


def _render(notes: list[Note], total: float, level: float) -> bytes:
    """Mix notes into 16-bit mono PCM, normalised to ``level`` with a gentle fade."""
    count = round(total * SAMPLE_RATE)
    mix = [0.0] * count
    for note in notes:
        first = round(note.start * SAMPLE_RATE)
        length = min(round(note.length * SAMPLE_RATE), count - first)
        attack = max(1, round(note.attack * SAMPLE_RATE))
        release = max(1, round(note.release * SAMPLE_RATE))
        for i in range(length):
            t = i / SAMPLE_RATE
            env = math.exp(-note.decay * t) * note.gain
            # Linear attack and a raised-cosine release avoid clicks at both ends.
            if i < attack:
                env *= i / attack
            if i >= length - release:
                env *= 0.5 - 0.5 * math.cos(math.pi * (length - i) / release)
            sample = sum(
                amp * math.sin(2 * math.pi * note.freq * mul * t) for mul, amp in note.partials
            )
            mix[first + i] += env * sample
    peak = max(abs(v) for v in mix) or 1.0
    scale = min(level, PEAK) * 32767 / peak
    # Global fade-in/out of a few milliseconds as a last guard against clicks.
    edge = round(0.005 * SAMPLE_RATE)
    frames = bytearray()
    for i, value in enumerate(mix):
        fade = min(1.0, (i + 1) / edge, (count - i) / edge)
        frames += struct.pack("<h", round(value * scale * fade))
    return bytes(frames)


def _wav(pcm: bytes) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SAMPLE_RATE)
        out.writeframes(pcm)
    return buffer.getvalue()


def _dawn() -> list[Note]:
    # A rising major arpeggio of soft bells: morning comes.
    c5 = 523.25
    steps = (0, 4, 7, 12)
    return [
        Note(0.13 * k, 0.8 - 0.13 * k, _semitone(c5, step), BELL, decay=4.5, gain=0.8 + 0.05 * k)
        for k, step in enumerate(steps)
    ]


def _revote() -> list[Note]:
    # Two tones alternating twice, like a gentle siren: vote again.
    high, low = 880.0, 659.25
    return [Note(0.18 * k, 0.17, high if k % 2 == 0 else low, BUZZ, release=0.03) for k in range(4)]


def _objection() -> list[Note]:
    # Two sharp, bright strikes a little apart: ding-ding.
    return [
        Note(0.0, 0.5, 1568.0, METAL, decay=7.0, attack=0.002),
        Note(0.2, 0.5, 1568.0, METAL, decay=7.0, attack=0.002),
    ]


def _alert() -> list[Note]:
    # One short square-ish beep for the sudden-death countdown.
    return [Note(0.0, 0.16, 1046.5, BUZZ, release=0.02, attack=0.004)]


def _start() -> list[Note]:
    # A short brass fanfare: G4 C5 E5, then a held G5.
    g4 = 392.0
    return [
        Note(0.0, 0.14, g4, BRASS, gain=0.8),
        Note(0.15, 0.14, _semitone(g4, 5), BRASS, gain=0.85),
        Note(0.30, 0.14, _semitone(g4, 9), BRASS, gain=0.9),
        Note(0.45, 0.65, _semitone(g4, 12), BRASS, decay=1.5, release=0.2),
        Note(0.45, 0.65, _semitone(g4, 5), BRASS, decay=1.5, release=0.2, gain=0.5),
    ]


# name -> (notes, total seconds, peak level).  Sustained buzzy tones sound much
# louder than decaying bells at the same peak, so they get a lower one.
SOUNDS: dict[str, tuple[Callable[[], list[Note]], float, float]] = {
    "dawn": (_dawn, 0.85, 0.7),
    "revote": (_revote, 0.72, 0.3),
    "objection": (_objection, 0.7, 0.7),
    "alert": (_alert, 0.18, 0.3),
    "start": (_start, 1.12, 0.6),
}


def sound_wavs() -> dict[str, bytes]:
    """Short notification sounds as WAV files (22050 Hz, mono, 16-bit)."""
    return {
        name: _wav(_render(make(), total, level)) for name, (make, total, level) in SOUNDS.items()
    }
