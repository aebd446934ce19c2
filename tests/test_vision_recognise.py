"""The face classifier cascade (the quick net's near-certain reads stand, the full net reads the rest) and the
closer look at undecided dice (eight views, judged on their mean)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from vision.models import D6
from vision.recognise import (
    CLASSES,
    CLOSER_LOOK_TILTED,
    CROP_SIZE,
    MARBLED_SPREAD,
    QUICK_CERTAIN,
    QUICK_NEVER_ALONE,
    QUICK_WEIGHTS,
    WEIGHTS,
    FaceCascade,
    FaceEnsemble,
    FaceNet,
    MarbledEnsemble,
    colour_spread,
    crop_die,
    looks_marbled,
    read_faces,
    softmax,
)
from vision.virtual_tray import render_tray


class _Fixed:
    """A stand-in net: the given logits for crop k (crops are tagged by their first pixel), recording its input."""

    def __init__(self, logits: np.ndarray) -> None:
        self.logits = logits
        self.seen: list[int] = []

    def run(self, crops: np.ndarray) -> np.ndarray:
        tags = [int(c[0, 0, 0]) for c in crops]
        self.seen += tags
        return self.logits[tags]


class _Oriented:
    """A stand-in net that answers by the way a crop lies (as a real net, it reads the same crop the same way each
    time): the crop carries one lit pixel, off every axis of symmetry, and each of the eight ways it can lie puts
    that pixel elsewhere. Counts the crops it read."""

    def __init__(self, answers: list[np.ndarray], wide_answers: list[np.ndarray] | None = None) -> None:
        self.crop = self._lit_crop((2, 5))
        self.answers = self._ways(self.crop, answers)
        if wide_answers is not None:    # the same die cut wider: another crop, lit elsewhere in every way it lies
            self.wide = self._lit_crop((3, 7))
            self.answers |= self._ways(self.wide, wide_answers)
        self.crops_read = 0

    @staticmethod
    def _lit_crop(pixel: tuple[int, int]) -> np.ndarray:
        crop = np.zeros((1, CROP_SIZE, CROP_SIZE, 3), np.uint8)
        crop[0, pixel[0], pixel[1]] = 255
        return crop

    def _ways(self, crop: np.ndarray, answers: list[np.ndarray]) -> dict[tuple[int, int], np.ndarray]:
        from vision.recognise import _eight_ways

        return {self._lit(view[0]): logits for view, logits in zip(_eight_ways(crop), answers, strict=True)}

    @staticmethod
    def _lit(crop: np.ndarray) -> tuple[int, int]:
        y, x = np.argwhere(crop[:, :, 0])[0]
        return int(y), int(x)

    def run(self, crops: np.ndarray) -> np.ndarray:
        self.crops_read += len(crops)
        return np.concatenate([self.answers[self._lit(crop)] for crop in crops])


def _tagged(n: int) -> np.ndarray:
    crops = np.zeros((n, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    crops[:, 0, 0, 0] = np.arange(n)
    return crops


def _peaked(best: list[int], height: list[float]) -> np.ndarray:
    logits = np.zeros((len(best), len(CLASSES)), np.float32)
    logits[np.arange(len(best)), best] = height
    return logits


def test_cascade_passes_only_uncertain_crops_to_the_full_net() -> None:
    # softmax over 10 classes of a logit h against nine zeros: h = 8 -> 0.997, h = 3 -> 0.69
    quick = _Fixed(_peaked([0, 1, 2, 9], [8.0, 3.0, 8.0, 3.0]))
    full = _Fixed(_peaked([5, 6, 7, 8], [9.0, 9.0, 9.0, 9.0]))
    cascade = FaceCascade(quick, full, certain=0.97)
    logits = cascade.run(_tagged(4))
    assert quick.seen == [0, 1, 2, 3]
    assert full.seen == [1, 3]
    assert np.argmax(logits, axis=1).tolist() == [0, 6, 2, 8]
    assert (cascade.crops_read, cascade.crops_passed_on) == (4, 2)


def test_cascade_passes_close_faces_to_the_full_net_however_certain() -> None:
    seven = CLASSES.index("pips:7")
    quick = _Fixed(_peaked([seven, 0], [20.0, 20.0]))
    full = _Fixed(_peaked([5, 5], [9.0, 9.0]))
    logits = FaceCascade(quick, full, certain=0.9, full_reads=frozenset({"pips:7"})).run(_tagged(2))
    assert full.seen == [0]
    assert np.argmax(logits, axis=1).tolist() == [5, 0]


def test_cascade_passes_crops_that_look_marbled_read_under_their_bar_to_the_full_net_which_must_agree() -> None:
    # softmax over 10 classes of a logit h against nine zeros: h = 4.7 -> 0.918, h = 7 -> 0.992. Crop 0 is plain, the
    # others look marbled (their middles a patchwork of strong colours; each keeps its tag in its corner).
    crops = _tagged(4)
    patchwork = np.array([[0, 0, 255], [0, 255, 0], [255, 0, 0], [0, 255, 255]], np.uint8)
    rows, cols = np.indices((CROP_SIZE - 8, CROP_SIZE - 8))
    crops[1:, 4:-4, 4:-4] = patchwork[(rows // 3 + cols // 3) % 4]
    assert looks_marbled(crops).tolist() == [False, True, True, True]
    quick = _Fixed(_peaked([3, 3, 3, 3], [4.7, 4.7, 4.7, 7.0]))
    full = _Fixed(_peaked([5, 3, 1, 5], [9.0, 9.0, 9.0, 9.0]))
    logits = FaceCascade(quick, full, certain=0.9, marbled_certain=0.95).run(crops)
    # The plain crop and the marbled one read at 0.992 are the quick net's alone; of the two read at 0.918, the quick
    # read stands where the full net's best class is the same, the full net's where it is not.
    assert full.seen == [1, 2]
    assert np.argmax(logits, axis=1).tolist() == [3, 3, 1, 3]
    full.seen.clear()
    FaceCascade(quick, full, certain=0.9, marbled_certain=0.9).run(crops)
    assert full.seen == []


def test_cascade_refuses_unknown_classes_for_the_full_net() -> None:
    with pytest.raises(ValueError, match="pips:9"):
        FaceCascade(_Fixed(_peaked([0], [1.0])), _Fixed(_peaked([0], [1.0])), full_reads=frozenset({"pips:9"}))


def test_cascade_with_every_crop_certain_never_runs_the_full_net() -> None:
    quick = _Fixed(_peaked([3, 4], [10.0, 10.0]))
    full = _Fixed(_peaked([0, 0], [1.0, 1.0]))
    logits = FaceCascade(quick, full, certain=0.9).run(_tagged(2))
    assert full.seen == []
    assert np.argmax(logits, axis=1).tolist() == [3, 4]


def test_ensemble_reads_each_crop_by_the_mean_of_its_nets_logits() -> None:
    one = _Fixed(_peaked([0, 1], [4.0, 2.0]))
    other = _Fixed(_peaked([0, 2], [2.0, 6.0]))
    logits = FaceEnsemble([one, other]).run(_tagged(2))
    assert one.seen == other.seen == [0, 1]
    assert logits[0, 0] == pytest.approx(3.0)
    assert (logits[1, 1], logits[1, 2]) == (pytest.approx(1.0), pytest.approx(3.0))
    assert np.argmax(logits, axis=1).tolist() == [0, 2]


def test_ensemble_needs_a_net() -> None:
    with pytest.raises(ValueError, match="at least one net"):
        FaceEnsemble([])


@pytest.mark.parametrize("certain", [0.0, -0.5, 1.5])
def test_cascade_refuses_a_threshold_outside_probabilities(certain: float) -> None:
    with pytest.raises(ValueError, match=r"certainty threshold must be within \(0, 1\]"):
        FaceCascade(_Fixed(_peaked([0], [1.0])), _Fixed(_peaked([0], [1.0])), certain=certain)
    with pytest.raises(ValueError, match="threshold for marbled dice must be within"):
        FaceCascade(_Fixed(_peaked([0], [1.0])), _Fixed(_peaked([0], [1.0])), marbled_certain=certain)


def test_no_net_is_loaded_at_import() -> None:
    code = ("import vision.read, vision.recognise as r; "
            "assert r.face_net.cache_info().currsize == 0, 'a net was loaded at import'")
    subprocess.run([sys.executable, "-c", code], check=True)


def _decides_alone(quick_probabilities: np.ndarray) -> np.ndarray:
    """Where the quick net's read stands: near certain, of a class it may decide alone."""
    best = [CLASSES[i] for i in quick_probabilities.argmax(axis=1)]
    return (quick_probabilities.max(axis=1) >= QUICK_CERTAIN) & ~np.isin(best, sorted(QUICK_NEVER_ALONE))


