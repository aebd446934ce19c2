"""The virtual tray: synthetic photos of dice in a tray, with the truth about every die.

It stands in for the camera wherever real photos cannot: Excape's 7 and X faces (no photos exist), every unsure
case on demand (cocked, stacked, cut by the frame edge, motion-blurred, a hand in the tray), the tests, the
benchmark, and the software twin of the camera that the companion and its demo run on.

    render_tray(seed, model, ...) -> RenderedTray   one still photo and its truth
    roll_frames(seed, model, ...) -> frames         a throw: (a hand,) dice tumbling in, then at rest
    empty_tray(seed, size)        -> image          the same tray with no dice

Everything is a pure function of `seed` (numpy Generators from one SeedSequence, no global randomness), so
the same seed gives the same pixels. The tray, the dice and the sensor noise draw from separate streams, so
`empty_tray(seed)` is the tray of `render_tray(seed)` and the dice at rest at the end of `roll_frames(seed)`
are those of `render_tray(seed)` with the same model, faces, n_dice, size and look.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any

import cv2
import numpy as np

from vision.models import D6, DieKind, DieModel, Face
from vision.render_die import Camera, DieLook, DieSprite, RenderError, cube_corners, draw_die, face_texture, rotation
from vision.render_scene import (
    TRAY_SURFACES,
    Hand,
    TrayLook,
    draw_tray,
    finish_frame,
    light_field,
    paint_hand,
    sample_hand,
    tray_surface,
)

__all__ = ["DIE_COLOURS", "DIE_HAZARDS", "HAZARDS", "PIP_COLOURS", "TRAY_HAZARDS", "Flicker", "Look",
           "RenderError", "RenderedTray", "TrayDie", "empty_tray", "render_tray", "roll_frames"]

DIE_HAZARDS = frozenset({"cocked", "stacked", "cut", "blurred", "outside"})
TRAY_HAZARDS = frozenset({"hand"})
HAZARDS = DIE_HAZARDS | TRAY_HAZARDS

# Solid body colours (BGR), a few shades each; "marbled" swirls two of them, "translucent" lets the tray through.
SOLID_COLOURS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "white": ((236, 236, 234), (226, 229, 231)),
    "ivory": ((190, 225, 240), (176, 214, 234)),
    "black": ((30, 30, 32), (42, 40, 38)),
    "red": ((40, 35, 200), (30, 30, 165), (55, 60, 220)),
    "green": ((60, 160, 40), (45, 115, 30), (95, 190, 80)),
    "blue": ((170, 80, 25), (135, 55, 20), (205, 125, 45)),
    "yellow": ((40, 210, 235), (30, 190, 222)),
    "purple": ((130, 40, 100), (105, 30, 80)),
}
DIE_COLOURS = (*SOLID_COLOURS, "marbled", "translucent")
PIP_COLOURS: dict[str, tuple[int, int, int]] = {"black": (25, 25, 28), "white": (240, 240, 240),
                                                "gold": (40, 175, 215), "red": (45, 40, 190)}
# The pip colours a die gets when none is asked for. Red pips (on black and dark marbled dice: half of the real
# train-split dice the reader left unclear had them) stand out by colour more than by luminance, and came later:
# they are drawn only on request (Look.pip_colour), as adding them to the random choice would change every seeded
# tray the benchmark and the tests know.
RANDOM_PIP_COLOURS = ("black", "white", "gold")
_MIN_PIP_CONTRAST = 70.0  # luminance levels between pips and body: a real die's pips are easy to see
_MIN_PIP_DISTANCE = 100.0   # BGR distance between a pip colour asked for and each resin of a marbled die

_RANDOM = "random"
# No corner of a cube lies farther from its middle, seen from above however it is turned, than half its diagonal,
# sqrt(3) / 2 of its side: dice whose middles lie farther apart than the sum of theirs cannot share floor.
HALF_DIAGONAL = 0.87


@dataclass(frozen=True)
class Look:
    """Optional overrides of the randomly chosen look (the `**look` of render_tray). Unset = random.

    tray: "light" | "dark" | "card" | "felt" | "wood"; die_colour: one of DIE_COLOURS; pip_colour: one of
    PIP_COLOURS; die_size: pixels (a number or a (low, high) range) at the requested image size; camera_height:
    in image widths (lower = stronger perspective, >= 1.2); tilt: camera tilt in degrees; light: unevenness 0..1;
    shadows: draw soft shadows; defocus: Gaussian sigma in pixels; noise: sensor noise sigma in grey levels;
    jpeg_quality: 1..100 or None for no JPEG artefacts; full_floor: the tray floor fills the frame (no walls);
    touching: a die placed beside another rests against it, as real dice come to rest (most dice of a tray then lean
    on a neighbour's side, and in perspective the die nearer the camera hides part of the other; without it, no two
    dice overlap in the picture); clean: no degradations (top-down, even light, no noise/blur/JPEG/shadows) unless
    set explicitly.
    """

    tray: str | None = None
    die_colour: str | None = None
    pip_colour: str | None = None
    die_size: float | tuple[float, float] | None = None
    camera_height: float | None = None
    tilt: float | None = None
    light: float | None = None
    shadows: bool | None = None
    defocus: float | None = None
    noise: float | None = None
    jpeg_quality: int | str | None = _RANDOM
    full_floor: bool | None = None
    touching: bool = False
    clean: bool = False

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> Look:
        allowed = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - allowed)
        if unknown:
            raise RenderError(f"unknown look option(s) {', '.join(unknown)}; "
                              f"expected some of {', '.join(sorted(allowed))}")
        look = cls(**options)
        if look.clean:
            clean = {"camera_height": 60.0, "tilt": 0.0, "light": 0.0, "shadows": False, "defocus": 0.0,
                     "noise": 0.0, "jpeg_quality": None}
            look = cls(**{**clean, **options})
        look.validate()
        return look

    def validate(self) -> None:
        if self.tray is not None and self.tray not in ("light", "dark", *TRAY_SURFACES):
            raise RenderError(f"tray must be 'light', 'dark' or one of {', '.join(TRAY_SURFACES)}, got {self.tray!r}")
        if self.die_colour is not None and self.die_colour not in DIE_COLOURS:
            raise RenderError(f"die_colour must be one of {', '.join(DIE_COLOURS)}, got {self.die_colour!r}")
        if self.pip_colour is not None and self.pip_colour not in PIP_COLOURS:
            raise RenderError(f"pip_colour must be one of {', '.join(PIP_COLOURS)}, got {self.pip_colour!r}")
        if self.camera_height is not None and self.camera_height < 1.2:
            raise RenderError(f"camera_height must be at least 1.2 image widths, got {self.camera_height}")
        if self.light is not None and not 0 <= self.light <= 1:
            raise RenderError(f"light (unevenness) must be within 0..1, got {self.light}")
        if self.die_size is not None:
            low, high = _size_range(self.die_size)
            if not 6 <= low <= high:
                raise RenderError("die_size must be at least 6 px (a number or a low <= high pair), "
                                  f"got {self.die_size}")
        if not isinstance(self.touching, bool):
            raise RenderError(f"touching must be true or false, got {self.touching!r}")
        for name in ("defocus", "noise", "tilt"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise RenderError(f"{name} must not be negative, got {value}")
        quality = self.jpeg_quality
        if quality not in (None, _RANDOM) and not (isinstance(quality, int) and 1 <= quality <= 100):
            raise RenderError(f"jpeg_quality must be 1..100 or None, got {quality!r}")


def _size_range(die_size: float | tuple[float, float]) -> tuple[float, float]:
    if isinstance(die_size, tuple | list):
        if len(die_size) != 2:
            raise RenderError(f"die_size range must be (low, high), got {die_size}")
        return float(die_size[0]), float(die_size[1])
    return float(die_size), float(die_size)


@dataclass(frozen=True)
class TrayDie:
    """The truth about one rendered die."""

    label: str                        # what the model says this face means ("1".."6", "7", "X", ...)
    appearance: str                   # what is printed on the upward face ("pips:5", "symbol:cross", ...)
    box: tuple[int, int, int, int]    # x, y, w, h in image pixels covering the visible die (clipped to the frame)
    hazards: frozenset[str]           # subset of DIE_HAZARDS
    kind: str                         # the model's kind of die (Excape: "excape-a" / "excape-b")
    colour: str                       # body colour name
    size: float                       # edge length in pixels (at the tray floor)
    centre: tuple[float, float]       # image position of the upward face's centre


@dataclass(frozen=True)
class RenderedTray:
    image: np.ndarray                 # BGR uint8 (h, w, 3)
    dice: tuple[TrayDie, ...]
    hazards: frozenset[str]           # tray-level hazards present ("hand")
    tray: str                         # surface: "card", "felt", "wood"
    floor: tuple[int, int, int, int]  # x, y, w, h of the tray floor in the image, where the dice lie
    rim: tuple[int, int, int, int]    # x, y, w, h of the tray inside its rim, walls included (what a calibration gives)


# ---------------------------------------------------------------------------------------------------------------
# Scene: tray, camera, light. Drawn from the tray stream only.

@dataclass
class _Scene:
    size: tuple[int, int]
    surface: str
    floor: tuple[int, int, int, int]
    rim: tuple[int, int, int, int]
    background: np.ndarray        # float32, already seen through the camera
    gain: np.ndarray              # light field
    camera: Camera
    light: np.ndarray             # unit vector towards the light
    shadows: bool
    shadow_strength: float
    defocus: float
    noise: float
    jpeg_quality: int | None
    die_size: tuple[float, float]
    walls: bool                   # the tray's walls are in view (else its floor fills the frame)
    outside: int | None = None    # the side (0 left, 1 top, 2 right, 3 bottom) with room for a die on the table
    touching: bool = False        # dice rest against each other (Look.touching)


def _seen_box(camera: Camera, rect: tuple[int, int, int, int], size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The box (x, y, w, h) in the frame that covers a rectangle of the tray's plane seen by the camera."""
    x, y, w, h = rect
    corners = camera.project(np.array([[x, y, 0], [x + w, y, 0], [x + w, y + h, 0], [x, y + h, 0]], np.float64))
    lo = np.floor(corners.min(axis=0)).clip(0, None)
    hi = np.minimum(np.ceil(corners.max(axis=0)), size)
    return int(lo[0]), int(lo[1]), int(hi[0] - lo[0]), int(hi[1] - lo[1])


