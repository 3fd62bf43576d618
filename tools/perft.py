#!/usr/bin/env python3
"""Perft numbers for the morris variants, written independently of the Rust
rules engine, from the rules texts: writes data/perft/perft.csv.

perft(n) is the number of sequences of n legal moves from the start position
(a move that closes a mill counts once per stone it may remove). A game that
ends (the side to move has fewer than 3 stones, or no legal move) has no
continuation. Counts are memoised by position, so deep plies stay cheap.

Usage: python3 tools/perft.py > data/perft/perft.csv
"""

import sys
from functools import lru_cache

# The classic board drawn as a grid: (column, row) of each point, ring by
# ring, outer ring first, each ring clockwise from its top-left corner.
def squares(rings):
    size = 2 * rings  # last grid index
    pts = []
    for r in range(rings):
        lo, hi, mid = r, size - r, rings
        pts += [(lo, hi), (mid, hi), (hi, hi), (hi, mid), (hi, lo), (mid, lo), (lo, lo), (lo, mid)]
    return pts


def board(rings, diagonals):
    """Points, neighbours and mills, found geometrically: lines are drawn
    along each square's sides, between the squares at the midpoints of the
    sides (and at the corners with diagonals)."""
    pts = squares(rings)
    index = {p: i for i, p in enumerate(pts)}
    lines = []  # segments between adjacent points
    for r in range(rings):
        ring = pts[8 * r:8 * r + 8]
        for k in range(8):
            lines.append((ring[k], ring[(k + 1) % 8]))
    for k in range(8):
        if k % 2 == 1 or diagonals:
            for r in range(rings - 1):
                lines.append((pts[8 * r + k], pts[8 * (r + 1) + k]))
    adj = [set() for _ in pts]
    for a, b in lines:
        adj[index[a]].add(index[b])
        adj[index[b]].add(index[a])
    # A mill: three points in a straight line, consecutive along the lines.
    mills = set()
    for b in range(len(pts)):
        for a in adj[b]:
            for c in adj[b]:
                if a < c:
                    if same_direction(pts[a], pts[b], pts[c]):
                        mills.add(frozenset((a, b, c)))
    return len(pts), [frozenset(s) for s in adj], [m for m in mills]


def same_direction(a, b, c):
    """Whether a-b-c is a straight line through b (b between a and c)."""
    d1 = (b[0] - a[0], b[1] - a[1])
    d2 = (c[0] - b[0], c[1] - b[1])
    cross = d1[0] * d2[1] - d1[1] * d2[0]
    dot = d1[0] * d2[0] + d1[1] * d2[1]
    return cross == 0 and dot > 0


VARIANTS = {
    # name: (rings, diagonals, stones, fly at (None = never), move while placing)
    "nine": (3, False, 9, 3, False),
    "twelve": (3, True, 12, 4, False),
    "six": (2, False, 6, None, False),
    "lasker": (3, False, 10, 3, True),
}


def make(name):
    rings, diagonals, stones, fly, lasker = VARIANTS[name]
    n, adj, mills = board(rings, diagonals)
    mills_at = [[m for m in mills if p in m] for p in range(n)]

    def in_mill(own, p):
        return any(m <= own for m in mills_at[p])

    def moves(me, you, my_hand, your_hand):
        """Successor positions (from the other side), one per legal move."""
        if len(me) + my_hand < 3:
            return []
        empty = [p for p in range(n) if p not in me and p not in you]
        out = []
        targets = []  # (new own set, new hand, landing point)
        if my_hand > 0:
            for p in empty:
                targets.append((me | {p}, my_hand - 1, p))
        if my_hand == 0 or lasker:
            flies = fly is not None and my_hand == 0 and len(me) <= fly
            for s in me:
                for p in (empty if flies else [q for q in adj[s] if q not in me and q not in you]):
                    targets.append(((me - {s}) | {p}, my_hand, p))
        for own, hand, p in targets:
            if in_mill(own, p) and you:
                free = [q for q in you if not in_mill(you, q)]
                for q in (free if free else list(you)):
                    out.append((you - {q}, own, your_hand, hand))
            else:
                out.append((you, own, your_hand, hand))
        return out

    @lru_cache(maxsize=None)
    def perft(me, you, my_hand, your_hand, depth):
        if depth == 0:
            return 1
        succ = moves(me, you, my_hand, your_hand)
        if depth == 1:
            return len(succ)
        return sum(perft(a, b, c, d, depth - 1) for a, b, c, d in succ)

    start = (frozenset(), frozenset(), stones, stones)
    return lambda depth: perft(*start, depth), len(mills), sum(len(a) for a in adj) // 2


PLIES = {"nine": 6, "twelve": 6, "six": 7, "lasker": 6}

if __name__ == "__main__":
    out = sys.stdout
    out.write("variant,plies,sequences\n")
    for name, deepest in PLIES.items():
        perft, mills, edges = make(name)
        print(f"{name}: {mills} mills, {edges} lines", file=sys.stderr)
        for d in range(1, deepest + 1):
            out.write(f"{name},{d},{perft(d)}\n")
            out.flush()
