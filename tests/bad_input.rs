//! Bad input: one test per error and panic the public API documents,
//! asserting that what the user gets names the entity, component,
//! resource, query or system at fault — and that the world is unchanged
//! and consistent afterwards. Inputs that are refused quietly (a `bool`,
//! an `Option`, a command that does nothing) are here too.
//! docs/RELIABILITY.md lists every test as one row of a table: input, what
//! the user gets.

mod common;

use std::any::type_name;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use common::integrity::integrity;
use common::panics::{expect_panic, panic_message};
use ecs::component::RequiredComponentsRegistrar;
use ecs::entity::{EntityNotSpawnedError, EntityValidButNotSpawnedError, InvalidEntityError};
use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::query::{QueryEntityError, QuerySingleError};
use ecs::schedule::ScheduleBuildError;
use ecs::system::CommandQueue;
use ecs::world::error::{EntityDespawnError, EntityMutableFetchError};
use ecs::world::DeferredWorld;

// ---- fixtures --------------------------------------------------------------------------

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Health(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct Stunned(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Mana(u32);

#[derive(Resource, Debug, Default, PartialEq)]
struct Score(u32);

/// A drop-counted component: shows that refused input leaks nothing and
/// drops nothing twice.
#[derive(Component)]
struct Counted(Arc<Mutex<u32>>);

impl Drop for Counted {
    fn drop(&mut self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }
}

/// Asserts that `msg` contains every one of `parts`.
#[track_caller]
fn assert_names(msg: &str, parts: &[&str]) {
    for part in parts {
        assert!(msg.contains(part), "message does not name `{part}`: {msg}");
    }
}

/// A world with one live entity and one despawned (stale) handle.
fn world_with_stale() -> (World, Entity, Entity) {
    let mut world = World::new();
    let stale = world.spawn(Health(1)).id();
    world.despawn(stale);
    let live = world.spawn((Health(2), Stunned(3))).id();
    (world, live, stale)
}

// ---- entities ---------------------------------------------------------------------------

#[test]
fn entity_of_a_despawned_entity_panics_naming_it() {
    let (world, live, stale) = world_with_stale();
    // The index was reused by `live`; the stale handle still names itself.
    assert_eq!(live.index(), stale.index());
    let msg = expect_panic(|| world.entity(stale).id());
    assert_names(
        &msg,
        &[
            &format!("{stale:?}"),
            "does not exist: it was despawned",
            &format!("index {} is now at generation 2", stale.index()),
        ],
    );
    assert_eq!(world.entity(live).get::<Health>(), Some(&Health(2)));
}

#[test]
fn entity_mut_of_a_never_spawned_entity_panics_naming_it() {
    let mut world = World::new();
    let ghost = Entity::from_raw(42);
    let msg = expect_panic(|| world.entity_mut(ghost).id());
    assert_names(&msg, &["42v1", "does not exist: it was never spawned"]);
    // A generation ahead of the index's is a generation mismatch.
    let ahead = Entity::from_bits(7 << 32 | 3);
    let msg = expect_panic(|| world.entity(ahead).id());
    assert_names(
        &msg,
        &[
            "3v7",
            "never spawned",
            "generation mismatch",
            "generation 1",
        ],
    );
    assert_eq!(world.entity_count(), 0);
    integrity(&world);
}

#[test]
fn get_entity_of_a_reserved_entity_says_it_is_not_spawned_yet() {
    let mut world = World::new();
    let reserved = world.entities().reserve_entity();
    let err = world.get_entity(reserved).unwrap_err();
    assert_eq!(
        err,
        EntityNotSpawnedError::ValidButNotSpawned(EntityValidButNotSpawnedError {
            entity: reserved
        })
    );
    assert_names(
        &err.to_string(),
        &[&format!("{reserved}"), "not spawned yet"],
    );
    // `get_entity_mut` spawns reserved entities first.
    assert!(world.get_entity_mut(reserved).is_ok());
}

#[test]
fn get_entity_and_get_entity_mut_return_an_error_naming_the_entity() {
    let (mut world, _, stale) = world_with_stale();
    let err = world.get_entity(stale).unwrap_err();
    let not_spawned = EntityNotSpawnedError::Invalid(InvalidEntityError {
        entity: stale,
        current_generation: stale.generation() + 1,
    });
    assert_eq!(err, not_spawned);
    assert_eq!(err.entity(), stale);
    assert_names(&err.to_string(), &[&format!("{stale:?}"), "was despawned"]);
    let err = world.get_entity_mut(stale).unwrap_err();
    assert_eq!(err, EntityMutableFetchError::NotSpawned(not_spawned));
    assert_eq!(err.to_string(), not_spawned.to_string());
    let err = world.try_despawn(stale).unwrap_err();
    assert_eq!(err, EntityDespawnError(not_spawned));
    assert_names(
        &err.to_string(),
        &["could not despawn", &format!("{stale:?}"), "was despawned"],
    );
}

#[test]
fn a_stale_handle_never_reaches_the_entity_that_reused_its_index() {
    let (mut world, live, stale) = world_with_stale();
    assert!(stale.generation() < live.generation());
    assert!(!world.contains_entity(stale));
    assert_eq!(world.get::<Health>(stale), None);
    assert!(world.get_mut::<Health>(stale).is_none());
    assert!(
        !world.despawn(stale),
        "despawn of a stale handle returns false"
    );
    let mut q = world.query::<&Health>();
    assert!(matches!(
        q.get(&world, stale),
        Err(QueryEntityError::NoSuchEntity(e)) if e == stale
    ));
    assert_eq!(world.get::<Health>(live), Some(&Health(2)));
    assert_eq!(world.entity_count(), 1);
    integrity(&world);
}

#[test]
fn entity_from_bits_with_a_zero_generation_panics() {
    // `from_bits` is a `const fn`, so its message cannot format the value.
    let msg = expect_panic(|| Entity::from_bits(7));
    assert_names(&msg, &["invalid entity bits", "generation"]);
    assert_eq!(Entity::try_from_bits(7), None);
    let e = Entity::from_raw(7);
    assert_eq!(Entity::from_bits(e.to_bits()), e);
}

// ---- bundles ----------------------------------------------------------------------------

#[test]
fn a_bundle_naming_a_component_twice_panics_naming_it() {
    let drops = Arc::new(Mutex::new(0));
    let mut world = World::new();
    let e = world.spawn(Mana(1)).id();
    let health = type_name::<Health>();
    let counted = type_name::<Counted>();

    let msg = expect_panic(|| world.spawn((Health(1), Health(2))).id());
    assert_names(&msg, &["duplicate component", health]);
    // Nested, through insert, with drop-counted values: the refused
    // bundle's values are dropped once, the entity is unchanged.
    let msg = expect_panic(|| {
        world.entity_mut(e).insert((
            (Counted(drops.clone()), Health(1)),
            (Stunned(2), Counted(drops.clone())),
        ));
    });
    assert_names(&msg, &["duplicate component", counted]);
    assert_eq!(*drops.lock().unwrap(), 2, "each refused value dropped once");
    let msg = expect_panic(|| {
        world.entity_mut(e).remove::<(Stunned, Stunned)>();
    });
    assert_names(&msg, &["duplicate component", type_name::<Stunned>()]);
    let msg = expect_panic(|| {
        world
            .spawn_batch((0..3).map(|i| (Mana(i), Mana(i))))
            .count()
    });
    assert_names(&msg, &["duplicate component", type_name::<Mana>()]);
    assert_eq!(world.entity_count(), 1);
    assert_eq!(world.get::<Mana>(e), Some(&Mana(1)));
    assert!(!world.entity(e).contains::<Health>());
    integrity(&world);
}

// ---- resources ----------------------------------------------------------------------------

#[test]
fn resource_and_resource_mut_of_an_absent_resource_panic_naming_it() {
    let mut world = World::new();
    let score = type_name::<Score>();
    let msg = expect_panic(|| world.resource::<Score>().0);
    assert_names(&msg, &[score, "does not exist"]);
    let msg = expect_panic(|| world.resource_mut::<Score>().0);
    assert_names(&msg, &[score, "does not exist"]);
    // Removed resources are absent again.
    world.insert_resource(Score(1));
    assert_eq!(world.remove_resource::<Score>(), Some(Score(1)));
    let msg = expect_panic(|| world.resource::<Score>().0);
    assert_names(&msg, &[score]);
}

#[test]
fn the_fallible_resource_accessors_return_none() {
    let mut world = World::new();
    assert!(world.get_resource::<Score>().is_none());
    assert!(world.get_resource_mut::<Score>().is_none());
    assert!(world.remove_resource::<Score>().is_none());
    assert!(!world.contains_resource::<Score>());
}

#[test]
fn resource_scope_of_an_absent_resource_panics_naming_it() {
    let mut world = World::new();
    let msg = expect_panic(|| world.resource_scope(|_, s: Mut<Score>| s.0));
    assert_names(&msg, &[type_name::<Score>(), "does not exist"]);
}

/// Inside `resource_scope::<R>`, `R` is out of the world: asking for it
/// (through the world, a nested scope, or a system) says so, instead of
/// advising to insert it.
#[test]
fn asking_for_a_resource_its_scope_holds_panics_saying_so() {
    fn read_score(score: Res<Score>) -> u32 {
        score.0
    }
    let mut world = World::new();
    world.insert_resource(Score(1));
    type Attempt = (&'static str, fn(&mut World));
    let attempts: [Attempt; 5] = [
        ("resource", |w| assert_eq!(w.resource::<Score>().0, 0)),
        ("resource_mut", |w| {
            assert_eq!(w.resource_mut::<Score>().0, 0)
        }),
        ("resource_ref", |w| {
            assert_eq!(w.resource_ref::<Score>().0, 0)
        }),
        ("nested scope", |w| w.resource_scope(|_, _: Mut<Score>| {})),
        ("system", |w| {
            assert_eq!(w.run_system_once(read_score).unwrap(), 0)
        }),
    ];
    for (what, attempt) in attempts {
        let msg = expect_panic(|| {
            world.resource_scope(|world, mut s: Mut<Score>| {
                s.0 += 1;
                attempt(world);
            })
        });
        assert_names(&msg, &[type_name::<Score>(), "taken out", "resource_scope"]);
        assert!(!msg.contains("insert_resource"), "{what}: {msg}");
        if what == "system" {
            assert_names(&msg, &["read_score"]);
        }
    }
    // Every scope gave its value back, changed.
    assert_eq!(world.resource::<Score>(), &Score(6));
    // Outside any scope, an absent resource gets the usual advice.
    world.remove_resource::<Score>();
    let msg = expect_panic(|| world.resource::<Score>().0);
    assert_names(&msg, &[type_name::<Score>(), "insert_resource"]);
}

#[test]
fn resource_scope_reinserting_its_resource_panics_naming_it() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    let msg = expect_panic(|| {
        world.resource_scope(|world, mut s: Mut<Score>| {
            s.0 = 5;
            world.insert_resource(Score(9));
        })
    });
    assert_names(&msg, &[type_name::<Score>(), "resource_scope"]);
    // The scoped value was kept.
    assert_eq!(world.resource::<Score>(), &Score(5));
}

// ---- queries ----------------------------------------------------------------------------

#[test]
fn query_get_errors_name_the_entity() {
    let (mut world, live, stale) = world_with_stale();
    let bare = world.spawn(Mana(1)).id();
    let mut q = world.query::<(&Health, &Stunned)>();
    let err = q.get(&world, stale).unwrap_err();
    assert_eq!(err, QueryEntityError::NoSuchEntity(stale));
    assert_names(&err.to_string(), &[&format!("{stale:?}"), "does not exist"]);
    let err = q.get(&world, bare).unwrap_err();
    assert_eq!(err, QueryEntityError::QueryDoesNotMatch(bare));
    assert_names(&err.to_string(), &[&format!("{bare:?}"), "does not match"]);
    let mut qm = world.query::<&mut Health>();
    let err = qm.get_mut(&mut world, bare).map(|_| ()).unwrap_err();
    assert_eq!(err, QueryEntityError::QueryDoesNotMatch(bare));
    assert!(q.get(&world, live).is_ok());
    // A filter that rejects the entity is a mismatch too.
    let mut qf = world.query_filtered::<&Health, Without<Stunned>>();
    assert_eq!(
        qf.get(&world, live).unwrap_err(),
        QueryEntityError::QueryDoesNotMatch(live)
    );
}

#[test]
fn query_get_many_mut_errors_name_the_entity() {
    let (mut world, live, stale) = world_with_stale();
    let other = world.spawn(Health(5)).id();
    let bare = world.spawn(Mana(1)).id();
    let mut q = world.query::<&mut Health>();
    let err = q
        .get_many_mut(&mut world, [live, live])
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err, QueryEntityError::AliasedMutability(live));
    assert_names(&err.to_string(), &[&format!("{live:?}"), "twice"]);
    let err = q
        .get_many_mut(&mut world, [live, stale])
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err, QueryEntityError::NoSuchEntity(stale));
    let err = q
        .get_many_mut(&mut world, [bare, live])
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err, QueryEntityError::QueryDoesNotMatch(bare));
    // A refused call changes nothing; a valid one hands out both.
    let [mut a, mut b] = q.get_many_mut(&mut world, [live, other]).unwrap();
    a.0 += 10;
    b.0 += 10;
    assert_eq!(world.get::<Health>(live), Some(&Health(12)));
    assert_eq!(world.get::<Health>(other), Some(&Health(15)));
}

