"""The turn controller driven by method calls: reads and buttons in, journal lines and screens out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.controller import REPEATED_REFUSALS, CameraAdvice, Controller, ControllerError, TrayDie, TrayRead
from companion.journal import Journal
from companion.rules import GameSetup
from companion.screens import illegible_texts
from hardware.buttons import ButtonEvent
from hardware.signals import SignalTwin


class RecordingDisplay:
    """Remembers each screen and how many journal lines existed when it was shown."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.shown: list[tuple[Any, int]] = []
        self.broken = False

    def show(self, image: Any) -> None:
        if self.broken:
            raise OSError("I2C bus error")
        text = self.journal.load_current() or ""
        self.shown.append((image, len(text.splitlines())))


class BrokenSignals:
    def signal(self, name: str) -> None:
        raise OSError("buzzer gone")


def make(tmp_path: Path, game: str = "mex", players: tuple[str, ...] = ("Ann", "Bob", "Cid"),
         **options: Any) -> tuple[Controller, RecordingDisplay]:
    journal = Journal(tmp_path / "journal")
    display = RecordingDisplay(journal)
    controller = Controller(journal, GameSetup(game, players, options), display=display, signals=SignalTwin())
    controller.start()
    return controller, display


def roll(controller: Controller, a: str, b: str) -> None:
    controller.on_reading(TrayRead("ok", None, (TrayDie(a, True), TrayDie(b, True))))


def press(controller: Controller, button: str, kind: str = "press") -> None:
    controller.on_button(ButtonEvent(button, kind))


def screen(controller: Controller) -> str:
    assert controller.last_screen is not None
    assert illegible_texts(controller.last_screen) == []
    return controller.last_screen.all_text()


def journal_lines(controller: Controller) -> list[str]:
    return (controller.journal.load_current() or "").splitlines()


def test_a_sure_read_becomes_a_roll_journaled_before_it_is_shown(tmp_path: Path) -> None:
    controller, display = make(tmp_path)
    roll(controller, "6", "3")
    assert journal_lines(controller) == ["game mex players=Ann,Bob,Cid", "roll 6 3"]
    assert display.shown[-1][1] == 2  # the screen showing 63 appeared after the roll was on disk
    assert "63" in screen(controller) and "STOP keep" in screen(controller)
    assert controller.signals.beeps[-1:] == ["ok"] or controller.signals.beeps  # the twin heard the roll


