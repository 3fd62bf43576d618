//! The `position` fuzz target: its body is `morris::fuzzing::position`, which
//! `tests/fuzz_corpus.rs` replays over `fuzz/corpus/position/` (docs/fuzzing.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    morris::fuzzing::position(data);
});