#[test]
fn query_single_errors_name_the_query() {
    let mut world = World::new();
    let mut q = world.query::<&Health>();
    let err = q.single(&world).unwrap_err();
    assert!(matches!(err, QuerySingleError::NoEntities(_)));
    assert_names(
        &err.to_string(),
        &["no entity matches", type_name::<Health>()],
    );
    world.spawn(Health(1));
    assert_eq!(q.single(&world), Ok(&Health(1)));
    world.spawn(Health(2));
    let err = q.single(&world).unwrap_err();
    assert!(matches!(err, QuerySingleError::MultipleEntities(_)));
    assert_names(
        &err.to_string(),
        &["more than one entity", type_name::<Health>()],
    );
    let mut qm = world.query::<&mut Health>();
    let err = qm.single_mut(&mut world).map(|_| ()).unwrap_err();
    assert!(matches!(err, QuerySingleError::MultipleEntities(_)));
}

#[test]
fn conflicting_query_terms_panic_naming_the_component() {
    let mut world = World::new();
    let health = type_name::<Health>();
    let msg = expect_panic(|| world.query::<(&mut Health, &Health)>());
    assert_names(&msg, &[health]);
    let msg = expect_panic(|| world.query::<(&Health, &mut Health)>());
    assert_names(&msg, &[health]);
    let msg = expect_panic(|| world.query::<(&mut Health, &mut Health)>());
    assert_names(&msg, &[health]);
    let msg = expect_panic(|| world.query::<(&mut Stunned, Option<&Stunned>)>());
    assert_names(&msg, &[type_name::<Stunned>()]);
    let msg = expect_panic(|| world.query::<(Entity, (Ref<Mana>, &mut Mana))>());
    assert_names(&msg, &[type_name::<Mana>()]);
    // Not conflicts: two reads, a write beside a filter on it.
    world.query::<(&Health, &Health)>();
    world.query_filtered::<&mut Health, With<Health>>();
    world.query_filtered::<&mut Health, Changed<Health>>();
    world.query::<(&mut Health, Has<Health>)>();
}

