//! The commands that make what an error found missing, for the front ends
//! that have the `morris` command (the binary, the Python package).
//!
//! The library's errors speak of tables and sectors, not of commands:
//! they carry the variant, the rules options, the stones, the job and the
//! directory as data. A front end whose users run `morris` renders an
//! error with [`one_line_with_hints`], which puts after each error of the
//! chain the command that makes what it found missing (run `morris solve
//! --variant nine --max-stones 12 --db d`), where there is one.

use crate::database::{DbError, FullTierNeeded};
use crate::probe::ProbeError;
use crate::query::QueryError;
use std::error::Error;

/// The error and its causes on one line, joined by ": " as `anyhow`'s
/// alternate form joins them, each followed by its hint ([`hint`]).
pub fn one_line_with_hints(err: &(dyn Error + 'static)) -> String {
    let mut parts = Vec::new();
    let mut next = Some(err);
    while let Some(e) = next {
        parts.push(with_hint(e));
        next = e.source();
    }
    parts.join(": ").replace('\n', " ")
}

/// The message of `e` itself with its hint: after its text, or, for a
/// probe that found a table missing and had no search to fall back on,
/// after the missing table's part of it.
fn with_hint(e: &(dyn Error + 'static)) -> String {
    let text = e.to_string();
    if let Some(ProbeError::NoSearch { missing, .. }) = e.downcast_ref::<ProbeError>() {
        let head = missing.to_string();
        if let (Some(rest), Some(h)) = (text.strip_prefix(&head), db_hint(missing)) {
            return format!("{head}{h}{rest}");
        }
        return text;
    }
    match hint(e) {
        Some(h) => text + &h,
        None => text,
    }
}

/// The command that makes what `e` found missing, as text to put after
/// its message (starting with its own separator); `None` where it has
/// nothing to suggest. Errors that wrap another transparently (a query's
/// or a probe's database error) give the wrapped one's hint.
pub fn hint(e: &(dyn Error + 'static)) -> Option<String> {
    if let Some(e) = e.downcast_ref::<DbError>() {
        return db_hint(e);
    }
    if let Some(e) = e.downcast_ref::<FullTierNeeded>() {
        return Some(full_tier_hint(e));
    }
    if let Some(e) = e.downcast_ref::<QueryError>() {
        return match e {
            QueryError::Db(e) => db_hint(e),
            QueryError::Inconsistent { .. } => Some(": run `morris verify`".to_string()),
            QueryError::Notation(_) | QueryError::Illegal { .. } => None,
        };
    }
    if let Some(ProbeError::Db(e)) = e.downcast_ref::<ProbeError>() {
        return db_hint(e);
    }
    None
}

fn db_hint(e: &DbError) -> Option<String> {
    match e {
        DbError::Missing { variant, rules, stones, dir, .. } => Some(format!(
            ": run `morris solve --variant {variant}{rules} --max-stones {stones} --db {}`",
            dir.display()
        )),
        DbError::MissingDependency { variant, rules, needed, dir, .. } => Some(format!(
            " (`morris solve --variant {variant}{rules} --job {needed} --db {}`)",
            dir.display()
        )),
        DbError::NeedsFullTier(e) => Some(full_tier_hint(e)),
        _ => None,
    }
}

fn full_tier_hint(e: &FullTierNeeded) -> String {
    let FullTierNeeded { variant, rules, stones, dir, .. } = e;
    format!(
        " (`morris solve --variant {variant}{rules} --max-stones {stones} --db {}`)",
        dir.display()
    )
}
