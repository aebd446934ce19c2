"""The middle pip: Excape's 6 and 7 told apart by the middle of the face alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.centre_pip import CENTRE_SIZE, face_layouts, two_layout_middles
from vision.models import PIP_LAYOUTS
from vision.recognise import CROP_MARGIN


def _middles(crops: list[np.ndarray]) -> list[bool | None]:
    return [layout.middle for layout in face_layouts(np.stack(crops))]


def _face_crop(pips: int, body: tuple[int, int, int] = (235, 235, 235), pip: tuple[int, int, int] = (25, 25, 25),
               swirl: tuple[int, int, int] | None = None, shift: tuple[int, int] = (0, 0), size: float = 1.0
               ) -> np.ndarray:
    """A die's upright crop as the reader cuts it (CENTRE_SIZE, the face CROP_MARGIN smaller) on a grey tray, showing
    `pips` in the models' layout; `swirl`: a blob of another colour in the middle, as marbling leaves; `shift` (x, y
    pixels) and `size` (of the box): where a top face seen in perspective lies in its box."""
    crop = np.full((CENTRE_SIZE, CENTRE_SIZE, 3), 120, np.uint8)
    face = size * CENTRE_SIZE / CROP_MARGIN
    middle_x, middle_y = (CENTRE_SIZE - 1) / 2 + shift[0], (CENTRE_SIZE - 1) / 2 + shift[1]
    cv2.rectangle(crop, (round(middle_x - face / 2), round(middle_y - face / 2)),
                  (round(middle_x + face / 2), round(middle_y + face / 2)), body, -1)
    if swirl is not None:
        cv2.ellipse(crop, (round(middle_x), round(middle_y)), (6, 4), 30, 0, 360, swirl, -1)
    for u, v in PIP_LAYOUTS[pips]:
        centre = (round(middle_x + u * face / 2), round(middle_y + v * face / 2))
        cv2.circle(crop, centre, round(0.08 * face), pip, -1)
    return crop


def test_a_seven_has_a_pip_in_its_middle_and_a_six_has_none() -> None:
    assert _middles([_face_crop(7), _face_crop(6), _face_crop(7, (30, 30, 160), (240, 240, 240)),
                     _face_crop(6, (30, 30, 160), (240, 240, 240))]) == [True, False, True, False]


def test_a_swirl_in_a_sixs_middle_is_no_pip_unless_it_has_the_pips_colour() -> None:
    # A marbled 6 whose swirl in the middle the face classifier took for a pip: only a spot of the pips' own colour is
    # one.
    green = (60, 160, 60)
    assert _middles([_face_crop(6, green, (25, 25, 25), swirl=(235, 235, 235)),
                     _face_crop(6, green, (25, 25, 25), swirl=(25, 25, 25))]) == [False, True]


@pytest.mark.parametrize("shift", [(-10, 4), (-6, -8), (0, 8), (8, 0), (10, 10)])
def test_a_face_seen_off_its_box_middle_is_judged_where_it_lies(shift: tuple[int, int]) -> None:
    # A die near the frame's edge shows its sides in perspective: its top face lies off its box's middle, and smaller
    # than the box. Fitted within 4 px of the box's middle, the middle of a purple 6 fell on a pip (fresh Excape tray
    # 3,490,436: its sure 6 made unsure), and each of these faces was judged wrong or not at all.
    purple, yellow = (150, 40, 110), (40, 200, 230)
    assert _middles([_face_crop(6, purple, yellow, shift=shift, size=0.8),
                     _face_crop(7, purple, yellow, shift=shift, size=0.8)]) == [False, True]


def test_no_answer_without_a_clear_six_layout() -> None:
    blank = _face_crop(1)
    dim = _face_crop(6, body=(60, 60, 60), pip=(40, 40, 40))        # pips hardly stand out from the body
    assert _middles([blank, _face_crop(4), dim]) == [None, None, None]


def test_a_five_shows_its_corner_and_middle_pips_and_no_side_pips() -> None:
    # A 7 read where a 5 lies (marbling taken for its side pips) is told by the layout: a 7's side pips are there.
    red = (40, 40, 200)
    assert [layout.five for layout in face_layouts(np.stack([
        _face_crop(5), _face_crop(5, red, (240, 240, 240)), _face_crop(7), _face_crop(6), _face_crop(4),
        _face_crop(1)]))] == [True, True, False, False, False, False]


def test_a_crop_of_another_size_is_refused() -> None:
    with pytest.raises(ValueError, match="64 px"):
        face_layouts(np.zeros((1, 40, 40, 3), np.uint8))


def test_a_seven_fits_a_sevens_layout_and_fewer_pips_do_not() -> None:
    # A 7 the classifier is unsure of must fit a 7's layout (vision.face_checks.SEVEN_FIT): a marbled die's swirls
    # read as a 7's pips leave a position on the wrong side. A 7 of gold pips on a body with a swirl of another colour
    # fits all the same: each position sides with its own colour, though neither is of one colour.
    gold, green = (40, 190, 220), (60, 160, 60)
    sevens = [_face_crop(7), _face_crop(7, green, gold, swirl=(90, 120, 200)), _face_crop(7, shift=(6, -6), size=0.8)]
    blank = np.full((CENTRE_SIZE, CENTRE_SIZE, 3), 120, np.uint8)
    others = [_face_crop(n) for n in (3, 4, 5, 6)] + [_face_crop(1), blank]
    fits = [layout.seven_fit for layout in face_layouts(np.stack(sevens + others))]
    assert all(fit >= 0 for fit in fits[:3]), fits
    assert all(fit < 0 for fit in fits[3:]), fits
    assert fits[-1] == -np.inf        # a blank crop: no face with the pips' contrast at all


def _two_with_middle(share: float, body: tuple[int, int, int] = (235, 235, 235),
                     pip: tuple[int, int, int] = (25, 25, 25)) -> np.ndarray:
    """A 2 whose middle holds a spot `share` of the way from the body's colour to the pips' (0: a 2, 1: a 3): a 3 whose
    middle pip is worn, or half hidden by a marbled die's swirl."""
    crop = _face_crop(2, body, pip)
    spot = tuple(round(b + share * (p - b)) for b, p in zip(body, pip, strict=True))
    middle = round((CENTRE_SIZE - 1) / 2)
    cv2.circle(crop, (middle, middle), round(0.08 * CENTRE_SIZE / CROP_MARGIN), spot, -1)
    return crop


