"""Line charts as SVG drawn on the server: no charting library, no script, escaped labels.

Each series gets a colour and a marker shape (circle, square, triangle, diamond, cross) and its
label is written beside its last point, so the chart reads without colour vision.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from markupsafe import Markup, escape

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
SHAPES = ("circle", "square", "triangle", "diamond", "cross")
WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 48, 130, 12, 28


@dataclasses.dataclass(frozen=True, slots=True)
class Series:
    """One line: a label and its (x, y) points, x increasing."""

    label: str
    points: Sequence[tuple[float, float]]


def _marker(shape: str, x: float, y: float, colour: str) -> str:
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>'
    if shape == "square":
        return f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="{colour}"/>'
    if shape == "triangle":
        return (
            f'<polygon points="{x:.1f},{y - 4.5:.1f} {x - 4:.1f},{y + 3:.1f} {x + 4:.1f},{y + 3:.1f}" fill="{colour}"/>'
        )
    if shape == "diamond":
        corners = f"{x:.1f},{y - 4.5:.1f} {x - 4:.1f},{y:.1f} {x:.1f},{y + 4.5:.1f} {x + 4:.1f},{y:.1f}"
        return f'<polygon points="{corners}" fill="{colour}"/>'
    return (
        f'<path d="M{x - 4:.1f} {y - 4:.1f}L{x + 4:.1f} {y + 4:.1f}M{x - 4:.1f} {y + 4:.1f}L{x + 4:.1f} {y - 4:.1f}" '
        f'stroke="{colour}" stroke-width="2"/>'
    )


def line_chart(series: Sequence[Series], title: str, x_label: str, y_label: str) -> Markup:
    """An SVG line chart of ``series`` (an empty one says there is nothing to draw yet)."""
    drawn = [s for s in series if s.points]
    label = escape(title)
    if not drawn:
        return Markup('<p class="empty">{}: nothing to draw yet.</p>').format(label)
    xs = [x for s in drawn for x, _ in s.points]
    ys = [y for s in drawn for _, y in s.points]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if x1 == x0:
        x1 = x0 + 1
    pad = max(10.0, (y1 - y0) * 0.08)
    y0, y1 = y0 - pad, y1 + pad
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x0) / (x1 - x0) * plot_w

    def py(y: float) -> float:
        return TOP + (y1 - y) / (y1 - y0) * plot_h

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{label}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{label}</title>',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>',
    ]
    for tick in range(5):
        value = y0 + (y1 - y0) * tick / 4
        y = py(value)
        parts.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{value:.0f}</text>')
    parts.append(f'<text x="{LEFT}" y="{HEIGHT - 8}" font-size="11">{x0:g}</text>')
    parts.append(f'<text x="{LEFT + plot_w}" y="{HEIGHT - 8}" font-size="11" text-anchor="end">{x1:g}</text>')
    parts.append(
        f'<text x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 8}" font-size="11" text-anchor="middle">'
        f"{escape(x_label)}</text>"
    )
    parts.append(f'<text x="4" y="{TOP + 10}" font-size="11">{escape(y_label)}</text>')
    for index, one in enumerate(drawn):
        colour, shape = COLOURS[index % len(COLOURS)], SHAPES[index % len(SHAPES)]
        points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in one.points)
        parts.append(f'<g class="series"><polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        step = max(1, len(one.points) // 12)
        marks = [*one.points[::step], one.points[-1]]
        parts.extend(_marker(shape, px(x), py(y), colour) for x, y in marks)
        last_x, last_y = one.points[-1]
        parts.append(
            f'<text x="{px(last_x) + 8:.1f}" y="{py(last_y) + 4:.1f}" font-size="11" fill="{colour}">'
            f"{escape(one.label[:24])}</text></g>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))
