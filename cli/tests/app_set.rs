//! The app set (`morris export --app`) plays perfectly, checked state by
//! state over whole small games: a player that opens only the app
//! directory (`Query::choose_move` over outcomes and progress tables, no
//! full table in reach) is asked for its move in every won, lost and
//! drawn state of every cyclic pair, and the move is judged by the full
//! tables and the progress distances computed from them:
//! - in a won state it captures or places into a state lost for the
//!   opponent, or slides into a lost state from which every reply either
//!   leaves the pair into a state won for the player or slides into a won
//!   state at least two progress plies nearer (so the distance falls by
//!   one a ply);
//! - in a lost state it takes the reply that resists longest (its
//!   progress distance one ply less than the state's);
//! - in a drawn state it keeps the draw (one drawn state in 16 asked:
//!   the tie-break among drawing moves reads two plies).
//!
//! A sabotaged app set (every won state's progress depth made 1) fails
//! the same check. The standard placement phase needs no progress (every
//! move there places a stone); `docs/progress.md` has the proof.

mod common;

use common::{ok, scratch};
use morris::database::Database;
use morris::position::{Color, Position};
use morris::progress::solve_progress_pair;
use morris::query::Query;
use morris::rules::{legal_moves, play};
use morris::sectors::{moving_sectors, placement_sectors};
use morris::solve::cyclic_pairs;
use morris::table::{write_progress, ProgressTable, TableInfo};
use morris::{Sector, State, Variant};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// A cell's outcome for the side to move: 1 win, 0 draw, -1 loss.
fn outcome(cell: u16) -> i8 {
    match cell {
        0 => 0,
        c if c % 2 == 0 => 1,
        _ => -1,
    }
}

/// The full cells of every sector and the progress cells of every cyclic
/// pair's sectors, from the full tables: the judge.
struct Judge {
    db: Database,
    cells: HashMap<Sector, Vec<u16>>,
    progress: HashMap<Sector, Vec<u16>>,
}

impl Judge {
    fn new(db: Database, max_stones: u32) -> Judge {
        let v = db.variant().clone();
        let cells = moving_sectors(&v)
            .into_iter()
            .chain(placement_sectors(&v))
            .filter(|s| s.total_stones() <= max_stones)
            .map(|s| (s, db.load_cells(s).unwrap()))
            .collect();
        let progress = cyclic_pairs(&v, max_stones)
            .into_iter()
            .flat_map(|p| solve_progress_pair(&db, p).unwrap().sectors)
            .collect();
        Judge { db, cells, progress }
    }

    /// The full cell of `state`; a side left with fewer than 3 stones has
    /// lost (a loss at depth 0).
    fn cell(&self, state: &State) -> u16 {
        if state.mover_stones() < 3 {
            return 1;
        }
        let sector = Sector::of(state);
        self.cells[&sector][self.slot(state) as usize]
    }

    fn slot(&self, state: &State) -> u64 {
        self.db.indexer().sector(Sector::of(state)).rank(state.mover, state.opponent)
    }

    /// The progress cell of `state` if it lies in `pair`'s sectors.
    fn in_pair(&self, pair: &[Sector], state: &State) -> Option<u16> {
        let sector = Sector::of(state);
        if state.mover_stones() < 3 || !pair.contains(&sector) {
            return None;
        }
        Some(self.progress[&sector][self.slot(state) as usize])
    }

