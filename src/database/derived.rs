//! Derived sectors: sectors whose cells a database leaves out because one
//! ply of search over the sectors their moves lead to gives every value
//! back, exactly (a value and its distance from the full tier, an outcome
//! from the win/draw/loss tier).
//!
//! A state's value is its best move's value, one ply longer (the rule the
//! forward check holds every table to). So a sector whose successor
//! sectors all keep their tables needs no table of its own: what stays is
//! a stub with the header it would have had ([`DerivedStub`]), and a probe
//! of one of its states generates the moves and reads each successor
//! (10 to 30 reads in nine's big sectors). Syzygy's chess tables keep
//! only one side to move for the same reason.
//!
//! Which sectors: no derived sector may lead to another, or to itself,
//! so a probe is always one ply. [`plan_derived`] picks a set with that
//! property and as much weight as it can: in the moving phase every
//! sector whose mover has more stones than the opponent (its slides lead
//! to the partner, with fewer, its captures to fewer still), or every
//! sector whose mover has fewer; in the placement phase, whose moves lead
//! from sectors with `h` stones in both hands to `h - 1`, the heaviest
//! set without neighbours by a minimum cut (the complement of a minimum
//! vertex cover of that bipartite graph). The full tier weighs sectors by
//! states: on nine's whole game that leaves out half the states (the
//! mover ahead) and 45% of the bytes. The win/draw/loss tier weighs them
//! by their `.wdl` files' bytes: the mover-ahead sectors are its cheapest
//! (mostly wins), so the mover behind is derived instead, and the tier
//! comes to 0.30 bits per state instead of 0.36 (`docs/compression.md`).
//!
//! Reading a derived sector whole (the forward check, the solver's reads
//! of a capture's target, the search's leaf scores) recomputes its cells
//! from its successors' by the forward check's walks
//! ([`crate::forward::derive_cells`]): about what checking it costs.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{huge_cells, Database, DbError, SectorTable, Stored};
use crate::forward::{derive_cells, successors_of};
use crate::huge::HugeCells;
use crate::index::Sector;
use crate::position::State;
use crate::rules::{for_each_move, play};
use crate::stats::Counts;
use crate::table::Tier;
use crate::table::{write_derived_stub, DerivedStub, TableError};
use crate::value::{Outcome, Value};
use crate::variant::Variant;

/// What [`Database::derive_sector`] did with one sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DerivedOne {
    /// Bytes of the table given up (0 when it was derived before).
    pub table_bytes: u64,
    /// Bytes of the stub.
    pub stub_bytes: u64,
    /// Whether it was derived now (else its stub was there already).
    pub written: bool,
}

impl Database {
    /// Where the stub of a derived sector is: `<dir>/<variant>-<sector>.derived`.
    pub fn derived_path(&self, sector: Sector) -> PathBuf {
        self.dir.join(format!("{}-{}.derived", self.variant.name(), sector))
    }

    /// The stub of a derived sector, opened once and kept.
    pub(super) fn kept_derived(&self, sector: Sector) -> Result<Arc<DerivedStub>, DbError> {
        if let Some(stub) = self.open_derived.lock().unwrap().get(&sector) {
            return Ok(stub.clone());
        }
        let path = self.derived_path(sector);
        let stub = DerivedStub::open(&path, &self.variant.rules_key(), &sector.to_string())?;
        self.check_slots(sector, stub.info(), &path)?;
        let stub = Arc::new(stub);
        self.open_derived.lock().unwrap().insert(sector, stub.clone());
        Ok(stub)
    }

