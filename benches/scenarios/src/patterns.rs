//! Scenarios shaped as users write their code: a wide query, many small
//! archetypes, random access by entity, sparse-set iteration, spawning
//! through `Commands`, and a `Changed<T>` filter. This module holds their
//! sizes and shared helpers, the cases on `ecs` ([`ours`]) and the
//! hand-written floor ([`floor`]); `benches/compare` writes the bevy_ecs
//! and hecs cases on the same sizes.

use glam::Vec3;

/// Entities in `wide_iter`, `random_get`, `sparse_iter*` and
/// `commands_spawn`.
pub const PATTERN_N: usize = 10_000;
/// Archetypes in `many_archetypes`: every subset of ten markers below this
/// count, so each archetype is distinct.
pub const MANY_ARCHETYPES: usize = 1_000;
/// Entities per archetype in `many_archetypes`.
pub const PER_ARCHETYPE: usize = 10;
/// Entities in `changed_filter`.
pub const CHANGED_N: usize = 100_000;
/// Every this-many-th entity of `changed_filter` is changed (1%).
pub const CHANGED_EVERY: usize = 100;

/// `0..n` in a fixed pseudo-random order (a Fisher-Yates shuffle driven by
/// a xorshift generator with a fixed seed), shared by every library's
/// `random_get` so all of them visit entities in the same order.
pub fn shuffled_indices(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..n).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let j = (state % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// The value `random_get` stores on its `i`-th entity, so a checksum over
/// every visited entity proves each lookup found its own entity.
pub fn indexed(i: usize) -> Vec3 {
    Vec3::new(i as f32, 1.0, 0.0)
}

/// What `random_get` sums over `0..n`: `indexed(i).x + 1` for each `i`.
pub fn random_sum(n: usize) -> f64 {
    (n * (n + 1) / 2) as f64
}

/// Calls `$body!(index, marker type)` for each of the ten markers that
/// `many_archetypes` combines into its archetypes.
#[macro_export]
macro_rules! for_each_marker {
    ($body:ident) => {
        $body!(0, M0);
        $body!(1, M1);
        $body!(2, M2);
        $body!(3, M3);
        $body!(4, M4);
        $body!(5, M5);
        $body!(6, M6);
        $body!(7, M7);
        $body!(8, M8);
        $body!(9, M9);
    };
}

/// The scenarios on `ecs`.
pub mod ours;

/// The hand-written floor of the same scenarios.
pub mod floor;
