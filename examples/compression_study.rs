//! How small the tables could be: measures, on real solved sectors, the
//! bits per state of today's table format and of the ideas of issue 28
//! (block size, zstd level, trained dictionaries, split value/distance
//! planes, "don't care" cells that a one-ply probe recovers, cells coded
//! against a predicted value, cells ordered by the opponent's stones, a
//! win/draw/loss tier), by compressing the real cells.
//!
//! ```text
//! cargo run --release --example compression_study -- --db DIR
//!     [--variant nine] [--fly-at never] [--sectors 3-3,6-5,...]
//!     [--sample-cells N] [--order-only] [--whole-phase]
//! ```
//!
//! `--order-only` measures only the opponent order (with and without the
//! capture don't-cares); `--whole-phase` samples every moving-phase sector
//! of the database for a few schemes and weighs them by states. The
//! findings are in `docs/compression.md`.
//!
//! Each sector is read whole through `morris::table`; the sample is
//! `--sample-cells` slots (default 4 Mi) in windows of 256 Ki slots spread
//! evenly over the sector (the whole sector when it is smaller). Every
//! scheme compresses the same sample; "bits/state" is compressed bits
//! (plus 12 bytes per block: an offset and a CRC, as today) over the
//! canonical states of the sample. Times are this thread's CPU time (the
//! machine may be shared), decode times the fastest of three passes. The
//! one-ply probe looks up every
//! capture's successor in the successor sector, read whole into memory.
//!
//! Schemes (rows of the report):
//! - `lohi B Lv`: today's layout (low bytes, then high bytes, one zstd
//!   frame per block of B cells at level v); `lohi 16Ki L9` is today.
//! - `+dict`: the same with a zstd dictionary trained on other windows of
//!   the same table (`table`) or on windows of all the sectors of the run
//!   (`variant`); the dictionary's own bytes are not counted.
//! - `nc`: non-canonical slots (today draws) are free: they hold the
//!   previous cell or the next fixed one (see `fill`).
//! - `dc`: also every state whose value a one-ply probe recovers is free,
//!   within what keeps the probe exact (`max(stored, best capture) ==
//!   value`: any cell no better than its value; no legal move: any).
//! - `split`: the value (one byte: loss, draw, win) then the distance
//!   (depth / 2, low then high byte, for wins and losses only) in one frame.
//! - `wdl`: the win/draw/loss tier, one byte per cell (`1B`) or four cells
//!   a byte (`2b`); `pred` codes it as (value - predicted) mod 3, the
//!   prediction being the best capture's value, else the sector's most
//!   common value.
//! - `opp-order`: cells gathered walking the opponent's canonical sets
//!   (then every mover set of the free points), as the placement solver
//!   walks; symmetric opponent sets repeat some states.

use morris::database::Database;
use morris::index::Sector;
use morris::position::State;
use morris::rules::{self, Status};
use morris::value::{Cell, Value};
use morris::variant::{Bits, Variant};
use std::collections::HashMap;
use std::time::Instant;

/// Slots per sample window (the largest block measured).
const WINDOW: u64 = 256 * 1024;
/// Bytes each block costs besides its frame: an offset and a CRC.
const BLOCK_OVERHEAD: usize = 12;

struct Options {
    db: String,
    variant: String,
    fly_at: Option<String>,
    sectors: Vec<Sector>,
    sample_cells: u64,
    whole: bool,
    order_only: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut o = Options {
        db: String::new(),
        variant: "nine".into(),
        fly_at: None,
        sectors: vec![],
        sample_cells: 4 << 20,
        whole: false,
        order_only: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--db" => o.db = val()?,
            "--variant" => o.variant = val()?,
            "--fly-at" => o.fly_at = Some(val()?),
            "--sectors" => {
                o.sectors = val()?.split(',').map(str::parse).collect::<Result<_, _>>()?;
            }
            "--sample-cells" => o.sample_cells = val()?.parse().map_err(|e| format!("{e}"))?,
            "--whole-phase" => o.whole = true,
            "--order-only" => o.order_only = true,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if o.db.is_empty() || (o.sectors.is_empty() && !o.whole) {
        return Err("need --db and --sectors or --whole-phase".into());
    }
    Ok(o)
}

fn main() {
    let o = parse_options().unwrap_or_else(|e| {
        eprintln!("compression_study: {e}");
        std::process::exit(2)
    });
    let mut variant = Variant::named(&o.variant).expect("variant");
    if let Some(f) = &o.fly_at {
        variant = variant.with_flying(f.parse().expect("--fly-at"));
    }
    let db = Database::new(&o.db, variant.clone());
    if o.whole {
        whole_phase(&db, o.sample_cells);
        return;
    }
    let mut report = Report::default();
    let mut pooled_training: Vec<Vec<u8>> = Vec::new();
    let mut kept: Vec<(usize, Vec<Vec<u16>>)> = Vec::new();
    for &sector in &o.sectors {
        let t = Instant::now();
        let column = report.columns.len();
        report.columns.push(sector.to_string());
        let (windows, training) =
            study_sector(&db, sector, o.sample_cells, o.order_only, &mut report, column);
        // A few training blocks of each sector for the per-variant dictionary.
        pooled_training.extend(training.into_iter().step_by(4).take(64));
        kept.push((column, windows));
        eprintln!("{sector}: {:.1} s", t.elapsed().as_secs_f64());
    }
    // The per-variant dictionary, trained on blocks of every sector.
    if let Ok(dict) = zstd::dict::from_samples(&pooled_training, 64 * 1024) {
        for (column, windows) in &kept {
            let states = report.get(*column, "sample states");
            let bytes = lohi_bytes(windows, 16 * 1024, 9, Some(&dict));
            report.set(*column, "lohi 16Ki L9 +dict variant", bits(bytes.0, states));
        }
    }
    report.print();
}

/// Rows (in first-seen order) by columns.
#[derive(Default)]
struct Report {
    columns: Vec<String>,
    rows: Vec<(String, Vec<Option<f64>>)>,
}

impl Report {
    fn set(&mut self, column: usize, row: &str, value: f64) {
        let n = self.columns.len();
        let i = match self.rows.iter().position(|(r, _)| r == row) {
            Some(i) => i,
            None => {
                self.rows.push((row.to_string(), vec![]));
                self.rows.len() - 1
            }
        };
        self.rows[i].1.resize(n, None);
        self.rows[i].1[column] = Some(value);
    }

