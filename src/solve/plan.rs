//! The solve split into jobs that separate processes (or machines) can run
//! against one shared database directory: each moving-phase pair is a
//! job, and so is each placement sector. A job reads the tables of the
//! jobs it depends on and writes its own; nothing else connects them.
//!
//! ```
//! use morris::solve::plan::{plan, Job};
//! use morris::Variant;
//!
//! let six = Variant::named("six")?;
//! let jobs = plan(&six, 12, true)?;
//! assert_eq!(jobs[0].job.to_string(), "3-3");
//! let pair = Job::parse(&six, "4,3")?;
//! let planned = jobs.iter().find(|j| j.job == pair).unwrap();
//! assert_eq!(planned.depends_on, [Job::parse(&six, "3-3")?]);
//! assert_eq!(planned.wave, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::placement::successor_sectors;
use super::{moving_pairs, placement_order, placement_pairs, MovingPair};
use crate::index::Sector;
use crate::sectors::placement_sectors;
use crate::variant::Variant;
use std::collections::HashMap;

/// Why a job or a plan cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// Text that is not a job.
    #[error("'{0}' is not a job: expected a pair M-O (or M,O) or a placement sector M-O-MH-OH")]
    Syntax(String),
    /// A job the variant does not have.
    #[error("{job} is not a job of {variant}: {why}")]
    Unknown {
        /// The job as given.
        job: String,
        /// The variant's name.
        variant: String,
        /// Why it is not a job of the variant.
        why: String,
    },
}

/// One unit of work: the tables it writes are solved together, from the
/// tables of other jobs only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Job {
    /// A moving-phase pair: its two sectors reach each other by quiet moves.
    Pair(MovingPair),
    /// A placement sector, computed from its successors' tables.
    Placement(Sector),
}

impl Job {
    /// The job named `text` in `v`: a pair as `M-O`, `M,O` or `{M,O}` (in
    /// either order) or a placement sector `M-O-MH-OH` that a game of `v`
    /// reaches.
    pub fn parse(v: &Variant, text: &str) -> Result<Job, PlanError> {
        let trimmed = text.trim().trim_start_matches('{').trim_end_matches('}');
        let numbers: Result<Vec<u8>, _> =
            trimmed.split(['-', ',']).map(|n| n.trim().parse::<u8>()).collect();
        let unknown = |why: String| PlanError::Unknown {
            job: text.to_string(),
            variant: v.name().to_string(),
            why,
        };
        match numbers.as_deref() {
            Ok(&[a, b]) => {
                let pair = MovingPair::moving(a, b);
                if !moving_pairs(v, u32::MAX).contains(&pair) {
                    let why = format!(
                        "a pair has 3 to {} stones a side, on {} points",
                        v.stones(),
                        v.board().points()
                    );
                    return Err(unknown(why));
                }
                Ok(Job::Pair(pair))
            }
            Ok(&[mover, opponent, mover_hand, opponent_hand]) if !trimmed.contains(',') => {
                let sector = Sector { mover, opponent, mover_hand, opponent_hand };
                if sector.is_moving() {
                    return Err(unknown(
                        "nothing in hand: a moving sector is solved with its pair, M-O".into(),
                    ));
                }
                if !placement_sectors(v).contains(&sector) {
                    return Err(unknown(
                        "no game from the start reaches this placement sector".into(),
                    ));
                }
                Ok(Job::of_sector(v, sector))
            }
            _ => Err(PlanError::Syntax(text.to_string())),
        }
    }

    /// The job that writes the table of `sector` in `v`: its pair, in the
    /// moving phase and in a placement phase with moves (Lasker).
    pub fn of_sector(v: &Variant, sector: Sector) -> Job {
        if sector.is_moving() || v.move_while_placing() {
            Job::Pair(MovingPair::of(sector))
        } else {
            Job::Placement(sector)
        }
    }

    /// The sectors whose tables this job writes.
    pub fn sectors(&self) -> Vec<Sector> {
        match self {
            Job::Pair(pair) => pair.sectors(),
            Job::Placement(sector) => vec![*sector],
        }
    }

    /// The sectors whose tables this job reads: where captures lead from
    /// a pair, where placements lead from a placement sector.
    pub fn reads(&self) -> Vec<Sector> {
        match self {
            Job::Pair(pair) => pair.dependencies(),
            Job::Placement(sector) => successor_sectors(*sector),
        }
    }

    /// Stones on the board and in hand, both sides together.
    pub fn stones(&self) -> u32 {
        match self {
            Job::Pair(pair) => pair.stones() + pair.in_hand(),
            Job::Placement(sector) => sector.total_stones(),
        }
    }

    /// Whether it solves placement sectors (a placement sector, or a
    /// pair of Lasker's placement phase).
    pub fn is_placement(&self) -> bool {
        match self {
            Job::Pair(pair) => !pair.is_moving(),
            Job::Placement(_) => true,
        }
    }
}

/// A job's name in the plan: a pair by its first sector (`4-3`, the side
/// to move with more stones; `5-2-0-3` in Lasker's placement phase), a
/// placement sector as itself.
impl std::fmt::Display for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Job::Pair(pair) => write!(f, "{}", pair.sectors()[0]),
            Job::Placement(sector) => write!(f, "{sector}"),
        }
    }
}

/// A job in the plan with the jobs it needs finished first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedJob {
    /// The job.
    pub job: Job,
    /// The jobs whose tables it reads, each once.
    pub depends_on: Vec<Job>,
    /// 0 for a job that reads no table, else one more than the deepest
    /// job it depends on: the jobs of one wave are independent of each
    /// other and need only earlier waves.
    pub wave: u32,
}

