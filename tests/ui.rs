//! Compile-fail cases of the derive macros: each `tests/ui/*.rs` must fail
//! to build with exactly the diagnostics in its `.stderr` file, so the
//! message and the span the user sees are pinned.
//!
//! After an intended change to a message, regenerate the expectations with
//! `TRYBUILD=overwrite cargo test --test ui` and review every `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