    fn get(&self, column: usize, row: &str) -> f64 {
        self.rows.iter().find(|(r, _)| r == row).and_then(|(_, v)| v[column]).unwrap_or(0.0)
    }

    fn print(&self) {
        println!("| scheme | {} |", self.columns.join(" | "));
        println!("|---|{}", "---:|".repeat(self.columns.len()));
        for (row, values) in &self.rows {
            let cells: Vec<String> = (0..self.columns.len())
                .map(|c| match values.get(c).copied().flatten() {
                    None => "".into(),
                    Some(v) if v.abs() >= 1000.0 => format!("{v:.0}"),
                    Some(v) if v == v.trunc() => format!("{v:.0}"),
                    Some(v) => format!("{v:.3}"),
                })
                .collect();
            println!("| {row} | {} |", cells.join(" | "));
        }
    }
}

fn bits(bytes: usize, states: f64) -> f64 {
    bytes as f64 * 8.0 / states
}

/// Preference of a cell's value: higher is better for the side to move.
fn pref(cell: u16) -> i32 {
    Value::from(Cell(cell)).preference()
}

/// 0 loss, 1 draw, 2 win.
fn wdl(cell: u16) -> u8 {
    match cell {
        0 => 1,
        c if c % 2 == 0 => 2,
        _ => 0,
    }
}

/// What the one-ply probe knows of a state.
#[derive(Clone, Copy, Default)]
struct Probe {
    /// The best capture's value for the side to move, as a cell.
    capture: Option<u16>,
    /// The game is over: the value follows from the rules alone.
    terminal: Option<u16>,
    /// Successor lookups the probe made.
    lookups: u32,
}

/// Successor sectors read whole, by sector.
struct Successors<'a> {
    db: &'a Database,
    cells: HashMap<Sector, Vec<u16>>,
}

impl Successors<'_> {
    fn value(&mut self, s: &State) -> Value {
        if s.mover_stones() < 3 {
            return Value::Loss(0);
        }
        let sector = Sector::of(s);
        let db = self.db;
        let cells = self.cells.entry(sector).or_insert_with(|| {
            eprintln!("  loading successor sector {sector}");
            db.load_cells(sector).expect("successor table")
        });
        let slot = db.indexer().sector(sector).rank(s.mover, s.opponent);
        Value::from(Cell(cells[slot as usize]))
    }

    fn probe(&mut self, v: &Variant, s: &State) -> Probe {
        let mut captures = Vec::new();
        let mut any = false;
        rules::for_each_move(v, s, |m| {
            any = true;
            if m.remove.is_some() {
                captures.push(rules::play(s, m));
            }
        });
        let mut p = Probe::default();
        if !any {
            p.terminal = match rules::status(v, s) {
                Status::Lost => Some(1),
                Status::Drawn => Some(0),
                Status::Playing => None,
            };
        }
        for next in captures {
            p.lookups += 1;
            let back = Cell::from(self.value(&next).back()).0;
            if p.capture.is_none_or(|c| pref(back) > pref(c)) {
                p.capture = Some(back);
            }
        }
        p
    }
}

/// One sample window: its cells, which slots are canonical, the probes.
struct Window {
    cells: Vec<u16>,
    canonical: Vec<bool>,
    probes: Vec<Probe>,
}

