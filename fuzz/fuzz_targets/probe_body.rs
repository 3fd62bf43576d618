//! The `probe_body` fuzz target: its body is `morris_cli::fuzzing::probe_body`, which
//! `cli/tests/fuzz_corpus.rs` replays over `fuzz/corpus/probe_body/` (docs/fuzzing.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    morris_cli::fuzzing::probe_body(data);
});