_TRAY = {"seed": 20_000, "model": D6, "n_dice": 12, "tray": "light"}


@pytest.fixture(scope="module")
def tray_crops() -> np.ndarray:
    """Crops of clean dice cut at their true centres and sizes (turned anyhow: the nets read any turn)."""
    rendered = render_tray(**_TRAY)
    return np.stack([crop_die(rendered.image, die.centre, die.size, 0.0) for die in rendered.dice])


def test_committed_cascade_rows_come_from_the_net_that_was_certain(tray_crops: np.ndarray) -> None:
    quick, full = FaceNet(QUICK_WEIGHTS), FaceNet(WEIGHTS)
    quick_logits, full_logits = quick.run(tray_crops), full.run(tray_crops)
    assert quick_logits.shape == full_logits.shape == (len(tray_crops), len(CLASSES))
    logits = FaceCascade(quick, full).run(tray_crops)
    certain = _decides_alone(softmax(quick_logits))
    np.testing.assert_allclose(logits[certain], quick_logits[certain], atol=1e-5)
    np.testing.assert_allclose(logits[~certain], full_logits[~certain], atol=1e-5)


def test_committed_quick_net_reads_clean_dice_like_the_full_net(tray_crops: np.ndarray) -> None:
    """Where the quick net is certain, the full net names the same class (clean dice on a light tray)."""
    quick, full = FaceNet(QUICK_WEIGHTS), FaceNet(WEIGHTS)
    quick_p, full_p = softmax(quick.run(tray_crops)), softmax(full.run(tray_crops))
    certain = _decides_alone(quick_p)
    assert certain.any(), "the quick net is certain of no clean die"
    assert (quick_p.argmax(axis=1)[certain] == full_p.argmax(axis=1)[certain]).all()