    /// The value of a state of a derived sector, by one ply: the best of
    /// its moves' values, each read from its sector's table. Exact where
    /// every successor read is (full tables), else its outcome. A
    /// successor in another derived sector is an error: the stubs do not
    /// come from one plan.
    pub(super) fn derived_stored(&self, state: &State) -> Result<Stored, DbError> {
        let mut best: Option<Value> = None;
        let mut best_outcome: Option<i8> = None;
        let mut failed = None;
        for_each_move(&self.variant, state, |m| {
            if failed.is_some() {
                return;
            }
            let next = play(state, m);
            let after = match next.mover_stones() < 3 {
                true => Ok(Stored::Exact(Value::Loss(0))),
                false => self.stored_in_table(&next).map_err(|e| match e {
                    DbError::Derived { sector, .. } => self.derived_chain(sector),
                    e => e,
                }),
            };
            match after {
                Ok(Stored::Exact(value)) => {
                    let mine = value.back();
                    if best.is_none_or(|b| mine.preference() > b.preference()) {
                        best = Some(mine);
                    }
                }
                Ok(Stored::Outcome(outcome)) => {
                    let mine = -outcome.score();
                    if best_outcome.is_none_or(|b| mine > b) {
                        best_outcome = Some(mine);
                    }
                }
                Err(e) => failed = Some(e),
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        let exact = best.map(|b| b.preference().signum() as i8);
        Ok(match (best, best_outcome) {
            (_, Some(score)) => {
                Stored::Outcome(Outcome::from_score(exact.map_or(score, |e| e.max(score))))
            }
            (Some(value), None) => Stored::Exact(value),
            // No move: the rules' end, as the forward check has it.
            (None, None) => Stored::Exact(no_move_value(&self.variant, state)),
        })
    }

    /// The error for a derived sector read where a table was needed: the
    /// stubs of the directory do not come from one plan.
    fn derived_chain(&self, sector: Sector) -> DbError {
        DbError::Table(TableError::Corrupt {
            path: self.derived_path(sector),
            what: format!(
                "sector {sector} is derived, and so is a sector whose moves lead to it: \
                 a derived sector's successors must keep their tables"
            ),
        })
    }

    /// The tier a derived sector's values come from: the full tier where
    /// every sector its moves lead to has a full table, else the
    /// win/draw/loss tier.
    pub(super) fn derived_tier(&self, sector: Sector) -> Result<Tier, DbError> {
        for s in successors_of(&self.variant, sector) {
            match self.tier(s)? {
                SectorTable::Full(_) => {}
                SectorTable::Wdl(_) => return Ok(Tier::Wdl),
                SectorTable::Derived(_) => return Err(self.derived_chain(s)),
            }
        }
        Ok(Tier::Full)
    }

    /// Every cell of the derived sector `sector`, recomputed from its
    /// successors' cells as `tier` stores them, in huge-page memory; the
    /// counts are checked against its stub's.
    pub(super) fn derived_cells(&self, sector: Sector, tier: Tier) -> Result<HugeCells, DbError> {
        let stub = self.kept_derived(sector)?;
        let loaded = self.successor_cells(sector, tier)?;
        let path = self.derived_path(sector);
        let mut counts = Counts::default();
        let cells = huge_cells(&path, stub.info().slots, |out| {
            counts =
                derive_cells(&self.variant, &self.indexer, sector, |s| &loaded[&s][..], out, tier);
            Ok(())
        })?;
        if !tier.counts_agree(&counts, &stub.info().counts) {
            return Err(DbError::Table(TableError::Corrupt {
                path,
                what: format!(
                    "the values its successors give ({} wins, {} draws, {} losses) are not those its stub records ({} wins, {} draws, {} losses)",
                    counts.wins, counts.draws, counts.losses,
                    stub.info().counts.wins, stub.info().counts.draws, stub.info().counts.losses
                ),
            }));
        }
        Ok(cells)
    }

    /// The cells, as `tier` stores them, of every sector the moves of
    /// `sector` lead to; none may be derived.
    fn successor_cells(
        &self,
        sector: Sector,
        tier: Tier,
    ) -> Result<HashMap<Sector, HugeCells>, DbError> {
        let mut loaded = HashMap::new();
        for s in successors_of(&self.variant, sector) {
            if let Ok(SectorTable::Derived(_)) = self.tier(s) {
                return Err(self.derived_chain(s));
            }
            let cells = match tier {
                Tier::Full => self.load_cells_huge(s)?,
                Tier::Wdl => self.load_outcome_cells_huge(s)?,
            };
            loaded.insert(s, cells);
        }
        Ok(loaded)
    }

    /// An error unless one ply over the full tables of its successors
    /// gives every cell of `sector`'s full table, slot by slot: what
    /// deriving it checks first.
    fn check_derivable(&self, sector: Sector) -> Result<(), DbError> {
        let loaded = self.successor_cells(sector, Tier::Full)?;
        let stored = self.load_cells_huge(sector)?;
        let path = self.table_path(sector);
        let derived = huge_cells(&path, stored.len() as u64, |out| {
            derive_cells(
                &self.variant,
                &self.indexer,
                sector,
                |s| &loaded[&s][..],
                out,
                Tier::Full,
            );
            Ok(())
        })?;
        match (0..stored.len()).find(|&i| stored[i] != derived[i]) {
            None => Ok(()),
            Some(slot) => Err(DbError::Table(TableError::Corrupt {
                path,
                what: format!(
                    "slot {slot} holds cell {}, its successors give {}: not derived",
                    stored[slot], derived[slot]
                ),
            })),
        }
    }

    /// Leaves the cells of `sector` out of this directory's full tier:
    /// recomputes them from its successors' tables, checks that they are
    /// the table's, every slot (`check_derivable`), writes the stub and
    /// only then removes the table. A sector already derived (its stub
    /// there, its table not) is left alone; a run killed between the stub
    /// and the removal leaves both, and the table is read until the next
    /// run removes it. The caller holds the directory's lock and has
    /// checked that `sector` is in [`plan_derived`]'s set.
    pub fn derive_sector(&self, sector: Sector) -> Result<DerivedOne, DbError> {
        let (table_path, stub_path) = (self.table_path(sector), self.derived_path(sector));
        if !table_path.exists() {
            if let Ok(stub) = self.kept_derived(sector) {
                return Ok(DerivedOne {
                    table_bytes: 0,
                    stub_bytes: stub.bytes_on_disk(),
                    written: false,
                });
            }
        }
        let table = self.table(sector)?;
        let table_bytes = table.bytes_on_disk();
        self.check_derivable(sector)?;
        // A stub left by a stopped run is kept if it records this table.
        if !self.kept_derived(sector).is_ok_and(|stub| stub.info() == table.info()) {
            write_derived_stub(&stub_path, table.info())?;
            self.open_derived.lock().unwrap().remove(&sector);
        }
        drop(table);
        self.open.lock().unwrap().remove(&sector);
        std::fs::remove_file(&table_path)
            .map_err(super::io_error(&table_path, "remove the derived sector's table"))?;
        sync_dir(self.dir())?;
        let stub_bytes = self.kept_derived(sector)?.bytes_on_disk();
        Ok(DerivedOne { table_bytes, stub_bytes, written: true })
    }

    /// Writes the stub of `sector` into `out` in place of its
    /// win/draw/loss table (`morris export --wdl --derive`), after
    /// checking that one ply over its successors' full tables gives every
    /// cell of its full table here (a sector derived here already has its
    /// stub copied). A stub already there that records this table is
    /// kept.
    pub fn export_derived(&self, sector: Sector, out: &Path) -> Result<DerivedOne, DbError> {
        let path = out.join(self.derived_path(sector).file_name().expect("a file name"));
        let (rules, name) = (self.variant.rules_key(), sector.to_string());
        let table = match self.tier(sector)? {
            SectorTable::Full(table) => table,
            // Derived here already, and checked then: its stub is copied.
            SectorTable::Derived(stub) => {
                write_derived_stub(&path, stub.info())?;
                let bytes = DerivedStub::open(&path, &rules, &name)?.bytes_on_disk();
                return Ok(DerivedOne {
                    table_bytes: stub.bytes_on_disk(),
                    stub_bytes: bytes,
                    written: true,
                });
            }
            SectorTable::Wdl(_) => {
                return Err(self.needs_full_tier(sector, "a derived sector's check"))
            }
        };
        let table_bytes = table.bytes_on_disk();
        // A `.wdl` file of the sector would be read before the stub.
        let wdl = out.join(self.wdl_path(sector).file_name().expect("a file name"));
        let remove_wdl = || match std::fs::remove_file(&wdl) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(super::io_error(&wdl, "remove the derived sector's win/draw/loss table")(e))
            }
            _ => Ok(()),
        };
        if let Ok(stub) = DerivedStub::open(&path, &rules, &name) {
            if stub.info() == table.info() {
                remove_wdl()?;
                return Ok(DerivedOne {
                    table_bytes,
                    stub_bytes: stub.bytes_on_disk(),
                    written: false,
                });
            }
        }
        self.check_derivable(sector)?;
        write_derived_stub(&path, table.info())?;
        remove_wdl()?;
        let stub = DerivedStub::open(&path, &rules, &name)?;
        Ok(DerivedOne { table_bytes, stub_bytes: stub.bytes_on_disk(), written: true })
    }
}

/// The value of a state with no legal move, as the forward check has it
/// ([`crate::forward::value_from_successors`]): a full board at the end of
/// placement is drawn where the variant says so, anything else lost.
fn no_move_value(v: &Variant, state: &State) -> Value {
    let full = state.mover | state.opponent == v.board().all();
    if state.mover_stones() >= 3 && full && v.full_board_draw() && state.is_moving_phase() {
        Value::Draw
    } else {
        Value::Loss(0)
    }
}

fn sync_dir(dir: &Path) -> Result<(), DbError> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(super::io_error(dir, "sync the directory"))
}