fn study_sector(
    db: &Database,
    sector: Sector,
    sample_cells: u64,
    order_only: bool,
    report: &mut Report,
    col: usize,
) -> (Vec<Vec<u16>>, Vec<Vec<u8>>) {
    let v = db.variant().clone();
    let table = db.table(sector).expect("table");
    let index = db.indexer().sector(sector);
    let slots = table.info().slots;
    let states = index.canonical_states();
    report.set(col, "slots", slots as f64);
    report.set(col, "states", states as f64);
    report.set(col, "table bytes", table.bytes_on_disk() as f64);
    report.set(
        col,
        "table bits/state (today, whole file)",
        bits(table.bytes_on_disk() as usize, states as f64),
    );
    let all = table.read_all().expect("cells");

    // Windows of the sample and of the training set, between them.
    let n = sample_cells.div_ceil(WINDOW).max(1);
    let mut starts = Vec::new();
    let mut train_starts = Vec::new();
    if slots <= sample_cells {
        starts.extend((0..slots).step_by(WINDOW as usize));
        train_starts = starts.clone();
    } else {
        let spacing = slots / n;
        for k in 0..n {
            starts.push((k * spacing) / WINDOW * WINDOW);
            train_starts.push((k * spacing + spacing / 2) / WINDOW * WINDOW);
        }
    }
    let mut succ = Successors { db, cells: HashMap::new() };
    let probe_start = cpu_secs();
    let mut probed = 0u64;
    let mut lookups = 0u64;
    let mut bad_probes = 0u64;
    let mut with_capture = 0u64;
    let mut max_lookups = 0u32;
    let windows: Vec<Window> = starts
        .iter()
        .map(|&start| {
            let end = (start + WINDOW).min(slots);
            let cells = all[start as usize..end as usize].to_vec();
            let mut canonical = vec![false; cells.len()];
            let mut probes = vec![Probe::default(); cells.len()];
            index.for_each_in(start..end, |slot, mover, opponent| {
                let i = (slot - start) as usize;
                canonical[i] = true;
                let s = sector.state(mover, opponent);
                let p = succ.probe(&v, &s);
                probed += 1;
                lookups += u64::from(p.lookups);
                with_capture += u64::from(p.lookups > 0);
                max_lookups = max_lookups.max(p.lookups);
                if p.capture.is_some_and(|c| pref(c) > pref(cells[i]))
                    || p.terminal.is_some_and(|t| t != cells[i])
                {
                    bad_probes += 1;
                }
                probes[i] = p;
            });
            Window { cells, canonical, probes }
        })
        .collect();
    let probe_secs = cpu_secs() - probe_start;
    let sample_states = probed as f64;
    report.set(col, "sample states", sample_states);
    report.set(col, "probe: µs per state (in-memory successors)", probe_secs * 1e6 / sample_states);
    report.set(col, "probe: capture lookups per state", lookups as f64 / sample_states);
    report.set(col, "probe: % states with a capture", 100.0 * with_capture as f64 / sample_states);
    report.set(col, "probe: most lookups by one state", max_lookups as f64);
    report.set(col, "probe: values it contradicts (must be 0)", bad_probes as f64);

    // Shares.
    let mut wdl_count = [0u64; 3];
    let mut full_dc = 0u64;
    let mut wdl_dc = 0u64;
    let mut noncanon = 0u64;
    for w in &windows {
        for i in 0..w.cells.len() {
            if !w.canonical[i] {
                noncanon += 1;
                continue;
            }
            let c = w.cells[i];
            wdl_count[wdl(c) as usize] += 1;
            let p = &w.probes[i];
            if p.terminal.is_some() || p.capture == Some(c) {
                full_dc += 1;
            }
            if p.terminal.is_some() || p.capture.is_some_and(|pc| wdl(pc) == wdl(c)) {
                wdl_dc += 1;
            }
        }
    }
    let sample_slots: usize = windows.iter().map(|w| w.cells.len()).sum();
    report.set(col, "% non-canonical slots", 100.0 * noncanon as f64 / sample_slots as f64);
    for (k, name) in ["% losses", "% draws", "% wins"].iter().enumerate() {
        report.set(col, name, 100.0 * wdl_count[k] as f64 / sample_states);
    }
    report.set(col, "% probe recovers value+distance", 100.0 * full_dc as f64 / sample_states);
    report.set(col, "% probe recovers win/draw/loss", 100.0 * wdl_dc as f64 / sample_states);
    let majority = (0..3).max_by_key(|&k| wdl_count[k]).unwrap() as u8;
    let (h0, h1) = entropies(&windows);
    report.set(col, "entropy of a cell, order 0 (bits/state)", h0);
    report.set(col, "entropy of a cell given the previous (bits/state)", h1);

    let plain: Vec<Vec<u16>> = windows.iter().map(|w| w.cells.clone()).collect();
    let nc: Vec<Vec<u16>> = windows.iter().map(|w| fill(w, false, true)).collect();
    let w_nc: Vec<Vec<u8>> = windows.iter().map(|w| fill_wdl(w, false, true)).collect();
    let training = if order_only {
        Vec::new()
    } else {
        full_and_wdl(&windows, &all, &train_starts, slots, majority, report, col, sample_states)
    };

    // Cells walked by the opponent's stones.
    let (ob, ocount, ow, gathered) = opponent_order(db, sector, &all, sample_cells.min(slots));
    report.set(col, "opp-order: lohi 16Ki L9 (per gathered cell)", bits(ob, ocount as f64));
    report.set(col, "opp-order: wdl 1B 256Ki L19 (per gathered cell)", bits(ow, ocount as f64));
    // The opponent order with the capture don't-cares, end to end.
    let gathered: Vec<Window> = gathered
        .into_iter()
        .map(|(cells, states)| {
            let probes = states
                .iter()
                .map(|&(mover, opponent)| {
                    let s = sector.state(mover, opponent);
                    succ.probe(&v, &s)
                })
                .collect();
            let canonical = vec![true; cells.len()];
            Window { cells, canonical, probes }
        })
        .collect();
    for (form, packed) in [("1B", false), ("2b", true)] {
        let syms: Vec<Vec<u8>> = gathered.iter().map(|w| fill_wdl(w, true, false)).collect();
        let (b, _) = wdl_bytes(&syms, 256 * 1024, 19, packed);
        report.set(
            col,
            &format!("opp-order: wdl {form} 256Ki L19 dc, filler: previous (per gathered cell)"),
            bits(b, ocount as f64),
        );
    }
    let w_dc_prev: Vec<Vec<u8>> = windows.iter().map(|w| fill_wdl(w, true, false)).collect();
    let (b, _) = wdl_bytes(&w_dc_prev, 256 * 1024, 19, false);
    report.set(
        col,
        "slot-order: wdl 1B 256Ki L19 nc dc, filler: previous (same measure)",
        bits(b, sample_slots as f64),
    );
    let (pb, _) = lohi_bytes(&nc, 16 * 1024, 9, None);
    report.set(col, "slot-order: lohi 16Ki L9 nc (same measure)", bits(pb, sample_slots as f64));
    let (pw, _) = wdl_bytes(&w_nc, 256 * 1024, 19, false);
    report.set(
        col,
        "slot-order: wdl 1B 256Ki L19 nc (same measure)",
        bits(pw, sample_slots as f64),
    );

    (plain, training)
}