#[test]
fn a_query_state_used_with_another_world_panics() {
    let mut a = World::new();
    let mut b = World::new();
    a.spawn(Health(1));
    b.spawn(Health(2));
    let mut q = a.query::<&Health>();
    let msg = expect_panic(|| q.iter(&b).count());
    assert_names(&msg, &[type_name::<Health>(), "world"]);
    let msg = expect_panic(|| q.iter_mut(&mut b).count());
    assert_names(&msg, &[type_name::<Health>(), "world"]);
    let e = b.spawn(Health(3)).id();
    let msg = expect_panic(|| q.get(&b, e).map(|h| h.0));
    assert_names(&msg, &[type_name::<Health>()]);
    // Still fine with its own world.
    assert_eq!(q.iter(&a).count(), 1);
}

#[test]
fn par_iter_with_a_zero_batch_size_panics() {
    let mut world = World::new();
    world.spawn(Health(1));
    let mut q = world.query::<&Health>();
    let msg = expect_panic(|| q.par_iter(&world).batching(0).for_each(|_| {}));
    assert_names(&msg, &["batch size"]);
}

/// A hand-written query term whose `table_columns` pushes one column slot
/// where it declares two.
struct Miscounted;

// SAFETY: reads and writes nothing; matches every archetype. Its column
// slot count is wrong on purpose: the state must refuse it.
unsafe impl ecs::query::WorldQuery for Miscounted {
    type Fetch<'w> = ();
    type State = ();
    const IS_DENSE: bool = true;
    const TABLE_COLUMNS: usize = 2;

    unsafe fn init_fetch<'w>(
        _: ecs::world::UnsafeWorldCell<'w>,
        _: &(),
        _: ecs::change_detection::Tick,
        _: ecs::change_detection::Tick,
    ) {
    }
    unsafe fn set_archetype(
        _: &mut (),
        _: &(),
        _: &ecs::archetype::Archetype,
        _: &ecs::storage::Table,
    ) {
    }
    unsafe fn set_table(_: &mut (), _: &(), _: &ecs::storage::Table) {}
    fn table_columns(_: &(), _: &ecs::storage::Table, out: &mut Vec<u32>) {
        out.push(ecs::query::NO_COLUMN);
    }
    fn update_component_access(_: &(), _: &mut ecs::query::FilteredAccess) {}
    fn init_state(_: &mut World) {}
    fn matches_component_set(_: &(), _: &impl Fn(ecs::component::ComponentId) -> bool) -> bool {
        true
    }
}

// SAFETY: reads nothing.
unsafe impl ecs::query::QueryData for Miscounted {
    const IS_READ_ONLY: bool = true;
    type ReadOnly = Self;
    type Item<'w> = ();
    unsafe fn fetch<'w>(
        _: &mut Self::Fetch<'w>,
        _: Entity,
        _: ecs::storage::TableRow,
    ) -> Self::Item<'w> {
    }
}

// SAFETY: reads nothing.
unsafe impl ecs::query::ReadOnlyQueryData for Miscounted {}

#[test]
fn a_query_term_caching_the_wrong_number_of_column_slots_panics_naming_the_query() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    let msg = expect_panic(|| world.query::<(&Health, Miscounted)>().iter(&world).count());
    assert_names(
        &msg,
        &["Miscounted", "TABLE_COLUMNS", type_name::<Health>()],
    );
    // A state that outlives the panic (as a system's does when a schedule
    // catches it) refuses again, rather than walking a half-built cache.
    let mut other = World::new();
    let mut q = other.query::<(&Health, Miscounted)>();
    other.spawn(Health(2));
    for _ in 0..2 {
        let msg = expect_panic(|| q.iter(&other).count());
        assert_names(&msg, &["Miscounted", "TABLE_COLUMNS"]);
        assert!(q.matched_tables().is_empty());
    }
    integrity(&other);
    // The world is untouched, and a correct query still works.
    integrity(&world);
    assert_eq!(world.get::<Health>(e), Some(&Health(1)));
    assert_eq!(world.query::<&Health>().iter(&world).count(), 1);
}

