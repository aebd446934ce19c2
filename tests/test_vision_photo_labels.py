"""The real photos' label fixes: each names a die the dataset mislabels; a fix that no longer fits the data is
refused, never applied to another die."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.training.photos import (
    LabelFix,
    LabelFixError,
    LabelledDie,
    LabelledPhoto,
    label_fixes,
    load_split,
    with_label_fixes,
)


def _photos() -> list[LabelledPhoto]:
    return [LabelledPhoto(Path("images/a.jpg"), (LabelledDie("2", (0, 0, 40, 40)), LabelledDie("5", (50, 0, 40, 40)))),
            LabelledPhoto(Path("images/b.jpg"), (LabelledDie("1", (0, 0, 40, 40)),))]


def test_a_fix_relabels_exactly_its_die() -> None:
    fixed = with_label_fixes(_photos(), "test", [LabelFix("a.jpg", "test", 1, "5", "6"),
                                                 LabelFix("b.jpg", "train", 0, "1", "2")])
    assert [d.label for d in fixed[0].dice] == ["2", "6"]
    assert [d.label for d in fixed[1].dice] == ["1"]        # that fix is for the train split
    assert fixed[0].dice[1].box == (50, 0, 40, 40)


@pytest.mark.parametrize(("fix", "message"), [
    (LabelFix("c.jpg", "test", 0, "1", "2"), "no such photo in the test split"),
    (LabelFix("a.jpg", "test", 2, "1", "2"), "the photo has 2 labelled dice"),
    (LabelFix("a.jpg", "test", 0, "3", "4"), "expected the dataset to label it 3, it says 2"),
])
def test_a_fix_that_no_longer_fits_the_photos_is_refused(fix: LabelFix, message: str) -> None:
    with pytest.raises(LabelFixError, match=message):
        with_label_fixes(_photos(), "test", [fix])


def test_a_malformed_fixes_file_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "fixes.toml"
    path.write_text('[[fix]]\nphoto = "a.jpg"\nsplit = "test"\ndie = 0\nlabelled = "2"\nshows = "2"\n')
    with pytest.raises(LabelFixError, match="two different faces 1-6"):
        label_fixes(path)
    path.write_text('[[fix]]\nphoto = "a.jpg"\n')
    with pytest.raises(LabelFixError, match="cannot read the photo label fixes"):
        label_fixes(path)


def test_the_committed_fixes_are_sound() -> None:
    fixes = label_fixes()
    assert len({(f.photo, f.die) for f in fixes}) == len(fixes) >= 2
    assert {f.split for f in fixes} == {"train", "test"}


def test_the_committed_fixes_fit_the_photos(shared_photos: Path) -> None:
    for split in ("train", "test"):
        fixed, given = load_split(split, shared_photos), load_split(split, shared_photos, fixed=False)
        changed = {(photo.path.name, k, die.label, own.label)
                   for photo, as_given in zip(fixed, given, strict=True)
                   for k, (die, own) in enumerate(zip(photo.dice, as_given.dice, strict=True)) if die != own}
        assert changed == {(f.photo, f.die, f.shows, f.labelled) for f in label_fixes() if f.split == split}
