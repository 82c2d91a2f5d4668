//! Removal detection: `RemovedComponents`, `World::removed`,
//! `any_component_removed`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs::lifecycle::{HookContext, RemovedComponents};
use ecs::prelude::*;
use ecs::system::SystemState;
use ecs::world::DeferredWorld;

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct A(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct S(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct B;

#[derive(Resource, Default)]
struct Seen(Vec<Entity>);

fn collect_a(mut removed: RemovedComponents<A>, mut seen: ResMut<Seen>) {
    seen.0.extend(removed.read());
}

fn take_seen(world: &mut World) -> Vec<Entity> {
    std::mem::take(&mut world.resource_mut::<Seen>().0)
}

#[test]
fn remove_take_and_despawn_are_seen_in_order() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::default();
    schedule.add_systems(collect_a);
    schedule.run(&mut world);

    let a = world.spawn((A(1), B)).id();
    let b = world.spawn(A(2)).id();
    let c = world.spawn((A(3), B)).id();
    let d = world.spawn(B).id();
    world.entity_mut(a).remove::<A>();
    assert_eq!(world.entity_mut(b).take::<A>(), Some(A(2)));
    world.despawn(c);
    world.despawn(d);
    // Removing what is not there records nothing.
    world.entity_mut(a).remove::<A>();
    schedule.run(&mut world);
    assert_eq!(take_seen(&mut world), [a, b, c]);
    // Read once.
    schedule.run(&mut world);
    assert_eq!(take_seen(&mut world), []);
}

#[test]
fn sparse_set_components_are_seen() {
    let mut world = World::new();
    world.track_removals::<S>();
    let a = world.spawn(S(1)).id();
    let b = world.spawn((S(2), A(0))).id();
    world.entity_mut(a).remove::<S>();
    world.despawn(b);
    assert_eq!(world.removed::<S>().collect::<Vec<_>>(), [a, b]);
}

#[test]
fn every_reader_sees_every_removal_once_across_two_updates() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut first = SystemState::<RemovedComponents<A>>::new(&mut world);
    let mut second = SystemState::<RemovedComponents<A>>::new(&mut world);
    let e1 = world.spawn(A(1)).id();
    world.despawn(e1);
    world.clear_trackers();
    let e2 = world.spawn(A(2)).id();
    world.despawn(e2);
    assert_eq!(
        first.get_mut(&mut world).read().collect::<Vec<_>>(),
        [e1, e2]
    );
    assert_eq!(first.get_mut(&mut world).len(), 0);
    // Two updates drop `e1`, which `second` never read.
    world.clear_trackers();
    assert_eq!(second.get_mut(&mut world).read().collect::<Vec<_>>(), [e2]);
    world.clear_trackers();
    let mut reader = second.get_mut(&mut world);
    assert!(reader.is_empty());
    assert_eq!(reader.read().count(), 0);
    assert!(world.removed::<A>().next().is_none());
}

#[test]
fn world_removed_lists_the_current_update_only() {
    let mut world = World::new();
    world.track_removals::<A>();
    let e1 = world.spawn(A(1)).id();
    world.despawn(e1);
    assert_eq!(world.removed::<A>().collect::<Vec<_>>(), [e1]);
    world.clear_trackers();
    let e2 = world.spawn(A(2)).id();
    world.entity_mut(e2).remove::<A>();
    assert_eq!(world.removed::<A>().collect::<Vec<_>>(), [e2]);
    let id = world.component_id::<A>().unwrap();
    assert_eq!(world.removed_with_id(id).collect::<Vec<_>>(), [e2]);
}

#[test]
fn untracked_removals_are_not_recorded_and_asking_panics_naming_the_component() {
    let mut world = World::new();
    let e = world.spawn((A(1), B)).id();
    world.despawn(e);
    assert!(world.removed_components().iter().next().is_none());
    let message = catch_unwind(AssertUnwindSafe(|| world.removed::<A>().count()))
        .expect_err("untracked")
        .downcast::<String>()
        .unwrap();
    assert!(message.contains("removal_detection::A"), "{message}");
    assert!(message.contains("track_removals"), "{message}");
    // Tracking starts now; earlier removals stay unrecorded.
    world.track_removals::<A>();
    assert_eq!(world.removed::<A>().count(), 0);
}