/// The sectors of `sectors` to derive: none leads to another or to
/// itself, each leads only to sectors of `sectors`, every sector of
/// `fixed` (derived already: its stub is there) is one of them, and their
/// `weight` (states, or the bytes their tables take) is as large as this
/// finds. The moving phase follows a rule, the mover ahead or the mover
/// behind (the side whose slides lead to its partner and whose captures
/// lead to level or ahead sectors, never to its own side), whichever
/// weighs more with the placement phase that fits it; the placement
/// phase is a minimum cut (see the module's text). A placement move that
/// keeps the hands as they are, as in Lasker's rule, keeps both its ends
/// out. Deterministic: the same sectors, weights and fixed set give the
/// same set; a tie keeps the mover ahead.
pub fn plan_derived(
    v: &Variant,
    sectors: &[Sector],
    weight: impl Fn(Sector) -> u64,
    fixed: &BTreeSet<Sector>,
) -> BTreeSet<Sector> {
    let graph = SectorGraph::new(v, sectors);
    let ahead = graph.plan(|s| s.mover > s.opponent, &weight, fixed);
    let behind = graph.plan(|s| s.mover < s.opponent, &weight, fixed);
    let total = |plan: &Option<BTreeSet<Sector>>| {
        plan.as_ref().map(|p| p.iter().map(|&s| weight(s)).sum::<u64>())
    };
    let behind_weighs_more = match (total(&ahead), total(&behind)) {
        (Some(a), Some(b)) => b > a,
        (a, b) => a.is_none() && b.is_some(),
    };
    let plan = if behind_weighs_more { behind } else { ahead };
    // Neither fits only when the stubs there break the one-ply rule; the
    // readers refuse those with a clear error.
    plan.unwrap_or_else(|| fixed.clone())
}