def test_a_twos_middle_is_body_a_threes_a_pip_and_a_faint_pip_lies_between() -> None:
    dark_blue, white = (90, 40, 30), (235, 235, 235)
    crops = [_face_crop(2), _face_crop(3), _two_with_middle(0.5), _face_crop(2, dark_blue, white),
             _face_crop(3, dark_blue, white), _two_with_middle(0.5, dark_blue, white),
             np.fliplr(_face_crop(2)), np.fliplr(_face_crop(3))]     # the other diagonal
    middles = two_layout_middles(np.stack(crops))
    assert all(m is not None for m in middles), middles
    twos, threes, faint = [middles[k] for k in (0, 3, 6)], [middles[k] for k in (1, 4, 7)], [middles[2], middles[5]]
    assert all(m > 0.9 for m in twos), middles
    assert all(m < 0.1 for m in threes), middles
    assert all(0.35 < m < 0.65 for m in faint), middles


def test_a_face_seen_off_its_box_middle_is_fitted_where_it_lies() -> None:
    purple, yellow = (150, 40, 110), (40, 200, 230)
    middles = two_layout_middles(np.stack([_face_crop(2, purple, yellow, shift=(-8, 6), size=0.8),
                                           _face_crop(3, purple, yellow, shift=(-8, 6), size=0.8)]))
    assert middles[0] > 0.9 and middles[1] < 0.1, middles


def test_no_twos_layout_without_it_clearly() -> None:
    # A 4's other corners are pips, not body; a 1 has no corner pips; pips hardly standing out give no answer.
    dim = _face_crop(2, body=(60, 60, 60), pip=(40, 40, 40))
    assert two_layout_middles(np.stack([_face_crop(4), _face_crop(1), dim])) == [None, None, None]
    with pytest.raises(ValueError, match="64 px"):
        two_layout_middles(np.zeros((1, 40, 40, 3), np.uint8))


