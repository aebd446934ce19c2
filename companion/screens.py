"""OLED screens: pure functions that draw a small view model on a 128×64 one-bit PIL image.

The controller turns the game state into one of the view models below (plain data, no rules objects), and
`render(view)` draws it. Nothing here knows about hardware or rules, so every screen can be rendered, looked
at and tested on any machine.

Text is drawn with the bundled Spleen bitmap fonts (companion/fonts, BSD-2 licence) at their native sizes, so
every glyph is pixel-exact at one bit per pixel. Every piece of text drawn is recorded as a `TextRegion`;
`illegible_texts(rendered)` re-draws each one alone and compares pixels, so tests can assert what a screen
says and that nothing covers or clips it.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 128, 64
FONT_DIR = Path(__file__).resolve().parent / "fonts"
# name -> (file stem, glyph width, glyph height); all monospaced.
FONTS: dict[str, tuple[str, int, int]] = {
    "small": ("spleen-5x8", 5, 8),
    "medium": ("spleen-6x12", 6, 12),
    "large": ("spleen-8x16", 8, 16),
    "huge": ("spleen-12x24", 12, 24),
}


@functools.cache
def font(name: str) -> ImageFont.ImageFont:
    """One of FONTS, loaded on first use (nothing is read at import time)."""
    if name not in FONTS:
        raise ValueError(f"unknown font {name!r}; expected one of: {', '.join(FONTS)}")
    return ImageFont.load(str(FONT_DIR / f"{FONTS[name][0]}.pil"))


def glyph_size(name: str) -> tuple[int, int]:
    _, width, height = FONTS[name]
    return width, height


def text_width(text: str, font_name: str) -> int:
    return len(text) * glyph_size(font_name)[0]


def fit(text: str, font_name: str, width: int) -> str:
    """`text` cut to what fits in `width` pixels (monospaced: a whole number of glyphs)."""
    return text[: max(0, width // glyph_size(font_name)[0])]


def _printable(text: str) -> str:
    # The .pil fonts hold ASCII (5x8) or Latin-1; anything else would draw as a blank box.
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)


# ---------------------------------------------------------------- view models


@dataclass(frozen=True)
class MexSeat:
    name: str
    lives: int
    points: int
    out: bool = False
    to_act: bool = False


@dataclass(frozen=True)
class MexTurnView:
    """A Mex turn: whose it is, the throw and its value, throws left, everyone's lives and points."""

    player: str
    round: int
    seats: tuple[MexSeat, ...]
    faces: tuple[str, str] | None = None   # the counted throw, None before the first throw
    value: str | None = None               # "63", "400", "MEXX!", or "7 pips" in a pips tie-break
    throws_left: int | None = None         # None: the limit is not set yet (the round's first player)
    throw_limit: int | None = None
    tie_break: bool = False
    prompt: str = ""                       # the bottom line: which button does what now
    notice: str | None = None              # shown instead of the prompt, inverted: "re-roll: die 2 is cocked"


@dataclass(frozen=True)
class Pawn:
    name: str
    position: int
    to_act: bool = False


@dataclass(frozen=True)
class BoardPair:
    space: int
    player: str
    value: int
    ejected: bool = False    # the placement being previewed would eject this pair
    new: bool = False        # the pair being previewed (not placed yet)


@dataclass(frozen=True)
class BoardTurnView:
    """An Excape/Rapido turn: pawns on the track, the throw, the ranking board and a placement preview."""

    game: str                              # "excape" | "rapido"
    player: str
    goal: int
    pawns: tuple[Pawn, ...]
    board: tuple[BoardPair, ...]
    faces: tuple[str, str] | None = None
    value: str | None = None
    selected_space: int | None = None      # the space SELECT points at (preview), None when not choosing
    preview: str = ""                      # what placing there does: "ejects Bob 41" / "ejects nothing"
    prompt: str = ""
    notice: str | None = None


@dataclass(frozen=True)
class MessageView:
    """A result or an explanation: a short title and a few lines (round results, X busts, the winner...)."""

    title: str
    lines: tuple[str, ...] = ()
    footer: str = ""
    big_title: bool = True


@dataclass(frozen=True)
class CountChoiceView:
    """Mex tie-break: the chooser picks how the extra round is counted."""

    chooser: str
    tied: tuple[str, ...]
    selected: str                          # "pips" | "mex"
    footer: str = "SELECT toggle  STOP ok"


@dataclass(frozen=True)
class MenuView:
    title: str
    items: tuple[str, ...]
    selected: int
    footer: str = "SEL next STOP ok RER back"
    notice: str | None = None