// ---- systems and schedules --------------------------------------------------------------

fn write_and_read(_: Query<&mut Health>, _: Query<&Health>) {}

fn res_and_res_mut(_: Res<Score>, _: ResMut<Score>) {}

fn disjoint(_: Query<&mut Health, With<Stunned>>, _: Query<&mut Health, Without<Stunned>>) {}

#[test]
fn conflicting_system_parameters_panic_naming_system_and_component() {
    let mut world = World::new();
    world.init_resource::<Score>();
    let msg = expect_panic(|| world.run_system_once(write_and_read).unwrap());
    assert_names(
        &msg,
        &["write_and_read", type_name::<Health>(), "conflicts"],
    );
    assert!(msg.starts_with("error[B0001]: "), "{msg}");
    // Resources clash under bevy's resource code.
    let msg = expect_panic(|| world.run_system_once(res_and_res_mut).unwrap());
    assert_names(&msg, &["res_and_res_mut", type_name::<Score>()]);
    assert!(msg.starts_with("error[B0002]: "), "{msg}");
    // In a schedule, the panic comes when it is initialised.
    let mut schedule = Schedule::default();
    schedule.add_systems(write_and_read);
    let msg = expect_panic(|| schedule.run(&mut world));
    assert_names(
        &msg,
        &["error[B0001]", "write_and_read", type_name::<Health>()],
    );
    // Disjoint filters make the same pair fine.
    world.run_system_once(disjoint).unwrap();
    integrity(&world);
}

fn needs_score(s: Res<Score>) -> u32 {
    s.0
}

fn needs_score_mut(mut s: ResMut<Score>) {
    s.0 += 1;
}

fn maybe_score(s: Option<Res<Score>>) -> Option<u32> {
    s.map(|s| s.0)
}

#[test]
fn a_missing_resource_in_a_system_panics_naming_it_and_the_system() {
    let mut world = World::new();
    let msg = expect_panic(|| world.run_system_once(needs_score).unwrap());
    assert_names(
        &msg,
        &[type_name::<Score>(), "needs_score", "does not exist"],
    );
    let msg = expect_panic(|| world.run_system_once(needs_score_mut).unwrap());
    assert_names(&msg, &[type_name::<Score>(), "needs_score_mut"]);
    let mut schedule = Schedule::default();
    schedule.add_systems(needs_score_mut);
    let msg = expect_panic(|| schedule.run(&mut world));
    assert_names(&msg, &[type_name::<Score>(), "needs_score_mut"]);
    // `Option<Res<R>>` is how a system says "if present".
    assert_eq!(world.run_system_once(maybe_score).unwrap(), None);
    world.insert_resource(Score(4));
    assert_eq!(world.run_system_once(maybe_score).unwrap(), Some(4));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>().0, 5);
}

fn first() {}
fn second() {}
fn third() {}

#[test]
fn a_cycle_in_a_schedule_panics_naming_its_systems() {
    let mut world = World::new();
    let mut schedule = Schedule::default();
    schedule.add_systems((first.after(third), second.after(first), third.after(second)));
    let msg = expect_panic(|| schedule.run(&mut world));
    assert_names(&msg, &["cycle", "first", "second", "third"]);
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems((first.before(second), second.before(first)));
    let error = schedule.initialize(&mut world).unwrap_err();
    assert!(
        matches!(
            error,
            ScheduleBuildError::DependencyCycle(_) | ScheduleBuildError::FlatDependencyCycle(_)
        ),
        "{error:?}"
    );
    assert_names(&error.to_string(), &["cycle", "first", "second"]);
    // A failed build leaves nothing behind: fixing nothing fails again.
    assert_eq!(schedule.initialize(&mut world), Err(error));
}

#[test]
fn ordering_against_a_system_not_in_the_schedule_panics_naming_it() {
    let mut world = World::new();
    let mut schedule = Schedule::default();
    schedule.add_systems(first.after(second));
    let msg = expect_panic(|| schedule.run(&mut world));
    assert_names(&msg, &["first", "second", "not in this schedule"]);
}

#[test]
fn a_system_run_before_initialize_panics_naming_it() {
    let mut world = World::new();
    let mut system = IntoSystem::into_system(first);
    let msg = expect_panic(|| system.run((), &mut world));
    assert_names(&msg, &["first", "initialize"]);
}

#[test]
fn a_system_initialised_for_another_world_panics_naming_it() {
    let mut a = World::new();
    let mut b = World::new();
    let mut system = IntoSystem::into_system(write_and_read_ok);
    system.initialize(&mut a);
    let msg = expect_panic(|| system.initialize(&mut b));
    assert_names(&msg, &["write_and_read_ok", "another world"]);
}

fn write_and_read_ok(mut q: Query<&mut Health>) {
    for mut h in &mut q {
        h.0 += 1;
    }
}

#[test]
fn a_schedule_run_on_a_second_world_panics_naming_its_systems() {
    // Component ids differ between the two worlds (registration order), so
    // a schedule initialised for `a` must not touch `b`'s columns with
    // `a`'s ids.
    let mut a = World::new();
    a.register_component::<Health>();
    a.register_component::<Mana>();
    let ea = a.spawn((Health(1), Mana(100))).id();
    let mut b = World::new();
    b.register_component::<Mana>();
    b.register_component::<Health>();
    let eb = b.spawn((Mana(200), Health(2))).id();
    let mut schedule = Schedule::default();
    schedule.add_systems(write_and_read_ok);
    schedule.run(&mut a);
    assert_eq!(a.get::<Health>(ea), Some(&Health(2)));
    let msg = expect_panic(|| schedule.run(&mut b));
    assert_names(&msg, &["write_and_read_ok", "another world"]);
    assert_eq!(b.get::<Mana>(eb), Some(&Mana(200)));
    assert_eq!(b.get::<Health>(eb), Some(&Health(2)));
    integrity(&b);
    // Still fine with its own world.
    schedule.run(&mut a);
    assert_eq!(a.get::<Health>(ea), Some(&Health(3)));
}

/// A resource of `b` with `Score`'s layout, registered first, so that it
/// gets the id `Score` has in `a`.
#[derive(Resource, Debug, PartialEq)]
struct Decoy(u32);

fn read_score(s: Res<Score>, mut seen: Local<Vec<u32>>) -> Vec<u32> {
    seen.push(s.0);
    seen.clone()
}

