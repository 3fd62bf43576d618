//! The `table` fuzz target: its body is `morris::fuzzing::table`, which
//! `tests/fuzz_corpus.rs` replays over `fuzz/corpus/table/` (docs/fuzzing.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    morris::fuzzing::table(data);
});