/// The full tier's and the WDL tier's schemes on the sample, and the
/// prototype; returns the training blocks of the dictionary.
#[allow(clippy::too_many_arguments)]
fn full_and_wdl(
    windows: &[Window],
    all: &[u16],
    train_starts: &[u64],
    slots: u64,
    majority: u8,
    report: &mut Report,
    col: usize,
    sample_states: f64,
) -> Vec<Vec<u8>> {
    // The full tier.
    let plain: Vec<Vec<u16>> = windows.iter().map(|w| w.cells.clone()).collect();
    let nc: Vec<Vec<u16>> = windows.iter().map(|w| fill(w, false, true)).collect();
    let dc: Vec<Vec<u16>> = windows.iter().map(|w| fill(w, true, true)).collect();
    for (block, level) in [(4, 9), (16, 3), (16, 9), (16, 19), (64, 9), (64, 19), (256, 19)] {
        let (b, _) = lohi_bytes(&plain, block * 1024, level, None);
        report.set(col, &format!("lohi {block}Ki L{level}"), bits(b, sample_states));
    }
    // A dictionary trained on other windows of this table.
    let training: Vec<Vec<u8>> = train_starts
        .iter()
        .flat_map(|&s| {
            let end = (s + WINDOW).min(slots) as usize;
            all[s as usize..end].chunks(16 * 1024).map(lohi_planes).collect::<Vec<_>>()
        })
        .collect();
    if let Ok(dict) = zstd::dict::from_samples(&training, 32 * 1024) {
        let (b, _) = lohi_bytes(&plain, 16 * 1024, 9, Some(&dict));
        report.set(col, "lohi 16Ki L9 +dict table", bits(b, sample_states));
    }
    for (name, cells) in [("", &plain), (" nc", &nc), (" nc dc", &dc)] {
        let (b, t) = lohi_bytes(cells, 16 * 1024, 9, None);
        report.set(col, &format!("lohi 16Ki L9{name}"), bits(b, sample_states));
        if name.is_empty() {
            report.set(col, "decode µs/block: lohi 16Ki L9", t);
        }
        for (block, level) in [(16, 9), (64, 19)] {
            let (b, t) = split_bytes(cells, block * 1024, level);
            report.set(col, &format!("split {block}Ki L{level}{name}"), bits(b, sample_states));
            if name == " nc dc" {
                report.set(col, &format!("decode µs/block: split {block}Ki L{level}"), t);
            }
        }
    }

    // The win/draw/loss tier.
    let w_plain: Vec<Vec<u8>> = plain.iter().map(|c| c.iter().map(|&c| wdl(c)).collect()).collect();
    let w_nc: Vec<Vec<u8>> = windows.iter().map(|w| fill_wdl(w, false, true)).collect();
    let w_dc: Vec<Vec<u8>> = windows.iter().map(|w| fill_wdl(w, true, true)).collect();
    let w_dc_prev: Vec<Vec<u8>> = windows.iter().map(|w| fill_wdl(w, true, false)).collect();
    let w_pred: Vec<Vec<u8>> = windows
        .iter()
        .map(|w| {
            (0..w.cells.len())
                .map(|i| {
                    if !w.canonical[i] {
                        return 0;
                    }
                    let p = w.probes[i].terminal.or(w.probes[i].capture).map_or(majority, wdl);
                    (wdl(w.cells[i]) + 3 - p) % 3
                })
                .collect()
        })
        .collect();
    let (b, _) = wdl_bytes(&w_dc_prev, 256 * 1024, 19, true);
    report.set(col, "wdl 2b 256Ki L19 nc dc, filler: previous cell only", bits(b, sample_states));
    for (name, syms) in [("", &w_plain), (" nc", &w_nc), (" nc dc", &w_dc), (" pred", &w_pred)] {
        for (block, level, packed) in
            [(16, 9, false), (64, 19, false), (256, 19, false), (64, 19, true), (256, 19, true)]
        {
            let form = if packed { "2b" } else { "1B" };
            let (b, t) = wdl_bytes(syms, block * 1024, level, packed);
            report.set(
                col,
                &format!("wdl {form} {block}Ki L{level}{name}"),
                bits(b, sample_states),
            );
            if name == " nc dc" && level == 19 {
                report.set(col, &format!("decode µs/block: wdl {form} {block}Ki"), t);
            }
        }
    }

    prototype(windows, report, col, sample_states);
    training
}

