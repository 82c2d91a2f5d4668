//! Event patterns: lifecycle patterns of several components, the trigger
//! they carry, and custom events read and changed through `On`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::component::ComponentId;
use crate::event::{EntityComponentsTrigger, GlobalTrigger};
use crate::lifecycle::{AddEvent, RemoveEvent};
use crate::prelude::*;

#[derive(Component)]
struct A;
#[derive(Component)]
#[component(storage = "SparseSet")]
struct B;
#[derive(Component)]
struct C;

/// What each run of an observer saw: its entity and the trigger's
/// components.
#[derive(Resource, Default)]
struct Runs(Vec<(Entity, Vec<ComponentId>)>);

fn take_runs(world: &mut World) -> Vec<(Entity, Vec<ComponentId>)> {
    std::mem::take(&mut world.resource_mut::<Runs>().0)
}

fn sorted(mut ids: Vec<ComponentId>) -> Vec<ComponentId> {
    ids.sort_unstable();
    ids
}

fn ids(world: &mut World) -> (ComponentId, ComponentId, ComponentId) {
    (
        world.register_component::<A>(),
        world.register_component::<B>(),
        world.register_component::<C>(),
    )
}

#[test]
fn a_bundle_pattern_fires_once_listing_every_component_of_the_operation() {
    let mut world = World::new();
    world.init_resource::<Runs>();
    let (a, b, c) = ids(&mut world);
    world.add_observer(|add: On<Add<(A, B)>>, mut runs: ResMut<Runs>| {
        runs.0.push((add.entity, add.trigger().components.to_vec()));
    });
    let e = world.spawn((A, B, C)).id();
    let runs = take_runs(&mut world);
    assert_eq!(runs.len(), 1, "once per operation, not per component");
    assert_eq!(runs[0].0, e);
    assert_eq!(sorted(runs[0].1.clone()), sorted(vec![a, b, c]));
}

#[test]
fn a_bundle_pattern_fires_for_either_component_alone() {
    let mut world = World::new();
    world.init_resource::<Runs>();
    let (a, b, _) = ids(&mut world);
    world.add_observer(|rm: On<Remove<(A, B)>>, mut runs: ResMut<Runs>| {
        runs.0.push((rm.entity, rm.trigger().components.to_vec()));
    });
    let e = world.spawn((A, B, C)).id();
    world.entity_mut(e).remove::<B>();
    assert_eq!(take_runs(&mut world), [(e, vec![b])]);
    world.entity_mut(e).remove::<C>();
    assert!(take_runs(&mut world).is_empty(), "C is not watched");
    world.entity_mut(e).insert(B);
    world.entity_mut(e).remove::<A>();
    assert_eq!(take_runs(&mut world), [(e, vec![a])]);
    world.despawn(e);
    assert_eq!(take_runs(&mut world), [(e, vec![b])]);
}

#[test]
fn single_component_observers_keep_their_order_next_to_a_bundle_pattern() {
    #[derive(Resource, Default)]
    struct Order(Vec<&'static str>);
    let mut world = World::new();
    world.init_resource::<Order>();
    world.add_observer(|_: On<Insert<A>>, mut o: ResMut<Order>| o.0.push("a"));
    world.add_observer(|_: On<Insert<(A, B)>>, mut o: ResMut<Order>| o.0.push("ab"));
    world.add_observer(|_: On<Insert<B>>, mut o: ResMut<Order>| o.0.push("b"));
    world.spawn((A, B));
    let a = world.register_component::<A>();
    let b = world.register_component::<B>();
    // Observers go component by component; the pair runs at the first of
    // its components the operation lists.
    let expected: &[&str] = if a < b {
        &["a", "ab", "b"]
    } else {
        &["ab", "b", "a"]
    };
    assert_eq!(world.resource::<Order>().0, expected);
}

#[test]
fn an_entity_observer_of_a_bundle_pattern_fires_once_for_its_entity() {
    let mut world = World::new();
    world.init_resource::<Runs>();
    let watched = world.spawn(C).id();
    let other = world.spawn(C).id();
    world
        .entity_mut(watched)
        .observe(|add: On<Add<(A, B)>>, mut runs: ResMut<Runs>| {
            runs.0.push((add.entity, Vec::new()));
        });
    world.entity_mut(other).insert((A, B));
    assert!(take_runs(&mut world).is_empty());
    world.entity_mut(watched).insert((A, B));
    assert_eq!(take_runs(&mut world), [(watched, Vec::new())]);
}

#[test]
fn a_lifecycle_observer_reads_the_entity_from_the_event() {
    let mut world = World::new();
    world.init_resource::<Runs>();
    world.add_observer(|add: On<Add<C>>, mut runs: ResMut<Runs>| {
        let event: &AddEvent = add.event();
        assert_eq!(event.entity, add.entity);
        assert_eq!(crate::event::EntityEvent::event_target(event), add.entity);
        runs.0.push((add.entity, Vec::new()));
    });
    let e = world.spawn(C).id();
    assert_eq!(take_runs(&mut world), [(e, Vec::new())]);
}

#[test]
fn the_bare_lifecycle_event_is_a_pattern_of_no_component_and_is_refused() {
    let mut world = World::new();
    let message = catch_unwind(AssertUnwindSafe(|| {
        world.add_observer(|_: On<RemoveEvent>| {});
    }))
    .expect_err("no component named");
    let message = crate::utils::panic_message(&*message)
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("no component"), "{message}");
    assert!(message.contains("RemoveEvent"), "{message}");
}

