"""The table as a picture, for ``render_mode="rgb_array"``: numpy only, no drawing library.

Frames are ``uint8`` arrays of shape (height, width, 3) whose size depends
only on the environment (the number of seats), so video recorders get frames
of one size. Dice are white with black pips; everything else (numbers,
marks) is drawn in other colours, so the pips of a frame can be counted.

>>> frame = dice_picture((4, 2, 1))
>>> frame.shape, frame.dtype.name
((64, 176, 3), 'uint8')
>>> int(pip_pixels(frame) // PIP_AREA)
7
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..core.engine import throws_allowed
from ..core.rules import MAX_THROWS
from ..core.state import Phase, State

Image = npt.NDArray[np.uint8]
Color = tuple[int, int, int]

FELT: Color = (28, 98, 60)
DIE: Color = (250, 248, 240)
KEPT: Color = (214, 206, 170)  # a finished turn's result
TARGET: Color = (196, 214, 246)  # Turn-v0's target
PIP: Color = (16, 16, 16)
INK: Color = (240, 240, 240)  # numbers and throw marks
DIM: Color = (90, 140, 110)  # throws not used yet, seats out of the manche
TOKEN: Color = (236, 184, 36)
LOST: Color = (214, 54, 48)
WON: Color = (96, 200, 96)
DECIDING: Color = (250, 210, 40)
PHASE_COLORS: dict[Phase, Color] = {
    Phase.FIRST_PLAYER: (150, 150, 150),
    Phase.CHARGE: (70, 130, 220),
    Phase.DECHARGE: (230, 140, 40),
    Phase.OVER: (120, 120, 120),
}

DIE_SIZE = 48
GAP = 8
PIP_RADIUS = 5
SCALE = 3  # one font pixel is SCALE x SCALE
ROW = DIE_SIZE + 2 * GAP

# 3x5 digits, one string of 15 cells per digit, read row by row.
DIGITS = (
    "111101101101111",
    "010110010010111",
    "111001111100111",
    "111001111001111",
    "101101111001001",
    "111100111001111",
    "111100111101111",
    "111001001010010",
    "111101111101111",
    "111101111001111",
)
DIGIT_WIDTH = 4 * SCALE  # three cells and a space
DIGIT_HEIGHT = 5 * SCALE

# Pip places on a 3x3 grid (row, column) for each face.
PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((0, 2), (2, 0)),
    3: ((0, 2), (1, 1), (2, 0)),
    4: ((0, 0), (0, 2), (2, 0), (2, 2)),
    5: ((0, 0), (0, 2), (1, 1), (2, 0), (2, 2)),
    6: ((0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2)),
}
_y, _x = np.ogrid[-PIP_RADIUS : PIP_RADIUS + 1, -PIP_RADIUS : PIP_RADIUS + 1]
DISC = _x * _x + _y * _y <= PIP_RADIUS * PIP_RADIUS
PIP_AREA = int(DISC.sum())
"""Pixels of one pip: a frame shows ``pip_pixels(frame) // PIP_AREA`` pips."""


def canvas(height: int, width: int, color: Color = FELT) -> Image:
    image = np.empty((height, width, 3), dtype=np.uint8)
    image[:] = color
    return image


def box(image: Image, top: int, left: int, height: int, width: int, color: Color) -> None:
    image[top : top + height, left : left + width] = color


def disc(image: Image, top: int, left: int, color: Color) -> None:
    """A pip-sized disc whose bounding square starts at (top, left)."""
    side = 2 * PIP_RADIUS + 1
    image[top : top + side, left : left + side][DISC] = color


def die(image: Image, top: int, left: int, face: int, body: Color = DIE) -> None:
    """A die of DIE_SIZE pixels; face 0 (no die yet) is an empty outline."""
    if not face:
        box(image, top, left, DIE_SIZE, DIE_SIZE, DIM)
        box(image, top + 2, left + 2, DIE_SIZE - 4, DIE_SIZE - 4, FELT)
        return
    box(image, top, left, DIE_SIZE, DIE_SIZE, body)
    for row, col in PIPS[face]:
        centre_y = top + DIE_SIZE * (row + 1) // 4
        centre_x = left + DIE_SIZE * (col + 1) // 4
        disc(image, centre_y - PIP_RADIUS, centre_x - PIP_RADIUS, PIP)


def dice(image: Image, top: int, left: int, faces: Sequence[int], body: Color = DIE) -> None:
    """Three dice side by side (missing ones as outlines)."""
    padded = [*faces, *[0] * (3 - len(faces))]
    for i, face in enumerate(padded):
        die(image, top, left + i * (DIE_SIZE + GAP), int(face), body)


DICE_WIDTH = 3 * DIE_SIZE + 2 * GAP


def number(image: Image, top: int, left: int, value: int, color: Color = INK) -> int:
    """``value`` in digits; returns the width drawn."""
    text = str(max(0, value))
    for k, char in enumerate(text):
        cells = DIGITS[int(char)]
        for cell, on in enumerate(cells):
            if on == "1":
                row, col = divmod(cell, 3)
                box(image, top + row * SCALE, left + k * DIGIT_WIDTH + col * SCALE, SCALE, SCALE, color)
    return len(text) * DIGIT_WIDTH


