//! A [`Case`] is one library's prepared state for one scenario: what the
//! measuring code times and then verifies.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// One library's prepared state for one scenario.
pub trait Case {
    /// Runs the scenario `iters` times back to back and returns the time
    /// the whole batch took.
    fn run_batch(&mut self, iters: u32) -> Duration;
    /// Outside any timed region: runs the scenario once more and asserts
    /// that it did the work (a checksum or a count), so that no library
    /// can win by doing nothing.
    fn verify(&mut self);
}

struct ClosureCase<S, R, V> {
    state: S,
    run: R,
    verify: V,
}

impl<S, R: FnMut(&mut S), V: FnMut(&mut S)> Case for ClosureCase<S, R, V> {
    fn run_batch(&mut self, iters: u32) -> Duration {
        let start = Instant::now();
        for _ in 0..iters {
            (self.run)(&mut self.state);
        }
        let elapsed = start.elapsed();
        black_box(&mut self.state);
        elapsed
    }

    fn verify(&mut self) {
        (self.verify)(&mut self.state);
    }
}

/// Builds a [`Case`] from a state, the timed body and the check.
pub fn case<S: 'static>(
    state: S,
    run: impl FnMut(&mut S) + 'static,
    verify: impl FnMut(&mut S) + 'static,
) -> Box<dyn Case> {
    Box::new(ClosureCase { state, run, verify })
}

/// Builds a [`Case`] that times making a world from nothing: each
/// iteration calls `new`, then `fill` on the result, and drops it. The
/// check fills one more world the same way and hands it to `verify`.
pub fn fresh_world_case<W: 'static>(
    new: impl Fn() -> W + Copy + 'static,
    fill: impl Fn(&mut W) + Copy + 'static,
    verify: impl Fn(&mut W) + 'static,
) -> Box<dyn Case> {
    // Generic parameters, not `fn` pointers: each library's calls stay
    // direct, as when the body was written out in every library's module.
    case(
        (),
        move |_| {
            let mut world = new();
            fill(&mut world);
            black_box(&world);
        },
        move |_| {
            let mut world = new();
            fill(&mut world);
            verify(&mut world);
        },
    )
}