#[test]
fn tracking_flags_only_the_archetypes_of_the_tracked_component() {
    let mut world = World::new();
    let with_a = world.spawn((A(1), B)).id();
    let without = world.spawn(B).id();
    world.track_removals::<A>();
    // An archetype created after tracking starts is flagged too.
    let later = world.spawn((A(2), S(0))).id();
    world.entity_mut(without).remove::<B>();
    world.despawn(with_a);
    world.entity_mut(later).remove::<S>();
    world.entity_mut(later).remove::<A>();
    assert_eq!(world.removed::<A>().collect::<Vec<_>>(), [with_a, later]);
}

#[test]
fn the_condition_is_true_once_per_removal_batch() {
    let mut world = World::new();
    #[derive(Resource, Default)]
    struct Runs(u32);
    world.init_resource::<Runs>();
    let mut schedule = Schedule::default();
    schedule.add_systems((|mut runs: ResMut<Runs>| runs.0 += 1).run_if(any_component_removed::<A>));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 0);
    let a = world.spawn(A(1)).id();
    let b = world.spawn(A(2)).id();
    world.despawn(a);
    world.despawn(b);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1);
}

#[test]
fn commands_removals_are_seen() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let a = world.spawn(A(1)).id();
    let b = world.spawn(A(2)).id();
    let mut schedule = Schedule::default();
    schedule.add_systems(
        (
            move |mut commands: Commands| {
                commands.entity(a).remove::<A>();
                commands.entity(b).despawn();
            },
            collect_a,
        )
            .chain(),
    );
    schedule.run(&mut world);
    assert_eq!(take_seen(&mut world), [a, b]);
}

#[test]
fn read_with_id_and_clear() {
    let mut world = World::new();
    let mut state = SystemState::<RemovedComponents<A>>::new(&mut world);
    let es: Vec<Entity> = (0..3).map(|i| world.spawn(A(i)).id()).collect();
    for &e in &es {
        world.despawn(e);
    }
    let mut reader = state.get_mut(&mut world);
    assert_eq!(reader.len(), 3);
    let read: Vec<_> = reader.read_with_id().take(1).collect();
    assert_eq!(read[0].0, es[0]);
    assert_eq!(reader.len(), 2);
    reader.clear();
    assert!(reader.is_empty());
    assert!(reader.messages().is_some());
}

fn panicking_remove_hook(_: DeferredWorld, _: HookContext) {
    panic!("on_remove refuses");
}

#[derive(Component)]
#[component(on_remove = panicking_remove_hook)]
struct Stubborn;

#[test]
fn a_panicking_hook_still_completes_the_removal_and_its_message() {
    let mut world = World::new();
    world.track_removals::<A>();
    world.track_removals::<Stubborn>();
    let e = world.spawn((A(1), Stubborn)).id();
    assert!(catch_unwind(AssertUnwindSafe(|| world.despawn(e))).is_err());
    assert!(!world.contains_entity(e));
    assert_eq!(world.removed::<A>().collect::<Vec<_>>(), [e]);
    assert_eq!(world.removed::<Stubborn>().collect::<Vec<_>>(), [e]);
    world.clear_trackers();
    let f = world.spawn((A(2), Stubborn)).id();
    assert!(catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(f).remove::<(A, Stubborn)>();
    }))
    .is_err());
    assert_eq!(world.get::<A>(f), None);
    assert!(world.contains_entity(f));
    assert_eq!(world.removed::<A>().collect::<Vec<_>>(), [f]);
    assert_eq!(world.removed::<Stubborn>().collect::<Vec<_>>(), [f]);
}

