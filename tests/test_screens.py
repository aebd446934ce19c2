"""Screens are checked by content: what each one says, that every text is intact on the 128×64 panel, and a
few reference PNGs (tests/data/screens/) compared pixel for pixel, with a diff image written on failure.

`python tests/test_screens.py DIR` writes every sample screen (×3) to DIR, e.g. docs/screens, for looking at.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from companion import screens
from companion.screens import (
    BoardPair,
    BoardTurnView,
    CorrectView,
    CountChoiceView,
    MenuView,
    MessageView,
    MexSeat,
    MexTurnView,
    Pawn,
    TrayView,
    illegible_texts,
    render,
)

REFERENCE_DIR = Path(__file__).resolve().parent / "data" / "screens"
SEATS = (MexSeat("Ann", 11, 3, to_act=True), MexSeat("Bob", 12, 0), MexSeat("Cid", 9, -1))
SIX_SEATS = (*SEATS, MexSeat("Dan", 12, 2), MexSeat("Eve", 0, 1, out=True), MexSeat("Fay", 10, 4))
PAWNS = (Pawn("Ann", 12, True), Pawn("Bob", 7), Pawn("Cid", 3))


def tray_picture() -> Image.Image:
    """A camera's view of a tray, small: a light floor inside darker walls, on a mid-grey table."""
    picture = Image.new("L", (53, 40), 120)
    picture.paste(70, (5, 3, 49, 37))
    picture.paste(210, (9, 7, 45, 33))
    return picture


SAMPLES: dict[str, screens.View] = {
    "mex-throw": MexTurnView("Ann", 3, SEATS, prompt="throw the dice", throws_left=3),
    "mex-63": MexTurnView("Ann", 3, SEATS, ("6", "3"), "63", 2, prompt="STOP keep  REROLL again"),
    "mex-400": MexTurnView("Bob", 3, SEATS, ("4", "4"), "400", 1, 2, prompt="STOP/REROLL hold STOP=end"),
    "mex-mexx-six-players": MexTurnView("Bobbington", 3, SIX_SEATS, ("2", "1"), "MEXX!", 0, prompt="STOP: keep it"),
    "mex-cocked": MexTurnView("Cid", 3, SEATS, None, None, 2, notice="re-roll: die 2 is cocked"),
    "excape-place": BoardTurnView(
        "excape", "Ann", 21, PAWNS,
        (BoardPair(2, "Cid", 54), BoardPair(4, "Bob", 41, ejected=True),
         BoardPair(3, "Ann", 70, new=True)),
        ("7", "X"), "70", selected_space=3, preview="ejects Bob41", prompt="SEL space STOP place RER"),
    "excape-54": BoardTurnView("excape", "Bob", 21, PAWNS, (BoardPair(5, "Cid", 31),), ("5", "4"), "54",
                               selected_space=4, preview="ejects none", prompt="SEL space STOP place RER"),
    "rapido-throw": BoardTurnView("rapido", "Bob", 21, (Pawn("Ann", 9), Pawn("Bob", 14, True)),
                                  (BoardPair(1, "Ann", 65), BoardPair(3, "Bob", 52)), prompt="throw the dice"),
    "x-bust": MessageView("X! bust", ("Ann: back 1", "Bob throws"), footer="Bob throws"),
    "round-result": MessageView("Bob loses 1", ("lowest 41", "Ann +1 Cid +1 Bob -1"), footer="Bob throws"),
    "winner": MessageView("Ann wins!", ("Ann: 4 lives 9 pts", "Bob: out 3 pts", "Cid: out 2 pts"),
                          footer="hold STOP: new game"),
    "tie-break": CountChoiceView("Cid", ("Ann", "Cid"), "pips"),
    "menu": MenuView("Menu", ("Undo roll 6 3", "Correct read", "New game", "Game: Mex", "Players: 3", "Lives: 12",
                              "Back to game"), 1),
    "correct": CorrectView(("6", "2"), 1, "62"),
    "tray-found": TrayView(tray_picture(), (5, 3, 44, 34), ("86% of", "the view")),
}
# A few screens kept as reference pictures: any pixel change must be looked at and the PNG renewed on purpose.
REFERENCES = ("mex-63", "excape-place", "round-result", "menu")


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_text_on_every_screen_is_intact_and_on_the_panel(name: str) -> None:
    rendered = render(SAMPLES[name])
    assert rendered.image.size == (128, 64) and rendered.image.mode == "1"
    assert illegible_texts(rendered) == []
    assert rendered.texts, "a screen that says nothing"