/// The sectors present and the moves between them, for [`plan_derived`].
struct SectorGraph {
    present: BTreeSet<Sector>,
    next: HashMap<Sector, Vec<Sector>>,
    /// Both ways: the sectors a sector leads to and those leading to it.
    neighbours: HashMap<Sector, BTreeSet<Sector>>,
}

impl SectorGraph {
    fn new(v: &Variant, sectors: &[Sector]) -> SectorGraph {
        let present: BTreeSet<Sector> = sectors.iter().copied().collect();
        let next: HashMap<Sector, Vec<Sector>> =
            present.iter().map(|&s| (s, successors_of(v, s))).collect();
        let mut neighbours: HashMap<Sector, BTreeSet<Sector>> = HashMap::new();
        for (&s, ts) in &next {
            for &t in ts.iter().filter(|t| present.contains(t)) {
                neighbours.entry(s).or_default().insert(t);
                neighbours.entry(t).or_default().insert(s);
            }
        }
        SectorGraph { present, next, neighbours }
    }

    /// A candidate leads only to sectors that are here, and not to itself.
    fn candidate(&self, s: Sector) -> bool {
        self.next[&s].iter().all(|t| self.present.contains(t) && *t != s)
    }

    fn next_to(&self, s: Sector, set: &BTreeSet<Sector>) -> bool {
        self.neighbours.get(&s).is_some_and(|n| n.iter().any(|t| set.contains(t)))
    }

