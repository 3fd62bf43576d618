#!/usr/bin/env python3
"""Plots for a report from `morris stats --json`: two SVG files, made with
the standard library only (no matplotlib, nothing to install).

- SECTORS.svg: per sector, the shares of wins, draws and losses for the
  side to move as one stacked bar, sectors in the order `stats` lists them;
- LONGEST.svg: a histogram of the sectors' longest wins, in plies;
- DISTANCES.svg, given `--distances` (the output of `morris stats
  --distances --json`): the positions of those sectors by their distance
  to the end, wins above the axis and losses below.

The colours are those of the page of `morris serve` (Okabe-Ito, told apart
with colour blindness).

Usage:
    morris --variant six stats --json > six.json
    python3 tools/stats_plots.py six.json --out report/six
    # writes report/six-sectors.svg and report/six-longest.svg
    morris --variant six stats --distances --json > six-d.json
    python3 tools/stats_plots.py six.json --distances six-d.json --out report/six
    # and report/six-distances.svg

The input may also be `/api/stats` of a running `morris serve`:
    curl -s 'localhost:8080/api/stats?variant=six' | python3 tools/stats_plots.py - --out six
"""

import argparse
import json
import sys
from collections import Counter
from html import escape

WIN, DRAW, LOSS = "#0072b2", "#8c8c8c", "#e69f00"


def read_rows(source):
    """The solved sectors' rows; rows marked missing (`--all`) are left out."""
    text = sys.stdin.read() if source == "-" else open(source, encoding="utf-8").read()
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as e:
        sys.exit(f"stats_plots: {source} is not JSON ({e}): expected the output of `morris stats --json`")
    if not isinstance(rows, list):
        sys.exit(f"stats_plots: {source}: expected a list of sector rows, as `morris stats --json` prints")
    rows = [r for r in rows if not r.get("missing")]
    for r in rows:
        for key in ("sector", "states", "wins", "draws", "losses", "max_win"):
            if key not in r:
                sys.exit(f"stats_plots: {source}: a row has no '{key}': {r}")
    return rows


def svg(width, height, body, title):
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">\n'
        f'<title>{escape(title)}</title>\n<rect width="100%" height="100%" fill="#fff"/>\n'
        + "\n".join(body)
        + "\n</svg>\n"
    )


def sector_bars(rows, title):
    """One stacked bar per sector: wins, draws, losses as shares of its states."""
    bar, gap, left, width = 12, 2, 90, 500
    height = 40 + len(rows) * (bar + gap) + 20
    body = [f'<text x="{left}" y="20" font-size="13">{escape(title)}</text>']
    legend = [("wins", WIN), ("draws", DRAW), ("losses", LOSS)]
    for i, (name, colour) in enumerate(legend):
        x = left + 300 + i * 70
        body.append(f'<rect x="{x}" y="10" width="12" height="12" fill="{colour}"/><text x="{x + 16}" y="20">{name}</text>')
    for i, r in enumerate(rows):
        y = 34 + i * (bar + gap)
        body.append(f'<text x="{left - 6}" y="{y + bar - 2}" text-anchor="end">{escape(r["sector"])}</text>')
        x = left
        for key, colour in (("wins", WIN), ("draws", DRAW), ("losses", LOSS)):
            w = width * r[key] / max(r["states"], 1)
            body.append(
                f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{bar}" fill="{colour}">'
                f'<title>{escape(r["sector"])}: {r[key]:,} {key} of {r["states"]:,}</title></rect>'
            )
            x += w
    return svg(left + width + 20, height, body, title)