/// The window's cells with non-canonical slots free and, with
/// `dont_care`, every state the probe recovers too (any cell no better
/// than its value). A free slot takes the previous cell (`lookahead`
/// false), or (`lookahead` true) the previous cell when the next fixed cell
/// equals it, else the next fixed cell, else the previous one, where
/// allowed; else its own value.
fn fill(w: &Window, dont_care: bool, lookahead: bool) -> Vec<u16> {
    let free = |i: usize| {
        let p = &w.probes[i];
        !w.canonical[i] || (dont_care && (p.terminal.is_some() || p.capture == Some(w.cells[i])))
    };
    let allowed = |i: usize, s: u16| {
        !w.canonical[i] || w.probes[i].terminal.is_some() || pref(s) <= pref(w.cells[i])
    };
    choose(&w.cells, 0, free, |i, s| free(i) && allowed(i, s), lookahead)
}

/// [`fill`] for the win/draw/loss values.
fn fill_wdl(w: &Window, dont_care: bool, lookahead: bool) -> Vec<u8> {
    let values: Vec<u8> = w.cells.iter().map(|&c| wdl(c)).collect();
    let free = |i: usize| {
        let p = &w.probes[i];
        !w.canonical[i]
            || (dont_care
                && (p.terminal.is_some() || p.capture.is_some_and(|pc| wdl(pc) == values[i])))
    };
    let allowed =
        |i: usize, s: u8| !w.canonical[i] || w.probes[i].terminal.is_some() || s <= values[i];
    choose(&values, 1, free, |i, s| free(i) && allowed(i, s), lookahead)
}

/// The symbols stored for `values`: slot `i` may store something else
/// than its value when `free(i)`, and then any `s` with `allowed(i, s)`
/// (as [`fill`] describes).
fn choose<T: Copy + Eq>(
    values: &[T],
    start: T,
    free: impl Fn(usize) -> bool,
    allowed: impl Fn(usize, T) -> bool,
    lookahead: bool,
) -> Vec<T> {
    let n = values.len();
    let fixed: Vec<bool> = (0..n).map(|i| !free(i)).collect();
    let mut next = vec![start; n];
    let mut upcoming = start;
    for i in (0..n).rev() {
        next[i] = upcoming;
        if fixed[i] {
            upcoming = values[i];
        }
    }
    let mut out = Vec::with_capacity(n);
    let mut prev = start;
    for i in 0..n {
        let s = if !lookahead {
            if allowed(i, prev) {
                prev
            } else {
                values[i]
            }
        } else if allowed(i, prev) && (prev == next[i] || !allowed(i, next[i])) {
            prev
        } else if allowed(i, next[i]) {
            next[i]
        } else {
            values[i]
        };
        out.push(s);
        prev = s;
    }
    out
}

fn lohi_planes(block: &[u16]) -> Vec<u8> {
    block.iter().map(|&c| c as u8).chain(block.iter().map(|&c| (c >> 8) as u8)).collect()
}