def test_read_faces_through_the_cascade_reads_clean_dice_right(tray_crops: np.ndarray) -> None:
    truth = [die.appearance for die in render_tray(**_TRAY).dice]
    read = read_faces(tray_crops, D6)
    assert all(g.appearance == t for g, t in zip(read, truth, strict=True) if g.sure)
    assert sum(g.sure for g in read) >= len(read) - 2


def test_only_a_model_with_a_6_and_a_7_sends_every_6_to_the_full_net() -> None:
    from vision.models import EXCAPE, DieKind, DieModel, Face
    from vision.recognise import face_net, face_net_for

    near_certain_6 = _peaked([CLASSES.index("pips:6")], [8.0])     # p 0.997
    assert face_net_for(D6).passed_on(near_certain_6).tolist() == []
    assert face_net_for(EXCAPE).passed_on(near_certain_6).tolist() == [0]
    taught = DieModel("cards", (DieKind("cards", (Face("A", "taught:A"), Face("K", "taught:K"))),))
    assert face_net_for(taught) is face_net()
    assert face_net_for(D6).full is face_net().full             # the same nets, loaded once
    assert face_net_for(D6) is face_net_for(D6)                 # one cascade per set of close rivals, built once
    face_net.cache_clear()                                      # the nets loaded again: never paired with stale ones
    assert face_net_for(D6).full is face_net().full