    /// Whether the app player's move `next` (from `state`) is as the
    /// proof says; the failure in words otherwise.
    fn judge(&self, v: &Variant, state: &State, next: &State) -> Result<(), String> {
        let pair = morris::solve::MovingPair::of(Sector::of(state)).sectors();
        let cell = self.progress[&Sector::of(state)][self.slot(state) as usize];
        let fail = |what: &str| Err(format!("{state:?} -> {next:?}: {what}"));
        match outcome(cell) {
            0 if outcome(self.cell(next)) != 0 => {
                fail("a drawn state's move does not keep the draw")
            }
            0 => Ok(()),
            1 => match self.in_pair(&pair, next) {
                None if outcome(self.cell(next)) == -1 => Ok(()),
                None => fail("leaves the pair, not into a loss for the opponent"),
                Some(c) if outcome(c) != -1 => fail("slides, not into a loss for the opponent"),
                Some(_) => {
                    let depth = cell - 1;
                    for reply in legal_moves(v, next) {
                        let after = play(next, reply);
                        match self.in_pair(&pair, &after) {
                            None if outcome(self.cell(&after)) == 1 => {}
                            None => return fail("a reply leaves the pair, not into a win"),
                            Some(c) if outcome(c) == 1 && c - 1 + 2 <= depth => {}
                            Some(_) => return fail("a reply slides, not into a nearer win"),
                        }
                    }
                    Ok(())
                }
            },
            _ => {
                let resists = self.in_pair(&pair, next).map_or(1, |c| c - 1);
                if outcome(self.in_pair(&pair, next).unwrap_or(2)) != 1 {
                    return fail("a lost state's move into a state not won for the opponent");
                }
                match resists + 1 == cell - 1 {
                    true => Ok(()),
                    false => fail("a lost state's move resists less than the longest"),
                }
            }
        }
    }
}

/// One drawn state in this many is asked (by slot); every won and lost one is.
const DRAW_SAMPLE: u64 = 16;

/// Asks the player that opens only `app` for its move in every won and
/// lost state of every cyclic pair up to `max_stones`, and in a sample of
/// the drawn ones; returns the states asked and the failures (the first
/// few in words).
fn check_app_player(judge: &Judge, app: &Path, max_stones: u32) -> (u64, u64, Vec<String>) {
    let v = judge.db.variant().clone();
    let app = Database::new(app, v.clone());
    assert!(app.app_manifest().unwrap().is_some(), "an app set");
    let mut asked = 0;
    let mut failures = Vec::new();
    let mut failed = 0;
    for pair in cyclic_pairs(&v, max_stones) {
        for sector in pair.sectors() {
            let index = judge.db.indexer().sector(sector);
            let found: Vec<Result<(), String>> = (0..index.slots())
                .into_par_iter()
                .map_init(
                    || Query::new(&app),
                    |query, slot| {
                        let (mover, opponent) = index.unrank(slot)?;
                        // Drawn states cost the tie-break's two plies of
                        // reads: one in DRAW_SAMPLE of them is asked.
                        let cell = judge.progress[&sector][slot as usize];
                        if outcome(cell) == 0 && slot % DRAW_SAMPLE != 0 {
                            return None;
                        }
                        let state = State {
                            mover,
                            opponent,
                            mover_hand: sector.mover_hand,
                            opponent_hand: sector.opponent_hand,
                        };
                        let position = Position::from_state(&state, Color::White);
                        let mv = query.choose_move(&position).unwrap().map(|m| m.mv);
                        // A state with no move is over: nothing to choose.
                        Some(match mv {
                            None if legal_moves(&v, &state).is_empty() => Ok(()),
                            None => Err(format!("{state:?}: no move chosen")),
                            Some(mv) => judge.judge(&v, &state, &play(&state, mv)),
                        })
                    },
                )
                .flatten()
                .collect();
            asked += found.len() as u64;
            for f in found.into_iter().filter_map(Result::err) {
                failed += 1;
                if failures.len() < 5 {
                    failures.push(f);
                }
            }
        }
    }
    (asked, failed, failures)
}

/// Solves `variant` up to `max_stones` into a scratch directory, exports
/// its app set, and returns the judge and the app directory.
fn solved_and_exported(variant: &str, max_stones: u32) -> (Judge, tempfile::TempDir) {
    let dir = scratch();
    let (db, app) = (dir.path().join("db"), dir.path().join("app"));
    let stones = max_stones.to_string();
    ok(&db, &["--variant", variant, "solve", "--max-stones", &stones, "--threads", "2"]);
    let out = ok(&db, &["--variant", variant, "export", "--app", app.to_str().unwrap()]);
    assert!(out.contains("progress tier of"), "{out}");
    let judge = Judge::new(Database::new(&db, Variant::named(variant).unwrap()), max_stones);
    (judge, dir)
}