def test_mex_stop_and_reroll_buttons_and_throws_left(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    roll(controller, "4", "2")
    assert "2 left" in screen(controller)
    press(controller, "reroll")
    roll(controller, "5", "4")
    assert "1 left" in screen(controller)
    press(controller, "stop")
    assert journal_lines(controller)[1:] == ["roll 4 2", "reroll", "roll 5 4", "stop"]
    assert controller.game.expects().actor == "Bob"
    assert "Ann stops" in screen(controller)  # the result message, until a throw or a button


def test_unsure_read_or_wrong_count_says_why_and_changes_nothing(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    controller.on_reading(TrayRead("reroll", "die 2 of 2 is cocked: re-roll",
                                   (TrayDie("5", True), TrayDie("?", False, "cocked"))))
    assert "re-roll: die 2 is cocked" in screen(controller)
    controller.on_reading(TrayRead("reroll", "expected 2 dice but found 3",
                                   (TrayDie("5", True), TrayDie("1", True), TrayDie("2", True))))
    assert "re-roll: 3 dice, not 2" in screen(controller)
    controller.on_reading(TrayRead("reroll", "expected 2 dice but found 1", (TrayDie("5", True),)))
    assert "re-roll: 1 die, not 2" in screen(controller)
    assert journal_lines(controller) == ["game mex players=Ann,Bob,Cid"]


def test_impossible_faces_are_refused_with_the_rules_reason(tmp_path: Path) -> None:
    controller, _ = make(tmp_path, "excape")
    roll(controller, "7", "4")  # both faces only on die A: a misread
    assert len(journal_lines(controller)) == 1
    assert "both only on die A" in screen(controller)


def test_display_and_buzzer_failures_never_lose_an_event(tmp_path: Path) -> None:
    controller, display = make(tmp_path)
    controller.signals = BrokenSignals()
    display.broken = True
    roll(controller, "6", "6")
    press(controller, "stop")
    assert journal_lines(controller)[1:] == ["roll 6 6", "stop"]
    assert controller.display_failures >= 1
    assert controller.game.expects().actor == "Bob"


def test_a_journal_that_cannot_write_keeps_the_event_out(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    controller.journal.current_path.unlink()  # append() now refuses: no game in progress
    roll(controller, "6", "3")
    assert controller.game.events == ()
    assert "journal error" in screen(controller)


def test_hold_stop_ends_the_round_only_when_the_rules_allow(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    roll(controller, "4", "1")
    press(controller, "stop", "hold")  # the round's first player may not end it
    assert "end-round" not in journal_lines(controller)
    assert "first player cannot end it" in controller.notice and "player cannot end it" in screen(controller)
    press(controller, "stop")
    roll(controller, "6", "5")
    press(controller, "stop", "hold")
    assert journal_lines(controller)[-1] == "end-round"
    assert "Ann loses 1" in screen(controller)


def test_tie_break_select_toggles_the_count_and_stop_confirms(tmp_path: Path) -> None:
    controller, _ = make(tmp_path, players=("Ann", "Bob"))
    roll(controller, "3", "1")
    press(controller, "stop")
    roll(controller, "1", "3")
    press(controller, "stop")
    assert controller.game.expects().kind == "count"
    controller.message = None
    controller._refresh()
    assert "Tie: Bob" in screen(controller)
    press(controller, "select")
    assert controller.count_choice == "pips"
    press(controller, "stop")
    assert journal_lines(controller)[-1] == "count pips"


def test_excape_select_cycles_free_spaces_with_the_ejection_preview(tmp_path: Path) -> None:
    controller, _ = make(tmp_path, "excape")
    roll(controller, "3", "1")
    press(controller, "stop")          # Ann: 31 on the highest free space, 5
    roll(controller, "5", "4")         # Bob: 54 would eject Ann's 31 from any lower space
    assert controller.cursor_space == 4
    assert "ejects Ann31" in screen(controller)
    seen = {controller.cursor_space}
    for _ in range(5):
        press(controller, "select")
        seen.add(controller.cursor_space)
    assert seen == {0, 1, 2, 3, 4}     # space 5 is taken
    while controller.cursor_space != 2:
        press(controller, "select")
    press(controller, "stop")
    assert journal_lines(controller)[1:] == ["roll 3 1", "place 5", "roll 5 4", "place 2"]
    assert [pair.player for pair in controller.game.state.board] == ["Bob"]
    assert "Ejected!" in screen(controller)


def test_a_throw_before_reroll_is_kept_and_used_when_reroll_is_pressed(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    roll(controller, "3", "2")
    roll(controller, "6", "4")  # thrown again without pressing REROLL first
    assert "throw seen: press REROLL" in screen(controller)
    press(controller, "reroll")
    assert journal_lines(controller)[1:] == ["roll 3 2", "reroll", "roll 6 4"]


def test_menu_undo_goes_back_any_number_of_steps(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    roll(controller, "3", "2")
    press(controller, "reroll")
    roll(controller, "6", "4")
    press(controller, "select", "hold")
    assert controller.mode == "menu" and "Undo roll 6 4" in screen(controller)
    for _ in range(3):
        press(controller, "stop")
    assert controller.game.events == ()
    assert "Undo (nothing)" in screen(controller)
    press(controller, "reroll")  # back to the game
    assert controller.mode == "play"
    assert journal_lines(controller)[-3:] == ["undo", "undo", "undo"]


def test_correct_the_last_read_replaces_the_roll(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    roll(controller, "6", "3")
    press(controller, "select", "hold")
    press(controller, "select")          # -> Correct read
    press(controller, "stop")
    assert controller.mode == "correct" and "63" in screen(controller)
    press(controller, "select")          # the second die
    press(controller, "reroll")          # 3 -> 4
    press(controller, "reroll")          # 4 -> 5
    assert "65" in screen(controller)
    press(controller, "stop")
    assert journal_lines(controller)[1:] == ["roll 6 3", "undo", "roll 6 5"]
    assert controller.mode == "play" and "65" in screen(controller)


def test_correcting_an_unreadable_throw_enters_the_roll(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    controller.on_reading(TrayRead("reroll", "die 1 cannot be read", (TrayDie("?", False, "unclear"),
                                                                      TrayDie("5", True))))
    press(controller, "select", "hold")
    press(controller, "select")
    press(controller, "stop")
    assert controller.correct_faces == ("1", "5") and not controller.correct_replaces
    press(controller, "reroll")          # die 1: 1 -> 2
    press(controller, "stop")
    assert journal_lines(controller)[1:] == ["roll 5 2"]  # the higher face first, like the value


def test_new_game_needs_a_hold_and_setup_changes_apply_to_it(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    roll(controller, "6", "3")
    press(controller, "select", "hold")
    for _ in range(3):
        press(controller, "select")      # -> Game: Mex
    press(controller, "stop")            # -> Excape
    assert "Game: Excape" in screen(controller)
    press(controller, "select", "hold")  # leave the menu: the game in progress goes on
    assert controller.game.setup.game == "mex"
    press(controller, "select", "hold")
    press(controller, "select")
    press(controller, "select")          # -> New game
    press(controller, "stop")
    assert "New game?" in screen(controller)
    press(controller, "stop")            # a short press cancels
    assert controller.mode == "menu" and controller.game.setup.game == "mex"
    press(controller, "stop")            # New game again
    press(controller, "stop", "hold")
    assert controller.game.setup.game == "excape" and controller.mode == "play"
    assert journal_lines(controller) == ["game excape players=Ann,Bob,Cid"]
    assert len(controller.journal.archived()) == 1


def test_player_count_and_lives_cycle_within_the_rules_limits(tmp_path: Path) -> None:
    controller, _ = make(tmp_path, players=("Ann", "Bob"))
    press(controller, "select", "hold")
    for _ in range(4):
        press(controller, "select")      # -> Players: 2
    press(controller, "stop")
    assert controller.next_setup.players == ("Ann", "Bob", "Cid")
    press(controller, "select")          # -> Lives: 12
    press(controller, "stop")
    assert controller.next_setup.option("lives") == 15


def test_resume_continues_the_journal_game(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    roll(controller, "6", "3")
    press(controller, "stop")
    roll(controller, "2", "1")
    again, _ = make(tmp_path)
    assert again.game.to_json() == controller.game.to_json()
    assert "Resumed" in screen(again)
    assert journal_lines(again) == journal_lines(controller)


def test_an_unreadable_journal_is_archived_and_a_new_game_begins(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    journal.start("game mex players=Ann,Bob")
    journal.append("roll 9 9")
    controller = Controller(journal, GameSetup("mex", ("Ann", "Bob")))
    controller.start()
    assert controller.game.events == ()
    assert len(journal.archived()) == 1
    assert "Journal unreadable" in screen(controller)


def test_game_over_shows_the_winner_and_a_hold_starts_again(tmp_path: Path) -> None:
    controller, _ = make(tmp_path, players=("Ann", "Bob"), lives=1)
    roll(controller, "6", "5")
    press(controller, "stop")
    roll(controller, "3", "1")
    press(controller, "stop")
    assert controller.game.over
    assert "Ann wins!" in screen(controller)
    press(controller, "stop")
    assert controller.game.over
    press(controller, "stop", "hold")
    assert not controller.game.over and controller.game.events == ()


def test_buttons_for_turns_table_words_into_this_ui(tmp_path: Path) -> None:
    controller, _ = make(tmp_path, "excape")
    roll(controller, "5", "4")
    presses = controller.buttons_for("place 3")
    assert [(p.button, p.kind) for p in presses] == [("select", "press")] * 2 + [("stop", "press")]
    with pytest.raises(ControllerError, match="not possible now"):
        controller.buttons_for("stop")
    with pytest.raises(ControllerError, match="tray"):
        controller.buttons_for("roll 6 3")
    undo = controller.buttons_for("undo")
    assert undo[0].kind == "hold" and undo[-2].button == "stop"


def test_message_times_out_on_tick(tmp_path: Path) -> None:
    now = [0.0]
    journal = Journal(tmp_path / "journal")
    controller = Controller(journal, GameSetup("mex", ("Ann", "Bob")), clock=lambda: now[0])
    controller.start()
    roll(controller, "6", "3")
    press(controller, "stop")
    assert controller.message is not None
    now[0] = 10.0
    controller.tick()
    assert controller.message is None and "Bob" in screen(controller)


def test_a_camera_fault_is_shown_and_the_game_goes_on(tmp_path: Path) -> None:
    from vision.models import ModelError

    def broken_watcher(frame: Any, game: str) -> tuple[str, Any]:
        raise ModelError("face classifier weights missing")

    controller, _ = make(tmp_path)
    controller.watcher = broken_watcher
    controller.on_frame(object())
    assert "camera: face classifier" in controller.notice
    roll(controller, "6", "3")
    assert journal_lines(controller)[-1] == "roll 6 3"


def test_a_camera_fault_of_every_frame_is_said_and_logged_once_while_it_lasts(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from vision.models import ModelError

    faults = iter(["the tray is dark", "the tray is dark", "the tray is dark", None, "the tray is dark"])

    def watcher(frame: Any, game: str) -> tuple[str, Any]:
        if (fault := next(faults)) is not None:
            raise ModelError(fault)
        return "empty", None

    controller, _ = make(tmp_path)
    controller.watcher = watcher
    with caplog.at_level("ERROR"):
        for _ in range(5):
            controller.on_frame(object())
    # Thirty frames a second each logging the same fault flooded the system journal: once, then once again after a
    # frame that worked.
    assert [r.getMessage() for r in caplog.records] == ["cannot read the tray: the tray is dark"] * 2


def test_a_camera_lost_mid_game_is_said_once_the_throws_go_on_by_hand_and_its_return_is_said(
        tmp_path: Path) -> None:
    now = [0.0]
    controller, display = make(tmp_path)
    controller.clock = lambda: now[0]
    roll(controller, "6", "3")
    press(controller, "stop")                # Ann keeps 63: Bob throws
    controller.on_camera("no picture for 5 s")
    assert controller.message is not None and controller.message.title == "Camera"
    assert "Correct read" in " ".join(controller.message.lines) and controller.notice == "camera: no picture"
    shown = len(display.shown)
    now[0] = 10.0
    controller.tick()                        # the message times out; the bottom line keeps saying it
    for _ in range(30):                      # the loop reports the fault every frame, and what it turns to: said once
        controller.on_camera("cannot open webcam 0: no such camera, or it is busy")
    assert controller.message is None and len(display.shown) == shown + 1
    assert "camera: no picture" in screen(controller)
    # Bob's throw entered by hand (the menu's Correct read), as the camera cannot see it.
    press(controller, "select", "hold")
    press(controller, "select")
    press(controller, "stop")
    press(controller, "reroll")              # 1 -> 2
    press(controller, "reroll")              # 2 -> 3
    press(controller, "stop")
    assert journal_lines(controller)[-1] == "roll 3 1" and controller.mode == "play"
    controller.on_camera(None)
    assert controller.notice == "camera back" and "camera back" in screen(controller)


def refuse(controller: Controller, *dice: TrayDie) -> str:
    """A throw the camera refused: the title of the message said, or "re-roll" when the bottom line holds it all."""
    controller.message = None
    controller.on_reading(TrayRead("reroll", "refused", dice))
    if controller.message is not None:
        return controller.message.title
    assert controller.notice is not None and controller.notice.startswith("re-roll: ")
    return "re-roll"


def test_throws_refused_in_a_row_for_the_same_fault_of_the_picture_say_what_to_mend(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    blurred = (TrayDie("?", False, "blurred"), TrayDie("5", True))
    said = [refuse(controller, *blurred) for _ in range(REPEATED_REFUSALS * 2)]
    assert said == ["re-roll", "re-roll", "Camera unsure"] * 2     # said again after as many more
    assert controller.message is not None and controller.message.lines == (
        "6 throws blurred: focus the camera, light the tray. By hand: hold SELECT, Correct read",)
    assert controller.notice == "re-roll: die 1 is blurred" and controller.game.events == ()
    # A die missed, or read by the tray's rim: the picture's fault too, each with its own remedy.
    controller, _ = make(tmp_path / "2")
    assert [refuse(controller, TrayDie("4", True)) for _ in range(3)][-1] == "Camera unsure"
    assert "short of dice" in controller.message.lines[0]
    controller, _ = make(tmp_path / "3")
    rim = (TrayDie("?", False, "on the tray's rim"), TrayDie("5", True))
    assert [refuse(controller, *rim) for _ in range(3)][-1] == "Camera unsure"
    assert "Find the tray" in controller.message.lines[0]


def test_no_remedy_for_faults_of_the_throw_mixed_faults_or_a_streak_a_roll_broke(tmp_path: Path) -> None:
    unclear = (TrayDie("?", False, "unclear"), TrayDie("5", True))
    blurred = (TrayDie("?", False, "blurred"), TrayDie("5", True))
    controller, _ = make(tmp_path)
    assert [refuse(controller, TrayDie("?", False, "cocked"), TrayDie("5", True)) for _ in range(3)] == ["re-roll"] * 3
    controller, _ = make(tmp_path / "2")
    assert [refuse(controller, *d) for d in (blurred, unclear, blurred)] == ["re-roll"] * 3
    controller, _ = make(tmp_path / "3")
    refuse(controller, *unclear)
    refuse(controller, *unclear)
    roll(controller, "6", "3")                       # a throw read: the players' picture is fine after all
    press(controller, "stop")                        # Ann keeps it: Bob throws
    assert refuse(controller, *unclear) == "re-roll"
    assert [refuse(controller, *unclear) for _ in range(2)][-1] == "Camera unsure"
    # A throw entered by hand breaks the streak too.
    press(controller, "select", "hold")
    press(controller, "select")                      # -> Correct read
    press(controller, "stop")
    press(controller, "stop")
    assert journal_lines(controller)[-1] == "roll 5 1"
    assert [refuse(controller, *unclear) for _ in range(2)] == ["re-roll"] * 2


def test_a_face_no_die_has_is_refused_not_raised(tmp_path: Path) -> None:
    controller, _ = make(tmp_path)
    roll(controller, "star", "3")
    assert controller.game.events == ()
    assert "re-roll" in controller.notice and "not a die face" in controller.notice


def test_an_x_bust_says_who_goes_back_and_the_next_player(tmp_path: Path) -> None:
    controller, _ = make(tmp_path, "excape")
    roll(controller, "5", "4")
    press(controller, "stop")             # Ann places
    roll(controller, "3", "X")            # Bob's first roll: X counts 0, no penalty
    press(controller, "reroll")
    roll(controller, "X", "1")            # a later X: bust
    text = screen(controller)
    assert "X! bust" in text and "Bob: back 1" in text and "Cid throws" in text
    assert journal_lines(controller)[-1] == "roll 1 X"


@pytest.mark.parametrize(("name", "said", "bottom"), [
    # Dice thrown while the companion boots (or the last throw, after a power cut).
    ("STARTED_WITH_DICE", ("Not counted", "the next throw is"), "dice at start not counted"),
    # A tray read with a hand lying still in it (the tracker's patience ran out).
    ("HAND_IN_TRAY", ("Hand in tray?", "throw again"), "hand in tray? throw again"),
])
def test_a_tray_read_but_no_throw_is_said_not_to_count(tmp_path: Path, name: str, said: tuple[str, str],
                                                       bottom: str) -> None:
    # Read but no roll: the players are told why and what to do, on a legible screen, and the game is as it was;
    # once the message's time is up, the bottom line keeps it short.
    import companion.app

    controller, _ = make(tmp_path)
    before = journal_lines(controller)
    controller.on_reading(getattr(companion.app, name))
    assert journal_lines(controller) == before
    text = screen(controller)
    assert all(fragment in text for fragment in said)
    controller.message_until = controller.clock()
    controller.tick()
    assert controller.notice == bottom and bottom in screen(controller)


class _AdvisingWatcher:
    """A watcher that reads the given throws, one a frame, and has advice about the camera from the second on."""

    def __init__(self, throws: list[tuple[str, str]], advice: CameraAdvice) -> None:
        self.throws, self.advice, self.read = list(throws), advice, 0

    def __call__(self, frame: Any, game: str) -> tuple[str, Any]:
        a, b = self.throws.pop(0)
        self.read += 1
        return "read", TrayRead("ok", None, (TrayDie(a, True), TrayDie(b, True)))

    def camera_advice(self) -> CameraAdvice | None:
        if self.read < 2 or self.advice is None:
            return None
        advice, self.advice = self.advice, None
        return advice


def test_advice_about_the_camera_is_said_once_after_the_throw_it_came_with_counts(tmp_path: Path) -> None:
    # The table learns from its throws that its dice look small (companion.app.TrayWatcher): said once, the throw
    # counted all the same.
    advice = CameraAdvice("Dice look small to the camera: read less surely. Move it closer to the tray.",
                          "dice small: camera closer")
    controller, _ = make(tmp_path)
    controller.watcher = _AdvisingWatcher([("6", "3"), ("5", "4"), ("4", "1")], advice)
    controller.on_frame(object())
    assert controller.message is None
    press(controller, "stop")                         # Ann's throw stands: Bob's turn
    controller.on_frame(object())
    assert journal_lines(controller)[-1] == "roll 5 4"
    assert controller.message is not None and controller.message.title == "Camera"
    assert "Move it closer" in screen(controller) and not illegible_texts(controller.last_screen)
    assert controller.notice == "dice small: camera closer"      # the bottom line's, once the message goes
    press(controller, "stop")
    press(controller, "stop")
    controller.on_frame(object())
    assert journal_lines(controller)[-1] == "roll 4 1" and controller.message is None


def test_advice_waits_while_a_throws_result_is_shown(tmp_path: Path) -> None:
    # Bob's Mexx ends his turn, and says so on a message: not hidden by the advice, which is said after the next throw.
    advice = CameraAdvice("Dice look big to the camera: read less surely. Move it higher above the tray.",
                          "dice big: camera higher")
    controller, _ = make(tmp_path)
    watcher = _AdvisingWatcher([("6", "3"), ("2", "1"), ("6", "2")], advice)
    controller.watcher = watcher
    controller.on_frame(object())
    press(controller, "stop")
    press(controller, "stop")
    controller.on_frame(object())
    assert journal_lines(controller)[-1] == "roll 2 1"
    assert controller.message is not None and controller.message.title == "MEXX!" and watcher.advice is advice
    press(controller, "select")
    controller.on_frame(object())
    assert journal_lines(controller)[-1] == "roll 6 2"
    assert controller.message is not None and controller.message.title == "Camera" and watcher.advice is None