def test_every_built_in_model_sends_every_cross_to_the_full_net() -> None:
    """The quick net reads a marbled die's gold pips as an X, near certain, where the full net does not."""
    from vision.models import EXCAPE
    from vision.recognise import QUICK_CROSS_AGREED, face_net_for

    near_certain_cross = _peaked([CLASSES.index("symbol:cross")], [8.0])
    near_certain_5 = _peaked([CLASSES.index("pips:5")], [8.0])
    assert {"symbol:cross"} == QUICK_CROSS_AGREED
    for model in (D6, EXCAPE):
        assert face_net_for(model).passed_on(near_certain_cross).tolist() == [0]
        assert face_net_for(model).passed_on(near_certain_5).tolist() == []


def test_a_quick_read_the_full_net_must_agree_with_stands_only_when_it_does() -> None:
    cross, five = CLASSES.index("symbol:cross"), CLASSES.index("pips:5")
    quick = _Fixed(_peaked([cross, cross, cross, five], [8.0, 8.0, 1.0, 8.0]))     # near certain but the third
    full = _Fixed(_peaked([cross, five, cross, five], [3.0, 6.0, 6.0, 6.0]))
    cascade = FaceCascade(quick, full, certain=0.9, full_reads=frozenset(), agreed_reads=frozenset({"symbol:cross"}))
    logits = cascade.run(_tagged(4))
    np.testing.assert_allclose(logits[0], quick.logits[0])     # both see an X: the quick net's surer read stands
    np.testing.assert_allclose(logits[1], full.logits[1])      # the full net sees a 5: its read stands
    np.testing.assert_allclose(logits[2], full.logits[2])      # not near certain: the full net's, as for any crop
    np.testing.assert_allclose(logits[3], quick.logits[3])     # a 5 the quick net decides alone
    assert cascade.crops_passed_on == 3
    with pytest.raises(ValueError, match="not among"):
        FaceCascade(quick, full, agreed_reads=frozenset({"pips:9"}))


def test_a_taught_face_is_judged_by_its_match_not_by_the_nets_tilt() -> None:
    """The net never saw a user's symbols: its "tilted" is no word on a taught die (the lying-flat check's is)."""
    from vision.models import DieKind, DieModel, Face
    from vision.recognise import View, guesses

    taught = DieModel("cards", (DieKind("cards", (Face("A", "taught:A"), Face("K", "taught:K"))),))
    leaning, matches = _probable({"tilted": 0.9}), np.array([[0.9, 0.2]], np.float32)
    guess = guesses([View(leaning, matches), View(leaning, matches)], taught)[0]
    assert (guess.appearance, guess.sure, guess.tilted) == ("taught:A", True, False)


def test_detail_crops_and_templates_go_together_and_taught_faces_need_the_matches() -> None:
    from vision.models import DieKind, DieModel, Face
    from vision.recognise import TEMPLATE_SIZE, View, guesses, look

    crops = np.zeros((1, 28, 28, 3), np.uint8)
    detail = np.zeros((1, TEMPLATE_SIZE, TEMPLATE_SIZE, 3), np.uint8)
    with pytest.raises(ValueError, match="go together"):
        look(crops, detail=detail)
    taught = DieModel("cards", (DieKind("cards", (Face("A", "taught:A"), Face("K", "taught:K"))),))
    with pytest.raises(ValueError, match="need each view's matches"):
        guesses([View(np.zeros((1, 10), np.float32))], taught)
    with pytest.raises(ValueError, match="need each view's matches"):     # matches against another model's faces
        guesses([View(np.zeros((1, 10), np.float32), np.zeros((1, 3), np.float32))], taught)


def _probable(probabilities: dict[str, float]) -> np.ndarray:
    """One crop's logits giving these classes these probabilities (the rest share what is left)."""
    p = np.full(len(CLASSES), (1.0 - sum(probabilities.values())) / (len(CLASSES) - len(probabilities)))
    for name, value in probabilities.items():
        p[CLASSES.index(name)] = value
    return np.log(p).astype(np.float32)[None]