@dataclass(frozen=True)
class CorrectView:
    """Correcting a read by hand: the two faces, the die being changed, and what the throw is worth."""

    faces: tuple[str, str]
    selected_die: int                      # 0 or 1
    value: str | None = None
    title: str = "Correct the read"
    footer: str = "SEL die RER face STOP ok"


@dataclass(frozen=True)
class TrayView:
    """The tray the camera found, to keep or not: the camera's view, small, with the tray's region shown on it."""

    picture: Image.Image                   # the camera's view in grey ("L"), at most TRAY_PICTURE
    region: tuple[int, int, int, int]      # x, y, w, h of the tray in the picture's pixels
    lines: tuple[str, ...]                 # beside the picture
    title: str = "Tray found"
    footer: str = "STOP keep  RER cancel"


View = MexTurnView | BoardTurnView | MessageView | CountChoiceView | MenuView | CorrectView | TrayView
TRAY_PICTURE = (72, 40)                    # px: the view's room on the screen, between the title and the footer


# ---------------------------------------------------------------- drawing


@dataclass(frozen=True)
class TextRegion:
    """One piece of text as drawn: where (x0, y0, x1, y1, exclusive), in which font, light-on-dark or not."""

    text: str
    box: tuple[int, int, int, int]
    font: str
    inverted: bool = False


@dataclass
class Rendered:
    image: Image.Image
    texts: list[TextRegion] = field(default_factory=list)

    @property
    def strings(self) -> list[str]:
        return [t.text for t in self.texts]

    def says(self, fragment: str) -> bool:
        """Whether some drawn text contains `fragment` (case-sensitive)."""
        return any(fragment in t.text for t in self.texts)

    def all_text(self) -> str:
        return " | ".join(self.strings)


class _Painter:
    def __init__(self) -> None:
        self.image = Image.new("1", (WIDTH, HEIGHT), 0)
        self.draw = ImageDraw.Draw(self.image)
        self.texts: list[TextRegion] = []

    def text(self, x: int, y: int, text: str, font_name: str = "small", *, inverted: bool = False,
             max_width: int | None = None) -> int:
        """Draw `text` at (x, y); returns the x after it. Text too wide for the screen (or max_width) is cut."""
        limit = WIDTH - x if max_width is None else min(max_width, WIDTH - x)
        shown = fit(_printable(text), font_name, limit)
        if not shown:
            return x
        width, height = glyph_size(font_name)
        box = (x, y, x + len(shown) * width, y + height)
        if inverted:
            self.draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=1)
        self.draw.text((x, y), shown, font=font(font_name), fill=0 if inverted else 1)
        self.texts.append(TextRegion(shown, box, font_name, inverted))
        return box[2]

    def centred(self, y: int, text: str, font_name: str, *, inverted: bool = False, left: int = 0,
                right: int = WIDTH) -> None:
        shown = fit(_printable(text), font_name, right - left)
        x = left + (right - left - text_width(shown, font_name)) // 2
        self.text(x, y, shown, font_name, inverted=inverted)

    def bar(self, y: int, height: int) -> None:
        self.draw.rectangle((0, y, WIDTH - 1, y + height - 1), fill=1)

    def result(self) -> Rendered:
        return Rendered(self.image, self.texts)


# Pip centres on a die face, in units of a third of the face (0..2), by face label.
_PIPS: dict[str, tuple[tuple[int, int], ...]] = {
    "1": ((1, 1),),
    "2": ((0, 0), (2, 2)),
    "3": ((0, 0), (1, 1), (2, 2)),
    "4": ((0, 0), (2, 0), (0, 2), (2, 2)),
    "5": ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    "6": ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
    "7": ((0, 0), (0, 1), (0, 2), (1, 1), (2, 0), (2, 1), (2, 2)),
}