/// Every job with at most `max_stones` stones (on the board and in hand,
/// both sides) in the order a single `solve` takes them - the moving
/// pairs, then with `placement` the placement sectors, fewest stones in
/// hand first - so each job comes after the jobs it depends on.
pub fn plan(v: &Variant, max_stones: u32, placement: bool) -> Result<Vec<PlannedJob>, PlanError> {
    let mut jobs: Vec<Job> = moving_pairs(v, max_stones).into_iter().map(Job::Pair).collect();
    if placement {
        if v.move_while_placing() {
            jobs.extend(placement_pairs(v, max_stones).into_iter().map(Job::Pair));
        } else {
            jobs.extend(placement_order(v, max_stones).into_iter().map(Job::Placement));
        }
    }
    let mut waves: HashMap<Job, u32> = HashMap::new();
    let mut planned = Vec::with_capacity(jobs.len());
    for job in jobs {
        let mut depends_on: Vec<Job> = Vec::new();
        for dep in job.reads().into_iter().map(|s| Job::of_sector(v, s)) {
            if !depends_on.contains(&dep) {
                depends_on.push(dep);
            }
        }
        // A dependency has fewer stones or fewer in hand, so the order
        // above always planned it already.
        let wave = depends_on
            .iter()
            .map(|d| {
                waves.get(d).map(|w| w + 1).expect("a job's dependencies are planned before it")
            })
            .max()
            .unwrap_or(0);
        waves.insert(job, wave);
        planned.push(PlannedJob { job, depends_on, wave });
    }
    Ok(planned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(name: &str) -> Variant {
        Variant::named(name).unwrap()
    }

    #[test]
    fn jobs_parse_in_every_spelling() {
        let nine = variant("nine");
        let pair = Job::Pair(MovingPair::moving(4, 3));
        for text in ["4-3", "3-4", "4,3", "{4,3}", " 3,4 "] {
            assert_eq!(Job::parse(&nine, text).unwrap(), pair, "{text}");
        }
        assert_eq!(pair.to_string(), "4-3");
        let sector: Sector = "8-8-1-0".parse().unwrap();
        assert_eq!(Job::parse(&nine, "8-8-1-0").unwrap(), Job::Placement(sector));
    }

    #[test]
    fn jobs_that_do_not_exist_are_refused_saying_why() {
        let nine = variant("nine");
        let err = |t: &str| Job::parse(&nine, t).unwrap_err().to_string();
        assert!(err("10-3").contains("3 to 9 stones a side"), "{}", err("10-3"));
        assert!(err("2-3").contains("is not a job of nine"));
        assert!(err("4-3-0-0").contains("solved with its pair"));
        assert!(err("2-1-7-7").contains("no game from the start"));
        assert!(err("4-x").starts_with("'4-x' is not a job"));
        assert!(err("4,3,2,1").starts_with("'4,3,2,1' is not a job"));
        // Lasker's placement sectors are solved in pairs, named by the first.
        let lasker = variant("lasker");
        let pair = Job::parse(&lasker, "1-1-8-9").unwrap();
        assert_eq!(pair, Job::parse(&lasker, "1-1-9-8").unwrap());
        assert_eq!(pair.to_string(), "1-1-9-8");
        assert!(pair.is_placement());
    }

    #[test]
    fn every_dependency_comes_first_in_an_earlier_wave() {
        for (name, stones) in
            [("nine", 18), ("six", 12), ("five", 10), ("twelve", 24), ("lasker", 20)]
        {
            let v = variant(name);
            let jobs = plan(&v, stones, true).unwrap();
            let position: HashMap<Job, usize> =
                jobs.iter().enumerate().map(|(i, j)| (j.job, i)).collect();
            assert_eq!(position.len(), jobs.len(), "{name}: each job once");
            for (i, planned) in jobs.iter().enumerate() {
                for sector in planned.job.reads() {
                    let dep = Job::of_sector(&v, sector);
                    assert!(
                        planned.depends_on.contains(&dep),
                        "{name}: {} reads {sector}",
                        planned.job
                    );
                    let at = position[&dep];
                    assert!(
                        at < i && jobs[at].wave < planned.wave,
                        "{name}: {} before {}",
                        dep,
                        planned.job
                    );
                }
            }
        }
    }

    #[test]
    fn the_plan_covers_every_sector_once() {
        let nine = variant("nine");
        let jobs = plan(&nine, 18, true).unwrap();
        let pairs = jobs.iter().filter(|j| !j.job.is_placement()).count();
        assert_eq!((pairs, jobs.len() - pairs), (28, 305));
        let sectors: usize = jobs.iter().map(|j| j.job.sectors().len()).sum();
        assert_eq!(sectors, 49 + 305);
        assert_eq!(plan(&nine, 8, false).unwrap().len(), 4);
        let lasker = variant("lasker");
        let jobs = plan(&lasker, 20, true).unwrap();
        let mut sectors: Vec<Sector> = jobs.iter().flat_map(|j| j.job.sectors()).collect();
        let written = sectors.len();
        sectors.sort();
        sectors.dedup();
        assert_eq!(written, sectors.len(), "each Lasker sector in one job");
        assert_eq!(sectors.len(), 64 + placement_sectors(&lasker).len());
        assert_eq!(
            plan(&variant("lasker"), 20, false).unwrap().len(),
            moving_pairs(&variant("lasker"), 20).len()
        );
    }
}