def test_a_face_each_read_gives_just_over_the_bar_is_sure_only_when_their_mean_is_surer() -> None:
    from vision.recognise import (
        SURE_CONFIDENCE,
        SURE_PROBABILITY,
        _builtin_guesses,
        face_probabilities,
        needs_second_read,
    )

    # Both reads give the 3 more than SURE_PROBABILITY and beat the 2 by more than the margin, but their mean stays
    # under SURE_CONFIDENCE: a marbled 3 whose middle pip a swirl hides reads so as a 2.
    torn = _probable({"pips:3": 0.62, "pips:2": 0.3})
    assert SURE_PROBABILITY <= face_probabilities(torn, D6)[0, 2] < SURE_CONFIDENCE
    guess = _builtin_guesses([torn, torn], D6)[0]
    assert (guess.appearance, guess.sure) == ("pips:3", False)
    first = _builtin_guesses([torn], D6)[0]      # a first read alone is never final under 0.9: it is read again
    assert first.sure and needs_second_read(first, D6)
    clear = _probable({"pips:3": 0.66, "pips:2": 0.26})
    assert _builtin_guesses([clear, clear], D6)[0].sure
    surer = _probable({"pips:3": 0.7, "pips:2": 0.22})
    assert _builtin_guesses([torn, surer], D6)[0].sure         # the bar is on the mean: one read at 0.63 may stand


def test_an_unsure_die_is_decided_by_the_mean_of_eight_views() -> None:
    # As cut, the die reads a 5 at p 0.5: unsure. Five other ways read a 5 at 0.85, two a 4 at 0.65: not every
    # view agrees, but the mean of the eight (among a d6's faces, a 5 at 0.66, a 4 at 0.24) decides.
    first = _probable({"pips:5": 0.5, "pips:4": 0.3})
    five, four = _probable({"pips:5": 0.85, "pips:4": 0.05}), _probable({"pips:4": 0.65, "pips:5": 0.2})
    net = _Oriented([first, five, four, five, five, five, four, five])
    guess = read_faces(net.crop, D6, net)[0]
    assert net.crops_read == 1 + 8
    assert (guess.appearance, guess.sure) == ("pips:5", True)


def test_the_closer_look_reads_the_die_cut_wider() -> None:
    # As cut, the die reads a 5 at p 0.5 in every way it lies (a pip half outside the crop): the closer look on
    # these crops cannot decide. Cut wider, the whole die in view, it reads a 5 at 0.9 in every way.
    unsure = _probable({"pips:5": 0.5, "pips:4": 0.3})
    net = _Oriented([unsure] * 8, wide_answers=[_probable({"pips:5": 0.9})] * 8)
    assert not read_faces(net.crop, D6, net)[0].sure       # no wider crops given: the closer look reads the crop
    guess = read_faces(net.crop, D6, net, wide=net.wide)[0]
    assert net.crops_read == 1 + 8 + 1 + 8 and (guess.appearance, guess.sure) == ("pips:5", True)
    with pytest.raises(ValueError, match="same dice at the same size"):
        read_faces(net.crop, D6, net, wide=np.concatenate([net.wide, net.wide]))


def test_a_closer_look_that_sees_the_die_tilted_leaves_it_unsure() -> None:
    first = _probable({"pips:5": 0.5, "pips:4": 0.3})
    tilt = CLOSER_LOOK_TILTED + 0.05
    leaning = _probable({"pips:5": 0.97 - tilt, "tilted": tilt})    # the 5 wins by far, but "tilted" is not low
    net = _Oriented([first] + [leaning] * 7)
    guess = read_faces(net.crop, D6, net)[0]
    assert (guess.appearance, guess.sure) == ("pips:5", False)


def test_a_closer_look_that_disagrees_leaves_the_die_unsure() -> None:
    first = _probable({"pips:5": 0.5, "pips:4": 0.3})
    five, four = _probable({"pips:5": 0.85}), _probable({"pips:4": 0.85})
    net = _Oriented([first, four, five, four, five, four, five, four])
    assert not read_faces(net.crop, D6, net)[0].sure


def test_a_die_far_from_any_face_gets_no_closer_look() -> None:
    first = _probable({"pips:5": 0.35, "pips:4": 0.3})         # below CLOSER_LOOK_FROM
    net = _Oriented([first] + [_probable({"pips:5": 0.95})] * 7)
    assert not read_faces(net.crop, D6, net)[0].sure
    assert net.crops_read == 1


