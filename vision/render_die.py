"""Draw one die for the virtual tray: its face textures and a rounded cube seen by a pinhole camera.

The die is a real cube in 3D (tray-plane pixels for x/y, height z towards the camera), so tilted ("cocked"),
stacked and tumbling dice, side faces seen under perspective and foreshortened top faces all come from one
model instead of special cases. Each visible face is a texture warped onto its projected quad; the silhouette
is opened with a disc so the corners come out rounded like real dice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.errors import DiceCompanionError
from vision.models import PIP_LAYOUTS, Face


class RenderError(DiceCompanionError):
    """The virtual tray was asked for something it cannot draw."""


PIP_RADIUS = 0.16          # face units (the face spans -1..1): real pips are about a sixth of the face wide
CROSS_HALF_LENGTH = 0.66   # Excape's X: two printed bars, face units
CROSS_HALF_WIDTH = 0.13
BEVEL_WIDTH = 0.12         # fraction of the face darkened towards its edges: real dice have rounded edges

# Texture corner order (top-left, top-right, bottom-right, bottom-left) as multiples of the face's u and v axes.
_CORNER_SIGNS = ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))


def rotation(axis: tuple[float, float, float] | np.ndarray, angle: float) -> np.ndarray:
    """Proper 3x3 rotation of `angle` radians about `axis` (Rodrigues' formula)."""
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)


def _face_frames() -> np.ndarray:
    """(6, 3, 3): rows n, u, v of each face in the die's own frame; face 0 is the top (+z), 1 its opposite.

    Every frame is the top frame turned by a proper rotation, so no face is drawn mirrored.
    """
    top = np.eye(3)[[2, 0, 1]]  # n=+z, u=+x, v=+y
    turns = [np.eye(3), rotation((1, 0, 0), np.pi), rotation((0, 1, 0), np.pi / 2), rotation((0, 1, 0), -np.pi / 2),
             rotation((1, 0, 0), -np.pi / 2), rotation((1, 0, 0), np.pi / 2)]
    return np.stack([(turn @ top.T).T for turn in turns])


FACE_FRAMES = _face_frames()


@dataclass(frozen=True)
class DieLook:
    """How one die is coloured. Colours are BGR 0..255."""

    colour: str                                    # name: "white", "marbled", "translucent", ...
    body: tuple[float, float, float]
    pip: tuple[float, float, float]
    marble: tuple[float, float, float] | None = None  # second body colour swirled in
    opacity: float = 1.0                           # < 1 for translucent dice: the tray shows through
    corner: float = 0.14                           # corner radius as a fraction of the die's size


