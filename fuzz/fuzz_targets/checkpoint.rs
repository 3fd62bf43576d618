//! The `checkpoint` fuzz target: its body is `morris::fuzzing::checkpoint`, which
//! `tests/fuzz_corpus.rs` replays over `fuzz/corpus/checkpoint/` (docs/fuzzing.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    morris::fuzzing::checkpoint(data);
});