def test_mex_turn_says_whose_turn_the_value_throws_left_and_everyones_lives_and_points() -> None:
    rendered = render(SAMPLES["mex-63"])
    assert rendered.strings[:2] == ["Ann", "2 left"]
    assert "63" in rendered.strings
    for seat in SEATS:
        assert rendered.says(seat.name)
        assert rendered.says(f"{seat.lives} {seat.points}p")
    assert rendered.says("STOP keep")


def test_mex_values_read_as_the_game_writes_them() -> None:
    assert "MEXX!" in render(SAMPLES["mex-mexx-six-players"]).strings
    assert "400" in render(SAMPLES["mex-400"]).strings


def test_six_seats_keep_every_player_distinguishable_and_out_players_marked() -> None:
    rendered = render(SAMPLES["mex-mexx-six-players"])
    names = [t.text for t in rendered.texts if t.font == "small" and t.box[1] >= 38 and t.box[1] < 56]
    initials = [n for n in names if n[0].isalpha() and n[0].isupper()]
    assert len(set(initials)) == 6
    assert rendered.says("out")


def test_unsure_read_says_why_in_place_of_the_prompt() -> None:
    rendered = render(SAMPLES["mex-cocked"])
    assert rendered.says("re-roll: die 2 is cocked")
    bottom = [t for t in rendered.texts if t.box[1] == 56]
    assert bottom and bottom[0].inverted


