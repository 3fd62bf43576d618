//! The `http_request` fuzz target: its body is `morris_cli::fuzzing::http_request`, which
//! `cli/tests/fuzz_corpus.rs` replays over `fuzz/corpus/http_request/` (docs/fuzzing.md).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    morris_cli::fuzzing::http_request(data);
});
