//! Catching a panic and reading its message.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The text of a caught panic (`panic!("{..}")` gives a `String`, a literal
/// gives a `&str`).
pub fn panic_message(payload: Box<dyn Any + Send>) -> String {
    panic_text(&*payload)
}

/// The text of a panic payload seen by reference.
pub fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else {
        String::from("<non-string panic payload>")
    }
}

/// Runs `f`, expecting a panic, and returns its message.
#[track_caller]
pub fn expect_panic<R>(f: impl FnOnce() -> R) -> String {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic, but the call returned"),
        Err(payload) => panic_message(payload),
    }
}