def _streams(seed: int) -> dict[str, np.random.Generator]:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise RenderError(f"seed must be a non-negative integer, got {seed!r}")
    # A stream added at the end leaves the others' numbers as they were (SeedSequence children go by index).
    names = ("tray", "dice", "noise", "hand", "motion", "flicker")
    children = np.random.SeedSequence(int(seed)).spawn(len(names))
    return {name: np.random.default_rng(child) for name, child in zip(names, children, strict=True)}


def _check_size(size: tuple[int, int]) -> tuple[int, int]:
    if (not isinstance(size, tuple | list) or len(size) != 2
            or not all(isinstance(v, int | np.integer) and 32 <= v <= 8192 for v in size)):
        raise RenderError(f"size must be (width, height) in pixels, each 32..8192, got {size!r}")
    return int(size[0]), int(size[1])


def _make_scene(rng: np.random.Generator, size: tuple[int, int], look: Look, *, full_floor: bool,
                outside: bool = False) -> _Scene:
    """outside: the tray drawn smaller on one side, leaving the table room for a die rolled off it (its own
    stream, so every other tray draws as without it)."""
    width, height = size
    # Separate streams for the tray, the camera and the light: a tray drawn with or without walls (a cut die
    # needs its floor to reach the frame's edge) keeps the same camera, light and sensor.
    parent = rng
    rng, camera_rng, light_rng = parent.spawn(3)
    if look.tray in TRAY_SURFACES:
        surface = look.tray
    else:
        choices = [name for name, (tone, _) in TRAY_SURFACES.items() if look.tray in (None, tone)]
        weights = np.array([{"card": 3.0, "felt": 1.5, "wood": 1.0}[c] for c in choices])
        surface = choices[rng.choice(len(choices), p=weights / weights.sum())]
    walls_by_chance = rng.random() >= 0.4
    floor_full = look.full_floor if look.full_floor is not None else (full_floor or not walls_by_chance)
    tray_look = tray_surface(rng, surface, size, floor_full and not outside)
    side = None
    if outside:
        tray_look, side = _room_beside(parent.spawn(1)[0], tray_look, size)
    flat_tray = draw_tray(rng, tray_look, size)

    height_px = (look.camera_height if look.camera_height is not None else camera_rng.uniform(1.6, 4.0)) * width
    tilt = np.radians(look.tilt if look.tilt is not None else camera_rng.uniform(0, 4))
    tilt_dir = camera_rng.uniform(0, 2 * np.pi)
    turn = rotation((np.cos(tilt_dir), np.sin(tilt_dir), 0.0), tilt) if tilt > 0 else np.eye(3)
    position = np.array([width / 2, height / 2, height_px])
    # Aim the tilted camera so the tray's centre stays in the middle of the picture.
    probe = Camera(position, turn, height_px, (0.0, 0.0)).project(np.array([[width / 2, height / 2, 0.0]]))[0]
    camera = Camera(position, turn, height_px, (width / 2 - probe[0], height / 2 - probe[1]))
    homography = camera.floor_homography(width, height)
    background = cv2.warpPerspective(flat_tray, homography, (width, height), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REFLECT)
    fx, fy, fw, fh = tray_look.floor
    ww = tray_look.wall_width
    floor_box = _seen_box(camera, (fx, fy, fw, fh), size)
    rim_box = _seen_box(camera, (fx - ww, fy - ww, fw + 2 * ww, fh + 2 * ww), size)

    unevenness = look.light if look.light is not None else light_rng.uniform(0.2, 1.0)
    gain = light_field(rng, size, unevenness)
    elevation, azimuth = np.radians(light_rng.uniform(50, 80)), light_rng.uniform(0, 2 * np.pi)
    light = np.array([np.cos(elevation) * np.cos(azimuth), np.cos(elevation) * np.sin(azimuth), np.sin(elevation)])
    scale = width / 640
    if look.die_size is not None:
        die_size = _size_range(look.die_size)
    else:
        base = light_rng.uniform(25, 60) * scale
        die_size = (base * 0.93, base * 1.07)
    if look.jpeg_quality == _RANDOM:
        jpeg_quality = int(light_rng.integers(55, 96)) if light_rng.random() < 0.5 else None
    else:
        jpeg_quality = look.jpeg_quality  # type: ignore[assignment]
    return _Scene(
        size=size, surface=surface, floor=floor_box, rim=rim_box, background=background, gain=gain, camera=camera,
        light=light,
        shadows=look.shadows if look.shadows is not None else True,
        shadow_strength=light_rng.uniform(0.12, 0.35),
        defocus=look.defocus if look.defocus is not None else light_rng.uniform(0.0, 0.7) * scale,
        noise=look.noise if look.noise is not None else light_rng.uniform(1.0, 4.0),
        jpeg_quality=jpeg_quality, die_size=die_size, walls=tray_look.wall_width > 0, outside=side,
        touching=look.touching)


