//! `SystemState`: system parameters fetched by hand.

mod common;

use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::system::SystemState;

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[test]
fn system_state_fetches_by_hand_and_applies_commands() {
    let mut world = World::new();
    world.spawn(Health(5));
    let mut state: SystemState<(Query<&mut Health>, Commands)> = SystemState::new(&mut world);
    let (mut query, mut commands) = state.get_mut(&mut world);
    for mut health in &mut query {
        health.0 += 1;
    }
    commands.spawn(Health(1));
    assert_eq!(world.query::<&Health>().iter(&world).count(), 1);
    state.apply(&mut world);
    let mut values: Vec<u32> = world.query::<&Health>().iter(&world).map(|h| h.0).collect();
    values.sort();
    assert_eq!(values, [1, 6]);
}

#[test]
fn system_state_sees_changes_since_its_last_fetch() {
    let mut world = World::new();
    let e = world.spawn(Health(5)).id();
    let mut state: SystemState<Query<Entity, Changed<Health>>> = SystemState::new(&mut world);
    assert_eq!(state.get(&world).iter().collect::<Vec<_>>(), [e]);
    assert_eq!(state.get(&world).iter().count(), 0);
    world.get_mut::<Health>(e).unwrap().0 = 6;
    assert_eq!(state.get(&world).iter().collect::<Vec<_>>(), [e]);
    assert_eq!(state.get(&world).iter().count(), 0);
}

#[test]
fn system_state_of_another_world_panics_naming_it() {
    let mut a = World::new();
    let b = World::new();
    let mut state: SystemState<Query<&Health>> = SystemState::new(&mut a);
    assert!(state.matches_world(a.id()));
    let message = expect_panic(|| {
        let _ = state.get(&b);
    });
    assert!(
        message.contains("SystemState") && message.contains("another world")
            || message.contains("used with world"),
        "{message}"
    );
    let message = expect_panic(|| {
        let _: SystemState<(Query<&mut Health>, Query<&Health>)> = SystemState::new(&mut a);
    });
    assert!(message.contains("B0001"), "{message}");
}

#[test]
fn meta_mut_renames_and_moves_the_last_run() {
    #[derive(Component)]
    struct Fresh;
    let mut world = World::new();
    let mut state = SystemState::<Query<Entity, Added<Fresh>>>::new(&mut world);
    state.meta_mut().set_name("spawn watcher");
    assert_eq!(state.meta().name(), "spawn watcher");
    let before = state.meta().last_run();
    world.spawn(Fresh);
    assert_eq!(state.get(&world).iter().count(), 1);
    // Each `get` moves the last run on, so the spawn is seen once...
    assert_eq!(state.get(&world).iter().count(), 0);
    // ...unless the last run is moved back before it.
    state.meta_mut().set_last_run(before);
    assert_eq!(state.get(&world).iter().count(), 1);
}

/// A meta replaced through `meta_mut` cannot take away what the parameters
/// use: the system built from the state still declares the write (so the
/// executor never runs it beside another writer), and its commands still
/// apply.
#[test]
fn a_replaced_meta_keeps_the_parameters_access() {
    use ecs::system::System;
    let mut world = World::new();
    world.spawn(Health(1));
    let health = world.register_component::<Health>();
    let mut state: SystemState<(Query<&mut Health>, Commands)> = SystemState::new(&mut world);
    let empty: SystemState<()> = SystemState::new(&mut world);
    *state.meta_mut() = empty.meta().clone();
    assert!(!state.meta().access().combined_access().has_write(health));
    let mut system = state.build_system(|mut query: Query<&mut Health>, mut commands: Commands| {
        for mut h in &mut query {
            h.0 += 1;
        }
        commands.spawn(Health(10));
    });
    assert!(system.access().combined_access().has_write(health));
    system.run((), &mut world).unwrap();
    let mut values: Vec<u32> = world.query::<&Health>().iter(&world).map(|h| h.0).collect();
    values.sort();
    assert_eq!(values, [2, 10]);
}
