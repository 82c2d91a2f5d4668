//! Safe code cannot make an observer run with another event type's value:
//! every route that reaches an observer entity's `ObserverState` (swap
//! through `get_mut` or a query, `take` then `insert` elsewhere, `spawn`,
//! another world) leaves each observer running its own system for its
//! own events.

use super::{ObservedBy, ObserverState};
use crate::prelude::*;

/// Eight words: reading one through a `Narrow` would read past it.
#[derive(Event)]
struct Wide([u64; 8]);

#[derive(EntityEvent)]
struct Narrow(#[event_target] Entity, u8);

#[derive(Resource, Default)]
struct Log(Vec<String>);

/// A world with a `Wide` observer and a `Narrow` observer, in that order.
fn two_observers() -> (World, Entity, Entity) {
    let mut world = World::new();
    world.init_resource::<Log>();
    let wide = world
        .add_observer(|on: On<Wide>, mut log: ResMut<Log>| {
            log.0.push(format!("wide {}", on.0.iter().sum::<u64>()));
        })
        .id();
    let narrow = world
        .add_observer(|on: On<Narrow>, mut log: ResMut<Log>| {
            log.0.push(format!("narrow {}", on.1));
        })
        .id();
    (world, wide, narrow)
}

/// Triggers both events and returns what the observers logged.
fn fire(world: &mut World) -> Vec<String> {
    world.trigger(Wide([1; 8]));
    world.trigger(Narrow(Entity::PLACEHOLDER, 7));
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

#[test]
fn swapping_observer_states_through_a_query_changes_nothing() {
    let (mut world, wide, narrow) = two_observers();
    let mut query = world.query::<&mut ObserverState>();
    let [mut a, mut b] = query.get_many_mut(&mut world, [wide, narrow]).unwrap();
    std::mem::swap(&mut *a, &mut *b);
    assert_eq!(fire(&mut world), ["wide 8", "narrow 7"]);
    // Despawning each removes its own observer.
    world.despawn(wide);
    assert_eq!(fire(&mut world), ["narrow 7"]);
    world.despawn(narrow);
    assert!(fire(&mut world).is_empty());
    world.check_integrity().unwrap();
}

#[test]
fn swapping_observer_states_in_a_system_changes_nothing() {
    let (mut world, wide, narrow) = two_observers();
    world
        .run_system_once(move |mut query: Query<&mut ObserverState>| {
            let [mut a, mut b] = query.get_many_mut([narrow, wide]).unwrap();
            std::mem::swap(&mut *a, &mut *b);
        })
        .unwrap();
    assert_eq!(fire(&mut world), ["wide 8", "narrow 7"]);
    world.check_integrity().unwrap();
}

#[test]
fn swapping_a_taken_state_through_get_mut_changes_nothing() {
    let (mut world, wide, narrow) = two_observers();
    let mut taken = world.entity_mut(wide).take::<ObserverState>().unwrap();
    std::mem::swap(
        &mut *world.get_mut::<ObserverState>(narrow).unwrap(),
        &mut taken,
    );
    world.entity_mut(wide).insert(taken);
    // Taking the state removed the `Wide` observer for good; `narrow` is
    // still the `Narrow` observer.
    assert_eq!(fire(&mut world), ["narrow 7"]);
    world.check_integrity().unwrap();
}

#[test]
fn a_state_taken_and_inserted_into_another_observer_changes_nothing() {
    let (mut world, wide, narrow) = two_observers();
    let taken = world.entity_mut(wide).take::<ObserverState>().unwrap();
    world.entity_mut(narrow).insert(taken);
    assert_eq!(fire(&mut world), ["narrow 7"]);
    world.despawn(narrow);
    assert!(fire(&mut world).is_empty());
    world.check_integrity().unwrap();
}

#[test]
fn a_state_taken_and_inserted_back_or_spawned_observes_nothing() {
    let (mut world, wide, narrow) = two_observers();
    let taken = world.entity_mut(wide).take::<ObserverState>().unwrap();
    world.entity_mut(wide).insert(taken);
    assert_eq!(fire(&mut world), ["narrow 7"]);
    let taken = world.entity_mut(narrow).take::<ObserverState>().unwrap();
    let spawned = world.spawn(taken).id();
    assert!(fire(&mut world).is_empty());
    // Removing or despawning the moved states touches no observer.
    world.entity_mut(wide).remove::<ObserverState>();
    world.despawn(spawned);
    assert!(fire(&mut world).is_empty());
    world.check_integrity().unwrap();
}

#[test]
fn a_state_moved_to_another_world_changes_nothing() {
    // Two worlds whose observer entities have the same id.
    let (mut first, first_wide, _) = two_observers();
    let (mut second, _, second_narrow) = two_observers();
    let taken = first
        .entity_mut(first_wide)
        .take::<ObserverState>()
        .unwrap();
    second.entity_mut(second_narrow).insert(taken);
    assert_eq!(fire(&mut second), ["wide 8", "narrow 7"]);
    assert_eq!(fire(&mut first), ["narrow 7"]);
    second.check_integrity().unwrap();
}

#[test]
fn swapping_entity_observer_states_keeps_each_on_its_target() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let target = world.spawn_empty().id();
    let global = world
        .add_observer(|on: On<Narrow>, mut log: ResMut<Log>| {
            log.0.push(format!("global {}", on.1));
        })
        .id();
    world
        .entity_mut(target)
        .observe(|on: On<Narrow>, mut log: ResMut<Log>| {
            log.0.push(format!("target {}", on.1));
        });
    let local = world.get::<ObservedBy>(target).unwrap().get()[0];
    let mut query = world.query::<&mut ObserverState>();
    let [mut a, mut b] = query.get_many_mut(&mut world, [global, local]).unwrap();
    std::mem::swap(&mut *a, &mut *b);
    world.trigger(Narrow(Entity::PLACEHOLDER, 1));
    world.trigger(Narrow(target, 2));
    assert_eq!(
        world.resource::<Log>().0,
        ["global 1", "global 2", "target 2"]
    );
    // The target's despawn takes its own observer with it.
    world.despawn(target);
    assert!(!world.contains_entity(local));
    assert!(world.contains_entity(global));
    world.check_integrity().unwrap();
}

/// Counts its drops; panics in `drop` when told to.
struct Held(std::sync::Arc<std::sync::atomic::AtomicUsize>, bool);
impl Drop for Held {
    fn drop(&mut self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if self.1 {
            panic!("held value dropped");
        }
    }
}

fn observer_holding(world: &mut World, held: Held) -> Entity {
    world
        .add_observer(move |_: On<Narrow>| {
            let _ = &held;
        })
        .id()
}

#[test]
fn an_observers_system_is_dropped_once_on_every_route() {
    use std::sync::{atomic::Ordering, Arc};
    let drops = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = || drops.load(Ordering::SeqCst);
    let mut world = World::new();
    let despawned = observer_holding(&mut world, Held(drops.clone(), false));
    world.despawn(despawned);
    assert_eq!(count(), 1);
    let taken = observer_holding(&mut world, Held(drops.clone(), false));
    world.entity_mut(taken).take::<ObserverState>().unwrap();
    assert_eq!(count(), 2);
    observer_holding(&mut world, Held(drops.clone(), false));
    world.clear_entities();
    assert_eq!(count(), 3);
    world.trigger(Narrow(Entity::PLACEHOLDER, 0));
    observer_holding(&mut world, Held(drops.clone(), false));
    drop(world);
    assert_eq!(count(), 4);
}

#[test]
fn a_panicking_drop_of_an_observers_system_leaves_the_world_consistent() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::{atomic::Ordering, Arc};
    let drops = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut world = World::new();
    let observer = observer_holding(&mut world, Held(drops.clone(), true));
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn(observer)));
    assert!(result.is_err());
    assert_eq!(drops.load(Ordering::SeqCst), 1);
    assert!(!world.contains_entity(observer));
    world.check_integrity().unwrap();
    world.trigger(Narrow(Entity::PLACEHOLDER, 0));
    let observer = observer_holding(&mut world, Held(drops.clone(), true));
    let result = catch_unwind(AssertUnwindSafe(|| world.clear_entities()));
    assert!(result.is_err());
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    assert!(!world.contains_entity(observer));
    world.check_integrity().unwrap();
}