#[test]
fn a_system_with_res_run_on_a_second_world_panics_naming_it() {
    let mut a = World::new();
    a.insert_resource(Score(1));
    let mut b = World::new();
    b.insert_resource(Decoy(666));
    b.insert_resource(Score(2));

    // Through a schedule.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems(move |s: Res<Score>| sink.lock().unwrap().push(s.0));
    schedule.run(&mut a);
    match catch_unwind(AssertUnwindSafe(|| schedule.run(&mut b))) {
        Ok(()) => panic!(
            "ran on another world and saw {:?} (b's Score is 2)",
            seen.lock().unwrap()
        ),
        Err(payload) => assert_names(&panic_message(payload), &["another world"]),
    }

    // Through `System::run`.
    let mut system = IntoSystem::into_system(read_score);
    system.initialize(&mut a);
    assert_eq!(system.run((), &mut a).unwrap(), [1]);
    let result = catch_unwind(AssertUnwindSafe(|| system.run((), &mut b)));
    match result {
        Ok(seen) => panic!("ran on another world and saw {seen:?} (b's Score is 2)"),
        Err(payload) => assert_names(&panic_message(payload), &["read_score", "another world"]),
    }
}

// ---- commands ---------------------------------------------------------------------------

#[test]
fn commands_aimed_at_a_despawned_entity_report_or_do_nothing() {
    static REPORTED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    fn record(error: ecs::error::BevyError, _: ecs::error::ErrorContext) {
        REPORTED.lock().unwrap().push(error.to_string());
    }
    let drops = Arc::new(Mutex::new(0));
    let (mut world, live, stale) = world_with_stale();
    world.insert_resource(ecs::error::FallbackErrorHandler(record));
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    // `insert` and `insert_if_new` report to the error handler (which
    // panics by default), as in bevy; `remove` and `despawn` only warn.
    commands.entity(stale).insert(Counted(drops.clone()));
    commands.entity(stale).insert_if_new(Counted(drops.clone()));
    commands.entity(stale).remove::<Health>();
    commands.entity(stale).despawn();
    // The silenced form drops the report.
    commands
        .entity(stale)
        .queue_silenced(|mut e: EntityWorldMut| {
            e.insert(Mana(1));
        });
    // A spawned entity despawned, then aimed at, in the same queue.
    let gone = commands.spawn(Health(9)).id();
    commands.entity(gone).despawn();
    commands.entity(gone).insert(Counted(drops.clone()));
    queue.apply(&mut world);
    assert_eq!(
        *drops.lock().unwrap(),
        3,
        "each unapplied value dropped once"
    );
    let reported = std::mem::take(&mut *REPORTED.lock().unwrap());
    assert_eq!(reported.len(), 3, "{reported:?}");
    let counted = type_name::<Counted>();
    assert!(
        reported[0].contains(&format!("insert of `{counted}`")),
        "{reported:?}"
    );
    assert!(reported[0].contains(&format!("{stale:?}")), "{reported:?}");
    assert!(reported[1].contains("insert_if_new"), "{reported:?}");
    assert!(reported[2].contains(&format!("{gone:?}")), "{reported:?}");
    assert!(!world.contains_entity(stale) && !world.contains_entity(gone));
    assert_eq!(world.entity_count(), 1);
    assert_eq!(world.get::<Health>(live), Some(&Health(2)));
    integrity(&world);

    // With the default handler, the report is a panic naming the entity.
    let mut world = World::new();
    let stale = world.spawn_empty().id();
    world.despawn(stale);
    world.commands().entity(stale).insert(Mana(1));
    let message = expect_panic(|| world.flush());
    assert!(message.contains(&format!("{stale:?}")), "{message}");
    assert!(message.contains("insert of"), "{message}");
}

/// Commands recorded for world `a` name `a`'s entities (the spawned one
/// reserved in `a`); applied to `b` they would change whatever entity of
/// `b` has the same id.
#[test]
fn commands_recorded_for_one_world_refuse_another() {
    let mut a = World::new();
    let mut b = World::new();
    let in_a = a.spawn(Health(1)).id();
    let in_b = b.spawn(Health(10)).id();
    assert_eq!(in_a, in_b, "same id in both worlds");
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &a);
    commands.entity(in_a).insert(Mana(5));
    let spawned = commands.spawn(Health(2)).id();
    // Applying to `b`: refused, the queue kept, `b` untouched.
    let msg = expect_panic(|| queue.apply(&mut b));
    assert_names(
        &msg,
        &[
            "CommandQueue",
            &format!("{:?}", a.id()),
            &format!("{:?}", b.id()),
        ],
    );
    assert!(!queue.is_empty());
    assert_eq!(b.entity_count(), 1);
    assert!(b.get::<Mana>(in_b).is_none());
    integrity(&b);
    // `Commands` of `b` cannot add to the queue either.
    let msg = expect_panic(|| Commands::new(&mut queue, &b).insert_resource(Score(1)));
    assert_names(&msg, &["CommandQueue", &format!("{:?}", b.id())]);
    // Nor can it be appended to a queue holding `b`'s commands.
    let mut other = CommandQueue::default();
    Commands::new(&mut other, &b).entity(in_b).insert(Mana(50));
    let msg = expect_panic(|| other.append(&mut queue));
    assert_names(&msg, &["CommandQueue", "append"]);
    assert!(!queue.is_empty() && !other.is_empty());
    other.apply(&mut b);
    assert_eq!(b.get::<Mana>(in_b), Some(&Mana(50)));
    // Its own world takes it, then the empty queue serves any world.
    queue.apply(&mut a);
    assert_eq!(a.get::<Mana>(in_a), Some(&Mana(5)));
    assert_eq!(a.get::<Health>(spawned), Some(&Health(2)));
    assert!(b.get_resource::<Score>().is_none());
    Commands::new(&mut queue, &b).insert_resource(Score(3));
    queue.apply(&mut b);
    assert_eq!(b.resource::<Score>().0, 3);
    integrity(&a);
    integrity(&b);
}

// ---- panicking systems and observers -------------------------------------------------------

/// A system that panics in a schedule (either executor), and a command it
/// queued that panics when the schedule applies it: the panic that goes
/// on names the system.
#[test]
fn a_panicking_system_is_named_in_the_panic() {
    fn explode(_: Query<&Health>) {
        panic!("out of health");
    }
    fn queue_a_bad_command(mut commands: Commands) {
        commands.queue(|_: &mut World| panic!("bad command"));
    }
    for single_threaded in [false, true] {
        let new_schedule = || match single_threaded {
            true => Schedule::single_threaded(),
            false => Schedule::default(),
        };
        let mut world = World::new();
        let mut schedule = new_schedule();
        schedule.add_systems(explode);
        let msg = expect_panic(|| schedule.run(&mut world));
        assert_names(
            &msg,
            &[
                "system `",
                std::any::type_name_of_val(&explode),
                "` panicked: out of health",
            ],
        );
        let mut schedule = new_schedule();
        schedule.add_systems(queue_a_bad_command);
        let msg = expect_panic(|| schedule.run(&mut world));
        assert_names(
            &msg,
            &[
                "the commands of system `",
                std::any::type_name_of_val(&queue_a_bad_command),
                "` panicked: bad command",
            ],
        );
        integrity(&world);
    }
}