fn plays_perfectly(variant: &str, max_stones: u32) -> tempfile::TempDir {
    let (judge, dir) = solved_and_exported(variant, max_stones);
    let (asked, failed, failures) = check_app_player(&judge, &dir.path().join("app"), max_stones);
    assert!(asked > 10_000, "{asked} states asked");
    assert_eq!(failed, 0, "{failures:#?}");
    dir
}

#[test]
fn the_app_set_plays_every_state_of_six_perfectly() {
    let dir = plays_perfectly("six", 12);
    // Four placement starts won by the tables where the defender can
    // capture back to an earlier board. Looking two plies ahead for
    // repeats, the app player drew all four; four plies ahead it wins
    // the last two, and the search proves the first two drawn under the
    // board rule (the full tier's perfect player draws them too).
    let starts = [
        "BB..BW../WB..W.WW b 1 2",
        "W.BBB.WW/B.W..... b 0 1",
        "WW.W.B.W/W.BB.B.B w 1 1",
        "WB.WBBB./WWW..B.. w 1 1",
    ];
    let from = dir.path().join("starts.txt");
    std::fs::write(&from, starts.join("\n")).unwrap();
    let app = dir.path().join("app");
    let args = ["--variant", "six", "match", "--app", app.to_str().unwrap()];
    let failed = dir.path().join("failed.txt");
    let from_args = ["--from", from.to_str().unwrap(), "--opponent", "perfect"];
    let failed_args = ["--failures", failed.to_str().unwrap()];
    let out = ok(&dir.path().join("db"), &[&args[..], &from_args[..], &failed_args[..]].concat());
    let failures =
        "failures 2 (repetition 2, 2 of them proved drawn under the rule; ply cap 0, lost 0)";
    assert!(out.contains(&format!("won 2 of 4 (50.0000 %); {failures}")), "{out}");
    assert!(out.contains("position 1 (BB..BW../WB..W.WW b 1 2), repetition"), "{out}");
    assert!(out.contains("position 2 (W.BBB.WW/B.W..... b 0 1), repetition"), "{out}");
    // Each failure gives its moves, as many as the plies it counts.
    for line in out.lines().filter(|l| l.contains("failed: position")) {
        let plies: usize = line
            .split(" after ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap()
            .parse()
            .unwrap();
        let moves = line.split("; played: ").nth(1).expect("the moves played");
        assert_eq!(moves.split(' ').count(), plies, "{line}");
    }
    // --failures keeps the two failed starts, as --from reads them.
    let kept = std::fs::read_to_string(&failed).unwrap();
    let starts_kept: Vec<&str> =
        kept.lines().map(|l| l.split('#').next().unwrap().trim()).collect();
    assert_eq!(starts_kept, &starts[..2], "{kept}");
    assert!(kept.lines().all(|l| l.contains("drawn under the rule; played: ")), "{kept}");
    let again = ["--from", failed.to_str().unwrap(), "--opponent", "perfect"];
    let out = ok(&dir.path().join("db"), &[&args[..], &again[..]].concat());
    assert!(out.contains("won 0 of 2 (0.0000 %); failures 2 (repetition 2, 2 of them"), "{out}");
}

#[test]
fn the_app_set_plays_every_state_of_nine_up_to_7_stones_perfectly() {
    plays_perfectly("nine", 7);
}

#[test]
fn a_sabotaged_progress_tier_fails_the_check() {
    let (judge, dir) = solved_and_exported("six", 8);
    let app = dir.path().join("app");
    let v = judge.db.variant().clone();
    // Every won state's progress depth made 1, the files rewritten whole
    // (their checksums right): only the play can tell.
    for (&sector, cells) in &judge.progress {
        let path = app.join(format!("six-{sector}.prg"));
        let info: TableInfo =
            ProgressTable::open(&path, &v.rules_key(), &sector.to_string()).unwrap().info().clone();
        let flat: Vec<u16> = cells.iter().map(|&c| if outcome(c) == 1 { 2 } else { c }).collect();
        write_progress(&path, &info, &flat).unwrap();
    }
    let (asked, failed, _) = check_app_player(&judge, &app, 8);
    assert!(asked > 10_000);
    assert!(failed > 0, "the sabotage went unnoticed");
}

#[test]
fn verify_checks_an_app_set_and_finds_a_changed_depth_and_other_rules_are_refused() {
    let (judge, dir) = solved_and_exported("six", 8);
    let app = dir.path().join("app");
    let verified = ok(&app, &["--variant", "six", "verify", "--threads", "2"]);
    assert!(verified.contains("every size and checksum agrees"), "{verified}");
    assert!(verified.contains("every progress depth agrees"), "{verified}");
    // A set made under other rules is refused before anything is read.
    let refused = common::fails(&app, &["--variant", "six", "--fly-at", "3", "query", "start"]);
    assert!(refused.contains("six-app.manifest") && refused.contains("rules"), "{refused}");

    // One won state's depth two plies deeper, the file rewritten whole.
    let v = judge.db.variant().clone();
    let sector: Sector = "5-3".parse().unwrap();
    let path = app.join(format!("six-{sector}.prg"));
    let info = ProgressTable::open(&path, &v.rules_key(), "5-3").unwrap().info().clone();
    let mut cells = judge.progress[&sector].clone();
    let won = cells.iter().position(|&c| outcome(c) == 1 && c > 2).unwrap();
    cells[won] += 2;
    write_progress(&path, &info, &cells).unwrap();
    let output = common::morris(&app, &["--variant", "six", "verify", "--threads", "2"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{text}");
    assert!(text.contains("six-5-3.prg: ") && text.contains("the manifest says"), "{text}");
    assert!(
        text.contains("progress tier: ") && !text.contains("every progress depth agrees"),
        "{text}"
    );
}

#[test]
fn match_app_plays_won_positions_out_against_the_perfect_defender() {
    let (judge, dir) = solved_and_exported("six", 8);
    let v = judge.db.variant().clone();
    // Every 50th won state of the moving phase's 5-3 and 4-4, White to move.
    let mut lines = Vec::new();
    for name in ["5-3", "4-4", "3-5"] {
        let sector: Sector = name.parse().unwrap();
        let index = judge.db.indexer().sector(sector);
        let cells = &judge.cells[&sector];
        let won = (0..index.slots()).filter(|&s| outcome(cells[s as usize]) == 1);
        for slot in won.step_by(50) {
            let (mover, opponent) = index.unrank(slot).unwrap();
            let state = State { mover, opponent, mover_hand: 0, opponent_hand: 0 };
            lines.push(Position::from_state(&state, Color::White).notation(&v));
        }
    }
    let from = dir.path().join("won.txt");
    std::fs::write(&from, lines.join("\n")).unwrap();
    let (db, app) = (dir.path().join("db"), dir.path().join("app"));
    let args = [
        "--variant",
        "six",
        "match",
        "--app",
        app.to_str().unwrap(),
        "--from",
        from.to_str().unwrap(),
        "--opponent",
        "perfect",
        "--lookup",
        "tables",
    ];
    let out = ok(&db, &args);
    let n = lines.len();
    assert!(n > 100, "{n} positions");
    assert!(out.contains(&format!("won {n} of {n} (100.0000 %); failures 0")), "{out}");
    assert!(out.contains("plies to win: mean"), "{out}");
    // A position that is not won is refused, naming it.
    let sector: Sector = "4-4".parse().unwrap();
    let index = judge.db.indexer().sector(sector);
    let lost = (0..index.slots())
        .find(|&s| index.unrank(s).is_some() && outcome(judge.cells[&sector][s as usize]) == -1)
        .unwrap();
    let (mover, opponent) = index.unrank(lost).unwrap();
    let state = State { mover, opponent, mover_hand: 0, opponent_hand: 0 };
    std::fs::write(&from, Position::from_state(&state, Color::White).notation(&v)).unwrap();
    let err = common::fails(&db, &args);
    assert!(err.contains("position 1") && err.contains("is not won"), "{err}");
}
