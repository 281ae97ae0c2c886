"""Draw the app's icon, one design, as the files the page serves: ``icon.svg`` for browsers that
take it, and PNGs for the home screens that take only those (iOS's ``apple-touch-icon`` at 180
pixels, the manifest's 192 and 512 for Android's installer).

Run after changing the design: ``.venv/bin/python scripts/icons.py`` (Pillow comes with the
``report`` extra); the files are kept in the repository, so installing py421 needs no Pillow.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

STATIC = Path(__file__).resolve().parent.parent / "src" / "py421" / "server" / "static"
SIZES = (180, 192, 512)
GREEN, CREAM, PIP = "#0d4d2b", "#fffdf5", "#000000"
# in a square of 100: the die's face, its corners' radius, the four pips' centres and radius
FACE, CORNER = (14, 14, 86, 86), 14
PIPS, PIP_RADIUS = ((32, 32), (68, 32), (32, 68), (68, 68)), 7
SMOOTH = 4  # drawn this many times larger, then shrunk: smooth edges


def svg() -> str:
    left, top, right, bottom = FACE
    pips = "".join(f'<circle cx="{x}" cy="{y}" r="{PIP_RADIUS}"/>' for x, y in PIPS)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        f'<rect width="100" height="100" fill="{GREEN}"/>'
        f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" '
        f'rx="{CORNER}" fill="{CREAM}"/>'
        f"{pips}</svg>\n"
    )


def png(size: int) -> Image.Image:
    big = size * SMOOTH
    scale = big / 100
    image = Image.new("RGB", (big, big), GREEN)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle([v * scale for v in FACE], radius=CORNER * scale, fill=CREAM)
    for x, y in PIPS:
        r = PIP_RADIUS * scale
        draw.ellipse([x * scale - r, y * scale - r, x * scale + r, y * scale + r], fill=PIP)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    (STATIC / "icon.svg").write_text(svg(), encoding="utf-8")
    for size in SIZES:
        png(size).save(STATIC / f"icon-{size}.png", optimize=True)


if __name__ == "__main__":
    main()