#[derive(Event)]
struct Hit(u32);

/// An observer that panics: the panic names it, the commands it queued
/// in that run are dropped unapplied, and it stays registered (before, it
/// was silently disabled for good).
#[test]
fn a_panicking_observer_is_named_and_stays_registered() {
    fn fragile(hit: On<Hit>, mut commands: Commands) {
        commands.spawn(Counted(Arc::clone(&DROPS)));
        commands.insert_resource(Score(hit.event().0));
        if hit.event().0 == 0 {
            panic!("no damage");
        }
    }
    static DROPS: std::sync::LazyLock<Arc<Mutex<u32>>> =
        std::sync::LazyLock::new(|| Arc::new(Mutex::new(0)));
    let mut world = World::new();
    world.add_observer(fragile);
    let msg = expect_panic(|| world.trigger(Hit(0)));
    assert_names(
        &msg,
        &[
            "observer `",
            std::any::type_name_of_val(&fragile),
            "` panicked: no damage",
        ],
    );
    assert_eq!(
        *DROPS.lock().unwrap(),
        1,
        "the panicking run's spawn dropped"
    );
    world.flush();
    assert!(world.get_resource::<Score>().is_none());
    assert_eq!(world.query::<&Counted>().iter(&world).count(), 0);
    integrity(&world);
    // Still registered: the next event reaches it.
    world.trigger(Hit(7));
    assert_eq!(world.resource::<Score>().0, 7);
    assert_eq!(world.query::<&Counted>().iter(&world).count(), 1);
    assert_eq!(*DROPS.lock().unwrap(), 1);
    integrity(&world);
}

// ---- entity handles -----------------------------------------------------------------------

#[test]
fn world_scope_despawning_the_entity_panics_naming_it() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    let msg = expect_panic(|| {
        let mut em = world.entity_mut(e);
        em.world_scope(|w| w.despawn(e));
    });
    assert_names(&msg, &[&format!("{e:?}"), "despawned", "world_scope"]);
    assert!(!world.contains_entity(e));
    integrity(&world);
}

#[test]
fn remove_by_id_of_an_unregistered_component_panics_naming_the_id() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    let id = ComponentId::new(4_000);
    let msg = expect_panic(|| {
        world.entity_mut(e).remove_by_id(id);
    });
    assert_names(&msg, &[&format!("{id:?}"), "not registered"]);
    assert_eq!(world.get::<Health>(e), Some(&Health(1)));
    integrity(&world);
}

#[test]
fn take_of_a_partly_present_bundle_returns_none_and_changes_nothing() {
    let mut world = World::new();
    let e = world.spawn((Health(1), Stunned(2))).id();
    assert_eq!(
        world.entity_mut(e).take::<(Health, Mana)>().map(|_| ()),
        None
    );
    assert_eq!(world.get::<Health>(e), Some(&Health(1)));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned(2)));
    // `remove` of the same bundle removes what is there.
    world.entity_mut(e).remove::<(Health, Mana)>();
    assert_eq!(world.get::<Health>(e), None);
    integrity(&world);
}

// ---- hooks, required components, observers ------------------------------------------------

fn noop_hook(_: DeferredWorld, _: HookContext) {}

#[test]
fn a_second_hook_of_one_kind_panics_naming_the_component() {
    let mut world = World::new();
    let msg = expect_panic(|| {
        world
            .register_component_hooks::<Health>()
            .on_add(noop_hook)
            .on_add(noop_hook);
    });
    assert_names(&msg, &[type_name::<Health>(), "on_add"]);
}

/// A hand-written `Component` impl whose `register_component_hooks` sets
/// one hook twice (the derive cannot write this), and that requires
/// `Mana`.
struct TwoAddHooks;

impl Component for TwoAddHooks {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = ecs::component::Mutable;
    fn register_component_hooks(hooks: &mut ecs::lifecycle::ComponentHooks) {
        hooks.on_add(noop_hook).on_add(noop_hook);
    }
    fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
        required.register(|| Mana(7));
    }
}

/// The first use panics naming the component and the hook; every later use
/// panics the same way, rather than finding the component registered with
/// its requirements (and hooks) missing.
#[test]
fn a_component_whose_hooks_fail_to_register_refuses_every_use() {
    let mut world = World::new();
    let first = expect_panic(|| world.spawn(TwoAddHooks).id());
    assert_names(&first, &[type_name::<TwoAddHooks>(), "on_add"]);
    let again = expect_panic(|| world.spawn(TwoAddHooks).id());
    assert_eq!(again, first);
    let e = world.spawn(Health(1)).id();
    let msg = expect_panic(|| {
        world.entity_mut(e).insert(TwoAddHooks);
    });
    assert_eq!(msg, first);
    assert_eq!(world.entity_count(), 1);
    assert!(world.get::<Mana>(e).is_none());
    integrity(&world);
}

/// A hand-written `Component` impl whose hook registration panics with a
/// message of its own.
struct HooksPanic;

impl Component for HooksPanic {
    const STORAGE_TYPE: StorageType = StorageType::SparseSet;
    type Mutability = ecs::component::Mutable;
    fn register_component_hooks(_: &mut ecs::lifecycle::ComponentHooks) {
        panic!("no hooks today");
    }
}

/// The first use panics with the impl's own message; later uses name the
/// component and keep that message.
#[test]
fn a_component_whose_hook_registration_panics_is_named_on_later_use() {
    let mut world = World::new();
    let first = expect_panic(|| world.spawn(HooksPanic).id());
    assert_eq!(first, "no hooks today");
    let again = expect_panic(|| world.spawn(HooksPanic).id());
    assert_names(&again, &[type_name::<HooksPanic>(), "no hooks today"]);
    assert_eq!(world.entity_count(), 0);
    integrity(&world);
}

// What `#[require(CycleB)] struct CycleA;` and `#[require(CycleA)] struct
// CycleB;` declare, written out by hand.
struct CycleA;

impl Component for CycleA {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = ecs::component::Mutable;
    fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
        required.register(|| CycleB);
    }
}