def _room_beside(rng: np.random.Generator, look: TrayLook, size: tuple[int, int]) -> tuple[TrayLook, int]:
    """The tray made narrower on one side, a fifth to a quarter of the frame, for a die to lie on the table there."""
    side = int(rng.integers(4))
    x, y, w, h = look.floor
    room = int(rng.uniform(0.2, 0.26) * (size[0] if side % 2 == 0 else size[1]))
    floor = [(x + room, y, w - room, h), (x, y + room, w, h - room), (x, y, w - room, h), (x, y, w, h - room)][side]
    return replace(look, floor=floor), side


# ---------------------------------------------------------------------------------------------------------------
# Dice: which faces, which look, where. Drawn from the dice stream only.

@dataclass
class _Die:
    kind: DieKind
    faces: list[Face]              # FACE_FRAMES order: [0] is up, [1] its opposite
    look: DieLook
    size: float
    texture_seed: int               # each face's texture has its own stream, so drawing order does not matter
    textures: dict[int, np.ndarray] = field(default_factory=dict)
    xy: tuple[float, float] = (0.0, 0.0)
    base_z: float = 0.0
    turn: np.ndarray | None = None
    motion: tuple[float, float] = (0.0, 0.0)
    hazards: set[str] = field(default_factory=set)

    def texture(self, index: int) -> np.ndarray:
        if index not in self.textures:
            texture_px = int(np.clip(round(self.size * 2), 40, 112))  # twice the die's size on screen
            rng = np.random.default_rng([self.texture_seed, index])
            self.textures[index] = face_texture(self.faces[index], self.look, texture_px, rng)
        return self.textures[index]

    def moved(self, xy: tuple[float, float], base_z: float, turn: np.ndarray, motion: tuple[float, float]) -> _Die:
        """The same die (same textures) in another pose."""
        return _Die(self.kind, self.faces, self.look, self.size, self.texture_seed, self.textures, xy, base_z, turn,
                    motion)


def _luminance(bgr: tuple[float, float, float] | np.ndarray) -> float:
    b, g, r = bgr
    return 0.114 * b + 0.587 * g + 0.299 * r


def _die_look(rng: np.random.Generator, look: Look) -> DieLook:
    colour = look.die_colour or DIE_COLOURS[rng.integers(len(DIE_COLOURS))]
    solid = list(SOLID_COLOURS)

    def shade(name: str) -> np.ndarray:
        options = SOLID_COLOURS[name]
        return (np.asarray(options[rng.integers(len(options))], np.float64) + rng.normal(0, 7, 3)).clip(0, 255)

    marble = None
    opacity = 1.0
    if colour == "marbled":
        # Two resins swirled together; some pip colour must stand out on both, as on a real marbled die (the pip
        # colour asked for, if any, by its colour: red pips stand out on black by hue more than by luminance).
        for _ in range(50):
            first, second = rng.choice(len(solid), 2, replace=False)
            body, marble = shade(solid[first]), shade(solid[second])
            if look.pip_colour is not None:
                if min(float(np.linalg.norm(np.subtract(PIP_COLOURS[look.pip_colour], b))) for b in (body, marble)
                       ) >= _MIN_PIP_DISTANCE:
                    break
            elif any(min(abs(_luminance(PIP_COLOURS[p]) - _luminance(b)) for b in (body, marble)) >= _MIN_PIP_CONTRAST
                     for p in RANDOM_PIP_COLOURS):
                break
        bodies = [body, marble]
    elif colour == "translucent":
        tone = ("red", "green", "blue", "purple", "yellow")[rng.integers(5)]
        body = shade(tone) * 0.8 + 40
        opacity = rng.uniform(0.75, 0.88)
        bodies = [body]
    else:
        body = shade(colour)
        bodies = [body]
    if look.pip_colour is not None:
        pip_name = look.pip_colour
    else:
        contrast = {name: min(abs(_luminance(PIP_COLOURS[name]) - _luminance(b)) for b in bodies)
                    for name in RANDOM_PIP_COLOURS}
        good = [name for name, c in contrast.items() if c >= _MIN_PIP_CONTRAST]
        pip_name = good[rng.integers(len(good))] if good else max(contrast, key=contrast.__getitem__)
    pip = np.asarray(PIP_COLOURS[pip_name], np.float64) + rng.normal(0, 5, 3)
    return DieLook(colour=colour, body=tuple(body), pip=tuple(pip.clip(0, 255)),
                   marble=None if marble is None else tuple(marble), opacity=opacity,
                   corner=rng.uniform(0.1, 0.18))


def _face_for_label(model: DieModel, label: str) -> tuple[Face, list[DieKind]]:
    kinds = [kind for kind in model.kinds if any(f.label == label for f in kind.faces)]
    if not kinds:
        raise RenderError(f"model {model.name!r} has no face labelled {label!r}; expected one of "
                          f"{', '.join(model.labels)}")
    face = next(f for f in kinds[0].faces if f.label == label)
    return face, kinds


