//! The bodies of the fuzz targets (`fuzz/`, cargo-fuzz with libFuzzer):
//! one function per target, which the target calls on the fuzzer's bytes
//! and `tests/fuzz_corpus.rs` calls on every file of the target's corpus
//! (`fuzz/corpus/<target>/`), so that `cargo test` replays the corpora on
//! stable without cargo-fuzz. Not part of the documented API; public only
//! for those two.
//!
//! Why here, in the library, and not in a file the fuzz crate and the
//! test both include: the checkpoint target reads bytes the way the
//! database reads a checkpoint file (`Database::resume_point`, crate
//! private), and the table target makes the checksums of a file right
//! before reading it (`table::repair_checksums_for_fuzzing`), which needs
//! the format's private header; an included file sees only the public
//! API. The binary crate's targets (an HTTP request to `morris serve`, a
//! `/api/probe` body) go the same way in their own crate:
//! `morris_cli::fuzzing` (`cli/src/fuzzing.rs`), a `[[bin]]` in
//! `fuzz/Cargo.toml` each, a corpus directory each, and
//! `cli/tests/fuzz_corpus.rs`.
//!
//! Every body returns whether the input was accepted (parsed, opened,
//! read; for moves, legal), so that the replay test can hold the valid inputs kept in the
//! corpora to being valid, and the invalid ones to being refused. What a
//! body checks beyond "no panic, no abort, no hang" it checks with
//! `assert!`, which the fuzzer reports as a crash:
//!
//! - [`position`]: a position that parses prints in notation that parses
//!   back to it, under either reading (from the start, from any start), and
//!   one that parses from the start parses from any start too;
//! - [`moves`]: a move that parses prints back to itself; one that is
//!   legal in a position is among its legal moves;
//! - [`table`]: a header that decodes encodes to bytes that decode to it
//!   again, and to its own bytes in a file whose checksums hold;
//! - [`checkpoint`]: likewise for the checkpoint's header.

use std::path::Path;
use std::sync::OnceLock;

use crate::database::{checkpoint as ckpt, Database};
use crate::position::{Move, Position};
use crate::query::{parse_move, play_moves};
use crate::rules::legal_moves;
use crate::solve::{moving_pairs, placement_pairs};
use crate::table::{decode_for_fuzzing, repair_checksums_for_fuzzing, Table, WdlTable};
use crate::variant::{Variant, VARIANT_NAMES};

/// A fuzz target's body: whether the input was accepted.
pub type Body = fn(&[u8]) -> bool;

/// The targets by name (as `fuzz/fuzz_targets/<name>.rs` and
/// `fuzz/corpus/<name>/` name them) with their bodies.
pub const TARGETS: [(&str, Body); 4] =
    [("position", position), ("moves", moves), ("table", table), ("checkpoint", checkpoint)];

/// Every variant by name, with its default rules, made once.
fn variants() -> &'static [Variant] {
    static VARIANTS: OnceLock<Vec<Variant>> = OnceLock::new();
    VARIANTS.get_or_init(|| {
        VARIANT_NAMES.iter().map(|name| Variant::named(name).expect("a known variant")).collect()
    })
}

/// The database of `variants()[i]` (no directory is touched: only its
/// index and the checkpoint headers it expects are used), made once.
fn database(i: usize) -> &'static Database {
    static DATABASES: [OnceLock<Database>; VARIANT_NAMES.len()] =
        [const { OnceLock::new() }; VARIANT_NAMES.len()];
    DATABASES[i].get_or_init(|| Database::new("/nonexistent/fuzzing", variants()[i].clone()))
}

/// Position notation, `Position::parse` and `Position::parse_any_start`,
/// of every variant: the input is the text.
pub fn position(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let mut accepted = false;
    for v in variants() {
        let strict = Position::parse(text, v);
        let any = Position::parse_any_start(text, v);
        if let Ok(p) = &strict {
            assert_eq!(any.as_ref().ok(), Some(p), "{text:?}: parses from the start, not any");
        }
        type Parse = fn(&str, &Variant) -> Result<Position, crate::position::NotationError>;
        let again: [Parse; 2] = [Position::parse, Position::parse_any_start];
        for (parsed, again) in [strict, any].into_iter().zip(again) {
            let Ok(p) = parsed else { continue };
            accepted = true;
            let printed = p.notation(v);
            assert_eq!(again(&printed, v).ok(), Some(p), "{text:?} printed as {printed:?}");
            assert_eq!(Position::from_state(&p.state(), p.to_move), p, "{text:?}");
            p.diagram(v);
        }
    }
    accepted
}

