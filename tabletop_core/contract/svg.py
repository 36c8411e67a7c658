"""Drawing primitives shared by the games' pictures: an SVG builder, a colour theme,
cards, card backs, piles and seat labels, and the rasterizer.

Every game draws its table in ``<game>/render.py`` (``render_svg(state, options, seat)``)
with these pieces, so the four pictures share one look (Pgx's visualizer keeps the same
split: one drawing per game over a shared theme). The SVG is plain SVG 1.1 text (no
scripts, no external references) and renders the same in a browser and in the
rasterizer.

Rasterizing (``rgb_array``) uses ``resvg`` (the Rust SVG renderer, through the
``resvg-py`` wheel, which needs no system library) and Pillow to decode its PNG:
``pip install 'tabletop-rl[render]'``. Text needs a sans-serif font on the system
(Debian: ``fonts-dejavu-core``); without one, the shapes are drawn and the text is not.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

import numpy as np

__all__ = [
    "THEME",
    "Theme",
    "Svg",
    "card",
    "card_back",
    "pile",
    "seat_label",
    "banner",
    "rasterize",
    "svg_to_png",
    "FONT",
]

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


@dataclass(frozen=True)
class Theme:
    """The colours of every picture (CSS colour strings)."""

    table: str = "#1f5f3f"  # the felt
    panel: str = "#17472f"  # boxes on the table (areas, seats)
    text: str = "#f4f1e8"  # text on the felt
    dim: str = "#a9c4b3"  # secondary text on the felt
    card_face: str = "#fbfaf5"
    card_edge: str = "#2b2b2b"
    card_text: str = "#1b1b1b"
    back: str = "#7a2430"  # face-down card backs
    back_edge: str = "#f0d9a8"
    back_mark: str = "#b84a58"
    highlight: str = "#ffd34d"  # the acting seat, the pending card, the selection
    fire: str = "#ff7a1a"


THEME = Theme()


def _num(v: float) -> str:
    """A coordinate as short text (integers without a decimal point)."""
    r = round(float(v), 1)
    return str(int(r)) if r == int(r) else str(r)


class Svg:
    """A small SVG document builder: shapes are appended as text, :meth:`to_string`
    returns the document (``width`` x ``height`` user units = pixels when rasterized)."""

    def __init__(self, width: int, height: int, background: str | None = THEME.table):
        self.width = int(width)
        self.height = int(height)
        self.parts: list[str] = []
        if background is not None:
            self.rect(0, 0, width, height, fill=background)

    @staticmethod
    def _attrs(attrs: dict) -> str:
        out = []
        for k, v in attrs.items():
            if v is None:
                continue
            name = k.rstrip("_").replace("_", "-")
            out.append(f" {name}={quoteattr(_num(v) if isinstance(v, (int, float)) else str(v))}")
        return "".join(out)

    def add(self, tag: str, text: str | None = None, **attrs) -> None:
        """Append an element ``<tag attrs>text</tag>`` (``stroke_width`` -> ``stroke-width``)."""
        a = self._attrs(attrs)
        if text is None:
            self.parts.append(f"<{tag}{a}/>")
        else:
            self.parts.append(f"<{tag}{a}>{escape(text)}</{tag}>")

    def rect(self, x, y, w, h, fill="none", stroke=None, stroke_width=None, rx=None, **kw) -> None:
        self.add(
            "rect",
            x=x,
            y=y,
            width=w,
            height=h,
            fill=fill,
            stroke=stroke,
            stroke_width=stroke_width,
            rx=rx,
            **kw,
        )

    def circle(self, cx, cy, r, fill="none", stroke=None, stroke_width=None, **kw) -> None:
        self.add("circle", cx=cx, cy=cy, r=r, fill=fill, stroke=stroke, stroke_width=stroke_width, **kw)

    def line(self, x1, y1, x2, y2, stroke, stroke_width=1, **kw) -> None:
        self.add("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, stroke_width=stroke_width, **kw)

    def polygon(self, points, fill, stroke=None, stroke_width=None, **kw) -> None:
        pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
        self.add("polygon", points=pts, fill=fill, stroke=stroke, stroke_width=stroke_width, **kw)

    def text(
        self,
        x,
        y,
        content: str,
        size: float = 14,
        fill: str = THEME.text,
        anchor: str = "start",
        weight: str | None = None,
        **kw,
    ) -> None:
        """Text whose baseline starts (``anchor="start"``), centres or ends at ``(x, y)``."""
        self.add(
            "text",
            content,
            x=x,
            y=y,
            font_size=size,
            font_family=FONT,
            fill=fill,
            text_anchor=anchor if anchor != "start" else None,
            font_weight=weight,
            **kw,
        )

    def to_string(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}">'
        )
        return head + "".join(self.parts) + "</svg>"


def check_view_seat(seat: int | None, num_seats: int) -> None:
    """Check a picture's point of view: ``None`` (omniscient) or a seat ``0..num_seats-1``.

    Raises:
        ValueError: naming the seat given and what is allowed.
    """
    if seat is not None and not 0 <= int(seat) < num_seats:
        raise ValueError(f"seat must be None (omniscient) or 0..{num_seats - 1}, got {seat!r}")


def card(
    svg: Svg,
    x: float,
    y: float,
    w: float,
    h: float,
    label: str,
    colour: str = THEME.card_text,
    fill: str = THEME.card_face,
    corner: str | None = None,
    edge: str | None = None,
    edge_width: float = 1.2,
) -> None:
    """A face-up card: rounded rectangle, ``label`` large in the middle in ``colour``,
    and an optional small ``corner`` mark (a suit symbol, an arrow) top left."""
    svg.rect(
        x, y, w, h, fill=fill, stroke=edge or THEME.card_edge, stroke_width=edge_width, rx=max(2, w * 0.1)
    )
    size = min(h * 0.42, w * (0.62 if len(label) <= 2 else 0.45))
    svg.text(
        x + w / 2, y + h / 2 + size * 0.36, label, size=size, fill=colour, anchor="middle", weight="bold"
    )
    if corner:
        svg.text(x + w * 0.1, y + h * 0.27, corner, size=h * 0.22, fill=colour)


def card_back(svg: Svg, x: float, y: float, w: float, h: float) -> None:
    """A face-down card: the same for every card, so it tells nothing."""
    svg.rect(x, y, w, h, fill=THEME.back, stroke=THEME.back_edge, stroke_width=1.2, rx=max(2, w * 0.1))
    m = min(w, h) * 0.18
    svg.rect(x + m, y + m, w - 2 * m, h - 2 * m, fill="none", stroke=THEME.back_mark, stroke_width=1)
    cx, cy, r = x + w / 2, y + h / 2, min(w, h) * 0.18
    svg.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], fill=THEME.back_mark)


def pile(svg: Svg, x: float, y: float, w: float, h: float, count: int, label: str | None = None) -> None:
    """A face-down pile of ``count`` cards: up to three stacked backs (an empty outline
    when ``count`` is 0), the count on top and ``label`` underneath."""
    if count <= 0:
        svg.rect(
            x,
            y,
            w,
            h,
            fill="none",
            stroke=THEME.dim,
            stroke_width=1,
            rx=max(2, w * 0.1),
            stroke_dasharray="4 3",
        )
    else:
        layers = min(3, count)
        for k in range(layers - 1, -1, -1):
            card_back(svg, x + 2.5 * k, y - 2.5 * k, w, h)
        top_x, top_y = x, y
        svg.rect(top_x + w * 0.15, top_y + h / 2 - 10, w * 0.7, 20, fill="#000000", rx=4, opacity=0.55)
        svg.text(
            top_x + w / 2,
            top_y + h / 2 + 5,
            str(count),
            size=14,
            fill="#ffffff",
            anchor="middle",
            weight="bold",
        )
    if label:
        svg.text(x + w / 2, y + h + 14, label, size=11, fill=THEME.dim, anchor="middle")


def seat_label(
    svg: Svg, x: float, y: float, name: str, acting: bool, detail: str = "", size: float = 14
) -> None:
    """A seat's name (a ▶ and the highlight colour when it is to act) and a detail line."""
    svg.text(
        x,
        y,
        ("▶ " if acting else "") + name,
        size=size,
        fill=THEME.highlight if acting else THEME.text,
        weight="bold",
    )
    if detail:
        svg.text(x, y + size + 2, detail, size=size * 0.8, fill=THEME.dim)


