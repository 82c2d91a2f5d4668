//! Drives the model test's operation language from fuzzer bytes: each input
//! decodes into up to 256 operations, run on a `World` and on the plain
//! reference model, comparing them (values, entity count, every query,
//! drop counts) and calling `World::check_integrity` after every operation.
//!
//! Run: `cd fuzz && cargo +nightly fuzz run model_ops` (see
//! docs/RELIABILITY.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../tests/model/lang.rs"]
mod lang;

fuzz_target!(|data: &[u8]| {
    let ops = lang::decode(data, 256);
    lang::run(&ops);
});
