"""Dice values and their display: Mex throws ("63", "400", "MEXX!") and Excape pairs ("54", "70", "0").

Pure helpers the rules and the screens share, so a value is computed and shown the same way everywhere.
"""

from __future__ import annotations

from companion.rules.errors import RuleError

# Mexx (2-1) beats everything; doubles are worth 100 x the face; anything else is high face tens, low face units.
MEXX_VALUE = 1000
MEX_FACES = ("1", "2", "3", "4", "5", "6")
# Excape's two custom dice: die A and die B share 1 2 3 X; 4 and 7 are only on A, 5 and 6 only on B.
EXCAPE_DIE_A = ("1", "2", "3", "4", "7", "X")
EXCAPE_DIE_B = ("1", "2", "3", "5", "6", "X")
# Every face either Excape die can show, in the order a player cycles them when correcting a read.
EXCAPE_FACES = tuple(sorted(set(EXCAPE_DIE_A) | set(EXCAPE_DIE_B), key=lambda face: (face == "X", face)))
# Excape doubles that move the pawn at once, and by how much.
EXCAPE_DOUBLE_STEPS = {"1": 1, "2": 2, "3": 3}


def check_mex_faces(faces: tuple[str, str]) -> tuple[int, int]:
    """The two pips of a Mex throw as ints, or a RuleError when a face is not on an ordinary die."""
    for face in faces:
        if face not in MEX_FACES:
            raise RuleError(f"roll {faces[0]} {faces[1]} is impossible in Mex: {face} is not on an ordinary die; "
                            "expected two faces from 1 to 6")
    return int(faces[0]), int(faces[1])


def is_mexx(faces: tuple[str, str]) -> bool:
    return sorted(faces) == ["1", "2"]


def mex_value(faces: tuple[str, str]) -> int:
    """Mex order: 31 < 32 < 41 < ... < 65 < 100 (1-1) < 200 < ... < 600 (6-6) < Mexx (2-1, MEXX_VALUE)."""
    a, b = check_mex_faces(faces)
    high, low = max(a, b), min(a, b)
    if (high, low) == (2, 1):
        return MEXX_VALUE
    if high == low:
        return 100 * high
    return 10 * high + low


def mex_pips(faces: tuple[str, str]) -> int:
    """Tie-break "count pips": the sum of the dice (2-1 is plain 3, no Mexx)."""
    a, b = check_mex_faces(faces)
    return a + b


def mex_display(value: int) -> str:
    """How a Mex value reads on a screen: "63", "400", "MEXX!"."""
    return "MEXX!" if value == MEXX_VALUE else str(value)


def mex_throw_display(faces: tuple[str, str]) -> str:
    return mex_display(mex_value(faces))


def check_excape_faces(faces: tuple[str, str]) -> None:
    """Raise a RuleError unless one face can be on die A and the other on die B."""
    first, second = faces
    for face in faces:
        if face not in EXCAPE_DIE_A and face not in EXCAPE_DIE_B:
            raise RuleError(f"roll {first} {second} is impossible: {face} is on neither Excape die; expected one face "
                            f"of die A ({' '.join(EXCAPE_DIE_A)}) and one of die B ({' '.join(EXCAPE_DIE_B)})")
    if (first in EXCAPE_DIE_A and second in EXCAPE_DIE_B) or (second in EXCAPE_DIE_A and first in EXCAPE_DIE_B):
        return
    die = "A" if first in EXCAPE_DIE_A else "B"
    raise RuleError(f"roll {first} {second} is impossible: {first} and {second} are both only on die {die}; expected "
                    f"one face of die A ({' '.join(EXCAPE_DIE_A)}) and one of die B ({' '.join(EXCAPE_DIE_B)})")


def excape_x_count(faces: tuple[str, str]) -> int:
    return sum(face == "X" for face in faces)


def excape_pair_value(faces: tuple[str, str], *, first_roll: bool = False, xx_first: int = 0) -> int:
    """Higher face as tens, lower as units, X counts 0 (54, 70, 31, 10). A first-roll XX is worth `xx_first`."""
    check_excape_faces(faces)
    if faces == ("X", "X"):
        return xx_first if first_roll else 0
    a, b = (0 if face == "X" else int(face) for face in faces)
    return 10 * max(a, b) + min(a, b)


def excape_display(value: int) -> str:
    """How an Excape pair value reads on a screen: "54", "70", "0"."""
    return str(value)


def excape_double_steps(faces: tuple[str, str]) -> int:
    """1-1, 2-2, 3-3 move the pawn 1, 2 or 3 at once; any other throw moves nothing."""
    if faces[0] == faces[1]:
        return EXCAPE_DOUBLE_STEPS.get(faces[0], 0)
    return 0