def longest_histogram(rows, title):
    """How many sectors have their longest win at each distance."""
    counts = Counter(r["max_win"] for r in rows)
    longest, most = max(counts), max(counts.values())
    left, bottom, width, height = 50, 170, 560, 130
    step = width / (longest + 1)
    body = [f'<text x="{left}" y="20" font-size="13">{escape(title)}</text>']
    for d, c in sorted(counts.items()):
        h = height * c / most
        body.append(
            f'<rect x="{left + d * step:.2f}" y="{bottom - h:.2f}" width="{max(step - 1, 1):.2f}" height="{h:.2f}" '
            f'fill="{WIN}"><title>{c} sectors: longest win {d} plies</title></rect>'
        )
    body.append(f'<line x1="{left}" y1="{bottom}" x2="{left + width}" y2="{bottom}" stroke="#999"/>')
    body.append(f'<text x="{left}" y="{bottom + 14}">0</text>')
    body.append(f'<text x="{left + width}" y="{bottom + 14}" text-anchor="end">{longest} plies</text>')
    body.append(f'<text x="{left - 6}" y="{bottom - height + 4}" text-anchor="end">{most}</text>')
    body.append(f'<text x="{left + width / 2}" y="{bottom + 28}" text-anchor="middle">longest win in the sector (plies)</text>')
    return svg(left + width + 30, bottom + 40, body, title)


def read_distances(source):
    """Positions by (value, plies), summed over the sectors of `stats --distances --json`."""
    try:
        sectors = json.load(open(source, encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"stats_plots: cannot read {source} ({e}): expected the output of `morris stats --distances --json`")
    totals = {"wins": Counter(), "losses": Counter(), "draws": 0, "sectors": len(sectors)}
    for s in sectors:
        for side in ("wins", "losses"):
            for plies, n in s[side]:
                totals[side][plies] += n
        totals["draws"] += s["draws"]
    return totals


def distance_histogram(d, title):
    """One bar per distance: wins (odd plies) above the axis, losses (even) below."""
    bars = [(p, n, WIN, "win") for p, n in d["wins"].items()] + [(p, n, LOSS, "loss") for p, n in d["losses"].items()]
    if not bars:
        sys.exit("stats_plots: the distances hold no win and no loss to plot")
    longest, most = max(p for p, *_ in bars), max(n for _, n, *_ in bars)
    left, axis, half, width = 70, 150, 110, 560
    step = width / (longest + 1)
    body = [f'<text x="{left}" y="20" font-size="13">{escape(title)}</text>']
    for p, n, colour, kind in sorted(bars):
        h = half * n / most
        y = axis - h if kind == "win" else axis
        body.append(
            f'<rect x="{left + p * step:.2f}" y="{y:.2f}" width="{max(step - 1, 1):.2f}" height="{h:.2f}" '
            f'fill="{colour}"><title>{n:,} positions: {kind} in {p} plies</title></rect>'
        )
    body.append(f'<line x1="{left}" y1="{axis}" x2="{left + width}" y2="{axis}" stroke="#999"/>')
    body.append(f'<text x="{left - 6}" y="{axis - half + 4}" text-anchor="end">{most:,}</text>')
    body.append(f'<text x="{left}" y="{axis + half + 16}">0</text>')
    body.append(f'<text x="{left + width}" y="{axis + half + 16}" text-anchor="end">{longest} plies</text>')
    body.append(
        f'<text x="{left + width / 2}" y="{axis + half + 30}" text-anchor="middle">'
        f'plies to the end ({d["sectors"]} sectors; {d["draws"]:,} draws have no distance)</text>'
    )
    return svg(left + width + 30, axis + half + 40, body, title)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stats", help="the output of `morris stats --json`, or - for standard input")
    parser.add_argument("--out", default="stats", help="prefix of the SVG files written (default: stats)")
    parser.add_argument("--title", default=None, help="title of the plots (default: the input's name)")
    parser.add_argument("--distances", default=None, help="the output of `morris stats --distances --json`, for a third plot")
    args = parser.parse_args()
    rows = read_rows(args.stats)
    if not rows:
        sys.exit(f"stats_plots: {args.stats} holds no solved sector")
    title = args.title or ("standard input" if args.stats == "-" else args.stats)
    outputs = {
        f"{args.out}-sectors.svg": sector_bars(rows, f"{title}: wins, draws and losses per sector"),
        f"{args.out}-longest.svg": longest_histogram(rows, f"{title}: sectors by their longest win"),
    }
    if args.distances:
        outputs[f"{args.out}-distances.svg"] = distance_histogram(
            read_distances(args.distances), f"{title}: positions by their distance to the end"
        )
    for path, text in outputs.items():
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(path)


if __name__ == "__main__":
    main()
