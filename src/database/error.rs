//! The database layer's errors: each names the file or sector, and
//! carries what a front end needs to say which command makes what is
//! missing (`crate::hints` says it for the `morris` command).

use super::*;

/// Error of the database layer; every message names the file or sector.
///
/// Kept small (no variant over 128 bytes; jobs and sectors are stored as
/// such, not as text) because every probe of a table returns it.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A table that cannot be written, opened or read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The solver refused or failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A file or directory operation that failed.
    #[error("{}: {op}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A sector that has no table.
    #[error("sector {sector} of {variant} is not in the database {}", dir.display())]
    Missing {
        /// The sector.
        sector: String,
        /// The variant's name.
        variant: String,
        /// The `--fly-at` and `--fly-count` options the solve command needs, if any.
        rules: String,
        /// The `--max-stones` of the solve command that makes it.
        stones: u32,
        /// The database directory.
        dir: PathBuf,
    },
    /// The thread pool could not start.
    #[error("cannot start {threads} threads: {why}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// Why the pool could not start.
        why: String,
    },
    /// Another process solves into the directory.
    #[error("database {} is being solved by {holder}", dir.display())]
    Busy {
        /// The database directory.
        dir: PathBuf,
        /// Who holds its lock.
        holder: String,
    },
    /// Another process solves the same job.
    #[error("job {job} is being solved in {} by {holder}", dir.display())]
    JobBusy {
        /// The job.
        job: String,
        /// The database directory.
        dir: PathBuf,
        /// Who holds the job's lock.
        holder: String,
    },
    /// A job whose dependencies are not all solved.
    #[error("job {job} of {variant} needs sector {sector}, which is not in the database {}: solve job {needed} first", dir.display())]
    MissingDependency {
        /// The job refused.
        job: Job,
        /// The variant's name.
        variant: String,
        /// The `--fly-at` and `--fly-count` options the solve command needs, if any.
        rules: String,
        /// The sector it reads that has no table.
        sector: Sector,
        /// The job that makes that table.
        needed: Job,
        /// The database directory.
        dir: PathBuf,
    },
    /// The directory cannot be written.
    #[error("database {} is not writable, so it cannot be solved into (queries still work): {source}", dir.display())]
    ReadOnly {
        /// The database directory.
        dir: PathBuf,
        /// Why it cannot be written.
        source: std::io::Error,
    },
    /// Not enough free disk space.
    #[error("not enough space in {} for {what}: it needs {needed} bytes ({why}), {free} are free; free some and run the same command again", dir.display())]
    NoSpace {
        /// The database directory.
        dir: PathBuf,
        /// What was to be written.
        what: String,
        /// What the bytes needed are for.
        why: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes free.
        free: u64,
    },
    /// The progress asked to stop; the text says where the run stopped.
    #[error("{0}")]
    Interrupted(String),
    /// A sector of which the directory holds only the win/draw/loss tier,
    /// where distances were asked for.
    #[error(transparent)]
    NeedsFullTier(#[from] FullTierNeeded),
    /// An app set's manifest that is damaged, or made for other rules or
    /// another variant than the ones asked.
    #[error("{}: {what}", path.display())]
    AppSet {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A derived sector (`morris compact --derive`) read as a table: its
    /// values come from one ply over its successors' tables.
    #[error("sector {sector} of {} is derived: its cells were left out (each value comes from one ply of search over the sectors its moves lead to), so it has no table to read", dir.display())]
    Derived {
        /// The sector.
        sector: Sector,
        /// The database directory.
        dir: PathBuf,
    },
}

/// What asks for distances where a directory holds only the
/// win/draw/loss tier of a sector: its values are exact, its distances
/// are not there. The message names the sector; the fields say what
/// makes its full table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} holds only the win/draw/loss tier of sector {sector}: {what} needs distances, from the full tables", dir.display())]
pub struct FullTierNeeded {
    /// The sector.
    pub sector: Sector,
    /// What needs the distances: "a perfect-play line", "the perfect
    /// player", or "what was asked" (a value with its distance).
    pub what: &'static str,
    /// The variant's name.
    pub variant: String,
    /// The `--fly-at` and `--fly-count` options the solve command needs, if any.
    pub rules: String,
    /// The `--max-stones` of the solve command that makes it.
    pub stones: u32,
    /// The database directory.
    pub dir: PathBuf,
}