def test_board_shows_positions_spaces_and_the_pairs_a_placement_would_eject() -> None:
    view = SAMPLES["excape-place"]
    rendered = render(view)
    assert rendered.says("Ann 12") and rendered.says("Bob 7") and rendered.says("Cid 3")
    for space in range(6):
        assert str(space) in rendered.strings
    assert rendered.says("ejects") and rendered.says("Bob41")
    # the selected space is drawn inverted, holding the pair being placed
    selected = [t for t in rendered.texts if t.text == "70" and t.inverted]
    assert selected, rendered.all_text()
    # the pair that would be ejected has a dotted frame: its box edge alternates lit and dark pixels
    x = 4 * (128 // 6)
    edge = [rendered.image.getpixel((x + dx, 36)) for dx in range(8)]
    assert edge in ([255, 0] * 4, [1, 0] * 4)


def test_space_zero_shared_by_several_pairs_says_how_many() -> None:
    view = BoardTurnView("excape", "Ann", 21, PAWNS, (BoardPair(0, "Bob", 31), BoardPair(0, "Cid", 20)))
    rendered = render(view)
    assert "2" in rendered.strings and "prs" in rendered.strings


def test_message_falls_back_to_the_small_font_when_the_text_is_long() -> None:
    long = MessageView("Re-roll", ("roll 7 4 is impossible: 7 and 4 are both only on die A",))
    rendered = render(long)
    assert illegible_texts(rendered) == []
    assert " ".join(t.text for t in rendered.texts[1:]).replace("  ", " ").startswith("roll 7 4 is impossible")


def test_a_message_longer_than_the_screen_says_that_it_goes_on() -> None:
    words = tuple(f"word{n}" for n in range(60))
    rendered = render(MessageView("Cannot start", (" ".join(words),), footer="more: journalctl", big_title=False))
    body = [t.text for t in rendered.texts[1:-1]]
    assert illegible_texts(rendered) == []
    assert body[-1].endswith("...") and not any(line.endswith("...") for line in body[:-1])
    assert body[0].startswith("word0") and rendered.strings[-1] == "more: journalctl"
    fits = render(MessageView("Cannot start", ("no Pi camera found",), footer="more: journalctl"))
    assert not any("..." in text for text in fits.strings)


def test_menu_scrolls_to_keep_the_selected_item_visible() -> None:
    view = MenuView("Menu", tuple(f"item {n}" for n in range(7)), 6)
    rendered = render(view)
    assert rendered.says("item 6") and not rendered.says("item 0")
    assert next(t for t in rendered.texts if t.text == "item 6").inverted


def test_count_choice_highlights_the_selected_mode() -> None:
    rendered = render(SAMPLES["tie-break"])
    inverted = {t.text for t in rendered.texts if t.inverted}
    assert "PIPS" in inverted and "MEX" not in inverted
    assert rendered.says("tied: Ann, Cid")


def test_unknown_view_is_refused_with_the_known_ones_named() -> None:
    with pytest.raises(TypeError, match="MexTurnView"):
        render("not a view")  # type: ignore[arg-type]


def test_illegible_texts_catches_text_drawn_over() -> None:
    rendered = render(SAMPLES["mex-63"])
    rendered.image.paste(1, (0, 40, 128, 44))  # a bar across the seats line
    assert any("overdrawn" in problem for problem in illegible_texts(rendered))


def assert_matches_reference(name: str, image: Image.Image, tmp_path: Path) -> None:
    reference = REFERENCE_DIR / f"{name}.png"
    if not reference.exists():
        pytest.fail(f"no reference picture {reference}; write it with `python tests/test_screens.py "
                    f"{REFERENCE_DIR}` after looking at the screen")
    expected = Image.open(reference).convert("1")
    diff = ImageChops.logical_xor(expected, image.convert("1"))
    if diff.getbbox() is not None:
        out = tmp_path / f"{name}-diff.png"
        sheet = Image.new("L", (128 * 3 + 8, 64), 128)
        for index, part in enumerate((expected, image, diff)):
            sheet.paste(part.convert("L"), (index * (128 + 4), 0))
        screens.upscale(sheet.convert("1"), 4).save(out)
        pytest.fail(f"screen {name} differs from {reference} in {diff.getbbox()}; expected | got | diff: {out}")


def test_the_tray_found_stands_out_in_the_cameras_view() -> None:
    # The tray's region outlined and dithered from the picture; the rest of the view dark, its bounds dotted.
    image = render(SAMPLES["tray-found"]).image
    top = 13
    pixel = lambda x, y: image.getpixel((x, top + y))  # noqa: E731
    assert all(pixel(x, 3) and pixel(x, 36) for x in range(5, 49))             # the region's outline
    assert all(pixel(5, y) and pixel(48, y) for y in range(3, 37))
    floor = [pixel(x, y) for x in range(10, 44) for y in range(8, 32)]
    assert 0.6 < sum(map(bool, floor)) / len(floor) < 1.0                       # light, dithered
    assert not any(pixel(x, y) for x in range(1, 4) for y in range(1, 39))      # outside the region: dark
    assert [bool(pixel(x, 0)) for x in range(6)] == [True, False, False, True, False, False]  # the view, dotted
    assert "the view" in render(SAMPLES["tray-found"]).strings


@pytest.mark.parametrize("name", REFERENCES)
def test_reference_screens_are_unchanged(name: str, tmp_path: Path) -> None:
    assert_matches_reference(name, render(SAMPLES[name]).image, tmp_path)


def write_samples(directory: Path, scale: int = 3) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, view in SAMPLES.items():
        image = render(view).image
        if directory.resolve() == REFERENCE_DIR.resolve():
            if name in REFERENCES:
                image.save(directory / f"{name}.png")
        else:
            screens.upscale(image, scale).save(directory / f"{name}.png")


if __name__ == "__main__":
    write_samples(Path(sys.argv[1]) if len(sys.argv) > 1 else REFERENCE_DIR)