    /// The plan whose moving-phase sectors are the candidates `moving`
    /// picks, with `fixed` in it; `None` when `fixed` does not fit.
    fn plan(
        &self,
        moving: impl Fn(Sector) -> bool,
        weight: impl Fn(Sector) -> u64,
        fixed: &BTreeSet<Sector>,
    ) -> Option<BTreeSet<Sector>> {
        let mut derived: BTreeSet<Sector> = fixed.clone();
        for &s in &self.present {
            if s.is_moving() && moving(s) && self.candidate(s) && !self.next_to(s, fixed) {
                derived.insert(s);
            }
        }
        // A fixed moving sector the rule would not pick, or two fixed
        // neighbours: another plan made the stubs.
        if fixed.iter().any(|&s| s.is_moving() && !moving(s))
            || fixed.iter().any(|&s| self.next_to(s, fixed))
        {
            return None;
        }
        let hands = |s: Sector| u32::from(s.mover_hand) + u32::from(s.opponent_hand);
        let free: Vec<Sector> = self
            .present
            .iter()
            .copied()
            .filter(|&s| !s.is_moving() && !fixed.contains(&s) && self.candidate(s))
            // Sectors next to a derived one may not be derived.
            .filter(|&s| !self.next_to(s, &derived))
            // A move that keeps the hands (a slide while placing) would join
            // two sectors of one side of the cut: keep both out.
            .filter(|s| {
                self.neighbours
                    .get(s)
                    .is_none_or(|n| n.iter().all(|&t| t.is_moving() || hands(t) != hands(*s)))
            })
            .collect();
        derived.extend(heaviest_independent(
            &free,
            &self.neighbours,
            |s| hands(s) % 2 == 0,
            &weight,
        ));
        Some(derived)
    }
}

/// The heaviest set of `nodes` no two of which are `neighbours`, where
/// every edge joins a node with `left` to one without (a bipartite
/// graph): the complement of a minimum vertex cover, found as a minimum
/// cut (source to the left nodes, the right ones to the sink, at their
/// weights; the edges between them unbounded).
fn heaviest_independent(
    nodes: &[Sector],
    neighbours: &HashMap<Sector, BTreeSet<Sector>>,
    left: impl Fn(Sector) -> bool,
    weight: impl Fn(Sector) -> u64,
) -> Vec<Sector> {
    let n = nodes.len();
    let (source, sink) = (n, n + 1);
    let at: HashMap<Sector, usize> = nodes.iter().enumerate().map(|(i, &s)| (s, i)).collect();
    let mut flow = FlowGraph::new(n + 2);
    for (i, &s) in nodes.iter().enumerate() {
        if left(s) {
            flow.add(source, i, weight(s));
            for t in neighbours.get(&s).into_iter().flatten() {
                if let Some(&j) = at.get(t) {
                    flow.add(i, j, u64::MAX / 4);
                }
            }
        } else {
            flow.add(i, sink, weight(s));
        }
    }
    flow.max_flow(source, sink);
    let reached = flow.reachable(source);
    nodes.iter().enumerate().filter(|&(i, &s)| left(s) == reached[i]).map(|(_, &s)| s).collect()
}