def throw_marks(image: Image, top: int, left: int, used: int, allowed: int) -> None:
    """One mark per throw of the turn: bright for the throws used, dim for those left."""
    for k in range(MAX_THROWS):
        if k < allowed:
            box(image, top + k * 14, left, 10, 10, INK if k < used else DIM)


def token(image: Image, top: int, left: int) -> None:
    """A token: a gold disc."""
    disc(image, top, left, TOKEN)


def dice_picture(faces: Sequence[int], body: Color = DIE) -> Image:
    """Three dice on the felt."""
    image = canvas(ROW, DICE_WIDTH + 2 * GAP)
    dice(image, GAP, GAP, faces, body)
    return image


def pip_pixels(image: Image) -> int:
    """How many pixels of ``image`` are pips."""
    return int(np.all(image == PIP, axis=-1).sum())


# -- Turn-v0 ---------------------------------------------------------------------

TURN_WIDTH = GAP + DICE_WIDTH + 2 * GAP + 10 + GAP


def turn_picture(
    hand: Sequence[int], used: int, allowed: int, target: Sequence[int], won: bool | None
) -> Image:
    """The target's dice (blue) above the dice in hand; the throw marks at the right.

    ``won``: None while the turn goes on, else a green (beaten) or red band under the hand.
    """
    image = canvas(2 * ROW + GAP, TURN_WIDTH)
    dice(image, GAP, GAP, target, TARGET)
    dice(image, ROW + GAP, GAP, hand)
    throw_marks(image, ROW + GAP, GAP + DICE_WIDTH + 2 * GAP, used, allowed)
    if won is not None:
        box(image, 2 * ROW, GAP, GAP // 2, DICE_WIDTH, WON if won else LOST)
    return image


# -- a whole table -------------------------------------------------------------------

HEADER = DIGIT_HEIGHT + 2 * GAP
SEAT_X = GAP + 6  # after the deciding seat's bar
TOKENS_X = SEAT_X + 2 * DIGIT_WIDTH + GAP
LOSSES_X = TOKENS_X + 2 * PIP_RADIUS + 1 + 4 + 3 * DIGIT_WIDTH + GAP
DICE_X = LOSSES_X + 2 * DIGIT_WIDTH + GAP
MARKS_X = DICE_X + DICE_WIDTH + GAP
TABLE_WIDTH = MARKS_X + 10 + GAP


def table_picture(state: State) -> Image:
    """The whole table: a header, then one row per seat.

    Header: the phase as a coloured band (grey: drawing the first player or
    over, blue: charge, orange: décharge), the manche, then the pot (a
    token and its count). Each seat's row: a yellow bar when it must decide,
    its number, its tokens, its manches lost (red), then its dice: those in
    hand for the seat playing its turn (white), its final result once its
    turn of the round is done (cream), with the throws used; a red row for a
    loser of the game, a dim one for a seat out of the manche.
    """
    n = len(state.players)
    image = canvas(HEADER + n * ROW, TABLE_WIDTH)
    box(image, 0, 0, GAP // 2, TABLE_WIDTH, PHASE_COLORS[state.phase])
    number(image, GAP, SEAT_X, state.manche)
    token(image, GAP + 2, TOKENS_X)
    number(image, GAP, TOKENS_X + 2 * PIP_RADIUS + 5, state.pot, TOKEN)
    r = state.round
    done = {t.seat: t for t in r.done} if r is not None else {}
    losers = state.outcome.losers if state.outcome is not None else ()
    for seat in range(n):
        top = HEADER + seat * ROW
        if seat in losers:
            box(image, top, 0, ROW, TABLE_WIDTH, LOST)
        elif not state.active[seat]:
            box(image, top + 1, 0, ROW - 2, TABLE_WIDTH, DIM)
        if seat == state.to_move:
            box(image, top + GAP, GAP // 2, DIE_SIZE, 6, DECIDING)
        middle = top + (ROW - DIGIT_HEIGHT) // 2
        number(image, middle, SEAT_X, seat)
        token(image, middle + 2, TOKENS_X)
        number(image, middle, TOKENS_X + 2 * PIP_RADIUS + 5, state.tokens[seat], TOKEN)
        if state.manche_losses[seat]:
            number(image, middle, LOSSES_X, state.manche_losses[seat], INK if seat in losers else LOST)
        if r is not None and seat in done:
            dice(image, top + GAP, DICE_X, done[seat].result.dice, KEPT)
            throw_marks(image, top + GAP, MARKS_X, done[seat].throws, done[seat].throws)
        elif r is not None and seat == r.current and r.dice:
            dice(image, top + GAP, DICE_X, r.dice)
            throw_marks(image, top + GAP, MARKS_X, r.throws, throws_allowed(state))
    return image