def _die(painter: _Painter, x: int, y: int, size: int, face: str, *, selected: bool = False) -> None:
    """A die seen from above: its pips, a cross for X, the label itself for anything else ("?")."""
    draw = painter.draw
    draw.rounded_rectangle((x, y, x + size - 1, y + size - 1), radius=max(2, size // 6), outline=1, fill=0)
    if selected:  # a second outline marks the die the buttons change
        draw.rounded_rectangle((x - 2, y - 2, x + size + 1, y + size + 1), radius=max(2, size // 5), outline=1)
    inner = size - 6
    pip = max(2, size // 7)
    if face in _PIPS:
        for col, row in _PIPS[face]:
            cx = x + 3 + round(col * (inner - pip) / 2)
            cy = y + 3 + round(row * (inner - pip) / 2)
            draw.rectangle((cx, cy, cx + pip - 1, cy + pip - 1), fill=1)
    elif face == "X":
        m = 4
        for offset in (0, 1):
            draw.line((x + m + offset, y + m, x + size - 1 - m + offset, y + size - 1 - m), fill=1)
            draw.line((x + size - 1 - m + offset, y + m, x + m + offset, y + size - 1 - m), fill=1)
    else:
        name = "medium" if size >= 14 else "small"
        w, h = glyph_size(name)
        painter.text(x + (size - w) // 2, y + (size - h) // 2, face[:1], name)


_HEART = ("01010", "11111", "11111", "01110", "00100")


def _heart(painter: _Painter, x: int, y: int, *, inverted: bool = False) -> None:
    for row, bits in enumerate(_HEART):
        for col, bit in enumerate(bits):
            if bit == "1":
                painter.draw.point((x + col, y + row), fill=0 if inverted else 1)


def _bottom_line(painter: _Painter, prompt: str, notice: str | None) -> None:
    """The last 8 pixel rows: the notice (inverted, it matters more) or else the button prompt."""
    if notice:
        painter.bar(HEIGHT - 8, 8)
        painter.text(1, HEIGHT - 8, notice, "small", inverted=True, max_width=WIDTH - 2)
    elif prompt:
        painter.text(0, HEIGHT - 8, prompt, "small")


def _header(painter: _Painter, left: str, right: str = "") -> None:
    """An inverted 12-pixel title bar: the name of whoever acts on the left, a status on the right."""
    painter.bar(0, 12)
    right_width = text_width(right, "medium")
    painter.text(2, 0, left, "medium", inverted=True, max_width=WIDTH - 4 - right_width - (6 if right else 0))
    if right:
        painter.text(WIDTH - 2 - right_width, 0, right, "medium", inverted=True)


def columns(font_name: str, width: int = WIDTH) -> int:
    """How many characters of a font fit in `width` pixels (at least one)."""
    return max(1, width // glyph_size(font_name)[0])


def wrap(text: str, font_name: str, width: int = WIDTH) -> list[str]:
    """Word-wrap `text` to lines of at most `width` pixels."""
    return textwrap.wrap(_printable(text), columns(font_name, width), break_long_words=True) or [""]


# ---------------------------------------------------------------- screens


def render(view: View) -> Rendered:
    """Draw any view model on a fresh 128×64 one-bit image."""
    drawers = {
        MexTurnView: _render_mex_turn,
        BoardTurnView: _render_board_turn,
        MessageView: _render_message,
        CountChoiceView: _render_count_choice,
        MenuView: _render_menu,
        CorrectView: _render_correct,
        TrayView: _render_tray,
    }
    drawer = drawers.get(type(view))
    if drawer is None:
        known = ", ".join(t.__name__ for t in drawers)
        raise TypeError(f"no screen for {type(view).__name__}; expected one of: {known}")
    painter = _Painter()
    drawer(painter, view)
    return painter.result()


def _throws_text(view: MexTurnView) -> str:
    if view.tie_break:
        return "tie-break"
    if view.throws_left is None:
        return f"R{view.round}"
    if view.throws_left == 0:
        return "no throws"
    return f"{view.throws_left} left"


def _render_mex_turn(painter: _Painter, view: MexTurnView) -> None:
    _header(painter, view.player, _throws_text(view))
    if view.faces is None:
        painter.centred(18, "throw the dice", "medium")
    else:
        _die(painter, 1, 14, 22, view.faces[0])
        _die(painter, 27, 14, 22, view.faces[1])
        if view.value:
            name = "huge" if text_width(view.value, "huge") <= WIDTH - 54 else "large"
            y = 14 if name == "huge" else 18
            painter.text(54, y, view.value, name)
    _mex_seats(painter, view.seats, top=39)
    _bottom_line(painter, view.prompt, view.notice)


def _mex_seats(painter: _Painter, seats: Sequence[MexSeat], top: int) -> None:
    """Everyone's lives (heart) and points, two or three to a line, the player to act inverted."""
    per_line = 2 if len(seats) <= 4 else 3 if len(seats) <= 6 else 4
    cell = WIDTH // per_line
    for index, seat in enumerate(seats[: per_line * 2]):
        x = (index % per_line) * cell
        y = top + (index // per_line) * 9
        inverted = seat.to_act
        if inverted:
            painter.draw.rectangle((x, y - 1, x + cell - 2, y + 7), fill=1)
        # Lives and points come first; the name gets what room is left (at least its initial).
        lives = "out" if seat.out else str(seat.lives)
        heart = 0 if seat.out else 6
        for points in (f" {seat.points}p", f" {seat.points}", ""):
            tail = (" " if seat.out else "") + lives + points
            name_chars = (cell - 3 - heart - len(tail) * 5) // 5
            if name_chars >= 2 or not points:
                break
        after = painter.text(x + 1, y, seat.name[: max(1, name_chars)], "small", inverted=inverted)
        if heart:
            _heart(painter, after + 1, y + 1, inverted=inverted)
        painter.text(after + heart, y, tail, "small", inverted=inverted, max_width=x + cell - 1 - after - heart)


def _render_board_turn(painter: _Painter, view: BoardTurnView) -> None:
    # Top line: every pawn's position on the track, the player to act inverted.
    x = 0
    per_pawn = WIDTH // max(1, len(view.pawns))
    for pawn in view.pawns:
        digits = len(str(pawn.position))
        name_chars = (per_pawn - 4) // 5 - digits
        label = f"{pawn.name[: name_chars - 1]} {pawn.position}" if name_chars >= 4 else \
            f"{pawn.name[: max(1, name_chars)]}{pawn.position}"
        if pawn.to_act:
            painter.draw.rectangle((x, 0, x + text_width(label, "small") + 1, 7), fill=1)
        x = painter.text(x + 1, 0, label, "small", inverted=pawn.to_act) + 3
    # Middle: the throw and its value, and beside them what placing would do (or the goal).
    if view.faces is None:
        painter.text(0, 12, "throw!", "medium")
    else:
        _die(painter, 0, 9, 18, view.faces[0])
        _die(painter, 20, 9, 18, view.faces[1])
        if view.value is not None:
            painter.text(41, 10, view.value, "large" if len(view.value) <= 3 else "small")
    info = view.preview or f"goal {view.goal}"
    for index, line in enumerate(wrap(info, "small", WIDTH - 68)[:2]):
        painter.text(68, 10 + index * 8, line, "small")
    _board(painter, view, top=28)
    _bottom_line(painter, view.prompt, view.notice)


def _board(painter: _Painter, view: BoardTurnView, top: int) -> None:
    """The six ranking spaces: the space number over a box holding the pair's value and its owner."""
    cell = WIDTH // 6  # 21 px
    draw = painter.draw
    for space in range(6):
        x = space * cell
        painter.centred(top, str(space), "small", left=x, right=x + cell - 1)
        pairs = [p for p in view.board if p.space == space]
        selected = view.selected_space == space
        box_top = top + 8
        ejected = any(p.ejected for p in pairs)
        draw.rectangle((x, box_top, x + cell - 2, box_top + 17), outline=0 if ejected else 1, fill=1 if selected else 0)
        if ejected:
            # a dotted frame: this pair would go back to its owner (the text inside stays readable)
            for px in range(x, x + cell - 1, 2):
                draw.point((px, box_top), fill=1)
                draw.point((px, box_top + 17), fill=1)
            for py in range(box_top, box_top + 18, 2):
                draw.point((x, py), fill=1)
                draw.point((x + cell - 2, py), fill=1)
        if len(pairs) == 1:
            pair = pairs[0]
            painter.centred(box_top + 1, str(pair.value), "small", inverted=selected, left=x + 1, right=x + cell - 2)
            painter.centred(box_top + 9, pair.player, "small", inverted=selected, left=x + 1, right=x + cell - 2)
        elif pairs:  # space 0 shared by several pairs (zero_shared): how many
            painter.centred(box_top + 1, f"{len(pairs)}", "small", inverted=selected, left=x + 1, right=x + cell - 2)
            painter.centred(box_top + 9, "prs", "small", inverted=selected, left=x + 1, right=x + cell - 2)


MORE = "..."    # ends a message's last line when the rest does not fit


def _render_message(painter: _Painter, view: MessageView) -> None:
    body_top = 0
    if view.title:
        title_font = "large" if view.big_title and text_width(view.title, "large") <= WIDTH else "medium"
        painter.bar(0, glyph_size(title_font)[1])
        painter.centred(0, view.title, title_font, inverted=True)
        body_top = glyph_size(title_font)[1] + 2
    bottom = HEIGHT - (8 if view.footer else 0)
    room = bottom - body_top
    for body_font in ("medium", "small"):
        lines = [line for text in view.lines for line in wrap(text, body_font)]
        if len(lines) * glyph_size(body_font)[1] <= room:
            break
    line_height = glyph_size(body_font)[1]
    shown = lines[: room // line_height]
    if len(shown) < len(lines) and shown:
        # The text goes on beyond the screen: say so (the rest is where the footer points, if anywhere).
        shown[-1] = shown[-1][: columns(body_font) - len(MORE)] + MORE
    for index, line in enumerate(shown):
        painter.text(0, body_top + index * line_height, line, body_font)
    if view.footer:
        painter.text(0, HEIGHT - 8, view.footer, "small")


def _render_count_choice(painter: _Painter, view: CountChoiceView) -> None:
    _header(painter, f"Tie: {view.chooser}", "")
    painter.text(0, 13, "count the extra round:", "small")
    for index, mode in enumerate(("pips", "mex")):
        x = 8 + index * 64
        selected = view.selected == mode
        painter.draw.rectangle((x - 3, 23, x + 50, 41), outline=1, fill=1 if selected else 0)
        painter.centred(25, mode.upper(), "large", inverted=selected, left=x - 3, right=x + 51)
    painter.text(0, 45, "tied: " + ", ".join(view.tied), "small")
    painter.text(0, HEIGHT - 8, view.footer, "small")


def _render_menu(painter: _Painter, view: MenuView) -> None:
    _header(painter, view.title, f"{view.selected + 1}/{len(view.items)}" if view.items else "")
    rows = 3
    first = min(max(0, view.selected - 1), max(0, len(view.items) - rows))
    for row, index in enumerate(range(first, min(len(view.items), first + rows))):
        y = 14 + row * 13
        selected = index == view.selected
        if selected:
            painter.draw.rectangle((0, y - 1, WIDTH - 1, y + 11), fill=1)
        painter.text(3, y, view.items[index], "medium", inverted=selected, max_width=WIDTH - 6)
    _bottom_line(painter, view.footer, view.notice)


def _render_correct(painter: _Painter, view: CorrectView) -> None:
    _header(painter, view.title)
    for index, face in enumerate(view.faces):
        _die(painter, 8 + index * 34, 18, 26, face, selected=index == view.selected_die)
    if view.value:
        name = "huge" if text_width(view.value, "huge") <= WIDTH - 78 else "large"
        painter.text(76, 19 if name == "huge" else 23, view.value, name)
    painter.text(0, HEIGHT - 8, view.footer, "small")


def _render_tray(painter: _Painter, view: TrayView) -> None:
    _header(painter, view.title)
    # The tray dithered (the panel has one bit a pixel), everything outside it dark, its region outlined: what the
    # companion will watch stands out as a box, as the `calibrate` command's preview dims the rest.
    top = 13
    x, y, w, h = view.region
    shown = Image.new("1", view.picture.size, 0)
    shown.paste(view.picture.crop((x, y, x + w, y + h)).convert("1"), (x, y))
    painter.image.paste(shown, (0, top))
    width, height = view.picture.size          # the camera's view dotted around it, to see where the tray lies
    for px in range(0, width, 3):
        painter.draw.point([(px, top), (px, top + height - 1)], fill=1)
    for py in range(0, height, 3):
        painter.draw.point([(0, top + py), (width - 1, top + py)], fill=1)
    painter.draw.rectangle((x, top + y, x + w - 1, top + y + h - 1), outline=1)
    left = width + 4
    for index, line in enumerate(view.lines):
        painter.text(left, top + 2 + index * 12, line, "medium")
    painter.text(0, HEIGHT - 8, view.footer, "small")


# ---------------------------------------------------------------- checks and export


def illegible_texts(rendered: Rendered) -> list[str]:
    """Texts that are clipped by the screen edge or not intact (something drew over them): empty when all is well.

    Each recorded text is drawn again alone, in its font and colours, and compared pixel for pixel with its
    box in the screen image.
    """
    problems = []
    for region in rendered.texts:
        x0, y0, x1, y1 = region.box
        if x0 < 0 or y0 < 0 or x1 > WIDTH or y1 > HEIGHT:
            problems.append(f"{region.text!r} at {region.box} runs off the {WIDTH}x{HEIGHT} screen")
            continue
        alone = Image.new("1", (x1 - x0, y1 - y0), 1 if region.inverted else 0)
        ImageDraw.Draw(alone).text((0, 0), region.text, font=font(region.font), fill=0 if region.inverted else 1)
        if alone.tobytes() != rendered.image.crop(region.box).tobytes():
            problems.append(f"{region.text!r} at {region.box} is overdrawn")
    return problems


def upscale(image: Image.Image, factor: int) -> Image.Image:
    """Pixel-exact enlargement (for README pictures and for looking at screens)."""
    return image.convert("L").resize((image.width * factor, image.height * factor), Image.NEAREST)