@dataclass(frozen=True)
class Camera:
    """Pinhole camera over the tray. World: x right, y down (image-like), z up towards the camera."""

    position: np.ndarray   # (3,)
    rotation: np.ndarray   # (3, 3) world -> camera directions
    focal: float
    principal: tuple[float, float]

    def project(self, points: np.ndarray) -> np.ndarray:
        """(N, 3) world points -> (N, 2) image points."""
        rel = (np.asarray(points, dtype=np.float64) - self.position) @ self.rotation.T
        depth = -rel[:, 2]
        if np.any(depth <= 1.0):
            raise RenderError("a die reached the camera: the camera is too low for the dice drawn")
        return np.stack([self.principal[0] + self.focal * rel[:, 0] / depth,
                         self.principal[1] + self.focal * rel[:, 1] / depth], axis=1)

    def floor_homography(self, width: int, height: int) -> np.ndarray:
        """Homography from tray-floor coordinates (z = 0) to image pixels."""
        src = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
        dst = self.project(np.column_stack([src, np.zeros(4)]))
        return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Low-frequency noise in 0..1: a few random cells upsampled smoothly."""
    coarse = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(coarse, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC).clip(0, 1)


@lru_cache(maxsize=16)
def _bevel(texture_px: int) -> np.ndarray:
    coords = (np.arange(texture_px, dtype=np.float32) + 0.5) / texture_px * 2 - 1
    edge = 1 - np.maximum(np.abs(coords)[None, :], np.abs(coords)[:, None])  # 0 at the edge, 1 at the centre
    bevel = 0.72 + 0.28 * np.clip(edge / BEVEL_WIDTH, 0, 1)
    bevel.flags.writeable = False
    return bevel


def face_texture(face: Face, look: DieLook, texture_px: int, rng: np.random.Generator) -> np.ndarray:
    """The face as a square float32 image (texture_px wide): BGR body with bevelled edges and its marks, and a
    4th channel of ones (the face's coverage once warped)."""
    t = texture_px
    texture = np.empty((t, t, 4), np.float32)
    texture[..., 3] = 1.0
    bevel = _bevel(t)[..., None]
    colour = np.asarray(look.body, np.float32)
    if look.marble is None:
        texture[..., :3] = bevel * colour
    else:
        swirl = _smooth_noise(rng, (t, t), 4)
        swirl = (0.5 + 0.5 * np.sin(swirl * 6.0))[..., None]  # bands, like poured resin
        texture[..., :3] = bevel * (colour * swirl + np.asarray(look.marble, np.float32) * (1 - swirl))
    _draw_marks(texture, face, (*look.pip, 1.0), t)
    return texture


def _to_px(u: float, t: int) -> float:
    return (u + 1) / 2 * t


def _draw_marks(img: np.ndarray, face: Face, colour: tuple[float, ...], t: int) -> None:
    shift = 4  # sub-pixel precision for cv2 drawing
    one = 1 << shift
    kind, _, value = face.appearance.partition(":")
    if kind == "pips":
        n = int(value)
        if n not in PIP_LAYOUTS:
            raise RenderError(f"no pip layout for {n} pips; expected one of {sorted(PIP_LAYOUTS)}")
        radius = round(PIP_RADIUS * t / 2 * one)
        for u, v in PIP_LAYOUTS[n]:
            centre = (round(_to_px(u, t) * one), round(_to_px(v, t) * one))
            cv2.circle(img, centre, radius, colour, -1, cv2.LINE_AA, shift)
    elif kind == "symbol" and value == "cross":
        for angle in (np.pi / 4, -np.pi / 4):
            along = np.array([np.cos(angle), np.sin(angle)])
            across = np.array([-along[1], along[0]])
            corners = [along * a * CROSS_HALF_LENGTH + across * b * CROSS_HALF_WIDTH
                       for a, b in _CORNER_SIGNS]
            poly = np.array([[round(_to_px(x, t) * one), round(_to_px(y, t) * one)] for x, y in corners], np.int32)
            cv2.fillConvexPoly(img, poly, colour, cv2.LINE_AA, shift)
    elif kind in ("taught", "symbol"):
        # A taught face has no drawing of its own here: print its label, which is what a user's die shows.
        text = face.label[:3] or "?"
        font = cv2.FONT_HERSHEY_SIMPLEX
        (w, h), _ = cv2.getTextSize(text, font, 1.0, 2)
        scale = 0.7 * t / max(w, h)
        thickness = max(1, round(scale * 2.5))
        (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
        ink = np.zeros((t, t), np.uint8)  # OpenCV draws text on 8-bit images only
        cv2.putText(ink, text, ((t - w) // 2, (t + h) // 2), font, scale, 255, thickness, cv2.LINE_AA)
        cover = (ink.astype(np.float32) / 255)[..., None]
        img[:] = img * (1 - cover) + np.asarray(colour, np.float32) * cover
    else:
        raise RenderError(f"cannot draw appearance {face.appearance!r}; expected 'pips:N', 'symbol:cross' "
                          "or 'taught:NAME'")


def cube_corners(size: float, turn: np.ndarray, centre_xy: tuple[float, float], base_z: float) -> np.ndarray:
    """(6, 4, 3) world corners of each face (texture corner order), the die's lowest point resting at base_z."""
    half = size / 2
    local = np.array([[frame[0] + su * frame[1] + sv * frame[2] for su, sv in _CORNER_SIGNS]
                      for frame in FACE_FRAMES]) * half
    world = local @ turn.T
    world[..., 0] += centre_xy[0]
    world[..., 1] += centre_xy[1]
    world[..., 2] += base_z - world[..., 2].min()
    return world


@dataclass(frozen=True)
class DieSprite:
    """A die drawn in its own patch: paste at (x0, y0) with `alpha` as coverage."""

    x0: int
    y0: int
    colour: np.ndarray  # float32 (h, w, 3)
    alpha: np.ndarray   # float32 (h, w), 0..1


def draw_die(texture_of: Callable[[int], np.ndarray], look: DieLook, size: float, turn: np.ndarray,
             centre_xy: tuple[float, float], base_z: float, camera: Camera, light: np.ndarray,
             *, motion: tuple[float, float] = (0.0, 0.0), supersample: int = 3) -> DieSprite:
    """Render the die into a sprite; `motion` smears it by that many pixels.

    texture_of(i) gives face i's texture (FACE_FRAMES order, BGR + a coverage channel of ones, see face_texture);
    it is only asked for the faces the camera sees.
    """
    corners = cube_corners(size, turn, centre_xy, base_z)
    normals = FACE_FRAMES[:, 0] @ turn.T
    face_centres = corners.mean(axis=1)
    facing = np.einsum("ij,ij->i", normals, camera.position - face_centres) > 0
    projected = camera.project(corners.reshape(-1, 3)).reshape(6, 4, 2)

    blur_len = float(np.hypot(*motion))
    margin = 3 + int(np.ceil(blur_len / 2))
    visible_pts = projected[facing].reshape(-1, 2)
    x0 = int(np.floor(visible_pts[:, 0].min())) - margin
    y0 = int(np.floor(visible_pts[:, 1].min())) - margin
    w = int(np.ceil(visible_pts[:, 0].max())) + margin - x0
    h = int(np.ceil(visible_pts[:, 1].max())) + margin - y0
    k = supersample if size < 36 else max(2, supersample - 1)  # big dice need less supersampling
    origin = np.array([x0, y0], np.float64)

    # The silhouette with rounded corners: the convex outline opened with a disc of the corner radius, done with
    # two distance transforms (erode by r, grow back by r), which is exact for a convex shape and cheap.
    hull = cv2.convexHull(((visible_pts - origin) * k * 16).round().astype(np.int32))
    outline = np.zeros((h * k, w * k), np.uint8)
    cv2.fillConvexPoly(outline, hull, 255, cv2.LINE_8, 4)
    radius = max(1.0, look.corner * size * k)
    inside = cv2.distanceTransform(outline, cv2.DIST_L2, 5)
    core = cv2.threshold(inside, radius, 255, cv2.THRESH_BINARY_INV)[1].astype(np.uint8)
    from_core = cv2.distanceTransform(core, cv2.DIST_L2, 5)
    silhouette = np.clip(radius + 0.5 - from_core, 0, 1)

    # Visible faces of a convex body never overlap, so their warped colour and coverage simply add up; where
    # no face covers (the rounded edges between faces) the darker body colour shows.
    ambient, diffuse = 0.55, 0.45
    top_shade = ambient + diffuse * max(float(light[2]), 0.0)
    faces = np.zeros((h * k, w * k, 4), np.float32)
    for index in np.flatnonzero(facing):
        texture = texture_of(int(index))
        t = texture.shape[0]
        shade = (ambient + diffuse * max(float(normals[index] @ light), 0.0)) / top_shade
        src = np.array([[0, 0], [t, 0], [t, t], [0, t]], np.float32)
        dst = ((projected[index] - origin) * k).astype(np.float32)
        matrix = cv2.getPerspectiveTransform(src, dst)
        warped = cv2.warpPerspective(texture, matrix, (w * k, h * k), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        cv2.add(faces, cv2.multiply(warped, (shade, shade, shade, 1.0)), faces)
    faces = cv2.resize(faces, (w, h), interpolation=cv2.INTER_AREA)
    edge_colour = np.asarray(look.body, np.float32) * 0.5
    colour = faces[..., :3] + (1 - faces[..., 3:]) * edge_colour
    alpha = cv2.resize(silhouette, (w, h), interpolation=cv2.INTER_AREA)
    alpha *= look.opacity
    if blur_len >= 1.0:
        colour, alpha = _motion_blur(colour, alpha, motion)
    return DieSprite(x0, y0, colour, alpha)


def motion_kernel(motion: tuple[float, float]) -> np.ndarray:
    """A normalised line kernel as long as the smear, in its direction."""
    length = float(np.hypot(*motion))
    n = int(np.ceil(length)) | 1
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    end = np.array(motion) / max(length, 1e-6) * (length / 2)
    cv2.line(kernel, (round((c - end[0]) * 16), round((c - end[1]) * 16)),
             (round((c + end[0]) * 16), round((c + end[1]) * 16)), 1.0, 1, cv2.LINE_AA, 4)
    return kernel / kernel.sum()


def _motion_blur(colour: np.ndarray, alpha: np.ndarray, motion: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    kernel = motion_kernel(motion)
    premultiplied = cv2.filter2D(colour * alpha[..., None], -1, kernel, borderType=cv2.BORDER_CONSTANT)
    blurred_alpha = cv2.filter2D(alpha, -1, kernel, borderType=cv2.BORDER_CONSTANT)
    colour = premultiplied / np.maximum(blurred_alpha, 1e-4)[..., None]
    return colour, blurred_alpha
