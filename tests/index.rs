//! The sector index over whole small sectors: round trips, symmetry
//! invariance, and canonical counts against Burnside's lemma.

use morris::index::{colex_unrank, Indexer, Sector, BINOMIAL};
use morris::symmetry::Symmetries;
use morris::variant::{points, Bits, Variant};

/// Orbits of (mover set, opponent set) pairs under the group, from the
/// cycle structure of each symmetry: a pair is fixed by `g` exactly when
/// both sets are unions of `g`'s cycles.
fn burnside(syms: &Symmetries, m: usize, o: usize) -> u64 {
    let mut fixed = 0;
    for s in 0..syms.len() {
        let mut ways = vec![vec![0u64; o + 1]; m + 1];
        ways[0][0] = 1;
        for len in syms.cycle_lengths(s) {
            for a in (0..=m).rev() {
                for b in (0..=o).rev() {
                    let mut w = 0;
                    if a >= len {
                        w += ways[a - len][b];
                    }
                    if b >= len {
                        w += ways[a][b - len];
                    }
                    ways[a][b] += w;
                }
            }
        }
        fixed += ways[m][o];
    }
    fixed / syms.len() as u64
}

/// Every raw position of a sector: each set of `m` points, then each set of
/// `o` of the remaining points.
fn for_each_position(n: u32, m: u32, o: u32, mut f: impl FnMut(Bits, Bits)) {
    let all = ((1u64 << n) - 1) as Bits;
    for rm in 0..BINOMIAL.get(n, m) {
        let mover = colex_unrank(rm, m);
        let free: Vec<u8> = points(all & !mover).collect();
        for ro in 0..BINOMIAL.get(n - m, o) {
            let compact = colex_unrank(ro, o);
            let opponent = points(compact).fold(0, |acc, i| acc | 1 << free[i as usize]);
            f(mover, opponent);
        }
    }
}

fn check_sector(variant: &str, m: u8, o: u8) -> u64 {
    let v = Variant::named(variant).unwrap();
    let ix = Indexer::new(v.board());
    let syms = ix.symmetries();
    let sector = ix.sector(Sector::moving(m, o));
    let n = v.board().points() as u32;

    // Every slot: canonical slots unrank to a position that ranks back.
    let mut canonical = 0u64;
    let mut seen = vec![false; sector.slots() as usize];
    sector.for_each_in(0..sector.slots(), |slot, mover, opponent| {
        assert_eq!(sector.unrank(slot), Some((mover, opponent)));
        assert_eq!(sector.rank(mover, opponent), slot, "{variant} {m}-{o} slot {slot}");
        seen[slot as usize] = true;
        canonical += 1;
    });
    for slot in 0..sector.slots() {
        assert_eq!(sector.unrank(slot).is_some(), seen[slot as usize], "slot {slot}");
    }

    // Every raw position ranks to a canonical slot, and so does its image
    // under a symmetry that changes from one position to the next (every
    // symmetry is used over the sector; all of them on small sectors).
    let mut turn = 0;
    let all_images = sector.slots() < 20_000;
    for_each_position(n, m as u32, o as u32, |mover, opponent| {
        let slot = sector.rank(mover, opponent);
        assert!(seen[slot as usize], "{mover:x} {opponent:x} ranks to a non-canonical slot");
        // The incremental ranking from symmetry images gives the same slot.
        let pi = ix.point_images().expect("16 symmetries fit one vector");
        assert_eq!(
            sector.rank_images(&pi.set(mover), &pi.set(opponent)),
            slot,
            "images {mover:x} {opponent:x}"
        );
        // So does the mover's class looked up by its colex rank.
        assert_eq!(
            sector.rank_mover(mover, &pi.set(opponent)),
            slot,
            "by mover {mover:x} {opponent:x}"
        );
        turn = (turn + 7) % syms.len();
        let images = if all_images { 0..syms.len() } else { turn..turn + 1 };
        for s in images {
            assert_eq!(sector.rank(syms.apply(s, mover), syms.apply(s, opponent)), slot);
        }
    });

    assert_eq!(canonical, burnside(syms, m as usize, o as usize), "{variant} {m}-{o} orbits");
    assert_eq!(sector.canonical_states(), canonical);
    canonical
}

#[test]
fn nine_3_3_has_the_published_count() {
    assert_eq!(check_sector("nine", 3, 3), 169_626);
}

#[test]
fn nine_small_sectors_round_trip() {
    for (m, o) in [(3, 4), (4, 3), (2, 5), (0, 3), (5, 0), (1, 1)] {
        check_sector("nine", m, o);
    }
}

#[test]
fn six_sectors_round_trip() {
    for (m, o) in [(3, 3), (4, 4), (6, 5), (5, 6), (6, 6), (3, 6)] {
        check_sector("six", m, o);
    }
}

#[test]
fn twelve_sectors_round_trip() {
    for (m, o) in [(3, 3), (4, 3), (3, 5)] {
        check_sector("twelve", m, o);
    }
}

