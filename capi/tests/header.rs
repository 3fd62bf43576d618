//! include/morris.h is what cbindgen makes of src/lib.rs with
//! cbindgen.toml: the committed header is regenerated here and compared,
//! so it never falls behind the code. After changing the interface:
//!
//! ```text
//! MORRIS_BLESS=1 cargo test -p morris-capi --test header
//! ```
//!
//! writes the header anew (commit it with the change).

use std::path::PathBuf;

#[test]
fn the_committed_header_is_current() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads src/lib.rs");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = crate_dir.join("include/morris.h");
    if std::env::var_os("MORRIS_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/morris.h");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "capi/include/morris.h is not what cbindgen makes of capi/src/lib.rs; regenerate it with \
         `MORRIS_BLESS=1 cargo test -p morris-capi --test header` and commit it"
    );
}