/// Compresses `frames` one by one; returns the bytes (with the per-block
/// overhead) and the mean time to decompress one frame in µs.
fn compress_frames(frames: Vec<Vec<u8>>, level: i32, dict: Option<&[u8]>) -> (usize, f64) {
    let mut c = match dict {
        Some(d) => zstd::bulk::Compressor::with_dictionary(level, d).unwrap(),
        None => zstd::bulk::Compressor::new(level).unwrap(),
    };
    let mut d = match dict {
        Some(dd) => zstd::bulk::Decompressor::with_dictionary(dd).unwrap(),
        None => zstd::bulk::Decompressor::new().unwrap(),
    };
    let compressed: Vec<Vec<u8>> = frames.iter().map(|f| c.compress(f).unwrap()).collect();
    let total = compressed.iter().map(|z| z.len() + BLOCK_OVERHEAD).sum();
    // Decode time: the fastest of three passes (the machine is shared).
    let mut out = Vec::new();
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = cpu_secs();
        for (f, z) in frames.iter().zip(&compressed) {
            out.resize(f.len(), 0);
            let n = d.decompress_to_buffer(z, &mut out).unwrap();
            assert!(n == f.len() && out == *f, "round trip");
        }
        best = best.min(cpu_secs() - t);
    }
    (total, best * 1e6 / frames.len().max(1) as f64)
}

fn lohi_bytes(windows: &[Vec<u16>], block: usize, level: i32, dict: Option<&[u8]>) -> (usize, f64) {
    let frames = windows.iter().flat_map(|w| w.chunks(block).map(lohi_planes)).collect();
    compress_frames(frames, level, dict)
}

/// The value byte of every cell, then depth / 2 of each win and loss as
/// low and high bytes.
fn split_planes(block: &[u16]) -> Vec<u8> {
    let mut value: Vec<u8> = block.iter().map(|&c| wdl(c)).collect();
    let dist: Vec<u16> = block.iter().filter(|&&c| c != 0).map(|&c| (c - 1) / 2).collect();
    value.extend(dist.iter().map(|&d| d as u8));
    value.extend(dist.iter().map(|&d| (d >> 8) as u8));
    value
}

fn split_bytes(windows: &[Vec<u16>], block: usize, level: i32) -> (usize, f64) {
    let frames = windows.iter().flat_map(|w| w.chunks(block).map(split_planes)).collect();
    compress_frames(frames, level, None)
}

fn wdl_bytes(windows: &[Vec<u8>], block: usize, level: i32, packed: bool) -> (usize, f64) {
    let frames = windows
        .iter()
        .flat_map(|w| {
            w.chunks(block).map(|b| {
                if packed {
                    b.chunks(4)
                        .map(|q| q.iter().enumerate().fold(0u8, |a, (k, &s)| a | s << (2 * k)))
                        .collect()
                } else {
                    b.to_vec()
                }
            })
        })
        .collect();
    compress_frames(frames, level, None)
}

/// Cells gathered walking the opponent's canonical sets, then every mover
/// set of the free points: `want` cells from windows spread over the
/// opponent classes. Returns the bytes as `lohi 16Ki L9`, the count of
/// cells, and the bytes as `wdl 1B 256Ki L19`.
#[allow(clippy::type_complexity)]
fn opponent_order(
    db: &Database,
    sector: Sector,
    all: &[u16],
    want: u64,
) -> (usize, u64, usize, Vec<(Vec<u16>, Vec<(Bits, Bits)>)>) {
    let ix = db.indexer();
    let index = ix.sector(sector);
    let points = db.variant().board().points() as u32;
    let (reps, _) = ix.set_classes(u32::from(sector.opponent));
    let m = u32::from(sector.mover);
    let per_class = binomial(points - u32::from(sector.opponent), m);
    let classes_per_window = (WINDOW / per_class.max(1)).max(1) as usize;
    let n = want.div_ceil(WINDOW).max(1) as usize;
    let spacing = (reps.len() / n).max(1);
    let mut windows: Vec<Vec<u16>> = Vec::new();
    let mut states: Vec<Vec<(Bits, Bits)>> = Vec::new();
    for k in 0..n {
        let first = k * spacing;
        if first >= reps.len() {
            break;
        }
        let mut cells = Vec::new();
        let mut window_states = Vec::new();
        for &opp in reps.iter().skip(first).take(classes_per_window.min(spacing)) {
            let free: Vec<u32> =
                morris::variant::points(ix_all(points) & !opp).map(u32::from).collect();
            let nfree = free.len() as u32;
            if m == 0 || m > nfree {
                continue;
            }
            let mut compact: u64 = (1u64 << m) - 1;
            while compact < 1u64 << nfree {
                let mut mover: Bits = 0;
                let mut c = compact;
                while c != 0 {
                    mover |= 1 << free[c.trailing_zeros() as usize];
                    c &= c - 1;
                }
                cells.push(all[index.rank(mover, opp) as usize]);
                window_states.push((mover, opp));
                // Gosper's hack: the next set of m bits.
                let low = compact & compact.wrapping_neg();
                let ripple = compact + low;
                compact = (((ripple ^ compact) >> 2) / low) | ripple;
            }
        }
        windows.push(cells);
        states.push(window_states);
    }
    let count: u64 = windows.iter().map(|w| w.len() as u64).sum();
    let (lohi, _) = lohi_bytes(&windows, 16 * 1024, 9, None);
    let w: Vec<Vec<u8>> = windows.iter().map(|c| c.iter().map(|&c| wdl(c)).collect()).collect();
    let (wb, _) = wdl_bytes(&w, 256 * 1024, 19, false);
    (lohi, count, wb, windows.into_iter().zip(states).collect())
}