/// A flow network for [`heaviest_independent`]: a few hundred nodes,
/// augmented by breadth-first search (Edmonds-Karp).
struct FlowGraph {
    /// Per node, its edges: (to, residual capacity, index of the reverse edge).
    edges: Vec<Vec<(usize, u64, usize)>>,
}

impl FlowGraph {
    fn new(nodes: usize) -> FlowGraph {
        FlowGraph { edges: vec![Vec::new(); nodes] }
    }

    fn add(&mut self, from: usize, to: usize, capacity: u64) {
        let (back, forth) = (self.edges[to].len(), self.edges[from].len());
        self.edges[from].push((to, capacity, back));
        self.edges[to].push((from, 0, forth));
    }

    fn max_flow(&mut self, source: usize, sink: usize) {
        loop {
            // The shortest path with room, as (node, edge) steps back from the sink.
            let mut came: Vec<Option<(usize, usize)>> = vec![None; self.edges.len()];
            let mut queue = VecDeque::from([source]);
            while let Some(u) = queue.pop_front() {
                for (k, &(to, cap, _)) in self.edges[u].iter().enumerate() {
                    if cap > 0 && to != source && came[to].is_none() {
                        came[to] = Some((u, k));
                        queue.push_back(to);
                    }
                }
            }
            if came[sink].is_none() {
                return;
            }
            let mut room = u64::MAX;
            let mut v = sink;
            while let Some((u, k)) = came[v] {
                room = room.min(self.edges[u][k].1);
                v = u;
            }
            let mut v = sink;
            while let Some((u, k)) = came[v] {
                let (to, _, back) = self.edges[u][k];
                self.edges[u][k].1 -= room;
                self.edges[to][back].1 += room;
                v = u;
            }
        }
    }

    /// The nodes the source still reaches through edges with room.
    fn reachable(&self, source: usize) -> Vec<bool> {
        let mut seen = vec![false; self.edges.len()];
        seen[source] = true;
        let mut queue = VecDeque::from([source]);
        while let Some(u) = queue.pop_front() {
            for &(to, cap, _) in &self.edges[u] {
                if cap > 0 && !seen[to] {
                    seen[to] = true;
                    queue.push_back(to);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sectors::{moving_sectors, placement_sectors};

    /// No derived sector leads to another or to itself, and nine's plan
    /// leaves out at least as many states as the simple rule (the mover
    /// ahead, and placement sectors with an odd number of stones in hand
    /// where they may be).
    #[test]
    fn nine_s_plan_is_one_ply_and_beats_the_parity_rule() {
        let v = Variant::named("nine").unwrap();
        let ix = crate::index::Indexer::new(v.board());
        let mut all = moving_sectors(&v);
        all.extend(placement_sectors(&v));
        let states = |s: Sector| ix.sector(s).slots();
        let plan = plan_derived(&v, &all, states, &BTreeSet::new());
        for &s in &plan {
            for t in successors_of(&v, s) {
                assert!(!plan.contains(&t), "{s} leads to {t}, both derived");
            }
        }
        let parity: BTreeSet<Sector> = {
            let mut d: BTreeSet<Sector> =
                all.iter().copied().filter(|s| s.is_moving() && s.mover > s.opponent).collect();
            let more: Vec<Sector> = all
                .iter()
                .copied()
                .filter(|s| !s.is_moving() && (s.mover_hand + s.opponent_hand) % 2 == 1)
                .filter(|&s| successors_of(&v, s).iter().all(|t| !d.contains(t)))
                .filter(|&s| {
                    all.iter().all(|&p| !(d.contains(&p) && successors_of(&v, p).contains(&s)))
                })
                .collect();
            d.extend(more);
            d
        };
        let total = |set: &BTreeSet<Sector>| set.iter().map(|&s| states(s)).sum::<u64>();
        assert!(total(&plan) >= total(&parity), "{} < {}", total(&plan), total(&parity));
        let everything: u64 = all.iter().map(|&s| states(s)).sum();
        assert!(total(&plan) * 10 > everything * 4, "{} of {everything}", total(&plan));
    }
}