def _other_faces(rng: np.random.Generator, kind: DieKind, top: Face) -> list[Face]:
    """The five faces that are not up, in FACE_FRAMES order (opposite first)."""
    pips = sorted(f.pips or 0 for f in kind.faces)
    if pips == [1, 2, 3, 4, 5, 6] and top.pips:
        # A standard die: opposite faces add up to seven.
        by_pips = {f.pips: f for f in kind.faces}
        sides = [by_pips[n] for n in range(1, 7) if n not in (top.pips, 7 - top.pips)]
        return [by_pips[7 - top.pips], *(sides[i] for i in rng.permutation(4))]
    rest = [f for f in kind.faces if f != top] or [top]
    order = rng.permutation(len(rest))
    return [rest[order[i % len(rest)]] for i in range(5)]


def _plan_dice(rng: np.random.Generator, model: DieModel, faces: list[str] | None, n_dice: int | None,
               hazards: frozenset[str], look: Look, scene: _Scene) -> list[_Die]:
    needed = 2 if "stacked" in hazards else (1 if hazards & DIE_HAZARDS else 0)
    if faces is not None:
        if isinstance(faces, str) or not isinstance(faces, list | tuple):
            raise RenderError(f"faces must be a list of labels, got {faces!r}")
        if n_dice is not None and n_dice != len(faces):
            raise RenderError(f"n_dice={n_dice} but {len(faces)} faces were given; give one or make them agree")
        n_dice = len(faces)
    if n_dice is None:
        n_dice = 2 if len(model.kinds) > 1 else int(rng.integers(1, 9))
        n_dice = max(n_dice, needed)
    if isinstance(n_dice, bool) or not isinstance(n_dice, int | np.integer) or not 0 <= n_dice <= 60:
        raise RenderError(f"n_dice must be an integer 0..60, got {n_dice!r}")
    if n_dice < needed:
        raise RenderError(f"hazards {sorted(hazards & DIE_HAZARDS)} need at least {needed} dice, got {n_dice}")

    counts = dict.fromkeys(range(len(model.kinds)), 0)
    chosen: list[tuple[DieKind, Face]] = []
    for i in range(n_dice):
        if faces is not None:
            face, kinds = _face_for_label(model, str(faces[i]))
            kind = min(kinds, key=lambda k: counts[model.kinds.index(k)])
            face = next(f for f in kind.faces if f.label == face.label)
        else:
            kind = model.kinds[i % len(model.kinds)]
            face = kind.faces[rng.integers(len(kind.faces))]
        counts[model.kinds.index(kind)] += 1
        chosen.append((kind, face))

    dice = []
    for kind, top in chosen:
        die_look = _die_look(rng, look)
        size = rng.uniform(*scene.die_size)
        all_faces = [top, *_other_faces(rng, kind, top)]
        dice.append(_Die(kind, all_faces, die_look, size, int(rng.integers(2**62))))
    _place(rng, dice, hazards, scene)
    return dice


def _rest_turn(rng: np.random.Generator, max_tilt_deg: float = 2.0) -> np.ndarray:
    """A die lying on its face: any yaw, and the slight lean of a die on a not quite flat floor."""
    yaw = rotation((0, 0, 1), rng.uniform(0, 2 * np.pi))
    lean = rotation((*rng.normal(size=2), 0.0), np.radians(rng.uniform(0, max_tilt_deg)))
    return lean @ yaw


def _extent(corners: np.ndarray, centre: np.ndarray, direction: np.ndarray) -> float:
    return float(((corners[..., :2].reshape(-1, 2) - centre) @ direction).max())