def test_only_undecided_built_in_faces_get_a_closer_look() -> None:
    from vision.models import DieKind, DieModel, Face
    from vision.recognise import FaceGuess, needs_closer_look

    taught = DieModel("cards", (DieKind("cards", (Face("A", "taught:A"), Face("K", "taught:K"))),))
    assert needs_closer_look(FaceGuess("pips:5", 0.5, False), D6)
    assert not needs_closer_look(FaceGuess("pips:5", 0.95, True), D6)            # already sure
    assert not needs_closer_look(FaceGuess("pips:5", 0.3, False, True), D6)      # the net sees it cocked
    assert not needs_closer_look(FaceGuess(None, 0.9, True), D6)                 # not a die
    assert not needs_closer_look(FaceGuess("taught:A", 0.5, False), taught)      # matched as pictures, not by the net


def test_the_eight_views_are_the_quarter_turns_and_their_mirrors() -> None:
    from vision.recognise import _eight_ways

    crop = np.zeros((1, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    crop[0, 2, 5] = 255     # one lit pixel, off every axis of symmetry: each way puts it somewhere else
    views = _eight_ways(crop)
    assert len({tuple(np.argwhere(view[0, :, :, 0])[0]) for view in views}) == 8
    assert any((view == crop).all() for view in views)                             # as cut is one of them
    assert any((view == crop[:, :, ::-1]).all() for view in views)                 # mirrored is another


def test_a_face_read_with_some_tilt_is_only_sure_after_a_closer_look_that_clears_it() -> None:
    from vision.recognise import SURE_TILTED

    # As cut: a 5 that clears every other bar, but "tilted" just above SURE_TILTED: not sure on that read alone.
    leaning = _probable({"pips:5": 0.97 - SURE_TILTED, "tilted": SURE_TILTED + 0.02})
    flat = _probable({"pips:5": 0.93, "tilted": 0.01})
    net = _Oriented([leaning] + [flat] * 7)      # the other seven ways see a flat 5: the mean tilt is low
    guess = read_faces(net.crop, D6, net)[0]
    assert net.crops_read == 1 + 8 and (guess.appearance, guess.sure) == ("pips:5", True)
    still = _probable({"pips:5": 0.6, "tilted": CLOSER_LOOK_TILTED + 0.05})
    net = _Oriented([leaning] + [still] * 7)     # they see it leaning too: a cocked die, never sure
    guess = read_faces(net.crop, D6, net)[0]
    assert (guess.appearance, guess.sure) == ("pips:5", False)


def test_judged_without_tilted_a_face_the_net_half_sees_tilted_is_sure_and_nothing_else_changes() -> None:
    from vision.recognise import _builtin_guesses

    # A flat die in perspective: its sides show, and the net gives "tilted" more than the 5.
    seen = _probable({"pips:5": 0.45, "tilted": 0.5, "pips:4": 0.02})
    minded = _builtin_guesses([seen], D6)[0]
    assert (minded.appearance, minded.sure, minded.tilted) == ("pips:5", False, True)
    blind = _builtin_guesses([seen], D6, mind_tilt=False)[0]
    assert (blind.appearance, blind.sure, blind.tilted) == ("pips:5", True, False)
    others = (1 - 0.97) / (len(CLASSES) - 3)     # what _probable gives each class not named (the 7 and the X too)
    assert blind.confidence == pytest.approx(0.45 / (1 - 0.5 - 2 * others))   # among a d6's faces and "none"
    # Without "tilted", the faces still have to clear every other bar: two faces near each other stay unsure, and
    # a crop the net calls no die stays no die.
    torn = _probable({"pips:5": 0.3, "pips:4": 0.25, "tilted": 0.4})
    assert not _builtin_guesses([torn], D6, mind_tilt=False)[0].sure
    nothing = _probable({"none": 0.85, "tilted": 0.1})
    assert _builtin_guesses([nothing], D6, mind_tilt=False)[0].appearance is None


def _die_crop(body: tuple[int, int, int], swirl: tuple[int, int, int] | None = None) -> np.ndarray:
    """A die's crop as the classifier takes it: a grey ring of tray, a face of `body` with a 5's white pips, and
    `swirl` (another resin) over the face's right part, nearly half of it, when marbled."""
    import cv2

    crop = np.full((CROP_SIZE, CROP_SIZE, 3), 128, np.uint8)
    crop[2:-2, 2:-2] = body
    if swirl is not None:
        crop[2:-2, 15:-2] = swirl
    for x, y in ((8, 8), (8, 19), (19, 8), (19, 19), (14, 14)):
        cv2.circle(crop, (x, y), 2, (245, 245, 245), -1)
    return crop


def test_a_marbled_die_shows_its_colours_spread_and_a_plain_one_does_not() -> None:
    plain = [_die_crop(colour) for colour in ((30, 30, 200), (200, 60, 40), (20, 20, 20), (235, 235, 235))]
    marbled = [_die_crop((200, 60, 40), (40, 200, 230)), _die_crop((40, 40, 180), (230, 230, 230))]
    spread = colour_spread(np.stack(plain + marbled))
    assert all(spread[:4] < MARBLED_SPREAD), spread
    assert all(spread[4:] >= MARBLED_SPREAD), spread
    assert colour_spread(np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)).shape == (0,)


def test_looks_marbled_answers_as_colour_spread_against_its_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    # The quick test decides most crops by two order statistics; a crop whose percentile falls near the bar must
    # still get colour_spread's own answer. Swirls of every width make spreads on both sides of the bar and at it.
    rng = np.random.default_rng(7)
    crops = [_die_crop((200, 60, 40), (40, 200, 230))]
    for _ in range(400):
        body = rng.integers(40, 216, 3)
        crop = _die_crop(tuple(int(v) for v in body))
        left = int(rng.integers(3, 26))
        crop[2:-2, left:-2] = np.clip(body + rng.normal(0, 30, 3), 0, 255).astype(np.uint8)
        crops.append(crop)
    crops.extend(rng.integers(0, 256, (100, CROP_SIZE, CROP_SIZE, 3), dtype=np.uint8))
    crops = np.stack(crops)
    spread = colour_spread(crops)
    assert np.sum(np.abs(spread - MARBLED_SPREAD) < 2) >= 5, "no crop near the bar: the test would prove little"
    assert np.array_equal(looks_marbled(crops), spread >= MARBLED_SPREAD)
    assert looks_marbled(crops[:0]).shape == (0,)
    # Against another bar (the swirls' check asks a lower one: vision.face_checks.SWIRLS_SPREAD).
    lower = MARBLED_SPREAD / 2
    assert np.sum(np.abs(spread - lower) < 2) >= 5, "no crop near the lower bar"
    assert np.array_equal(looks_marbled(crops, lower), spread >= lower)
    # A middle of 6 x 6 px puts the percentile's rank on a whole order statistic (0.6 x 35 = 21).
    import vision.recognise

    monkeypatch.setattr(vision.recognise, "MIDDLE", 3)
    assert np.array_equal(looks_marbled(crops), colour_spread(crops) >= MARBLED_SPREAD)


def test_the_marbled_net_is_heard_only_on_dice_that_look_marbled() -> None:
    # Its logits are averaged with the full net's on those crops alone: on real photo dice, which rarely look
    # marbled, the full net decides as before.
    crops = np.stack([_die_crop((30, 30, 200)), _die_crop((200, 60, 40), (40, 200, 230))])
    crops[:, 0, 0, 0] = [0, 1]                              # _Fixed's tags (a corner pixel of the tray ring)
    full, marbled = _Fixed(np.zeros((2, len(CLASSES)), np.float32)), _Fixed(np.ones((2, len(CLASSES)), np.float32))
    logits = MarbledEnsemble(full, marbled).run(crops)
    assert full.seen == [0, 1] and marbled.seen == [1]
    np.testing.assert_allclose(logits, [[0.0] * len(CLASSES), [0.5] * len(CLASSES)])