def _marbled_face_crop(pips: int, middle_shift: tuple[int, int] = (0, 0)) -> np.ndarray:
    """A marbled die's upright crop: a purple body with a white band across its middle (two resins: no clear six
    layout, the body's points unlike), gold pips in the models' layout; `middle_shift`: the 7's middle pip drawn that
    many pixels off the face's middle."""
    purple, white, gold = (150, 40, 110), (235, 235, 235), (40, 190, 220)
    crop = np.full((CENTRE_SIZE, CENTRE_SIZE, 3), 120, np.uint8)
    face = CENTRE_SIZE / CROP_MARGIN
    middle = (CENTRE_SIZE - 1) / 2
    cv2.rectangle(crop, (round(middle - face / 2),) * 2, (round(middle + face / 2),) * 2, purple, -1)
    cv2.ellipse(crop, (round(middle), round(middle)), (round(0.3 * face), round(0.12 * face)), 35, 0, 360, white, -1)
    for u, v in PIP_LAYOUTS[pips]:
        moved = middle_shift if (u, v) == (0, 0) else (0, 0)
        cv2.circle(crop, (round(middle + u * face / 2) + moved[0], round(middle + v * face / 2) + moved[1]),
                   round(0.08 * face), gold, -1)
    return crop


def test_fewer_pips_than_a_seven_fit_their_own_layout_better_than_a_sevens() -> None:
    # The nets read a marbled 6's swirl in its middle as the 7's pip (vision.face_checks.FEWER_PIPS_BETTER), and its
    # body of two resins leaves no clear six layout: only how far each position lies from the gold pips' colour
    # tells. A 6, 5 or 4 fits its own layout far better than a 7's; a 7, its middle pip drawn a little off the face's
    # middle too, fits none of theirs better.
    from vision.face_checks import FEWER_PIPS_BETTER, FEWER_PIPS_FIT

    marbled = face_layouts(np.stack([_marbled_face_crop(n) for n in (6, 5, 4)]
                                    + [_marbled_face_crop(7), _marbled_face_crop(7, (2, -2))]))
    assert [layout.middle for layout in marbled] == [None] * 5     # no answer from the six layout's fit on this body
    plain = face_layouts(np.stack([_face_crop(6), _face_crop(7)]))
    for pips, layout in zip((6, 5, 4), [*marbled[:3]], strict=True):
        seven, fewer = layout.seven_and_fewer_pips
        assert fewer[pips] >= FEWER_PIPS_FIT and fewer[pips] - seven >= FEWER_PIPS_BETTER, (pips, seven, fewer)
    seven, fewer = plain[0].seven_and_fewer_pips
    assert fewer[6] - seven >= FEWER_PIPS_BETTER
    for layout in (*marbled[3:], plain[1]):
        seven, fewer = layout.seven_and_fewer_pips
        assert max(fewer.values()) < seven, (seven, fewer)


def test_a_face_of_pips_fits_no_other_layout_far_better_and_more_pips_far_worse() -> None:
    # The fine face net's word against a sure face of pips stands only where the crop fits the other face's layout
    # clearly and far better (vision.face_checks.with_fine_faces_checked). Drawn plain faces: each fits its own layout
    # by the check's bar, no other layout far better (fewer pips may fit as well: a 3's middle pip is a 1's, seen on
    # a smaller face), and every layout of more pips far worse: a face read with more pips than it shows is the
    # misread the check is for. Drawn marbled faces, gold pips on a purple body with a white band across it: each
    # fits its own layout by the bar and every layout of more pips but a 2's far worse: the band, lying along a
    # diagonal, fits a 2's layout on every face (132 against 59-82), so the layouts alone cannot tell such a face and
    # the net's word is needed too.
    from vision.centre_pip import pip_layout_fits
    from vision.face_checks import FINE_OTHER_BETTER, FINE_OTHER_FIT

    for pips in range(1, 8):
        fits = pip_layout_fits(_face_crop(pips))
        assert fits[pips] >= FINE_OTHER_FIT and max(fits.values()) - fits[pips] < FINE_OTHER_BETTER, (pips, fits)
        assert all(fits[pips] - fits[more] >= FINE_OTHER_BETTER for more in range(pips + 1, 8)), (pips, fits)
        marbled = pip_layout_fits(_marbled_face_crop(pips))
        assert marbled[pips] >= FINE_OTHER_FIT, (pips, marbled)
        assert all(marbled[pips] - marbled[more] >= FINE_OTHER_BETTER for more in range(max(pips + 1, 3), 8)), \
            (pips, marbled)
    assert set(pip_layout_fits(_face_crop(3), (3, 5))) == {3, 5}
    with pytest.raises(ValueError, match="64 px"):
        pip_layout_fits(np.zeros((40, 40, 3), np.uint8))
    with pytest.raises(ValueError, match=r"no pip layout for \[8\]"):
        pip_layout_fits(_face_crop(3), (3, 8))