class _Placer:
    """One attempt at laying the dice out: where each die went, and the checks that keep dice apart."""

    def __init__(self, rng: np.random.Generator, dice: list[_Die], scene: _Scene) -> None:
        self.rng, self.dice, self.scene = rng, dice, scene
        self.placed: dict[int, np.ndarray] = {}
        self.outlines: dict[int, np.ndarray] = {}
        self.centre = np.array([scene.size[0] / 2, scene.size[1] / 2])

    def radius(self, i: int, xy: np.ndarray) -> float:
        """Bounding circle of the die plus the side faces perspective shows away from the image centre."""
        size = self.dice[i].size
        return 0.72 * size + float(np.linalg.norm(xy - self.centre)) * size / self.scene.camera.position[2] + 1.5

    def outline(self, i: int, xy: np.ndarray, turn: np.ndarray | None = None) -> np.ndarray:
        """The die's outline in the picture (convex hull of its projected corners), grown by a small gap."""
        die = self.dice[i]
        corners = cube_corners(die.size, die.turn if turn is None else turn, (xy[0], xy[1]), die.base_z)
        hull = cv2.convexHull(self.scene.camera.project(corners.reshape(-1, 3)).astype(np.float32))[:, 0]
        centre = hull.mean(axis=0)
        return ((hull - centre) * np.float32(1 + 0.8 / die.size) + centre).astype(np.float32)

    def free(self, i: int, xy: np.ndarray, ignore: tuple[int, ...] = (), turn: np.ndarray | None = None,
             *, may_leave_frame: bool = False) -> bool:
        """Does die i at xy keep clear of every placed die, and (unless it is to be cut) of the frame's edge?
        Dice may come close enough to touch, as real ones do."""
        mine = None
        if not may_leave_frame:
            # The top of a die near the edge leans outwards in perspective: check the real outline.
            mine = self.outline(i, xy, turn)
            width, height = self.scene.size
            if mine.min() < 2 or mine[:, 0].max() > width - 3 or mine[:, 1].max() > height - 3:
                return False
        if self.scene.touching:
            return self._clear_on_the_floor(i, xy, ignore, turn)
        for j, other in self.placed.items():
            if j in ignore or np.linalg.norm(xy - other) >= self.radius(i, xy) + self.radius(j, other):
                continue
            if mine is None:
                mine = self.outline(i, xy, turn)
            area, _ = cv2.intersectConvexConvex(mine, self.outlines[j])
            if area > 0:
                return False
        return True

    def footprint(self, i: int, xy: np.ndarray, turn: np.ndarray | None = None) -> np.ndarray:
        """The floor the die covers (the convex hull of its corners seen from straight above), in floor pixels."""
        die = self.dice[i]
        corners = cube_corners(die.size, die.turn if turn is None else turn, (xy[0], xy[1]), die.base_z)
        return cv2.convexHull(corners.reshape(-1, 3)[:, :2].astype(np.float32))[:, 0]

    def _clear_on_the_floor(self, i: int, xy: np.ndarray, ignore: tuple[int, ...], turn: np.ndarray | None) -> bool:
        """Does die i at xy take up no floor another die takes? Two dice may touch, and in the picture overlap."""
        mine = self.footprint(i, xy, turn)
        reach = HALF_DIAGONAL * self.dice[i].size
        for j, other in self.placed.items():
            if j in ignore or np.linalg.norm(xy - other) >= reach + HALF_DIAGONAL * self.dice[j].size:
                continue
            area, _ = cv2.intersectConvexConvex(mine, self.footprint(j, other))
            if area > 0:
                return False
        return True

    def against(self, i: int, j: int, angle: float) -> np.ndarray:
        """The centre of die i resting against die j on its side towards `angle`: moved out from j's centre until
        their footprints no longer overlap, then a hair more (a die rests on its neighbour's side, not in it)."""
        direction = np.array([np.cos(angle), np.sin(angle)])
        theirs = self.footprint(j, self.placed[j])
        low, high = 0.0, 0.75 * (self.dice[i].size + self.dice[j].size)
        for _ in range(20):
            middle = (low + high) / 2
            area, _ = cv2.intersectConvexConvex(self.footprint(i, self.placed[j] + middle * direction), theirs)
            low, high = (middle, high) if area > 0 else (low, middle)
        return self.placed[j] + (high + 0.3) * direction

    def near_point(self, i: int) -> np.ndarray:
        """Mostly anywhere on the floor, but a third of the time right beside a die already there: real dice
        come to rest in clusters. With Look.touching, four times in five, resting against it."""
        if not self.placed or self.rng.random() < (0.2 if self.scene.touching else 0.65):
            return self.floor_point(i)
        j = list(self.placed)[int(self.rng.integers(len(self.placed)))]
        angle = self.rng.uniform(0, 2 * np.pi)
        # Drawn either way, so that a tray drawn without touching draws every later number as before.
        reach = 0.5 * (self.dice[i].size + self.dice[j].size) * self.rng.uniform(1.0, 1.5)
        xy = self.against(i, j, angle) if self.scene.touching else (
            self.placed[j] + reach * np.array([np.cos(angle), np.sin(angle)]))
        return xy if self.inside(i, xy) else self.floor_point(i)

    def inside(self, i: int, xy: np.ndarray) -> bool:
        fx, fy, fw, fh = self.scene.floor
        margin = 0.72 * self.dice[i].size
        return bool(fx + margin <= xy[0] <= fx + fw - margin and fy + margin <= xy[1] <= fy + fh - margin)

    def floor_point(self, i: int) -> np.ndarray:
        fx, fy, fw, fh = self.scene.floor
        margin = self.radius(i, self.centre) + 1
        return np.array([self.rng.uniform(fx + margin, max(fx + margin + 1, fx + fw - margin)),
                         self.rng.uniform(fy + margin, max(fy + margin + 1, fy + fh - margin))])

    def edge_point(self, i: int) -> np.ndarray:
        """A centre on the frame's edge: between about a quarter and three quarters of the die stays in view."""
        width, height = self.scene.size
        inside = self.rng.uniform(-0.2, 0.2) * self.dice[i].size
        edge = int(self.rng.integers(4))
        along = self.rng.uniform(0.15, 0.85)
        return np.array([(inside, along * height), (along * width, inside), (width - inside, along * height),
                         (along * width, height - inside)][edge])

    def table_point(self, i: int) -> np.ndarray:
        """A centre on the table beside the tray (the scene's `outside` side), the die clear of the tray's rim."""
        width, height = self.scene.size
        rx, ry, rw, rh = self.scene.rim
        reach = self.radius(i, self.centre) + 2
        side = self.scene.outside or 0          # set whenever a die is to lie outside (_make_scene)
        low, high = [(reach, rx - reach), (reach, ry - reach), (rx + rw + reach, width - reach),
                     (ry + rh + reach, height - reach)][side]
        high = max(low + 1, high)
        along = (height if side % 2 == 0 else width) * self.rng.uniform(0.2, 0.8)
        first = self.rng.uniform(low, high)
        return np.array([first, along] if side % 2 == 0 else [along, first])

    def place(self, i: int, sampler: Callable[[int], np.ndarray], ignore: tuple[int, ...] = (),
              *, may_leave_frame: bool = False) -> bool:
        for _ in range(300):
            xy = sampler(i)
            if self.free(i, xy, ignore, may_leave_frame=may_leave_frame):
                self.keep(i, xy)
                return True
        return False

    def keep(self, i: int, xy: np.ndarray) -> None:
        self.placed[i] = xy
        self.outlines[i] = self.outline(i, xy)

    def on_top_of(self, upper: int, lower: int) -> bool:
        """Rest die `upper` on die `lower`, off-centre so both show."""
        self.dice[upper].base_z = self.dice[lower].size
        self.dice[upper].turn = _rest_turn(self.rng, 4.0)
        reach = self.dice[lower].size * self.rng.uniform(0.28, 0.45)

        def beside(_: int) -> np.ndarray:
            angle = self.rng.uniform(0, 2 * np.pi)
            return self.placed[lower] + reach * np.array([np.cos(angle), np.sin(angle)])

        return self.place(upper, beside, ignore=(lower,))

    def leaning(self, i: int, supports: list[int]) -> bool:
        """Cock die i: tilted 25-40 degrees with its raised edge against a neighbour or the tray's wall (or
        anywhere, on something out of sight, when there is neither)."""
        rng, die = self.rng, self.dice[i]
        on_wall = self.scene.walls and (not supports or rng.random() < 0.3)
        for _ in range(300):
            tilt = np.radians(rng.uniform(25, 40))
            heading = rng.uniform(0, 2 * np.pi)
            direction = np.array([np.cos(heading), np.sin(heading)])
            axis = (-direction[1], direction[0], 0.0)
            yaw = rotation((0, 0, 1), heading + rng.uniform(-0.3, 0.3))
            turn = rotation(axis, tilt) @ yaw
            corners = cube_corners(die.size, turn, (0.0, 0.0), 0.0).reshape(-1, 3)
            if (corners[:, :2] @ direction)[corners[:, 2].argmax()] < 0:  # raise the side facing the support
                turn = rotation(axis, -tilt) @ yaw
            if on_wall:
                heading = float(rng.integers(4)) * np.pi / 2  # towards the left, top, right or bottom wall
                direction = np.array([np.cos(heading), np.sin(heading)]).round()
                axis = (-direction[1], direction[0], 0.0)
                yaw = rotation((0, 0, 1), heading + rng.uniform(-0.3, 0.3))
                turn = rotation(axis, tilt) @ yaw
                corners = cube_corners(die.size, turn, (0.0, 0.0), 0.0).reshape(-1, 3)
                if (corners[:, :2] @ direction)[corners[:, 2].argmax()] < 0:
                    turn = rotation(axis, -tilt) @ yaw
                own = _extent(cube_corners(die.size, turn, (0.0, 0.0), 0.0), np.zeros(2), direction)
                fx, fy, fw, fh = self.scene.floor
                xy = self.floor_point(i)
                # Slide it along `direction` until its raised edge touches the floor's edge.
                if direction[0]:
                    xy[0] = (fx + fw - own - 0.5) if direction[0] > 0 else (fx + own + 0.5)
                else:
                    xy[1] = (fy + fh - own - 0.5) if direction[1] > 0 else (fy + own + 0.5)
                if self.free(i, xy, (), turn):
                    die.turn = turn
                    self.keep(i, xy)
                    return True
                continue
            if supports:
                j = supports[int(rng.integers(len(supports)))]
                own = _extent(cube_corners(die.size, turn, (0.0, 0.0), 0.0), np.zeros(2), direction)
                theirs = _extent(cube_corners(self.dice[j].size, self.dice[j].turn, tuple(self.placed[j]), 0.0),
                                 self.placed[j], -direction)
                xy, ignore = self.placed[j] - direction * (own + theirs + 0.5), (j,)
            else:
                xy, ignore = self.floor_point(i), ()
            if self.inside(i, xy) and self.free(i, xy, ignore, turn):
                die.turn = turn
                self.keep(i, xy)
                return True
        return False