fn ix_all(points: u32) -> Bits {
    ((1u64 << points) - 1) as Bits
}

fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u64, |acc, i| acc * u64::from(n - i) / u64::from(i + 1))
}

/// Empirical entropy of the canonical cells of the sample, alone and given
/// the previous canonical cell: what a context coder of that order would
/// approach (the model's own size not counted).
fn entropies(windows: &[Window]) -> (f64, f64) {
    let mut single: HashMap<u16, u64> = HashMap::new();
    let mut pairs: HashMap<(u16, u16), u64> = HashMap::new();
    let mut n = 0u64;
    for w in windows {
        let mut prev = u16::MAX;
        for (i, &c) in w.cells.iter().enumerate() {
            if !w.canonical[i] {
                continue;
            }
            *single.entry(c).or_default() += 1;
            *pairs.entry((prev, c)).or_default() += 1;
            prev = c;
            n += 1;
        }
    }
    let h = |counts: &mut dyn Iterator<Item = u64>| -> f64 {
        counts.map(|k| k as f64 * (n as f64 / k as f64).log2()).sum::<f64>() / n as f64
    };
    let h0 = h(&mut single.values().copied());
    let mut prevs: HashMap<u16, u64> = HashMap::new();
    for (&(p, _), &k) in &pairs {
        *prevs.entry(p).or_default() += k;
    }
    let h_pairs = h(&mut pairs.values().copied());
    let h_prev = h(&mut prevs.values().copied());
    (h0, h_pairs - h_prev)
}

/// Every moving-phase sector of the database, sampled through
/// `Table::get` (`--sample-cells` slots each, in windows of 256 Ki): the
/// few schemes that matter, weighted by each sector's states.
fn whole_phase(db: &Database, sample_cells: u64) {
    let schemes = [
        "today (whole files)",
        "lohi 16Ki L9 (sample)",
        "lohi 256Ki L19",
        "split 64Ki L19 nc",
        "lohi 64Ki L19 nc",
        "wdl 2b 256Ki L19 nc",
        "wdl 2b 64Ki L19 nc",
    ];
    let mut total_bits = [0f64; 7];
    let mut total_states = 0f64;
    println!("| sector | states | {} |", schemes.join(" | "));
    println!("|---|---:|{}", "---:|".repeat(schemes.len()));
    for sector in morris::sectors::moving_sectors(db.variant()) {
        let Ok(table) = db.table(sector) else { continue };
        let index = db.indexer().sector(sector);
        let slots = table.info().slots;
        let states = index.canonical_states() as f64;
        let n = sample_cells.div_ceil(WINDOW).max(1);
        let starts: Vec<u64> = if slots <= sample_cells {
            (0..slots).step_by(WINDOW as usize).collect()
        } else {
            (0..n).map(|k| (k * (slots / n)) / WINDOW * WINDOW).collect()
        };
        let mut plain = Vec::new();
        let mut nc = Vec::new();
        let mut sample_states = 0u64;
        for &start in &starts {
            let end = (start + WINDOW).min(slots);
            let cells: Vec<u16> = (start..end).map(|i| table.get(i).expect("cell")).collect();
            let mut canonical = vec![false; cells.len()];
            index.for_each_in(start..end, |slot, _, _| canonical[(slot - start) as usize] = true);
            sample_states += canonical.iter().filter(|&&c| c).count() as u64;
            let probes = vec![Probe::default(); cells.len()];
            let w = Window { cells, canonical, probes };
            nc.push(fill(&w, false, true));
            plain.push(w.cells);
        }
        let ss = sample_states as f64;
        let w_nc: Vec<Vec<u8>> = nc.iter().map(|c| c.iter().map(|&c| wdl(c)).collect()).collect();
        let row = [
            bits(table.bytes_on_disk() as usize, states),
            bits(lohi_bytes(&plain, 16 * 1024, 9, None).0, ss),
            bits(lohi_bytes(&plain, 256 * 1024, 19, None).0, ss),
            bits(split_bytes(&nc, 64 * 1024, 19).0, ss),
            bits(lohi_bytes(&nc, 64 * 1024, 19, None).0, ss),
            bits(wdl_bytes(&w_nc, 256 * 1024, 19, true).0, ss),
            bits(wdl_bytes(&w_nc, 64 * 1024, 19, true).0, ss),
        ];
        for (t, r) in total_bits.iter_mut().zip(row) {
            *t += r * states;
        }
        total_states += states;
        let cells: Vec<String> = row.iter().map(|r| format!("{r:.3}")).collect();
        println!("| {sector} | {states:.0} | {} |", cells.join(" | "));
    }
    let cells: Vec<String> =
        total_bits.iter().map(|t| format!("{:.3}", t / total_states)).collect();
    println!("| all | {total_states:.0} | {} |", cells.join(" | "));
}

