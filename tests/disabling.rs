//! Entity disabling: `Disabled`, custom disabling components,
//! `DefaultQueryFilters`, and the ways a query mentions a disabling
//! component (`With`, `Without`, data terms, `Has`, `Allow`).

use ecs::entity_disabling::{DefaultQueryFilters, Disabled};
use ecs::prelude::*;
use ecs::query::Allow;

#[derive(Component)]
struct Dummy;

#[derive(Component)]
struct CustomDisabled;

#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseDisabled;

/// 1 plain entity, 2 with `Disabled`, 4 with `CustomDisabled`, 8 with
/// both: every count below names the groups a query sees.
fn world_of_groups() -> World {
    let mut world = World::new();
    world.register_disabling_component::<CustomDisabled>();
    world.spawn(Dummy);
    world.spawn_batch((0..2).map(|_| (Dummy, Disabled)));
    world.spawn_batch((0..4).map(|_| (Dummy, CustomDisabled)));
    world.spawn_batch((0..8).map(|_| (Dummy, Disabled, CustomDisabled)));
    world
}

#[test]
fn queries_see_only_the_disabling_components_they_mention() {
    let mut world = world_of_groups();
    assert_eq!(world.query::<&Dummy>().iter(&world).count(), 1);
    assert_eq!(
        world
            .query_filtered::<Entity, With<Dummy>>()
            .iter(&world)
            .count(),
        1
    );
    assert_eq!(
        world
            .query_filtered::<&Dummy, With<Disabled>>()
            .iter(&world)
            .count(),
        2
    );
    assert_eq!(world.query::<(&Dummy, &Disabled)>().iter(&world).count(), 2);
    assert_eq!(
        world
            .query::<(&Dummy, Has<Disabled>)>()
            .iter(&world)
            .count(),
        3
    );
    assert_eq!(
        world
            .query_filtered::<&Dummy, Allow<Disabled>>()
            .iter(&world)
            .count(),
        3
    );
    assert_eq!(
        world
            .query_filtered::<&Dummy, With<CustomDisabled>>()
            .iter(&world)
            .count(),
        4
    );
    assert_eq!(
        world
            .query::<(&Dummy, Has<CustomDisabled>)>()
            .iter(&world)
            .count(),
        5
    );
    assert_eq!(
        world
            .query_filtered::<&Dummy, (With<Disabled>, With<CustomDisabled>)>()
            .iter(&world)
            .count(),
        8
    );
    assert_eq!(
        world
            .query_filtered::<&Dummy, (Allow<Disabled>, Allow<CustomDisabled>)>()
            .iter(&world)
            .count(),
        15
    );
    assert_eq!(
        world
            .query::<(&Dummy, Has<Disabled>, Has<CustomDisabled>)>()
            .iter(&world)
            .count(),
        15
    );
    // A `Without` mentions the component too: it sees what it asks for.
    assert_eq!(
        world
            .query_filtered::<&Dummy, (Without<Disabled>, Allow<CustomDisabled>)>()
            .iter(&world)
            .count(),
        5
    );
}

#[test]
fn an_optional_read_is_not_a_mention() {
    // As in bevy: a read alone does not count, or `EntityRef` would
    // mention every component.
    let mut world = world_of_groups();
    assert_eq!(
        world
            .query::<(&Dummy, Option<&Disabled>)>()
            .iter(&world)
            .count(),
        1
    );
}

#[test]
fn disabled_entities_stay_reachable_directly() {
    let mut world = World::new();
    let e = world.spawn((Dummy, Disabled)).id();
    assert!(world.get::<Dummy>(e).is_some());
    assert!(world.query::<&Dummy>().get(&world, e).is_err());
    world.entity_mut(e).remove::<Disabled>();
    assert!(world.query::<&Dummy>().get(&world, e).is_ok());
}

#[test]
fn archetypes_created_after_the_state_are_filtered_too() {
    let mut world = World::new();
    let mut query = world.query::<&Dummy>();
    assert_eq!(query.iter(&world).count(), 0);
    let e = world.spawn(Dummy).id();
    world.spawn((Dummy, Disabled));
    assert_eq!(query.iter(&world).collect::<Vec<_>>().len(), 1);
    world.entity_mut(e).insert(Disabled);
    assert_eq!(query.iter(&world).count(), 0);
    assert_eq!(query.iter(&world).len(), 0);
}

#[test]
fn removing_the_resource_shows_everything() {
    let mut world = world_of_groups();
    world.resource_scope(|world: &mut World, _: Mut<DefaultQueryFilters>| {
        assert_eq!(world.query::<&Dummy>().iter(world).count(), 15);
    });
    world.insert_resource(DefaultQueryFilters::empty());
    assert_eq!(world.query::<&Dummy>().iter(&world).count(), 15);
}

#[test]
fn the_default_resource_lists_disabled() {
    let mut world = World::new();
    let disabled = world.register_component::<Disabled>();
    let ids: Vec<_> = world
        .resource::<DefaultQueryFilters>()
        .disabling_ids()
        .collect();
    assert_eq!(ids, [disabled]);
    world.register_disabling_component::<CustomDisabled>();
    world.register_disabling_component::<CustomDisabled>();
    assert_eq!(
        world
            .resource::<DefaultQueryFilters>()
            .disabling_ids()
            .count(),
        2
    );
}

#[test]
fn systems_skip_disabled_entities() {
    #[derive(Resource, Default)]
    struct Seen(usize, usize);
    fn count(
        all: Query<&Dummy>,
        with_disabled: Query<&Dummy, Allow<Disabled>>,
        mut seen: ResMut<Seen>,
    ) {
        *seen = Seen(all.iter().count(), with_disabled.iter().count());
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.spawn(Dummy);
    world.spawn((Dummy, Disabled));
    let mut schedule = Schedule::default();
    schedule.add_systems(count);
    schedule.run(&mut world);
    assert_eq!(
        (world.resource::<Seen>().0, world.resource::<Seen>().1),
        (1, 2)
    );
}

#[test]
fn a_disabled_filter_makes_mutable_queries_disjoint() {
    // `Query<&mut Dummy>` leaves out `Disabled` entities, so it can sit
    // beside a query of exactly those.
    fn both(mut a: Query<&mut Dummy>, mut b: Query<&mut Dummy, With<Disabled>>) {
        for _ in &mut a {}
        for _ in &mut b {}
    }
    let mut world = World::new();
    world.spawn((Dummy, Disabled));
    world.run_system_once(both).unwrap();
}

#[test]
#[should_panic(
    expected = "disabling component `disabling::SparseDisabled` is stored in sparse sets"
)]
fn a_sparse_disabling_component_is_refused() {
    World::new().register_disabling_component::<SparseDisabled>();
}

#[test]
#[should_panic(expected = "cannot leave it out")]
fn a_dense_query_refuses_a_sparse_disabling_id() {
    let mut world = World::new();
    let id = world.register_component::<SparseDisabled>();
    world
        .resource_mut::<DefaultQueryFilters>()
        .register_disabling_component(id);
    world.query::<&Dummy>();
}

#[test]
fn a_sparse_query_honours_a_sparse_disabling_id() {
    #[derive(Component)]
    #[component(storage = "SparseSet")]
    struct Marker;
    let mut world = World::new();
    let id = world.register_component::<SparseDisabled>();
    world
        .resource_mut::<DefaultQueryFilters>()
        .register_disabling_component(id);
    world.spawn((Dummy, Marker));
    world.spawn((Dummy, Marker, SparseDisabled));
    assert_eq!(world.query::<(&Dummy, &Marker)>().iter(&world).count(), 1);
}