def _lay_out(placer: _Placer, order: list[int], cut: int | None, cocked: int | None, lower: int | None,
             upper: int | None, outside: int | None = None) -> bool:
    """One attempt to place every die; False as soon as one does not fit."""
    rng, dice = placer.rng, placer.dice
    for die in dice:
        die.turn, die.base_z, die.motion = _rest_turn(rng), 0.0, (0.0, 0.0)
    if cut is not None and not placer.place(cut, placer.edge_point, may_leave_frame=True):
        return False
    if outside is not None and not placer.place(outside, placer.table_point):
        return False
    if lower is not None:
        dice[lower].turn = rotation((0, 0, 1), rng.uniform(0, 2 * np.pi))  # flat: a die must rest on it
        if not placer.place(lower, placer.floor_point):
            return False
    for i in order:
        if i not in placer.placed and i not in (cocked, upper) and not placer.place(i, placer.near_point):
            return False
    # A cocked die leans on a die in the tray: not the one cut by the frame, under another, or on the table.
    if cocked is not None and not placer.leaning(cocked, [j for j in placer.placed if j not in (cut, lower, outside)]):
        return False
    return upper is None or lower is None or placer.on_top_of(upper, lower)


def _place(rng: np.random.Generator, dice: list[_Die], hazards: frozenset[str], scene: _Scene) -> None:
    """Positions and poses: no two dice overlap unless stacked; hazards go to different dice where possible."""
    n = len(dice)
    if n == 0:
        return
    order = [int(i) for i in rng.permutation(n)]
    roles: dict[str, int] = {}
    pool = list(order)
    if "stacked" in hazards:
        roles["stacked_lower"], roles["stacked_upper"] = pool.pop(0), pool.pop(0)
    for hazard in ("cut", "cocked", "blurred", "outside"):
        if hazard in hazards:
            roles[hazard] = pool.pop(0) if pool else order[0]
    for role, index in roles.items():
        dice[index].hazards.add(role.split("_")[0])
    cut, cocked, outside = roles.get("cut"), roles.get("cocked"), roles.get("outside")
    lower, upper = roles.get("stacked_lower"), roles.get("stacked_upper")

    floor_area = max(scene.floor[2] * scene.floor[3], 1)
    for _attempt in range(8):
        # Rejection sampling stalls long before the dice cover the floor: shrink crowded dice up front.
        crowding = sum((1.5 * die.size) ** 2 for die in dice) / floor_area
        placer = _Placer(rng, dice, scene)
        if crowding < 0.8 and _lay_out(placer, order, cut, cocked, lower, upper, outside):
            break
        for die in dice:  # Too crowded: shrink the dice and try again.
            die.size *= 0.9
    else:
        width, height = scene.size
        raise RenderError(f"cannot fit {n} dice without overlap in a {width}x{height} tray; ask for fewer or smaller "
                          "dice (die_size)")
    for i, xy in placer.placed.items():
        dice[i].xy = (float(xy[0]), float(xy[1]))
    if "blurred" in roles:
        i = roles["blurred"]
        angle = rng.uniform(0, 2 * np.pi)
        length = dice[i].size * rng.uniform(0.35, 0.8)
        dice[i].motion = (length * np.cos(angle), length * np.sin(angle))

# ---------------------------------------------------------------------------------------------------------------
# Composition: tray, shadows, dice, hand, light, sensor.

def _sprite(die: _Die, scene: _Scene) -> DieSprite:
    return draw_die(die.texture, die.look, die.size, die.turn, die.xy, die.base_z, scene.camera, scene.light,
                    motion=die.motion)


def _paste(image: np.ndarray, sprite: DieSprite) -> None:
    height, width = image.shape[:2]
    h, w = sprite.alpha.shape
    x0, y0 = max(sprite.x0, 0), max(sprite.y0, 0)
    x1, y1 = min(sprite.x0 + w, width), min(sprite.y0 + h, height)
    if x0 >= x1 or y0 >= y1:
        return
    sx, sy = x0 - sprite.x0, y0 - sprite.y0
    alpha = sprite.alpha[sy:sy + y1 - y0, sx:sx + x1 - x0, None]
    colour = sprite.colour[sy:sy + y1 - y0, sx:sx + x1 - x0]
    region = image[y0:y1, x0:x1]
    region += (colour - region) * alpha


