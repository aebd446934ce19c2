"""Everything in a virtual tray photo that is not a die: the tray, the light, a hand, and the camera's sensor.

Kept apart from the die drawing so a sequence of frames can share one tray and one light while the dice move.
All images here are float32 BGR in 0..255 until `finish_frame` turns them into what a camera delivers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.render_die import RenderError

# Tray surfaces: name -> (light or dark, base BGR colours to choose from).
TRAY_SURFACES: dict[str, tuple[str, tuple[tuple[int, int, int], ...]]] = {
    "card": ("light", ((222, 224, 226), (205, 208, 210), (232, 230, 225), (196, 200, 204))),
    "felt": ("dark", ((40, 85, 30), (95, 45, 25), (35, 32, 30), (40, 30, 100), (70, 60, 55))),
    "wood": ("dark", ((40, 75, 120), (55, 95, 150), (30, 50, 80), (85, 130, 175))),
}
SKIN_TONES = ((150, 175, 225), (120, 150, 210), (95, 125, 180), (70, 95, 150), (45, 65, 105))


@dataclass(frozen=True)
class TrayLook:
    surface: str                       # a TRAY_SURFACES key
    colour: tuple[float, float, float]
    floor: tuple[int, int, int, int]   # x, y, w, h of the floor in tray coordinates; outside it are walls
    wall_width: int


def tray_surface(rng: np.random.Generator, surface: str, size: tuple[int, int], full_floor: bool) -> TrayLook:
    width, height = size
    base = TRAY_SURFACES[surface][1]
    colour = np.asarray(base[rng.integers(len(base))], np.float64) + rng.normal(0, 6, 3)
    if full_floor:
        return TrayLook(surface, tuple(colour.clip(0, 255)), (0, 0, width, height), 0)
    wall = int(rng.uniform(0.03, 0.06) * width)
    left, right = (int(rng.uniform(0.0, 0.06) * width) + wall for _ in range(2))
    top, bottom = (int(rng.uniform(0.0, 0.06) * height) + wall for _ in range(2))
    return TrayLook(surface, tuple(colour.clip(0, 255)), (left, top, width - left - right, height - top - bottom),
                    wall)


_NOISE_BANK_SIDE = 1024


@lru_cache(maxsize=1)
def _noise_bank() -> np.ndarray:
    """A fixed block of Gaussian noise, made once per process on first use.

    Drawing ~300k normals per frame was a third of the render time; a random window into a fixed bank (chosen by
    the caller's generator, so still a pure function of the seed) looks the same to any reader of the image.
    """
    bank = np.random.default_rng(20261130).standard_normal((_NOISE_BANK_SIDE, _NOISE_BANK_SIDE), dtype=np.float32)
    bank.flags.writeable = False
    return bank


def gaussian_noise(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """Standard normal noise of this shape (float32): a random window of the bank, or fresh if it is larger."""
    side = _NOISE_BANK_SIDE
    if height > side or width > side:
        return rng.standard_normal((height, width), dtype=np.float32)
    y, x = int(rng.integers(side - height + 1)), int(rng.integers(side - width + 1))
    window = _noise_bank()[y:y + height, x:x + width]
    flip = int(rng.integers(4))  # mirror the window too, so windows that overlap do not repeat as they are
    return cv2.flip(window, (-1, 0, 1)[flip - 1]) if flip else window.copy()


def _noise_field(rng: np.random.Generator, height: int, width: int, cells: tuple[int, int]) -> np.ndarray:
    """Smooth noise: a few random cells, scaled up smoothly (cubic to a quarter size, then linear)."""
    coarse = rng.standard_normal(cells).astype(np.float32)
    quarter = cv2.resize(coarse, (max(cells[1], width // 4), max(cells[0], height // 4)),
                         interpolation=cv2.INTER_CUBIC)
    return cv2.resize(quarter, (width, height), interpolation=cv2.INTER_LINEAR)


def draw_tray(rng: np.random.Generator, look: TrayLook, size: tuple[int, int]) -> np.ndarray:
    """The empty tray seen straight from above, in tray-floor coordinates."""
    width, height = size
    colour = np.asarray(look.colour, np.float32)
    fine = gaussian_noise(rng, height, width)
    blotches = _noise_field(rng, height, width, (6, 8))
    if look.surface == "card":
        grain = cv2.addWeighted(fine, 2.5, blotches, 3.0, 0)
    elif look.surface == "felt":
        # Felt: fibres are short bright/dark streaks a pixel or two long.
        grain = cv2.addWeighted(cv2.GaussianBlur(fine, (3, 3), 0.7), 9.0, blotches, 5.0, 0)
    else:
        angle = rng.uniform(0, np.pi)
        along = (np.arange(width, dtype=np.float32)[None, :] * np.float32(np.cos(angle))
                 + np.arange(height, dtype=np.float32)[:, None] * np.float32(np.sin(angle)))
        warp = _noise_field(rng, height, width, (4, 5)) * np.float32(rng.uniform(8, 20))
        period = rng.uniform(8, 24) * width / 640
        rings = np.sin((along + warp) * np.float32(2 * np.pi / period))
        figure = 0.6 + 0.4 * _noise_field(rng, height, width, (3, 3))
        grain = cv2.addWeighted(rings * figure, rng.uniform(3.0, 7.0), fine, 3.0, 0)
    # grain is in grey levels around the surface colour: colour_c + grain * colour_c / 128 for each channel,
    # done as a 3x4 matrix (numpy broadcasting is several times slower at this size).
    tint = colour / np.float32(128.0)
    grains = cv2.merge([grain, grain, grain])

    def matrix(scale: float, offset: np.ndarray) -> np.ndarray:
        return np.column_stack([np.diag(tint * np.float32(scale)), offset]).astype(np.float32)

    tray = cv2.transform(grains, matrix(1.0, colour))
    if not look.wall_width:
        return tray
    # Walls: a darker band in shadow around the floor, then the table beyond the tray's rim. Both are thin
    # strips around the floor, so only they are redone.
    x, y, w, h = look.floor
    ww = look.wall_width
    wall_factor = np.float32(rng.uniform(0.35, 0.75) if look.surface == "card" else 0.6)
    table = (rng.uniform(170, 235) + rng.normal(0, 4, 3)).astype(np.float32)
    bx0, by0, bx1, by1 = max(0, x - ww), max(0, y - ww), min(width, x + w + ww), min(height, y + h + ww)
    for rows, cols in _ring((x, y, x + w, y + h), (bx0, by0, bx1, by1)):
        tray[rows, cols] *= wall_factor
    for rows, cols in _ring((bx0, by0, bx1, by1), (0, 0, width, height)):
        tray[rows, cols] = cv2.transform(grains[rows, cols], matrix(0.3, table))
    return cv2.GaussianBlur(tray, (5, 5), 1.2)


def _ring(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> list[tuple[slice, slice]]:
    """The (at most four) strips between an inner and an outer rectangle (x0, y0, x1, y1), as (rows, cols)."""
    ix0, iy0, ix1, iy1 = inner
    ox0, oy0, ox1, oy1 = outer
    strips = [(slice(oy0, iy0), slice(ox0, ox1)), (slice(iy1, oy1), slice(ox0, ox1)),
              (slice(iy0, iy1), slice(ox0, ix0)), (slice(iy0, iy1), slice(ix1, ox1))]
    return [(rows, cols) for rows, cols in strips if rows.stop > rows.start and cols.stop > cols.start]


def light_field(rng: np.random.Generator, size: tuple[int, int], unevenness: float) -> np.ndarray:
    """Per-pixel BGR gain: a tint, a gradient across the tray and a vignette, scaled by `unevenness` (0..1).

    Light varies slowly, so it is computed on a coarse grid and scaled up.
    """
    width, height = size
    cw, ch = max(2, width // 8), max(2, height // 8)
    xs = ((np.arange(cw, dtype=np.float32) + 0.5) / cw - 0.5)[None, :]
    ys = ((np.arange(ch, dtype=np.float32) + 0.5) / ch - 0.5)[:, None] * (height / width)
    direction = rng.uniform(0, 2 * np.pi)
    gradient = 1 + unevenness * rng.uniform(0.15, 0.45) * (xs * np.cos(direction) + ys * np.sin(direction))
    vignette = 1 - unevenness * rng.uniform(0.1, 0.5) * (xs ** 2 + ys ** 2) * 2
    spot_x, spot_y = rng.uniform(-0.4, 0.4, 2)
    spot = 1 + unevenness * rng.uniform(0, 0.15) * np.exp(-((xs - spot_x) ** 2 + (ys - spot_y) ** 2) / 0.05)
    gain = (gradient * vignette * spot * rng.uniform(0.85, 1.1)).astype(np.float32)
    tint = (1 + rng.normal(0, 0.02, 3)).astype(np.float32)
    coarse = gain[..., None] * tint[None, None, :]
    return cv2.resize(coarse, (width, height), interpolation=cv2.INTER_LINEAR)


@dataclass(frozen=True)
class Hand:
    """A hand and forearm reaching into the frame from one edge; `reach` can change from frame to frame."""

    edge: int                 # 0..3 = left, top, right, bottom
    entry: float              # where along that edge the arm comes in, 0..1
    reach: float              # how far the fingertips get into the frame, fraction of the way across
    bend: float               # radians off straight in
    arm_width: float          # pixels at 640 wide
    spread: float             # of the fingers
    thumb: int                # which side the thumb is on, +-1
    skin: tuple[float, float, float]
    shadow_offset: tuple[float, float]  # pixels at 640 wide
    texture_seed: int


def sample_hand(rng: np.random.Generator, *, edge: int | None = None, entry: float | None = None,
                reach: float | None = None) -> Hand:
    # Brighter or darker, and only slightly off the tone, so skin always stays skin-coloured (red > green > blue).
    tone = np.asarray(SKIN_TONES[rng.integers(len(SKIN_TONES))], np.float64) * rng.uniform(0.9, 1.1) + rng.normal(
        0, 3, 3)
    return Hand(edge=int(rng.integers(4)) if edge is None else edge,
                entry=rng.uniform(0.25, 0.75) if entry is None else entry,
                reach=rng.uniform(0.3, 0.6) if reach is None else reach,
                bend=rng.uniform(-0.35, 0.35), arm_width=rng.uniform(70, 95), spread=rng.uniform(0.05, 0.25),
                thumb=1 if rng.random() < 0.5 else -1, skin=tuple(tone.clip(0, 255)),
                shadow_offset=(rng.uniform(4, 12), rng.uniform(4, 12)), texture_seed=int(rng.integers(2**62)))


def hand_mask(hand: Hand, size: tuple[int, int]) -> np.ndarray:
    """Coverage (float32 0..1) of the hand in a frame of this size."""
    width, height = size
    scale = width / 640
    # Arm axis from outside the frame inwards.
    if hand.edge in (0, 2):
        start = np.array([-0.3 * width if hand.edge == 0 else 1.3 * width, hand.entry * height])
        inward = np.array([1.0 if hand.edge == 0 else -1.0, 0.0])
        across = width
    else:
        start = np.array([hand.entry * width, -0.3 * height if hand.edge == 1 else 1.3 * height])
        inward = np.array([0.0, 1.0 if hand.edge == 1 else -1.0])
        across = height
    direction = inward * np.cos(hand.bend) + np.array([-inward[1], inward[0]]) * np.sin(hand.bend)
    tip = start + direction * (0.3 * across + hand.reach * across) / max(abs(direction @ inward), 0.5)
    palm_len = 95 * scale
    wrist = tip - direction * palm_len
    side = np.array([-direction[1], direction[0]])
    mask = np.zeros((height, width), np.float32)
    arm_width = int(hand.arm_width * scale)
    cv2.line(mask, _pt(start), _pt(wrist), 1.0, arm_width, cv2.LINE_AA)
    palm_centre = wrist + direction * palm_len * 0.35
    angle = float(np.degrees(np.arctan2(direction[1], direction[0])))
    cv2.ellipse(mask, _pt(palm_centre), (int(palm_len * 0.45), int(arm_width * 0.62)), angle, 0, 360, 1.0, -1,
                cv2.LINE_AA)
    finger_width = max(3, int(17 * scale))
    for i, offset in enumerate((-1.5, -0.5, 0.5, 1.5)):
        base = palm_centre + direction * palm_len * 0.3 + side * offset * finger_width * 1.15
        finger_dir = direction + side * offset * hand.spread
        finger_dir /= np.linalg.norm(finger_dir)
        length = palm_len * (0.55 + 0.12 * (1.5 - abs(offset))) * (0.7 if i == 3 else 1.0)
        cv2.line(mask, _pt(base), _pt(base + finger_dir * length), 1.0, finger_width, cv2.LINE_AA)
    thumb_side = side * hand.thumb
    thumb_base = wrist + direction * palm_len * 0.2 + thumb_side * arm_width * 0.45
    thumb_dir = direction * 0.6 + thumb_side * 0.8
    cv2.line(mask, _pt(thumb_base), _pt(thumb_base + thumb_dir * palm_len * 0.5), 1.0, int(finger_width * 1.2),
             cv2.LINE_AA)
    return cv2.GaussianBlur(mask, (0, 0), 1.0 * scale + 0.5)


def _pt(p: np.ndarray) -> tuple[int, int]:
    return round(float(p[0])), round(float(p[1]))


def paint_hand(image: np.ndarray, hand: Hand) -> np.ndarray:
    """Lay the skin-coloured hand over the image, with a soft shadow beside it."""
    height, width = image.shape[:2]
    scale = width / 640
    mask = hand_mask(hand, (width, height))
    dx, dy = hand.shadow_offset
    shift = np.float32([[1, 0, dx * scale], [0, 1, dy * scale]])
    shadow = cv2.GaussianBlur(cv2.warpAffine(mask, shift, (width, height)), (0, 0), 6 * scale)
    image = image * (1 - 0.45 * shadow[..., None])
    # Shading across the arm: distance from the mask's edge makes it rounder.
    depth = cv2.GaussianBlur(mask, (0, 0), 10 * scale)
    texture = 1 + 0.05 * _noise_field(np.random.default_rng(hand.texture_seed), height, width, (12, 16))
    skin = np.asarray(hand.skin, np.float32)
    painted = skin[None, None, :] * ((0.75 + 0.35 * depth) * texture)[..., None]
    return image * (1 - mask[..., None]) + painted * mask[..., None]


def finish_frame(image: np.ndarray, rng: np.random.Generator, *, defocus: float, noise: float,
                 jpeg_quality: int | None) -> np.ndarray:
    """What the sensor makes of the light: defocus, shot and read noise, 8 bits, optional JPEG artefacts."""
    if defocus > 0.05:
        image = cv2.GaussianBlur(image, (0, 0), defocus)
    if noise > 0:
        # Mostly luminance noise at full resolution plus weaker, coarser colour noise; shot noise grows with
        # brightness, read noise does not (its level is worked out at half resolution: it varies slowly).
        height, width = image.shape[:2]
        half_h, half_w = (height + 1) // 2, (width + 1) // 2
        grey = cv2.resize(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (half_w, half_h), interpolation=cv2.INTER_AREA)
        sigma = cv2.sqrt(np.clip(grey, 0, 255) * np.float32(1 / 255)) * np.float32(0.4 * noise) + np.float32(
            0.6 * noise)
        sigma = cv2.resize(sigma, (width, height), interpolation=cv2.INTER_NEAREST)
        luma = gaussian_noise(rng, height, width)
        luma *= sigma
        chroma = gaussian_noise(rng, half_h, 3 * half_w).reshape(half_h, half_w, 3)
        chroma *= np.float32(0.5 * noise)
        noisy = cv2.resize(chroma, (width, height), interpolation=cv2.INTER_NEAREST)
        cv2.add(noisy, cv2.merge([luma, luma, luma]), noisy)
        image = cv2.add(noisy, image, noisy)
    # To 8 bits, rounded and saturated (negative values clamped first: OpenCV's conversion takes magnitudes).
    out = cv2.convertScaleAbs(cv2.max(image, 0.0))
    if jpeg_quality is not None:
        if not 1 <= jpeg_quality <= 100:
            raise RenderError(f"jpeg_quality must be 1..100 or None, got {jpeg_quality}")
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
        if ok:
            out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out
