//! The `moves` fuzz target: its body is `morris::fuzzing::moves`, which
//! `tests/fuzz_corpus.rs` replays over `fuzz/corpus/moves/` (docs/fuzzing.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    morris::fuzzing::moves(data);
});