def _box(sprite: DieSprite, size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    rows = np.flatnonzero((sprite.alpha > 0.5).any(axis=1))
    cols = np.flatnonzero((sprite.alpha > 0.5).any(axis=0))
    if rows.size == 0:
        return None
    x0, x1 = max(sprite.x0 + cols[0], 0), min(sprite.x0 + cols[-1] + 1, size[0])
    y0, y1 = max(sprite.y0 + rows[0], 0), min(sprite.y0 + rows[-1] + 1, size[1])
    if x0 >= x1 or y0 >= y1:
        return None
    return int(x0), int(y0), int(x1 - x0), int(y1 - y0)


def _shadows(image: np.ndarray, dice: list[_Die], scene: _Scene) -> np.ndarray:
    """Darken the tray under and beside each die (in place): its shadow cast along the light, and the contact
    shadow where it touches the floor. Shadows are local and smooth, so each is drawn in a patch around its die at
    half resolution."""
    if not scene.shadows or not dice:
        return image
    height, width = image.shape[:2]
    light = scene.light
    for die in dice:
        corners = cube_corners(die.size, die.turn, die.xy, die.base_z).reshape(-1, 3)
        on_floor = corners - light[None, :] * (corners[:, 2:3] / light[2])
        on_floor[:, 2] = 0
        cast_pts = scene.camera.project(on_floor)
        base = corners[corners[:, 2] <= corners[:, 2].min() + 0.3 * die.size].copy()
        base[:, 2] = 0
        contact_pts = scene.camera.project(base) if die.base_z == 0 and len(base) >= 3 else None
        sigma = 0.09 * die.size  # at half resolution
        margin = int(3 * sigma * 2) + 4
        x0 = max(int(cast_pts[:, 0].min()) - margin, 0)
        y0 = max(int(cast_pts[:, 1].min()) - margin, 0)
        x1 = min(int(cast_pts[:, 0].max()) + margin, width)
        y1 = min(int(cast_pts[:, 1].max()) + margin, height)
        if x0 >= x1 or y0 >= y1:
            continue
        half = ((x1 - x0 + 1) // 2, (y1 - y0 + 1) // 2)
        origin = np.array([x0, y0])

        def to_patch(pts: np.ndarray, origin: np.ndarray = origin) -> np.ndarray:
            return cv2.convexHull(((pts - origin) * 8).round().astype(np.int32))  # half scale, 4 fraction bits

        cast = np.zeros((half[1], half[0]), np.float32)
        cv2.fillConvexPoly(cast, to_patch(cast_pts), 1.0, cv2.LINE_AA, 4)
        darkening = 1 - scene.shadow_strength * cv2.GaussianBlur(cast, (0, 0), sigma)
        if contact_pts is not None:
            contact = np.zeros_like(cast)
            cv2.fillConvexPoly(contact, to_patch(contact_pts), 1.0, cv2.LINE_AA, 4)
            darkening -= 0.25 * cv2.GaussianBlur(contact, (0, 0), 0.03 * die.size + 0.3)
        darkening = cv2.resize(darkening.clip(0.3, 1), (half[0] * 2, half[1] * 2), interpolation=cv2.INTER_LINEAR)
        patch = image[y0:y1, x0:x1]
        darkening = darkening[:y1 - y0, :x1 - x0]
        patch *= cv2.merge([darkening, darkening, darkening])
    return image


Box = tuple[int, int, int, int]


def _compose(scene: _Scene, dice: list[_Die], hand: Hand | None = None
             ) -> tuple[np.ndarray, list[Box | None], list[tuple[float, float]]]:
    """The noise-free frame, each die's box and the image position of its upward face's centre."""
    image = _shadows(scene.background.copy(), dice, scene)
    boxes: list[Box | None] = [None] * len(dice)
    centres: list[tuple[float, float]] = [(0.0, 0.0)] * len(dice)
    # Painted from the farthest from the camera: of two dice resting against each other, the nearer hides a part of
    # the other, as of a cocked die and the die it leans on (dice apart never overlap in the picture).
    for index in sorted(range(len(dice)), key=lambda i: (dice[i].base_z, -_distance(scene.camera, dice[i]))):
        die = dice[index]
        sprite = _sprite(die, scene)
        _paste(image, sprite)
        boxes[index] = _box(sprite, scene.size)
        corners = cube_corners(die.size, die.turn, die.xy, die.base_z)
        up = int(np.argmax(corners[:, :, 2].mean(axis=1)))
        centres[index] = tuple(float(v) for v in scene.camera.project(corners[up].mean(axis=0, keepdims=True))[0])
    if hand is not None:
        image = paint_hand(image, hand)
    return cv2.multiply(image, scene.gain), boxes, centres


def _distance(camera: Camera, die: _Die) -> float:
    """How far the die's middle is from the camera."""
    return float(np.linalg.norm(np.array([die.xy[0], die.xy[1], die.base_z + die.size / 2]) - camera.position))


def _check_hazards(hazards: frozenset[str] | set[str]) -> frozenset[str]:
    hazards = frozenset(hazards)
    unknown = sorted(hazards - HAZARDS)
    if unknown:
        raise RenderError(f"unknown hazard(s) {', '.join(unknown)}; expected some of {', '.join(sorted(HAZARDS))}")
    if {"cut", "outside"} <= hazards:
        raise RenderError("hazards cut and outside cannot go together: a cut die needs the tray's floor to reach the "
                          "frame's edge, a die outside it the table in view beside the tray")
    return hazards


def _check_model(model: DieModel) -> DieModel:
    if not isinstance(model, DieModel) or not model.kinds or not all(k.faces for k in model.kinds):
        raise RenderError(f"model must be a DieModel with at least one kind of die and one face, got {model!r}")
    return model


def render_tray(seed: int, model: DieModel = D6, *, n_dice: int | None = None, faces: list[str] | None = None,
                size: tuple[int, int] = (640, 480), hazards: frozenset[str] = frozenset(), tray_seed: int | None = None,
                **look: Any) -> RenderedTray:
    """One photo of dice at rest in a tray, and the truth about each die.

    faces: the labels to show (one die each); else random faces (Excape: die A and die B alternate).
    hazards: any of "cocked", "stacked", "cut", "blurred" (given to one die each, two for stacked) and "hand".
    tray_seed: draw the tray, camera and light as render_tray(tray_seed, ...) would (the same look given): throws
    of their own seeds land in one tray, as at a table.
    look: overrides of the random look, see `Look`.
    """
    streams = _streams(seed)
    size = _check_size(size)
    hazards = _check_hazards(hazards)
    options = Look.from_options(look)
    scene = _make_scene(_tray_stream(streams, tray_seed), size, options, full_floor="cut" in hazards,
                        outside="outside" in hazards)
    dice = _plan_dice(streams["dice"], _check_model(model), faces, n_dice, hazards, options, scene)
    hand = sample_hand(streams["hand"]) if "hand" in hazards else None
    clean, boxes, centres = _compose(scene, dice, hand)
    image = finish_frame(clean, streams["noise"], defocus=scene.defocus, noise=scene.noise,
                         jpeg_quality=scene.jpeg_quality)
    truth = []
    for die, box, centre in zip(dice, boxes, centres, strict=True):
        if box is None:  # cannot happen for placed dice; a die with no pixels has no truth to tell
            raise RenderError("a die ended up entirely outside the picture")
        truth.append(TrayDie(label=die.faces[0].label, appearance=die.faces[0].appearance, box=box,
                             hazards=frozenset(die.hazards or ()), kind=die.kind.name, colour=die.look.colour,
                             size=die.size, centre=centre))
    return RenderedTray(image=image, dice=tuple(truth), hazards=hazards & TRAY_HAZARDS, tray=scene.surface,
                        floor=scene.floor, rim=scene.rim)


def _tray_stream(streams: dict[str, np.random.Generator], tray_seed: int | None) -> np.random.Generator:
    """The stream the tray is drawn from: the seed's own, or another seed's (tray_seed)."""
    return streams["tray"] if tray_seed is None else _streams(tray_seed)["tray"]


def empty_tray(seed: int, size: tuple[int, int] = (640, 480), **look: Any) -> np.ndarray:
    """The tray of `render_tray(seed, size=size, **look)` with no dice in it (BGR uint8)."""
    streams = _streams(seed)
    scene = _make_scene(streams["tray"], _check_size(size), Look.from_options(look), full_floor=False)
    clean, _, _ = _compose(scene, [])
    return finish_frame(clean, streams["noise"], defocus=scene.defocus, noise=scene.noise,
                        jpeg_quality=scene.jpeg_quality)


@dataclass(frozen=True)
class Flicker:
    """Lights on mains power pulse at twice its frequency (100 Hz on 50 Hz mains), LED lamps often by much of their
    light. A camera with a rolling shutter, exposing each row for less than a pulse, sees the pulses as bright and
    dark bands across the frame, and the bands move from frame to frame when the frame rate is no whole fraction of
    the pulse rate (30 frames a second under 100 Hz: a third of a pulse a frame)."""

    depth: float = 0.1      # the light's swing either way, a fraction of its mean
    period: float = 0.4     # one pulse, in frame heights: the pulse's length over the sensor's readout time
    step: float = 1 / 3     # how far the bands move each frame, in pulses

    def __post_init__(self) -> None:
        if not (0 <= self.depth < 1 and self.period > 0 and np.isfinite(self.step)):
            raise RenderError(f"flicker needs depth 0..1 (less than 1), a period > 0 and a finite step, got {self}")

    def bands(self, height: int, frame: int, phase: float) -> np.ndarray:
        """(height, 1, 1) float32 gains of the rows of frame number `frame`, the bands starting at `phase`."""
        rows = np.arange(height) / (self.period * height)
        gains = 1 + self.depth * np.sin(2 * np.pi * (rows + phase + self.step * frame))
        return gains.astype(np.float32)[:, None, None]


def _random_turn(rng: np.random.Generator) -> np.ndarray:
    return rotation(rng.normal(size=3), rng.uniform(0, 2 * np.pi))


def roll_frames(seed: int, model: DieModel = D6, *, faces: list[str] | None = None, n_dice: int | None = None,
                size: tuple[int, int] = (640, 480), rolling: int = 6, still: int = 8, hand_frames: int = 0,
                flicker: Flicker | None = None, tray_seed: int | None = None, view: np.ndarray | None = None,
                **look: Any) -> list[np.ndarray]:
    """A throw as the camera sees it: `hand_frames` of a hand reaching in and out, `rolling` frames of dice
    tumbling in with motion blur, then `still` frames of the dice at rest that differ only by sensor noise (and, under
    `flicker`, by the bands the lights' pulses make, starting at a phase drawn from the seed).

    view: a 2x3 affine matrix (in the frame's pixels) the scene is seen through, the camera knocked: its view moved
    and turned. It moves the light that reaches the sensor; the bands of `flicker` and the sensor's noise stay on the
    sensor's rows and pixels, as a knocked camera's do.

    n_dice defaults to len(faces), else 2. The dice at rest are exactly those of `render_tray(seed, model,
    faces=faces, n_dice=n_dice, size=size, tray_seed=tray_seed, **look)` (with that n_dice), so its truth is the
    truth of this throw.
    """
    if n_dice is None and faces is None:
        n_dice = 2
    for name, value in (("rolling", rolling), ("still", still), ("hand_frames", hand_frames)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 500:
            raise RenderError(f"{name} must be a frame count 0..500, got {value!r}")
    if view is not None and (np.shape(view) != (2, 3) or not np.all(np.isfinite(view))):
        raise RenderError(f"view must be a 2x3 affine matrix of finite numbers, got {view!r}")
    streams = _streams(seed)
    size = _check_size(size)
    options = Look.from_options(look)
    scene = _make_scene(_tray_stream(streams, tray_seed), size, options, full_floor=False)
    dice = _plan_dice(streams["dice"], _check_model(model), faces, n_dice, frozenset(), options, scene)
    motion_rng, noise_rng = streams["motion"], streams["noise"]
    phase = float(streams["flicker"].random())
    frames: list[np.ndarray] = []

    def finish(clean: np.ndarray) -> np.ndarray:
        if view is not None:
            clean = cv2.warpAffine(clean, np.asarray(view, np.float64), size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
        if flicker is not None:
            clean = clean * flicker.bands(clean.shape[0], len(frames), phase)
        return finish_frame(clean, noise_rng, defocus=scene.defocus, noise=scene.noise,
                            jpeg_quality=scene.jpeg_quality)

    edge = int(motion_rng.integers(4))
    hand = sample_hand(streams["hand"], edge=edge, entry=motion_rng.uniform(0.3, 0.7))
    sweep = motion_rng.choice([-0.06, 0.06])
    for t in range(hand_frames):
        # The hand reaches in, lets go and pulls back (deepest in the middle of its frames), moving sideways.
        reach = 0.15 + 0.35 * np.sin(np.pi * (t + 0.5) / hand_frames)
        pose = replace(hand, reach=float(reach), entry=float(np.clip(hand.entry + sweep * t, 0.1, 0.9)))
        clean, _, _ = _compose(scene, [], pose)
        frames.append(finish(clean))

    width, height = size
    inward = {0: (1.0, 0.0), 1: (0.0, 1.0), 2: (-1.0, 0.0), 3: (0.0, -1.0)}[edge]
    rest = [(np.array(d.xy), d.turn) for d in dice]
    # They come in over the edge: every rolling frame shows some of each die.
    starts = [np.clip(np.array(d.xy) - np.array(inward) * motion_rng.uniform(0.5, 0.9) * max(width, height)
                      + motion_rng.normal(0, 0.05 * width, 2), -0.2 * d.size, np.array([width, height]) + 0.2 * d.size)
              for d in dice]
    previous = [s.copy() for s in starts]
    for t in range(rolling):
        progress = (t + 1) / (rolling + 1)
        moving = []
        for die, (xy, turn), start, before in zip(dice, rest, starts, previous, strict=True):
            remaining = (1 - progress) ** 2
            position = xy + (start - xy) * remaining
            die_turn = _random_turn(motion_rng) if progress < 0.75 else (
                rotation((0, 0, 1), motion_rng.uniform(-0.6, 0.6)) @ turn)
            hop = abs(np.sin(progress * 9)) * 0.4 * die.size * remaining
            delta = position - before
            moving.append(die.moved((float(position[0]), float(position[1])), hop, die_turn,
                                    (float(delta[0]) * 0.6, float(delta[1]) * 0.6)))
            before[:] = position
        clean, _, _ = _compose(scene, moving)
        frames.append(finish(clean))

    if still:
        clean, _, _ = _compose(scene, dice)
        for _ in range(still):
            frames.append(finish(clean))
    return frames
