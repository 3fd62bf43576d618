//! `morris`: the command line on top of the library. Everything is in the
//! crate's library (`src/lib.rs`), so that the fuzz targets reach the
//! server's code too; this is its entry point.

fn main() -> std::process::ExitCode {
    morris_cli::main()
}