#[derive(Event, Debug, PartialEq)]
struct Hit {
    damage: u32,
}

#[derive(Resource, Default)]
struct Seen(Vec<u32>);

#[test]
fn a_custom_event_derefs_and_its_changes_reach_later_observers() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|mut hit: On<Hit>, mut seen: ResMut<Seen>| {
        seen.0.push(hit.damage);
        hit.damage *= 2;
    });
    world.add_observer(|mut hit: On<Hit>, mut seen: ResMut<Seen>| {
        seen.0.push(hit.event().damage);
        hit.event_mut().damage += 1;
        let _: &GlobalTrigger = hit.trigger();
    });
    let mut hit = Hit { damage: 3 };
    world.trigger_ref(&mut hit);
    assert_eq!(world.resource::<Seen>().0, [3, 6]);
    assert_eq!(hit, Hit { damage: 7 });
    world.trigger(Hit { damage: 1 });
    assert_eq!(world.resource::<Seen>().0, [3, 6, 1, 2], "a fresh event");
}

#[test]
fn changing_the_trigger_changes_neither_which_observers_run_nor_the_next_event() {
    static EMPTY: [ComponentId; 0] = [];
    let mut world = World::new();
    world.init_resource::<Runs>();
    let (a, b, _) = ids(&mut world);
    world.add_observer(|mut add: On<Add<A>>, mut runs: ResMut<Runs>| {
        runs.0.push((add.entity, add.trigger().components.to_vec()));
        add.trigger_mut().components = &EMPTY;
    });
    world.add_observer(|add: On<Add<(A, B)>>, mut runs: ResMut<Runs>| {
        runs.0.push((add.entity, add.trigger().components.to_vec()));
    });
    world.add_observer(|add: On<Add<B>>, mut runs: ResMut<Runs>| {
        let trigger: &EntityComponentsTrigger = add.trigger();
        runs.0.push((add.entity, trigger.components.to_vec()));
    });
    let e = world.spawn((A, B)).id();
    let runs = take_runs(&mut world);
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert_eq!(sorted(runs[0].1.clone()), sorted(vec![a, b]));
    assert!(runs[1..]
        .iter()
        .all(|(entity, ids)| *entity == e && ids.is_empty()));
    let f = world.spawn(A).id();
    assert_eq!(take_runs(&mut world)[..2], [(f, vec![a]), (f, vec![])]);
}

#[test]
fn a_panicking_bundle_pattern_observer_runs_again_on_the_next_operation() {
    #[derive(Resource, Default)]
    struct Count(u32);
    let mut world = World::new();
    world.init_resource::<Count>();
    world.add_observer(|_: On<Insert<(A, B)>>, mut count: ResMut<Count>| {
        count.0 += 1;
        if count.0 == 1 {
            panic!("first insert");
        }
    });
    let result = catch_unwind(AssertUnwindSafe(|| world.spawn((A, B)).id()));
    assert!(result.is_err());
    assert_eq!(world.resource::<Count>().0, 1, "once, then the panic");
    assert_eq!(world.query::<(&A, &B)>().iter(&world).count(), 1);
    world.spawn((A, B));
    assert_eq!(world.resource::<Count>().0, 2);
    world.spawn(B);
    assert_eq!(world.resource::<Count>().0, 3);
}

/// A hand-written pattern naming components of a custom event.
struct HitsOn;

impl crate::event::EventPattern for HitsOn {
    type Event = Hit;
    type Components = A;
}

#[test]
fn a_custom_event_pattern_naming_components_is_refused_naming_it() {
    let mut world = World::new();
    let message = catch_unwind(AssertUnwindSafe(|| {
        world.add_observer(|_: On<HitsOn>| {});
    }))
    .expect_err("custom events watch no component");
    let message = crate::utils::panic_message(&*message)
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("HitsOn"), "{message}");
    assert!(message.contains("Hit`"), "{message}");
    assert!(message.contains("lifecycle patterns"), "{message}");
}

#[test]
fn changing_a_lifecycle_event_does_not_reroute_entity_observers() {
    let mut world = World::new();
    world.init_resource::<Runs>();
    world.add_observer(|mut add: On<Add<C>>| add.entity = Entity::PLACEHOLDER);
    let e = world.spawn(A).id();
    world
        .entity_mut(e)
        .observe(|add: On<Add<C>>, mut runs: ResMut<Runs>| {
            runs.0.push((add.entity, Vec::new()));
        });
    world.entity_mut(e).insert(C);
    // The later observer sees the change, and still runs for `e`.
    assert_eq!(take_runs(&mut world), [(Entity::PLACEHOLDER, Vec::new())]);
}
