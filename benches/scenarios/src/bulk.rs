//! `bulk_insert` and `bulk_remove`: a component added to (or removed from)
//! every one of 10,000 entities a query matches, by one query-level bulk
//! change, beside the same change made entity by entity
//! (`bulk_insert_loop`, `bulk_remove_loop`).
//!
//! Only the change itself is timed: each iteration first undoes the last
//! one outside the timed region ([`split_case`]).

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::case::Case;

/// Entities changed per iteration.
pub const BULK_N: usize = 10_000;

struct SplitCase<S, U, R, V> {
    state: S,
    undo: U,
    run: R,
    verify: V,
}

impl<S, U: FnMut(&mut S), R: FnMut(&mut S), V: FnMut(&mut S)> Case for SplitCase<S, U, R, V> {
    fn run_batch(&mut self, iters: u32) -> Duration {
        let mut timed = Duration::ZERO;
        for _ in 0..iters {
            (self.undo)(&mut self.state);
            let start = Instant::now();
            split_timed(&mut self.run, &mut self.state);
            timed += start.elapsed();
            black_box(&mut self.state);
        }
        timed
    }

    fn verify(&mut self) {
        (self.undo)(&mut self.state);
        (self.run)(&mut self.state);
        (self.verify)(&mut self.state);
    }
}

/// The timed part of a split case, out of line so that a profiler can be
/// restricted to it (`valgrind --toggle-collect='*split_timed*'`).
#[inline(never)]
fn split_timed<S>(run: &mut impl FnMut(&mut S), state: &mut S) {
    run(state);
}

/// Builds a [`Case`] that times `run` alone: before each run, `undo`
/// (untimed) brings the state back to where `run` starts. The check runs
/// `undo` and `run` once more, then `verify`.
pub fn split_case<S: 'static>(
    state: S,
    undo: impl FnMut(&mut S) + 'static,
    run: impl FnMut(&mut S) + 'static,
    verify: impl FnMut(&mut S) + 'static,
) -> Box<dyn Case> {
    Box::new(SplitCase {
        state,
        undo,
        run,
        verify,
    })
}

/// The scenarios on `ecs`.
pub mod ours {
    use super::{split_case, BULK_N};
    use crate::case::Case;
    use ecs::prelude::*;

    #[derive(Component, Clone, Copy)]
    struct A(f32);
    #[derive(Component, Clone, Copy)]
    struct B(f32);

    struct Bulk {
        world: World,
        entities: Vec<Entity>,
    }

    fn setup() -> Bulk {
        let mut world = World::new();
        let entities = world
            .spawn_batch((0..BULK_N).map(|i| A(i as f32)))
            .collect();
        Bulk { world, entities }
    }

    fn insert_bulk(s: &mut Bulk) {
        s.world.insert_for::<With<A>, _>(B(1.0));
    }

    fn insert_loop(s: &mut Bulk) {
        for &e in &s.entities {
            s.world.entity_mut(e).insert(B(1.0));
        }
    }

    fn remove_bulk(s: &mut Bulk) {
        s.world.remove_for::<With<B>, B>();
    }

    fn remove_loop(s: &mut Bulk) {
        for &e in &s.entities {
            s.world.entity_mut(e).remove::<B>();
        }
    }

    fn verify_inserted(s: &mut Bulk) {
        let index: std::collections::HashMap<Entity, usize> = s
            .entities
            .iter()
            .enumerate()
            .map(|(i, &e)| (e, i))
            .collect();
        let mut count = 0;
        for (e, a, b) in s.world.query::<(Entity, &A, &B)>().iter(&s.world) {
            assert_eq!(a.0, index[&e] as f32, "values move with their entity");
            assert_eq!(b.0, 1.0);
            count += 1;
        }
        assert_eq!(count, BULK_N);
    }

    fn verify_removed(s: &mut Bulk) {
        assert_eq!(s.world.query::<&B>().iter(&s.world).count(), 0);
        assert_eq!(s.world.query::<&A>().iter(&s.world).count(), BULK_N);
    }

    /// `bulk_insert`: `World::insert_for` over 10,000 entities.
    pub fn bulk_insert() -> Box<dyn Case> {
        split_case(setup(), remove_bulk, insert_bulk, verify_inserted)
    }

    /// `bulk_insert_loop`: the same insert, entity by entity.
    pub fn bulk_insert_loop() -> Box<dyn Case> {
        split_case(setup(), remove_bulk, insert_loop, verify_inserted)
    }

    /// `bulk_remove`: `World::remove_for` over 10,000 entities.
    pub fn bulk_remove() -> Box<dyn Case> {
        split_case(setup(), insert_bulk, remove_bulk, verify_removed)
    }

    /// `bulk_remove_loop`: the same remove, entity by entity.
    pub fn bulk_remove_loop() -> Box<dyn Case> {
        split_case(setup(), insert_bulk, remove_loop, verify_removed)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_case_does_its_work() {
        for build in [
            super::ours::bulk_insert,
            super::ours::bulk_insert_loop,
            super::ours::bulk_remove,
            super::ours::bulk_remove_loop,
        ] {
            let mut case = build();
            case.run_batch(2);
            case.verify();
        }
    }
}