def banner(svg: Svg, text: str, size: float = 16, height: float = 36, baseline: float = 12) -> None:
    """A dark strip ``height`` px high across the bottom of ``svg`` with ``text`` centred in
    bold, its baseline ``baseline`` px above the bottom edge (the pictures' game-over line)."""
    svg.rect(0, svg.height - height, svg.width, height, fill="#000000", opacity=0.6)
    svg.text(
        svg.width / 2,
        svg.height - baseline,
        text,
        size=size,
        anchor="middle",
        weight="bold",
        fill=THEME.highlight,
    )


def svg_to_png(svg_text: str) -> bytes:
    """PNG bytes of an SVG document, at its own size (``resvg``).

    Raises:
        ImportError: without the ``render`` extra (``pip install 'tabletop-rl[render]'``).
        ValueError: if the SVG cannot be parsed.
    """
    try:
        import resvg_py
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "rasterizing a picture needs resvg-py and Pillow: pip install 'tabletop-rl[render]'"
        ) from exc
    return bytes(resvg_py.svg_to_bytes(svg_string=svg_text, background="#ffffff"))


def rasterize(svg_text: str) -> np.ndarray:
    """The picture of an SVG document as an ``(H, W, 3)`` uint8 RGB array, ``H`` x ``W``
    the document's ``height`` x ``width`` (``resvg``, decoded with Pillow).

    Raises:
        ImportError: without the ``render`` extra (``pip install 'tabletop-rl[render]'``).
        ValueError: if the SVG cannot be parsed.
    """
    png = svg_to_png(svg_text)
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "rasterizing a picture needs resvg-py and Pillow: pip install 'tabletop-rl[render]'"
        ) from exc
    with Image.open(io.BytesIO(png)) as im:
        return np.asarray(im.convert("RGB"), dtype=np.uint8).copy()