#[test]
fn nine_moving_phase_totals() {
    let v = Variant::named("nine").unwrap();
    let ix = Indexer::new(v.board());
    let (mut states, mut slots) = (0u64, 0u64);
    for m in 3..=9 {
        for o in 3..=9 {
            let s = ix.sector(Sector::moving(m, o));
            assert_eq!(s.canonical_states(), burnside(ix.symmetries(), m as usize, o as usize));
            states += s.canonical_states();
            slots += s.slots();
        }
    }
    assert_eq!(states, 8_904_593_601);
    assert!((slots as f64) < 1.05 * states as f64, "slots {slots} vs states {states}");
}

/// A frame's ranks (one at a time, and all the one-more positions in one
/// pass) against the sector's own rank, on every raw position of small
/// sectors: the placement solver ranks its successors this way.
#[test]
fn frame_ranks_agree_with_rank() {
    for (variant, m, o) in
        [("nine", 3, 4), ("nine", 4, 2), ("nine", 0, 3), ("six", 4, 3), ("twelve", 3, 3)]
    {
        let v = Variant::named(variant).unwrap();
        let ix = Indexer::new(v.board());
        let sector = ix.sector(Sector::moving(m, o + 1));
        let n = v.board().points() as u32;
        let all: Bits = if n == 32 { !0 } else { (1 << n) - 1 };
        let (mut plain, mut checked) = (0, 0);
        for_each_position(n, m as u32, o as u32, |mover, opponent| {
            let frame = sector.frame(mover);
            let mut slots = [u64::MAX; 32];
            if frame.is_plain() {
                frame.ranks_plus_one(opponent, all & !(mover | opponent), &mut slots);
                plain += 1;
            }
            for p in points(all & !(mover | opponent)) {
                let slot = sector.rank(mover, opponent | 1 << p);
                assert_eq!(
                    frame.rank(opponent | 1 << p),
                    slot,
                    "{variant} {mover:x} {opponent:x} + {p}"
                );
                if frame.is_plain() {
                    assert_eq!(
                        slots[p as usize], slot,
                        "{variant} {mover:x} {opponent:x} + {p}, in one pass"
                    );
                }
                checked += 1;
            }
        });
        // An empty mover is fixed by every symmetry: no frame is plain.
        assert!(checked > 0 && (plain > 0) == (m > 0), "{variant} {m}-{o}: {plain} plain frames");
    }
}

/// Spreads the bits of `compact` over the points of `free`, lowest first.
fn deposit(compact: Bits, free: Bits) -> Bits {
    points(free)
        .enumerate()
        .filter(|&(i, _)| compact >> i & 1 == 1)
        .fold(0, |acc, (_, p)| acc | 1 << p)
}

#[test]
fn images_by_bytes_agree_with_the_points() {
    for name in ["nine", "morabaraba", "six", "five"] {
        let v = Variant::named(name).unwrap();
        let ix = Indexer::new(v.board());
        let images = ix.point_images().expect("a small group");
        let all = v.board().all();
        // Every byte value in every byte, then sets spread over all of them.
        let mut sets: Vec<Bits> =
            (0..3).flat_map(|j| (0..256).map(move |b| (b as Bits) << (8 * j))).collect();
        sets.extend((0..10_000u64).map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 17) as Bits));
        for set in sets {
            let set = set & all;
            assert_eq!(images.set(set), images.set_by_points(set), "{name} {set:x}");
        }
    }
}

#[test]
fn ranks_plus_one_agree_with_rank() {
    for name in ["nine", "morabaraba", "six"] {
        let v = Variant::named(name).unwrap();
        let ix = Indexer::new(v.board());
        let all = v.board().all();
        let n = v.board().points() as u32;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut plain = 0;
        for _ in 0..20_000 {
            let m = (next() % 10) as u32;
            let o = (next() % 10) as u32;
            if m + o + 1 > n {
                continue;
            }
            // A canonical mover, as the solvers' frames have: fixed by
            // the identity alone (plain) or by more symmetries.
            let mover = ix.canonical(colex_unrank(next() % BINOMIAL.get(n, m), m), 0).0;
            let free = all & !mover;
            let compact = colex_unrank(next() % BINOMIAL.get(n - m, o), o);
            let opponent = deposit(compact, free);
            let index = ix.sector(Sector::moving(m as u8, o as u8 + 1));
            let frame = index.frame(mover);
            plain += frame.is_plain() as u32;
            let targets = free & !opponent;
            let mut slots = [0u64; 32];
            frame.ranks_plus_one(opponent, targets, &mut slots);
            for p in points(targets) {
                let set = opponent | 1 << p;
                assert_eq!(slots[p as usize], frame.rank(set), "{name} {mover:x} {set:x}");
                assert_eq!(slots[p as usize], index.rank(mover, set), "{name} {mover:x} {set:x}");
            }
        }
        assert!(plain > 1000 && plain < 19_000, "{name}: {plain} plain frames");
    }
}