struct CycleB;

impl Component for CycleB {
    const STORAGE_TYPE: StorageType = StorageType::SparseSet;
    type Mutability = ecs::component::Mutable;
    fn register_required_components(required: &mut RequiredComponentsRegistrar<'_>) {
        required.register(|| CycleA);
    }
}

/// Requires a member of the cycle (but is not on it).
#[derive(Component)]
#[require(CycleA)]
struct NeedsCycle;

impl Default for CycleA {
    fn default() -> Self {
        CycleA
    }
}

#[test]
fn required_components_forming_a_cycle_panic_naming_them() {
    let mut world = World::new();
    let msg = expect_panic(|| world.spawn(CycleA).id());
    assert_names(
        &msg,
        &["cycle", type_name::<CycleA>(), type_name::<CycleB>()],
    );
    // Every member of the cycle refuses later use the same way, whichever
    // is used first (nothing is left half-registered and usable).
    for _ in 0..2 {
        let msg = expect_panic(|| world.spawn(CycleA).id());
        assert_names(&msg, &["cycle", type_name::<CycleA>()]);
        let msg = expect_panic(|| world.spawn(CycleB).id());
        assert_names(&msg, &["cycle", type_name::<CycleB>()]);
        let msg = expect_panic(|| world.spawn((Health(1), CycleB)).id());
        assert_names(&msg, &["cycle", type_name::<CycleB>()]);
    }
    let msg = expect_panic(|| World::new().spawn(CycleB).id());
    assert_names(
        &msg,
        &["cycle", type_name::<CycleA>(), type_name::<CycleB>()],
    );
    // A component whose registration was under way when the cycle was
    // found refuses later use too (before, it was left registered with
    // no requirements, and spawned without them).
    let mut other = World::new();
    for _ in 0..2 {
        let msg = expect_panic(|| other.spawn(NeedsCycle).id());
        assert_names(
            &msg,
            &["cycle", type_name::<CycleA>(), type_name::<CycleB>()],
        );
    }
    assert_eq!(other.entity_count(), 0);
    assert_eq!(world.entity_count(), 0);
    integrity(&world);
}

#[test]
fn an_observer_of_a_lifecycle_event_of_no_component_panics_naming_it() {
    let mut world = World::new();
    let msg = expect_panic(|| {
        world.add_observer(|_: On<Add<()>>| {});
    });
    assert_names(&msg, &["observer", "no component"]);
}

// A type that is both a sparse-set component and a resource: its resource
// descriptor says table storage.
#[derive(Component, Resource, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct Both(u32);

#[test]
fn a_resource_descriptor_registered_as_a_component_panics_naming_it() {
    let mut world = World::new();
    let msg = expect_panic(|| {
        world.register_component_with_descriptor(
            ecs::component::ComponentDescriptor::new_resource::<Both>(),
        );
    });
    assert_names(&msg, &[type_name::<Both>(), "resource"]);
    // Nothing was registered: the type is still a sparse-set component.
    assert!(world.components().component_id::<Both>().is_none());
    let e = world.spawn(Both(7)).id();
    assert_eq!(world.get::<Both>(e), Some(&Both(7)));
    let id = world.components().component_id::<Both>().unwrap();
    assert_eq!(
        world.components().get_info(id).map(|i| i.storage_type()),
        Some(StorageType::SparseSet)
    );
    world.check_integrity().unwrap();
}

/// Archetype, table and bundle ids index their world's collections
/// (`world.archetypes()[id]`); an id from a world that has more of them
/// panics naming the id and the collection, not with a bare "index out of
/// bounds", and leaves the world as it was.
#[test]
fn ids_from_a_larger_world_are_named_when_indexed() {
    let mut big = World::new();
    big.spawn(Health(1));
    big.spawn((Health(1), Mana(2)));
    let e = big.spawn((Health(1), Mana(2), Stunned(3))).id();
    let location = big.entity(e).location();
    let bundle = big
        .bundles()
        .get_id(std::any::TypeId::of::<(Health, Mana, Stunned)>())
        .expect("the spawned bundle is registered");
    let generation = big.archetypes().generation();

    let small = World::new();
    let archetype = location.archetype_id;
    let msg = expect_panic(|| small.archetypes()[archetype].len());
    assert_names(
        &msg,
        &[
            &format!("{archetype:?}"),
            "does not exist in this world",
            "another world",
        ],
    );
    let msg = expect_panic(|| small.archetypes()[generation..].len());
    assert_names(
        &msg,
        &[&format!("{generation:?}"), "does not exist in this world"],
    );
    let table = location.table_id;
    let msg = expect_panic(|| small.storages().tables[table].entity_count());
    assert_names(
        &msg,
        &[&format!("{table:?}"), "does not exist in this world"],
    );
    let msg = expect_panic(|| small.bundles()[bundle].components().len());
    assert_names(
        &msg,
        &[&format!("{bundle:?}"), "does not exist in this world"],
    );

    // The ids still index the world they came from, and both worlds are
    // whole.
    assert_eq!(big.archetypes()[archetype].len(), 1);
    assert_eq!(big.bundles()[bundle].components().len(), 3);
    integrity(&big);
    integrity(&small);
}

/// Claims more items than a world can hold entities.
struct Boastful;

impl Iterator for Boastful {
    type Item = Health;
    fn next(&mut self) -> Option<Health> {
        None
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (u32::MAX as usize + 1, None)
    }
}

#[test]
fn a_batch_larger_than_a_world_can_hold_is_refused() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    let message = expect_panic(|| world.spawn_batch(Boastful).count());
    assert!(
        message.contains("cannot reserve room for 4294967296 entities")
            && message.contains("at most 4294967295"),
        "{message}"
    );
    assert_eq!(world.entity_count(), 1);
    integrity(&world);
    assert_eq!(world.get::<Health>(e), Some(&Health(1)));
}

