#!/usr/bin/env python3
"""The tables of docs/match.md from the output of scripts/match.sh.

    tools/match_table.py RESULTS.tsv [BASELINE]

Per opponent, one row per player: wins as White, as Black and in total, each
with its 95 % Wilson interval, and the difference in total wins from
BASELINE (default perfect:uniform) with its 95 % interval (Newcombe's hybrid
score method), all in percent. Losses are left out when none occurred (a
perfect player never loses); the script says so.
"""
import csv
import math
import sys

Z = 1.959963984540054


def wilson(k, n):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def difference(k1, n1, k2, n2):
    p1, p2 = k1 / n1, k2 / n2
    (l1, u1), (l2, u2) = wilson(k1, n1), wilson(k2, n2)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def share(k, n):
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def main():
    path = sys.argv[1]
    baseline = sys.argv[2] if len(sys.argv) > 2 else "perfect:uniform"
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    losses = sum(int(r["losses"]) for r in rows)
    by_opponent = {}
    for r in rows:
        by_opponent.setdefault(r["opponent"], []).append(r)
    for opponent, group in by_opponent.items():
        base = next(r for r in group if r["player"] == baseline)
        nb = sum(int(base[k]) for k in ("wins", "draws", "losses"))
        print(f"\nAgainst `{opponent}` (wins in %, 95 % intervals):\n")
        print("| player | as White | as Black | total | total − baseline | plies |")
        print("|---|---|---|---|---|---|")
        for r in group:
            nw = sum(int(r[k]) for k in ("w_wins", "w_draws", "w_losses"))
            nbk = sum(int(r[k]) for k in ("b_wins", "b_draws", "b_losses"))
            n = nw + nbk
            d, lo, hi = difference(int(r["wins"]), n, int(base["wins"]), nb)
            diff = "" if r is base else f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
            print(f"| `{r['player']}` | {share(int(r['w_wins']), nw)} | {share(int(r['b_wins']), nbk)} "
                  f"| {share(int(r['wins']), n)} | {diff} | {r['plies']} |")
    print(f"\nLosses of the players in all {len(rows)} pairings: {losses}.")


if __name__ == "__main__":
    main()
