#!/usr/bin/env python3
"""Which sectors of nine to derive in the win/draw/loss tier, weighed by
that tier's bytes rather than by states (issue 28; docs/compression.md,
"Derived sectors by the tier's bytes").

Reads data/nine/wdl-bytes.tsv (every sector's .wdl size, exported without
deriving) and prints the tier's bits per state for: every sector kept;
the plan `morris export --wdl --derive` makes today (moving phase: the
mover ahead; placement phase: the heaviest set by states); the same
placement choice by the tier's bytes, with the mover ahead or behind in
the moving phase; and the best set over the whole sector graph. A
derived sector keeps a stub of about 130 bytes.

Needs scipy (its `milp`): python3 -m pip install scipy
"""
import csv
import os
import sys

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

STUB = 130
here = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "data", "nine", "wdl-bytes.tsv")
rows = list(csv.DictReader(open(path), delimiter="\t"))
states = {r["sector"]: int(r["states"]) for r in rows}
wdl = {r["sector"]: int(r["wdl_bytes"]) for r in rows}
total_states = sum(states.values())


def name(x, y, h1, h2):
    return f"{x}-{y}" if h1 == 0 and h2 == 0 else f"{x}-{y}-{h1}-{h2}"


def successors(s):
    """Nine's rules: slides and captures; placements and captures."""
    p = list(map(int, s.split("-")))
    out = set()
    if len(p) == 2:
        m, o = p
        out.add(f"{o}-{m}")
        if o - 1 >= 3:
            out.add(f"{o - 1}-{m}")
    else:
        a, b, c, d = p
        out.add(name(b, a + 1, d, c - 1))
        if b >= 1 and b - 1 + d >= 3:
            out.add(name(b - 1, a + 1, d, c - 1))
    return {t for t in out if t in states}


# A sector leading to itself can never be derived; no two derived
# sectors may be neighbours (a probe stays one ply).
candidates = [s for s in sorted(states) if s not in successors(s)]
neighbours = {s: set() for s in candidates}
for s in candidates:
    for t in successors(s):
        if t in neighbours:
            neighbours[s].add(t)
            neighbours[t].add(s)


def heaviest(nodes, weight):
    """The heaviest independent set of `nodes` (an integer program)."""
    if not nodes:
        return set()
    at = {s: i for i, s in enumerate(nodes)}
    edges = [(at[s], at[t]) for s in nodes for t in neighbours[s] if t in at and at[t] > at[s]]
    a = np.zeros((max(len(edges), 1), len(nodes)))
    for k, (i, j) in enumerate(edges):
        a[k, i] = a[k, j] = 1
    c = -np.array([float(weight(s)) for s in nodes])
    res = milp(c, constraints=LinearConstraint(a, -np.inf, 1), integrality=np.ones(len(nodes)), bounds=Bounds(0, 1))
    return {s for s in nodes if res.x[at[s]] > 0.5}


def with_moving(rule, weight):
    moving = {s for s in candidates if s.count("-") == 1 and rule(*map(int, s.split("-")))}
    blocked = set().union(*(neighbours[s] for s in moving)) if moving else set()
    placement = [s for s in candidates if s.count("-") == 3 and s not in blocked]
    return moving | heaviest(placement, weight)


def bits(derived):
    kept = sum(b for s, b in wdl.items() if s not in derived)
    return 8 * (kept + STUB * len(derived)) / total_states


def report(what, derived):
    share = sum(states[s] for s in derived) / total_states
    print(f"{what}: {bits(derived):.4f} bits/state ({len(derived)} sectors derived, {share:.1%} of the states)")


by_bytes = lambda s: wdl[s] - STUB
report("every sector kept", set())
report("today's plan (mover ahead; placement by states)", with_moving(lambda m, o: m > o, lambda s: states[s]))
report("mover ahead; placement by the tier's bytes", with_moving(lambda m, o: m > o, by_bytes))
best = with_moving(lambda m, o: m < o, by_bytes)
report("mover behind; placement by the tier's bytes", best)
report("the best set over the whole graph, by the tier's bytes", heaviest(candidates, by_bytes))
print("mover behind, placement by bytes: derived", " ".join(sorted(best)))