/// Its `on_add` hook queues a command that swaps the world's contents for
/// another world's.
#[derive(Component)]
#[component(on_add = swap_the_world)]
struct Swapper(#[allow(dead_code)] [u64; 8]);

fn swap_the_world(mut world: DeferredWorld, _: HookContext) {
    world.commands().queue(|world: &mut World| {
        let mut other = World::new();
        // The same ids for another layout, and no hooks.
        other.spawn(Health(7));
        std::mem::swap(world, &mut other);
    });
}

#[test]
fn a_command_swapping_the_world_mid_batch_stops_the_batch() {
    let mut world = World::new();
    let message = expect_panic(|| {
        world
            .spawn_batch((0..3).map(|_| Swapper([9; 8])))
            .for_each(drop)
    });
    assert_names(&message, &["replaced the world", "dropped unapplied"]);
    // The world is now the other one, intact.
    integrity(&world);
    let mut healths = world.query::<&Health>();
    assert_eq!(
        healths.iter(&world).copied().collect::<Vec<_>>(),
        [Health(7)]
    );
    assert_eq!(world.entity_count(), 1);
}

/// An index that changes while its values are stored (a logic error in a
/// safe impl): lookups give wrong answers, never out-of-bounds reads.
#[derive(Clone, PartialEq, Eq)]
struct Shifty(usize);

thread_local! {
    static SHIFT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl ecs::storage::SparseSetIndex for Shifty {
    fn sparse_set_index(&self) -> usize {
        self.0 + SHIFT.with(std::cell::Cell::get)
    }
    fn get_sparse_set_index(value: usize) -> Self {
        Shifty(value)
    }
}

#[test]
fn an_inconsistent_sparse_set_index_reads_nothing_out_of_bounds() {
    let mut set = ecs::storage::SparseSet::<Shifty, u64>::with_capacity(4);
    for i in 0..3 {
        set.insert(Shifty(i), i as u64);
    }
    SHIFT.with(|shift| shift.set(1));
    set.remove(Shifty(0));
    SHIFT.with(|shift| shift.set(0));
    for i in 0..4 {
        let _ = set.get(Shifty(i));
        let _ = set.get_mut(Shifty(i));
    }
}

// ---- observers built or declared against the rules ------------------------------------------

#[derive(Event)]
struct Small(#[allow(dead_code)] u8);

#[derive(Event)]
struct Big([u64; 32]);

#[derive(Resource)]
struct BigRes([u64; 32]);

/// A pattern naming components of a custom event, as only lifecycle
/// patterns may.
struct Impostor;

impl EventPattern for Impostor {
    type Event = Small;
    type Components = Health;
}

#[test]
fn a_custom_event_pattern_naming_components_is_refused_naming_it() {
    let mut world = World::new();
    let message = expect_panic(|| {
        world.add_observer(|on: On<Impostor>| {
            let _ = on.event().0;
        });
    });
    assert_names(&message, &["Impostor", "Small", "lifecycle patterns"]);
    world.spawn(Health(1));
    integrity(&world);
}

/// Hands over an observer of `Big` wherever one is asked for.
struct Liar;

impl ecs::observer::IntoObserver<()> for Liar {
    fn into_observer(self) -> Observer {
        Observer::new(|on: On<Big>, mut big: ResMut<BigRes>| big.0[31] = on.event().0[31])
    }
}

/// An observer value is only a function until a world registers it: its
/// event is its own pattern's, and its parameters are built for the world
/// it joins, so neither can be mismatched.
#[test]
fn an_observer_built_for_another_event_or_world_is_never_run_with_it() {
    let mut world = World::new();
    world.insert_resource(BigRes([0; 32]));
    world.add_observer(Liar);
    world.trigger(Small(1));
    assert_eq!(
        world.resource::<BigRes>().0[31],
        0,
        "not an observer of `Small`"
    );
    world.trigger(Big([7; 32]));
    assert_eq!(world.resource::<BigRes>().0[31], 7);
    integrity(&world);

    // Built next to one world, registered in another: its `ResMut` is the
    // second world's.
    let mut first = World::new();
    first.insert_resource(BigRes([0; 32]));
    let observer = ecs::observer::IntoObserver::into_observer(Liar);
    let mut second = World::new();
    second.insert_resource(BigRes([0; 32]));
    second.spawn(observer);
    first.trigger(Big([1; 32]));
    second.trigger(Big([2; 32]));
    assert_eq!(first.resource::<BigRes>().0[31], 0);
    assert_eq!(second.resource::<BigRes>().0[31], 2);
    integrity(&second);
}

#[derive(Event)]
struct Ping;

/// Swaps the world it is applied to for a fresh one.
fn swap_for_a_fresh_world(world: &mut World) {
    let mut other = World::new();
    std::mem::swap(world, &mut other);
}

#[test]
fn a_command_replacing_the_world_drops_the_rest_naming_both_worlds() {
    let applied = Arc::new(Mutex::new(0));
    let drops = Arc::new(Mutex::new(0));
    // Through the world's own flush (an observer's commands).
    let mut world = World::new();
    let (a, d) = (applied.clone(), drops.clone());
    world.add_observer(move |_: On<Ping>, mut commands: Commands| {
        commands.queue(swap_for_a_fresh_world);
        let (a, counted) = (a.clone(), Counted(d.clone()));
        commands.queue(move |_: &mut World| {
            let _keep = &counted;
            *a.lock().unwrap() += 1;
        });
    });
    let message = expect_panic(|| world.trigger(Ping));
    assert_names(&message, &["replaced the world", "dropped unapplied"]);
    assert_eq!((*applied.lock().unwrap(), *drops.lock().unwrap()), (0, 1));
    integrity(&world);
    // Through a CommandQueue applied by hand.
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    queue.push(swap_for_a_fresh_world);
    let (a, counted) = (applied.clone(), Counted(drops.clone()));
    queue.push(move |_: &mut World| {
        let _keep = &counted;
        *a.lock().unwrap() += 1;
    });
    let message = expect_panic(|| queue.apply(&mut world));
    assert_names(&message, &["replaced the world", "CommandQueue"]);
    assert_eq!((*applied.lock().unwrap(), *drops.lock().unwrap()), (0, 2));
    assert!(queue.is_empty());
    integrity(&world);
}

#[test]
fn a_world_swapped_out_while_flushing_still_applies_its_commands() {
    let kept: Arc<Mutex<Option<World>>> = Arc::default();
    let mut world = World::new();
    let stash = kept.clone();
    world.add_observer(move |_: On<Ping>, mut commands: Commands| {
        let stash = stash.clone();
        commands.queue(move |world: &mut World| {
            let mut other = World::new();
            std::mem::swap(world, &mut other);
            *stash.lock().unwrap() = Some(other);
        });
    });
    let message = expect_panic(|| world.trigger(Ping));
    assert_names(&message, &["replaced the world"]);
    let mut first = kept.lock().unwrap().take().expect("the command kept it");
    // The first world, flushing when it was swapped out, flushes again.
    first.add_observer(|_: On<Small>, mut commands: Commands| {
        commands.spawn(Health(5));
    });
    let before = first.entity_count();
    first.trigger(Small(0));
    assert_eq!(first.entity_count(), before + 1);
    integrity(&first);
}