/// The recommended schemes end to end: encode the sample, decode every
/// block, and give back each state's value from the stored cell and the
/// one-ply probe, as a reader would; every value must match the table.
fn prototype(windows: &[Window], report: &mut Report, col: usize, states: f64) {
    const FULL_BLOCK: usize = 64 * 1024;
    const WDL_BLOCK: usize = 256 * 1024;
    let mut c = zstd::bulk::Compressor::new(19).unwrap();
    let mut d = zstd::bulk::Decompressor::new().unwrap();
    let (mut full_bytes, mut wdl_bytes_total) = (0usize, 0usize);
    let (mut full_blocks, mut wdl_blocks) = (0usize, 0usize);
    let (mut full_secs, mut wdl_secs) = (0f64, 0f64);
    let mut wrong = 0u64;
    let mut planes = Vec::new();
    for w in windows {
        let full = fill(w, true, true);
        let wdl_cells = fill_wdl(w, true, true);
        // The full tier: today's planes of 64 Ki cells at level 19.
        for (k, block) in full.chunks(FULL_BLOCK).enumerate() {
            let frame = c.compress(&lohi_planes(block)).unwrap();
            full_bytes += frame.len() + BLOCK_OVERHEAD;
            full_blocks += 1;
            let t = cpu_secs();
            planes.resize(2 * block.len(), 0);
            d.decompress_to_buffer(&frame, &mut planes).unwrap();
            let (lo, hi) = planes.split_at(block.len());
            let cells: Vec<u16> =
                lo.iter().zip(hi).map(|(&l, &h)| u16::from_le_bytes([l, h])).collect();
            full_secs += cpu_secs() - t;
            for (j, &stored) in cells.iter().enumerate() {
                let i = k * FULL_BLOCK + j;
                if !w.canonical[i] {
                    continue;
                }
                let p = &w.probes[i];
                let value = match (p.terminal, p.capture) {
                    (Some(t), _) => t,
                    (None, Some(pc)) if pref(pc) > pref(stored) => pc,
                    _ => stored,
                };
                wrong += u64::from(value != w.cells[i]);
            }
        }
        // The win/draw/loss tier: four cells a byte, 256 Ki cells a block.
        for (k, block) in wdl_cells.chunks(WDL_BLOCK).enumerate() {
            let packed: Vec<u8> = block
                .chunks(4)
                .map(|q| q.iter().enumerate().fold(0u8, |a, (k, &s)| a | s << (2 * k)))
                .collect();
            let frame = c.compress(&packed).unwrap();
            wdl_bytes_total += frame.len() + BLOCK_OVERHEAD;
            wdl_blocks += 1;
            let t = cpu_secs();
            planes.resize(packed.len(), 0);
            d.decompress_to_buffer(&frame, &mut planes).unwrap();
            let syms: Vec<u8> = planes
                .iter()
                .flat_map(|&b| (0..4).map(move |k| (b >> (2 * k)) & 3))
                .take(block.len())
                .collect();
            wdl_secs += cpu_secs() - t;
            for (j, &stored) in syms.iter().enumerate() {
                let i = k * WDL_BLOCK + j;
                if !w.canonical[i] {
                    continue;
                }
                let p = &w.probes[i];
                let value = match (p.terminal, p.capture) {
                    (Some(t), _) => wdl(t),
                    (None, Some(pc)) => stored.max(wdl(pc)),
                    _ => stored,
                };
                wrong += u64::from(value != wdl(w.cells[i]));
            }
        }
    }
    report.set(col, "prototype full (lohi 64Ki L19 nc dc): bits/state", bits(full_bytes, states));
    report.set(col, "prototype full: decode µs/block", full_secs * 1e6 / full_blocks as f64);
    report.set(
        col,
        "prototype wdl (2b 256Ki L19 nc dc): bits/state",
        bits(wdl_bytes_total, states),
    );
    report.set(col, "prototype wdl: decode+unpack µs/block", wdl_secs * 1e6 / wdl_blocks as f64);
    report.set(col, "prototype: values not given back (must be 0)", wrong as f64);
}

/// CPU time of this thread in seconds: the timings count the work done,
/// not the time the thread waited for a core on a shared machine.
fn cpu_secs() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // Safety: `ts` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