/// Move notation: `Move::parse` of every variant, and
/// `query::parse_move` and `query::play_moves` against a position. The
/// input is `POSITION\nMOVES` (the position read from any start), or
/// `MOVES` alone, played from the start of each variant. Accepted: a
/// legal move, or moves, in some variant (a move that only parses is not).
pub fn moves(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let (position, move_text) = match text.split_once('\n') {
        Some((position, moves)) => (Some(position), moves),
        None => (None, text),
    };
    let mut accepted = false;
    for v in variants() {
        if let Ok(mv) = Move::parse(move_text, v) {
            let printed = mv.notation(v);
            assert_eq!(Move::parse(&printed, v), Ok(mv), "{move_text:?} printed as {printed:?}");
        }
        let p = match position.map(|p| Position::parse_any_start(p, v)) {
            Some(Ok(p)) => p,
            Some(Err(_)) => continue,
            None => Position::start(v),
        };
        if let Ok(mv) = parse_move(v, &p, move_text) {
            accepted = true;
            assert!(legal_moves(v, &p.state()).contains(&mv), "{text:?}");
        }
        if let Ok((_, played)) = play_moves(v, &p, move_text) {
            accepted |= !played.is_empty();
        }
    }
    accepted
}

/// The table file format: `Table::from_bytes` (the input's first byte
/// even) or `WdlTable::from_bytes` (odd) of the rest, under the rules and
/// sector its header names, then every block checked and a few cells
/// read; accepted where it opens and every block checks out. Where the
/// first byte has its bit 1 set, every checksum of the
/// file is made right first, so that the fuzzer gets past them.
pub fn table(data: &[u8]) -> bool {
    let Some((&mode, file)) = data.split_first() else {
        return false;
    };
    let mut bytes = file.to_vec();
    let repaired = mode & 2 != 0;
    if repaired {
        repair_checksums_for_fuzzing(&mut bytes);
    }
    let decoded = decode_for_fuzzing(&bytes);
    let (rules, sector) = match &decoded {
        Some((rules, sector, _, _)) => (rules.as_str(), sector.as_str()),
        None => ("nine", "3-3"),
    };
    let path = Path::new("fuzzing.mtb");
    // Opened, and then every block checked (a few cells read besides).
    let opened = if mode & 1 == 0 {
        Table::from_bytes(&bytes[..], path, rules, sector).map(|t| {
            let slots = t.info().slots;
            for slot in [0, slots / 2, slots.saturating_sub(1), slots] {
                let _ = t.get(slot);
            }
            let _ = t.cells(slots / 3..slots / 2);
            let _ = t.distances();
            t.verify().is_ok()
        })
    } else {
        WdlTable::from_bytes(&bytes[..], path, rules, sector).map(|t| {
            let slots = t.info().slots;
            for slot in [0, slots / 2, slots.saturating_sub(1), slots] {
                let _ = t.get(slot);
            }
            t.verify().is_ok()
        })
    };
    if opened.is_ok() {
        let (rules, sector, encoded, len) = decoded.as_ref().expect("a table that opens has one");
        let again = decode_for_fuzzing(encoded).expect("an encoded header decodes");
        assert_eq!(again, (rules.clone(), sector.clone(), encoded.clone(), encoded.len()));
        // Bincode's varints decode from longer forms than they encode to
        // (`fuzz/corpus/table/regression-long-varint`), so only a file
        // whose checksums were written with its header, not repaired
        // here, must hold the header's own encoding.
        if !repaired {
            assert_eq!(&encoded[..], &bytes[..*len], "the header encodes to other bytes");
        }
    }
    opened.unwrap_or(false)
}

/// Sides of a checkpoint read whole at most: more than any pair the
/// corpus holds, and little enough memory for the fuzzer.
const MAX_SLOTS: u64 = 1 << 22;

/// A checkpoint file (`database::checkpoint`): its header read
/// (`read_header_from`), and where it names a pair of a variant under
/// that variant's default rules, read as the database reads the
/// checkpoint of that pair (`Database::read_checkpoint`: the header
/// checked against the pair, the cells read, the checksum checked).
pub fn checkpoint(data: &[u8]) -> bool {
    let Ok((header, _)) = ckpt::read_header_from(data) else {
        return false;
    };
    let encoded = ckpt::encode_header(&header).expect("a header that decodes encodes");
    let mut file = data[..12].to_vec();
    file[8..12].copy_from_slice(&(encoded.len() as u32).to_le_bytes());
    file.extend_from_slice(&encoded);
    let (again, _) = ckpt::read_header_from(&file[..]).expect("an encoded header decodes");
    assert_eq!(again, header, "the header encodes to another one");

    for (i, v) in variants().iter().enumerate() {
        if v.rules_key() != header.rules {
            continue;
        }
        let first = header.sectors.first().map(String::as_str);
        let pair = moving_pairs(v, u32::MAX)
            .into_iter()
            .chain(placement_pairs(v, u32::MAX))
            .find(|p| Some(p.sectors()[0].to_string().as_str()) == first);
        let Some(pair) = pair else { continue };
        let db = database(i);
        let expected = db.checkpoint_header(pair, 0);
        if header.mismatch(&expected).is_some() || expected.slots.iter().sum::<u64>() > MAX_SLOTS {
            return false;
        }
        let mut maps: Vec<Vec<u8>> =
            expected.slots.iter().map(|&s| vec![0; 2 * s as usize]).collect();
        return db.resume_point(pair, data, &mut maps).is_ok();
    }
    // Named nothing there is: the reason why, in words, all the same.
    let six = VARIANT_NAMES.iter().position(|&n| n == "six").expect("six");
    let pair = moving_pairs(&variants()[six], u32::MAX)[0];
    header.mismatch(&database(six).checkpoint_header(pair, 0));
    false
}
