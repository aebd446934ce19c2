"""What the screens show and ask: outcome notes of an event, and what the rules wait for next."""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.rules.errors import RuleError


@dataclass(frozen=True)
class Note:
    """One outcome of an applied event: a stable `code` for the program, a `text` for people."""

    code: str
    text: str


@dataclass(frozen=True)
class Expectation:
    """What the rules wait for now.

    kind: "roll" (the tray must read a throw), "choice" (a button), "count" (Mex tie-break chooser), "over".
    actions: the table-log words legal now ("roll", "reroll", "stop", "end-round", "count pips", "place 3", ...).
    """

    actor: str | None
    kind: str
    actions: frozenset[str] = field(default_factory=frozenset)

    def describe(self) -> str:
        """The legal words as a phrase for error messages: "'reroll' or 'place N' (N = 0, 2, 5) from Ann"."""
        words = sorted(self.actions, key=_action_order)
        places = [word.split()[1] for word in words if word.startswith("place ")]
        phrases = [f"'{word}'" for word in words if not word.startswith("place ")]
        if places:
            phrases.append(f"'place {places[0]}'" if len(places) == 1 else f"'place N' (N = {', '.join(places)})")
        return f"{' or '.join(phrases)} from {self.actor}"

    def to_json(self) -> dict[str, object]:
        return {"actor": self.actor, "kind": self.kind, "actions": sorted(self.actions, key=_action_order)}

    def refuse(self, what: str, *, winner: str | None = None) -> RuleError:
        """The error for an event the rules do not allow now: what was wrong, then what is expected instead."""
        if self.kind == "over":
            return RuleError(f"{what}: the game is over ({winner or 'nobody'} won); expected nothing more (or undo)")
        return RuleError(f"{what}; expected {self.describe()}")


_ACTION_ORDER = ("roll", "reroll", "stop", "end-round", "count pips", "count mex", "place")


def _action_order(action: str) -> tuple[int, str]:
    word = action.split()[0] if action.startswith("place") else action
    return (_ACTION_ORDER.index(word) if word in _ACTION_ORDER else len(_ACTION_ORDER), action)


def names_and(names: list[str] | tuple[str, ...]) -> str:
    """"Ann", "Ann and Bob", "Ann, Bob and Cid"."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