#[test]
fn a_reader_made_later_sees_the_stored_removals() {
    let mut world = World::new();
    world.track_removals::<A>();
    let e = world.spawn(A(1)).id();
    world.despawn(e);
    let mut state = SystemState::<RemovedComponents<A>>::new(&mut world);
    assert_eq!(state.get_mut(&mut world).read().collect::<Vec<_>>(), [e]);
}

#[test]
fn removed_component_messages_is_a_parameter() {
    let mut world = World::new();
    world.track_removals::<A>();
    let e = world.spawn(A(1)).id();
    world.despawn(e);
    let id = world.component_id::<A>().unwrap();
    let count = world
        .run_system_once(move |removed: &ecs::lifecycle::RemovedComponentMessages| {
            removed.get(id).map_or(0, |m| m.len())
        })
        .unwrap();
    assert_eq!(count, 1);
}

mod interleavings {
    //! Random interleavings of removals, reads and updates: a reader that
    //! reads between every two `clear_trackers` sees every removal exactly
    //! once, in order. Deterministic: a fixed seed, no failure files.

    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};

    const READERS: usize = 2;

    #[derive(Debug, Clone)]
    enum Op {
        Spawn,
        /// Removes `A` from the live entity at this index (modulo).
        Remove(usize),
        /// Despawns the live entity at this index (modulo).
        Despawn(usize),
        Read(usize),
        Update,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => Just(Op::Spawn),
            2 => any::<usize>().prop_map(Op::Remove),
            2 => any::<usize>().prop_map(Op::Despawn),
            3 => (0..READERS).prop_map(Op::Read),
            2 => Just(Op::Update),
        ]
    }

    fn read(world: &mut World, state: &mut SystemState<RemovedComponents<A>>) -> Vec<Entity> {
        state.get_mut(world).read().collect()
    }

    proptest! {
        #![proptest_config(Config {
            cases: if cfg!(miri) { 4 } else { 2_000 },
            failure_persistence: None,
            rng_seed: RngSeed::Fixed(0x7265_6d6f_7665_6421),
            ..Config::default()
        })]

        #[test]
        fn readers_between_every_two_updates_see_every_removal_once(
            ops in prop::collection::vec(op(), 0..40)
        ) {
            let mut world = World::new();
            let mut states: Vec<_> =
                (0..READERS).map(|_| SystemState::<RemovedComponents<A>>::new(&mut world)).collect();
            let mut seen = vec![Vec::new(); READERS];
            let mut live: Vec<Entity> = Vec::new();
            let mut removed: Vec<Entity> = Vec::new();
            let mut updates_since_read = [0u32; READERS];
            for op in ops {
                match op {
                    Op::Spawn => live.push(world.spawn((A(0), B)).id()),
                    Op::Remove(i) if !live.is_empty() => {
                        let e = live[i % live.len()];
                        if world.get::<A>(e).is_some() {
                            removed.push(e);
                        }
                        world.entity_mut(e).remove::<A>();
                    }
                    Op::Despawn(i) if !live.is_empty() => {
                        let e = live.swap_remove(i % live.len());
                        if world.get::<A>(e).is_some() {
                            removed.push(e);
                        }
                        world.despawn(e);
                    }
                    Op::Remove(_) | Op::Despawn(_) => {}
                    Op::Read(r) => {
                        seen[r].extend(read(&mut world, &mut states[r]));
                        updates_since_read[r] = 0;
                    }
                    Op::Update => {
                        for r in 0..READERS {
                            if updates_since_read[r] == 1 {
                                seen[r].extend(read(&mut world, &mut states[r]));
                                updates_since_read[r] = 0;
                            }
                        }
                        world.clear_trackers();
                        updates_since_read.iter_mut().for_each(|u| *u += 1);
                    }
                }
            }
            for r in 0..READERS {
                seen[r].extend(read(&mut world, &mut states[r]));
                prop_assert_eq!(&seen[r], &removed, "reader {}", r);
            }
        }
    }
}
