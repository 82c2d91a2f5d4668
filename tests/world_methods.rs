//! The world, entity and command methods bevy users reach for: entity
//! hash collections, component entries, `retain` and `remove_with_requires`,
//! the conditional and fallible entity commands, fetching several entities
//! at once, batch inserts, and the world's listing and resource queries.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::drop_log::{DropLog, Payload};
use common::integrity::check_invariants;
use common::panics::expect_panic;
use ecs::change_detection::Tick;
use ecs::entity::{EntityHashMap, EntityHashSet};
use ecs::prelude::*;
use ecs::ptr::OwningPtr;
use ecs::system::CommandQueue;
use ecs::world::error::EntityMutableFetchError;
use ecs::world::{ComponentEntry, DeferredWorld};

#[derive(Component, Debug, Default, Clone, Copy, PartialEq)]
struct Health(u32);

#[derive(Component, Debug, Default, Clone, Copy, PartialEq)]
struct Speed(u32);

#[derive(Component, Debug, Default, PartialEq)]
struct Mass(u32);

#[derive(Component, Debug)]
struct Named(String);

#[derive(Component, Debug)]
struct Marker;

#[derive(Component, Debug, PartialEq)]
#[require(Mass)]
struct Body;

/// Held for its drop, which the log records.
#[derive(Component)]
struct Cargo(#[allow(dead_code)] Payload);

/// [`Cargo`] in a sparse set.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct SparseCargo(#[allow(dead_code)] Payload);

#[derive(Resource, Debug, PartialEq)]
struct Gold(u32);

/// Applies what `f` queues through fresh commands.
fn apply(world: &mut World, f: impl FnOnce(&mut Commands)) {
    let mut queue = CommandQueue::default();
    f(&mut Commands::new(&mut queue, world));
    queue.apply(world);
}

// ---- entity hash collections --------------------------------------------------

#[test]
fn entity_hash_map_and_set_key_by_entity() {
    let mut world = World::new();
    let ids: Vec<Entity> = (0..100).map(|_| world.spawn_empty().id()).collect();
    let map: EntityHashMap<usize> = ids.iter().enumerate().map(|(i, &e)| (e, i)).collect();
    let set: EntityHashSet = ids.iter().copied().collect();
    assert_eq!(map.len(), 100);
    for (i, e) in ids.iter().enumerate() {
        assert_eq!(map[e], i);
        assert!(set.contains(e));
    }
    let from_array = EntityHashSet::from([ids[0], ids[0], ids[1]]);
    assert_eq!(from_array.len(), 2);
}

// ---- entries ------------------------------------------------------------------

#[test]
fn entry_inserts_only_when_vacant_and_modifies_only_when_occupied() {
    let mut world = World::new();
    let mut e = world.spawn_empty();
    e.entry::<Health>()
        .and_modify(|mut h| h.0 = 99)
        .or_insert(Health(1));
    assert_eq!(e.get::<Health>(), Some(&Health(1)));
    e.entry::<Health>()
        .and_modify(|mut h| h.0 += 1)
        .or_insert(Health(50));
    assert_eq!(e.get::<Health>(), Some(&Health(2)));
    let mut called = false;
    e.entry::<Health>().or_insert_with(|| {
        called = true;
        Health(7)
    });
    assert!(!called, "or_insert_with must not run for an occupied entry");
    assert_eq!(e.entry::<Speed>().or_default().get(), &Speed(0));
    e.entry::<Speed>().insert_entry(Speed(4)).into_mut().0 += 1;
    assert_eq!(e.get::<Speed>(), Some(&Speed(5)));
    match e.entry::<Speed>() {
        ComponentEntry::Occupied(entry) => assert_eq!(entry.take(), Speed(5)),
        ComponentEntry::Vacant(_) => panic!("the entity has a Speed"),
    }
    assert!(!e.contains::<Speed>());
    match e.entry::<Speed>() {
        ComponentEntry::Vacant(entry) => assert_eq!(entry.insert(Speed(3)).get(), &Speed(3)),
        ComponentEntry::Occupied(_) => panic!("the Speed was taken"),
    }
}

#[test]
fn entry_or_insert_with_that_panics_inserts_nothing() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world.spawn(Cargo(Payload::new(1, &log))).id();
    let message = expect_panic(|| {
        world
            .entity_mut(e)
            .entry::<Health>()
            .or_insert_with(|| panic!("no health for {e}"));
    });
    assert!(message.contains("no health"), "{message}");
    check_invariants(&world);
    assert!(!world.entity(e).contains::<Health>());
    assert!(world.entity(e).contains::<Cargo>());
    log.assert_not_dropped(&[1]);
    drop(world);
    log.assert_dropped_once(&[1]);
}

// ---- retain and remove_with_requires ---------------------------------------------

#[test]
fn retain_keeps_the_bundle_and_what_it_requires() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world
        .spawn((
            Body,
            Health(3),
            Cargo(Payload::new(1, &log)),
            SparseCargo(Payload::new(2, &log)),
        ))
        .id();
    world.entity_mut(e).retain::<Body>();
    let e = world.entity(e);
    assert!(e.contains::<Body>() && e.contains::<Mass>());
    assert!(!e.contains::<Health>() && !e.contains::<Cargo>() && !e.contains::<SparseCargo>());
    log.assert_dropped_once(&[1, 2]);
    check_invariants(&world);
}

#[test]
fn retain_with_a_panicking_drop_leaves_a_consistent_world() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world
        .spawn((
            Health(3),
            Cargo(Payload::armed(1, &log)),
            SparseCargo(Payload::new(2, &log)),
        ))
        .id();
    let other = world.spawn((Health(4), Cargo(Payload::new(3, &log)))).id();
    let message = expect_panic(|| {
        world.entity_mut(e).retain::<Health>();
    });
    assert!(message.contains("bomb 1 exploded"), "{message}");
    check_invariants(&world);
    let kept = world.entity(e);
    assert_eq!(kept.get::<Health>(), Some(&Health(3)));
    assert!(!kept.contains::<Cargo>() && !kept.contains::<SparseCargo>());
    log.assert_dropped_once(&[1, 2]);
    log.assert_not_dropped(&[3]);
    assert!(world.entity(other).contains::<Cargo>());
    drop(world);
    log.assert_dropped_once(&[1, 2, 3]);
}

#[test]
fn remove_with_requires_removes_required_components_too() {
    let mut world = World::new();
    let e = world.spawn((Body, Health(1))).id();
    world.entity_mut(e).remove_with_requires::<Body>();
    let e = world.entity(e);
    assert!(!e.contains::<Body>() && !e.contains::<Mass>());
    assert!(e.contains::<Health>());
    // Nothing of the bundle left: a no-op.
    let id = e.id();
    world.entity_mut(id).remove_with_requires::<Body>();
    assert!(world.entity(id).contains::<Health>());
}

// ---- entity commands ---------------------------------------------------------------

#[test]
fn conditional_entity_commands_follow_their_condition() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    apply(&mut world, |c| {
        c.entity(e)
            .insert_if(Speed(1), || false)
            .insert_if(Mass(2), || true)
            .insert_if_new_and(Health(9), || true)
            .try_insert_if(Body, || false)
            .try_insert_if_new_and(Speed(8), || true);
    });
    let r = world.entity(e);
    assert_eq!(r.get::<Health>(), Some(&Health(1)));
    assert_eq!(r.get::<Mass>(), Some(&Mass(2)));
    assert_eq!(r.get::<Speed>(), Some(&Speed(8)));
    assert!(!r.contains::<Body>());
}

#[test]
fn insert_if_neq_leaves_an_equal_value_unchanged() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    world.clear_trackers();
    apply(&mut world, |c| {
        c.entity(e).insert_if_neq(Health(1));
    });
    assert!(!world.get_ref::<Health>(e).unwrap().is_changed());
    apply(&mut world, |c| {
        c.entity(e).insert_if_neq(Health(2));
    });
    let health = world.get_ref::<Health>(e).unwrap();
    assert!(health.is_changed());
    assert_eq!(*health, Health(2));
}

#[test]
fn try_commands_on_a_despawned_entity_do_nothing() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    world.despawn(e);
    apply(&mut world, |c| {
        c.entity(e)
            .try_insert(Speed(1))
            .try_insert_if_new(Speed(2))
            .try_remove::<Health>();
        c.entity(e).entry::<Speed>().or_try_insert(Speed(3));
        c.entity(e).entry::<Speed>().or_try_insert_with(|| Speed(4));
    });
    assert_eq!(world.entity_count(), 0);
}

#[test]
fn removal_entity_commands() {
    let mut world = World::new();
    let speed = world.register_component::<Speed>();
    let e = world.spawn((Body, Health(1), Speed(2))).id();
    let f = world.spawn((Body, Health(1))).id();
    let g = world.spawn((Body, Health(1))).id();
    apply(&mut world, |c| {
        c.entity(e).remove_by_id(speed).try_remove::<Health>();
        c.entity(f).retain::<Health>();
        c.entity(g).remove_with_requires::<Body>();
    });
    assert!(!world.entity(e).contains::<Speed>() && !world.entity(e).contains::<Health>());
    assert!(world.entity(e).contains::<Mass>());
    assert!(world.entity(f).contains::<Health>() && !world.entity(f).contains::<Mass>());
    assert!(world.entity(g).contains::<Health>() && !world.entity(g).contains::<Mass>());
}

#[test]
fn entry_commands() {
    #[derive(Component, Debug, PartialEq)]
    struct Counted(usize);
    impl FromWorld for Counted {
        fn from_world(world: &mut World) -> Self {
            Counted(world.entity_count())
        }
    }

    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    apply(&mut world, |c| {
        let mut entity = c.entity(e);
        entity
            .entry::<Health>()
            .and_modify(|mut h| h.0 += 10)
            .or_insert(Health(0));
        entity
            .entry::<Speed>()
            .and_modify(|mut s| s.0 += 10)
            .or_insert_with(|| Speed(5));
        entity.entry::<Mass>().or_default();
        entity.entry::<Counted>().or_from_world();
        entity
            .entry::<Counted>()
            .or_from_world()
            .entity()
            .insert(Body);
    });
    let r = world.entity(e);
    assert_eq!(r.get::<Health>(), Some(&Health(11)));
    assert_eq!(r.get::<Speed>(), Some(&Speed(5)));
    assert_eq!(r.get::<Mass>(), Some(&Mass(0)));
    assert_eq!(r.get::<Counted>(), Some(&Counted(1)));
    assert!(r.contains::<Body>());
}

#[test]
fn entry_command_or_insert_with_that_panics_drops_nothing_twice() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world.spawn(Cargo(Payload::new(1, &log))).id();
    let mut queue = CommandQueue::default();
    {
        let mut commands = Commands::new(&mut queue, &world);
        commands
            .entity(e)
            .entry::<Health>()
            .or_insert_with(|| panic!("no health"));
        commands
            .entity(e)
            .insert(SparseCargo(Payload::new(2, &log)));
    }
    let result = catch_unwind(AssertUnwindSafe(|| queue.apply(&mut world)));
    assert!(result.is_err());
    check_invariants(&world);
    assert!(!world.entity(e).contains::<Health>());
    drop(queue);
    drop(world);
    log.assert_dropped_once(&[1, 2]);
}

// ---- fetching several entities --------------------------------------------------------

#[test]
fn get_entity_of_arrays_slices_and_sets() {
    let mut world = World::new();
    let a = world.spawn(Health(1)).id();
    let b = world.spawn(Health(2)).id();
    let [ra, rb] = world.entity([a, b]);
    assert_eq!((ra.id(), rb.id()), (a, b));
    let refs = world.get_entity(&[b, a][..]).unwrap();
    assert_eq!(refs[0].get::<Health>(), Some(&Health(2)));
    let set = EntityHashSet::from([a, b]);
    let by_id = world.get_entity(&set).unwrap();
    assert_eq!(by_id[&a].get::<Health>(), Some(&Health(1)));
    // hashbrown's map may read its values when dropped: end the borrows.
    drop(by_id);

    let mut set_mut = world.entity_mut(&set);
    set_mut.get_mut(&b).unwrap().get_mut::<Health>().unwrap().0 = 20;
    drop(set_mut);
    let mut slice_mut = world.get_entity_mut(&[a, b][..]).unwrap();
    slice_mut[0].get_mut::<Health>().unwrap().0 += 10;
    let [ma, mb] = world.entity_mut(&[a, b]);
    assert_eq!(ma.into_mut::<Health>().unwrap().0, 11);
    assert_eq!(mb.get::<Health>(), Some(&Health(20)));
}

#[test]
fn fetching_an_entity_twice_mutably_is_refused_naming_it() {
    let mut world = World::new();
    let a = world.spawn(Health(1)).id();
    let b = world.spawn(Health(2)).id();
    assert_eq!(
        world.get_entity_mut([a, b, a]).unwrap_err(),
        EntityMutableFetchError::AliasedMutability(a)
    );
    // Past the length compared pairwise, so the hashed check runs.
    let mut many: Vec<Entity> = (0..64).map(|_| world.spawn_empty().id()).collect();
    let twice = many[40];
    many.push(twice);
    let error = world.get_entity_mut(&many[..]).unwrap_err();
    assert_eq!(error, EntityMutableFetchError::AliasedMutability(twice));
    assert!(error.to_string().contains(&twice.to_string()), "{error}");
    let message = expect_panic(|| {
        world.entity_mut([b, b]);
    });
    assert!(message.contains(&b.to_string()), "{message}");
    // Read-only fetches may name an entity twice.
    assert_eq!(world.entity([a, a]).len(), 2);
}

#[test]
fn fetching_a_missing_entity_names_it() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let gone = world.spawn_empty().id();
    world.despawn(gone);
    let error = world.get_entity([a, gone]).unwrap_err();
    assert_eq!(error.entity(), gone);
    let error = world.get_entity_mut(&[a, gone][..]).unwrap_err();
    assert!(matches!(error, EntityMutableFetchError::NotSpawned(_)));
    assert_eq!(error.entity(), gone);
    let message = expect_panic(|| world.entity(&EntityHashSet::from([gone])).len());
    assert!(message.contains(&gone.to_string()), "{message}");
}

// ---- batch inserts ------------------------------------------------------------------

#[test]
fn insert_batch_over_several_archetypes() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn(Health(1)).id();
    let c = world.spawn_empty().id();
    let d = world.spawn(Speed(7)).id();
    world.insert_batch([(a, Speed(1)), (b, Speed(2)), (c, Speed(3)), (d, Speed(4))]);
    for (e, s) in [(a, 1), (b, 2), (c, 3), (d, 4)] {
        assert_eq!(world.get::<Speed>(e), Some(&Speed(s)));
    }
    assert_eq!(world.get::<Health>(b), Some(&Health(1)));
    world.insert_batch_if_new([(a, (Speed(10), Health(5))), (b, (Speed(20), Health(6)))]);
    assert_eq!(world.get::<Speed>(a), Some(&Speed(1)));
    assert_eq!(world.get::<Health>(a), Some(&Health(5)));
    assert_eq!(world.get::<Health>(b), Some(&Health(1)));
    check_invariants(&world);
}

#[test]
fn insert_batch_of_a_missing_entity_panics_naming_it() {
    let log = DropLog::default();
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let gone = world.spawn_empty().id();
    world.despawn(gone);
    let c = world.spawn_empty().id();
    let batch = vec![
        (a, Cargo(Payload::new(1, &log))),
        (gone, Cargo(Payload::new(2, &log))),
        (c, Cargo(Payload::new(3, &log))),
    ];
    let message = expect_panic(|| world.insert_batch(batch));
    assert!(message.contains(&gone.to_string()), "{message}");
    assert!(message.contains("Cargo"), "{message}");
    // Refused before anything is inserted.
    assert!(!world.entity(a).contains::<Cargo>());
    assert!(!world.entity(c).contains::<Cargo>());
    log.assert_dropped_once(&[1, 2, 3]);
    check_invariants(&world);
}

#[test]
fn insert_batch_moves_whole_tables_and_keeps_each_value_with_its_entity() {
    let mut world = World::new();
    // Two archetypes, each a whole table, listed in reverse row order and
    // interleaved; and an entity named twice in a second batch.
    let xs: Vec<Entity> = (0..6).map(|i| world.spawn(Speed(i)).id()).collect();
    let ys: Vec<Entity> = (0..4)
        .map(|i| world.spawn((Speed(10 + i), Marker)).id())
        .collect();
    let mut batch = Vec::new();
    for i in (0..6).rev() {
        batch.push((xs[i], Named(format!("x{i}"))));
        if i < 4 {
            batch.push((ys[i], Named(format!("y{i}"))));
        }
    }
    world.insert_batch(batch);
    for (i, &x) in xs.iter().enumerate() {
        assert_eq!(
            world.get::<Named>(x).map(|n| n.0.as_str()),
            Some(format!("x{i}").as_str())
        );
        assert_eq!(world.get::<Speed>(x), Some(&Speed(i as u32)));
    }
    for (i, &y) in ys.iter().enumerate() {
        assert_eq!(
            world.get::<Named>(y).map(|n| n.0.as_str()),
            Some(format!("y{i}").as_str())
        );
        assert_eq!(world.get::<Speed>(y), Some(&Speed(10 + i as u32)));
    }
    // Named twice: pair by pair, the last value wins.
    world.insert_batch([
        (xs[0], Speed(100)),
        (xs[1], Speed(101)),
        (xs[0], Speed(102)),
    ]);
    assert_eq!(world.get::<Speed>(xs[0]), Some(&Speed(102)));
    assert_eq!(world.get::<Speed>(xs[1]), Some(&Speed(101)));
    // Named twice, apart, in a batch over two archetypes that moves them
    // to new ones: still pair by pair, so the first value is kept.
    world.insert_batch_if_new([
        (xs[2], Health(1)),
        (ys[1], Health(2)),
        (xs[3], Health(3)),
        (ys[0], Health(4)),
        (xs[2], Health(5)),
    ]);
    let healths: Vec<Option<&Health>> = [xs[2], xs[3], ys[0], ys[1], xs[4]]
        .into_iter()
        .map(|e| world.get::<Health>(e))
        .collect();
    assert_eq!(
        healths,
        [
            Some(&Health(1)),
            Some(&Health(3)),
            Some(&Health(4)),
            Some(&Health(2)),
            None
        ]
    );
    check_invariants(&world);
}

#[test]
fn try_insert_batch_skips_and_lists_missing_entities() {
    let mut world = World::new();
    let gone = world.spawn_empty().id();
    world.despawn(gone);
    let a = world.spawn(Speed(9)).id();
    let error = world
        .try_insert_batch([(gone, Speed(1)), (a, Speed(2))])
        .unwrap_err();
    assert_eq!(error.entities, [gone]);
    assert!(error.bundle_type.contains("Speed"));
    assert!(error.to_string().contains(&gone.to_string()));
    assert_eq!(world.get::<Speed>(a), Some(&Speed(2)));
    world.try_insert_batch_if_new([(a, Speed(3))]).unwrap();
    assert_eq!(world.get::<Speed>(a), Some(&Speed(2)));
}

#[test]
fn insert_batch_commands() {
    let mut world = World::new();
    let a = world.spawn(Speed(1)).id();
    let b = world.spawn_empty().id();
    let gone = world.spawn_empty().id();
    world.despawn(gone);
    apply(&mut world, |c| {
        c.insert_batch(vec![(a, Health(1)), (b, Health(2))]);
        c.insert_batch_if_new(vec![(a, Speed(5))]);
        c.try_insert_batch(vec![(gone, Mass(1)), (b, Mass(2))]);
        c.try_insert_batch_if_new(vec![(b, Mass(3))]);
    });
    assert_eq!(world.get::<Health>(b), Some(&Health(2)));
    assert_eq!(world.get::<Speed>(a), Some(&Speed(1)));
    assert_eq!(world.get::<Mass>(b), Some(&Mass(2)));
}

// ---- the world's listings and resources ----------------------------------------------

#[test]
fn world_commands_apply_on_flush() {
    let mut world = World::new();
    let e = world.commands().spawn(Health(1)).id();
    world.commands().entity(e).insert(Speed(2));
    assert!(world.get_entity(e).is_err());
    world.flush();
    assert_eq!(world.get::<Speed>(e), Some(&Speed(2)));
}

#[test]
fn iter_entities_and_inspect_entity() {
    let mut world = World::new();
    let a = world.spawn(Health(1)).id();
    let b = world.spawn((Health(1), Speed(1))).id();
    let mut ids: Vec<Entity> = world.iter_entities().map(|e| e.id()).collect();
    ids.sort();
    assert_eq!(ids, [a, b]);
    let health = world.component_id::<Health>().unwrap();
    let speed = world.component_id::<Speed>().unwrap();
    let mut components: Vec<ComponentId> =
        world.inspect_entity(b).unwrap().map(|(id, _)| id).collect();
    components.sort();
    assert_eq!(components, {
        let mut expected = vec![health, speed];
        expected.sort();
        expected
    });
    world.despawn(a);
    let error = world.inspect_entity(a).err().unwrap();
    assert_eq!(error.entity(), a);
    assert!(error.to_string().contains(&a.to_string()));
}

#[test]
fn resource_change_queries_and_listing() {
    let mut world = World::new();
    assert!(!world.is_resource_added::<Gold>());
    assert!(!world.is_resource_changed::<Gold>());
    world.insert_resource(Gold(1));
    let id = world.components().resource_id::<Gold>().unwrap();
    assert!(world.is_resource_added::<Gold>() && world.is_resource_added_by_id(id));
    world.clear_trackers();
    assert!(!world.is_resource_added::<Gold>() && !world.is_resource_changed_by_id(id));
    world.resource_mut::<Gold>().0 += 1;
    assert!(world.is_resource_changed::<Gold>() && !world.is_resource_added::<Gold>());
    let listed: Vec<ComponentId> = world.iter_resources().map(|(id, _, _)| id).collect();
    assert!(listed.contains(&id));
    world.remove_resource::<Gold>();
    assert!(world.iter_resources().all(|(listed, _, _)| listed != id));
}

#[test]
fn try_resource_scope_only_runs_for_a_present_resource() {
    let mut world = World::new();
    assert_eq!(
        world.try_resource_scope(|_, _: Mut<Gold>| unreachable!()),
        None::<()>
    );
    world.insert_resource(Gold(2));
    let seen = world.try_resource_scope(|world, mut gold: Mut<Gold>| {
        assert!(!world.contains_resource::<Gold>());
        gold.0 += 1;
        gold.0
    });
    assert_eq!(seen, Some(3));
    assert_eq!(world.resource::<Gold>(), &Gold(3));
}

#[test]
fn insert_batch_runs_hooks_per_entity_and_applies_their_commands_after() {
    use ecs::lifecycle::HookContext;
    use ecs::world::DeferredWorld;

    fn tag_on_add(mut world: DeferredWorld, context: HookContext) {
        world.commands().entity(context.entity).insert(Mass(1));
    }

    let mut world = World::new();
    world.register_component_hooks::<Speed>().on_add(tag_on_add);
    let a = world.spawn_empty().id();
    let b = world.spawn(Health(1)).id();
    world.insert_batch([(a, Speed(1)), (b, Speed(2))]);
    assert_eq!(world.get::<Mass>(a), Some(&Mass(1)));
    assert_eq!(world.get::<Mass>(b), Some(&Mass(1)));
    check_invariants(&world);
}

#[test]
fn entities_and_commands_reads_entities_and_queues_changes_for_the_flush() {
    let mut world = World::new();
    let a = world.spawn(Health(1)).id();
    let b = world.spawn(Health(2)).id();
    let hunter = world.spawn(Speed(7)).id();
    let (entities, mut commands) = world.entities_and_commands();
    let speed = entities.get(hunter).unwrap().get::<Speed>().copied();
    for target in [a, b] {
        let health = entities
            .get(target)
            .unwrap()
            .get::<Health>()
            .copied()
            .unwrap();
        commands
            .entity(target)
            .insert(Speed(speed.unwrap().0 + health.0));
    }
    let spawned = commands.spawn(Marker).id();
    // Not spawned until the world applies the commands.
    assert!(entities.get(spawned).is_err());
    assert!(world.get::<Speed>(a).is_none(), "queued, not applied");
    world.flush();
    assert_eq!(world.get::<Speed>(a), Some(&Speed(8)));
    assert_eq!(world.get::<Speed>(b), Some(&Speed(9)));
    assert!(world.entity(spawned).contains::<Marker>());
    check_invariants(&world);
}

#[test]
fn entities_and_commands_writes_values_now_and_structure_at_the_flush() {
    let mut world = World::new();
    let e = world.spawn(Health(35)).id();
    let other = world.spawn(Health(1)).id();
    world.increment_change_tick();
    let now = world.change_tick();
    let (mut entities, mut commands) = world.entities_and_commands();
    let mut handle = entities.get_mut(e).unwrap();
    commands.entity(e).despawn();
    handle.get_mut::<Health>().unwrap().0 += 1;
    assert_eq!(handle.get::<Health>(), Some(&Health(36)));
    let [mut x, mut y] = entities.get_mut([e, other]).unwrap();
    std::mem::swap(
        &mut *x.get_mut::<Health>().unwrap(),
        &mut *y.get_mut::<Health>().unwrap(),
    );
    assert_eq!(world.get::<Health>(other), Some(&Health(36)));
    let changed = world
        .entity(other)
        .get_ref::<Health>()
        .unwrap()
        .last_changed();
    assert_eq!(
        changed, now,
        "a write through the fetcher marks the value changed"
    );
    world.flush();
    assert!(world.get_entity(e).is_err());
    assert_eq!(world.get::<Health>(other), Some(&Health(36)));
    check_invariants(&world);
}

#[test]
fn entities_and_commands_refuses_a_duplicate_and_a_missing_entity() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    let gone = world.spawn_empty().id();
    world.despawn(gone);
    let (mut entities, _commands) = world.entities_and_commands();
    assert!(matches!(
        entities.get_mut([e, e]),
        Err(EntityMutableFetchError::AliasedMutability(dup)) if dup == e
    ));
    assert!(matches!(
        entities.get_mut(&[e, gone][..]),
        Err(EntityMutableFetchError::NotSpawned(_))
    ));
    assert!(entities.get(gone).is_err());
    let set: EntityHashSet = [e].into_iter().collect();
    assert_eq!(entities.get_mut(&set).unwrap().len(), 1);
    assert_eq!(entities.get(&[e][..]).unwrap().len(), 1);
}

#[test]
fn entities_and_commands_finds_entities_reserved_before() {
    let mut world = World::new();
    let reserved = world.commands().spawn_empty().id();
    let (entities, _commands) = world.entities_and_commands();
    assert!(
        entities.get(reserved).is_ok(),
        "reserved ids are spawned first"
    );
}

#[derive(Component)]
#[component(on_add = copy_health_of_the_leader)]
struct Follower(Entity);

/// Reads the leader through the fetcher and queues a copy of its health.
fn copy_health_of_the_leader(
    mut world: ecs::world::DeferredWorld,
    ctx: ecs::lifecycle::HookContext,
) {
    let (entities, mut commands) = world.entities_and_commands();
    let leader = entities
        .get(ctx.entity)
        .unwrap()
        .get::<Follower>()
        .unwrap()
        .0;
    let health = *entities.get(leader).unwrap().get::<Health>().unwrap();
    commands.entity(ctx.entity).insert(health);
}

#[test]
fn entities_and_commands_from_a_hook_applies_after_the_operation() {
    let mut world = World::new();
    let leader = world.spawn(Health(12)).id();
    let follower = world.spawn(Follower(leader)).id();
    assert_eq!(world.get::<Health>(follower), Some(&Health(12)));
    check_invariants(&world);
}

#[test]
fn a_panicking_command_from_entities_and_commands_leaves_the_world_consistent() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world.spawn(Cargo(Payload::new(1, &log))).id();
    let (_entities, mut commands) = world.entities_and_commands();
    commands.entity(e).insert(Cargo(Payload::new(2, &log)));
    commands.queue(|_: &mut World| panic!("command fails"));
    commands.entity(e).insert(Cargo(Payload::new(3, &log)));
    let message = expect_panic(|| world.flush());
    assert!(message.contains("command fails"), "{message}");
    check_invariants(&world);
    drop(world);
    log.assert_dropped_once(&[1, 2, 3]);
}

// ---- by-id access, clear, and the commands that find an entity ---------------------------

#[derive(Component, Debug, PartialEq)]
struct Pace(u32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct Tagged;

#[test]
fn world_get_by_id_and_get_mut_by_id() {
    let mut world = World::new();
    let pace = world.register_component::<Pace>();
    let tagged = world.register_component::<Tagged>();
    let e = world.spawn(Pace(1)).id();
    let value = world.get_by_id(e, pace).unwrap();
    // SAFETY: `pace` is `Pace`'s id.
    assert_eq!(unsafe { value.deref::<Pace>() }, &Pace(1));
    assert!(world.get_by_id(e, tagged).is_none());
    let mut value = world.get_mut_by_id(e, pace).unwrap();
    // SAFETY: `pace` is `Pace`'s id.
    unsafe { value.as_mut().deref_mut::<Pace>().0 = 2 };
    assert_eq!(world.get::<Pace>(e), Some(&Pace(2)));
    assert!(world.get_mut_by_id(e, tagged).is_none());
    #[derive(Component)]
    #[component(immutable)]
    struct Fixed;
    let fixed = world.register_component::<Fixed>();
    world.entity_mut(e).insert(Fixed);
    assert!(world.get_mut_by_id(e, fixed).is_none());
    assert!(world.get_by_id(e, fixed).is_some());
    world.despawn(e);
    assert!(world.get_by_id(e, pace).is_none());
    assert!(world.get_mut_by_id(e, pace).is_none());
}

#[test]
fn clear_and_remove_by_ids_run_the_remove_hooks_and_keep_the_entity() {
    #[derive(Resource, Default)]
    struct Removed(Vec<&'static str>);
    let mut world = World::new();
    world.init_resource::<Removed>();
    world.add_observer(|_: On<Remove<Pace>>, mut removed: ResMut<Removed>| removed.0.push("Pace"));
    world.add_observer(|_: On<Remove<Tagged>>, mut removed: ResMut<Removed>| {
        removed.0.push("Tagged")
    });
    let drops = DropLog::default();
    #[derive(Component)]
    struct Owned(#[allow(dead_code)] Payload);
    let pace = world.register_component::<Pace>();
    let e = world
        .spawn((Pace(1), Tagged, Owned(Payload::new(7, &drops))))
        .id();
    let other = world.spawn((Pace(2), Tagged)).id();

    world.entity_mut(e).remove_by_ids(&[pace]);
    assert!(!world.entity(e).contains::<Pace>() && world.entity(e).contains::<Tagged>());
    assert_eq!(world.resource::<Removed>().0, ["Pace"]);

    let mut entity = world.entity_mut(e);
    entity.clear();
    assert!(entity.is_spawned());
    assert!(!entity.contains_type_id(std::any::TypeId::of::<Tagged>()));
    assert_eq!(world.entity(e).archetype().component_count(), 0);
    drops.assert_dropped_once(&[7]);
    assert_eq!(world.resource::<Removed>().0, ["Pace", "Tagged"]);
    // The other entity keeps its values; clearing an empty entity is a no-op.
    assert_eq!(world.get::<Pace>(other), Some(&Pace(2)));
    assert!(world
        .entity(other)
        .contains_type_id(std::any::TypeId::of::<Tagged>()));
    world.entity_mut(e).clear();
    check_invariants(&world);

    let message = expect_panic(|| {
        world
            .entity_mut(other)
            .remove_by_ids(&[ecs::component::ComponentId::new(9999)]);
    });
    assert!(message.contains("not registered"), "{message}");
    let message = expect_panic(|| {
        world.entity_mut(other).remove_by_ids(&[pace, pace]);
    });
    assert!(message.contains("duplicate component"), "{message}");
    assert_eq!(world.get::<Pace>(other), Some(&Pace(2)));
}

#[test]
fn commands_find_entities_and_clear_or_despawn_them() {
    let mut world = World::new();
    let kept = world.spawn((Pace(1), Tagged)).id();
    let cleared = world.spawn((Pace(2), Tagged)).id();
    let gone = world.spawn(Pace(3)).id();
    world.despawn(gone);

    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let reserved = commands.spawn_empty().id();
    assert!(commands.get_entity(reserved).is_ok());
    assert!(matches!(
        commands.get_spawned_entity(reserved),
        Err(ecs::entity::EntityNotSpawnedError::ValidButNotSpawned(_))
    ));
    let error = commands.get_entity(gone).err().unwrap();
    assert_eq!(error.entity, gone);
    assert!(commands.get_spawned_entity(gone).is_err());
    commands.get_spawned_entity(cleared).unwrap().clear();
    commands
        .get_entity(kept)
        .unwrap()
        .remove_if::<Tagged>(|| false)
        .try_remove_if::<Pace>(|| true);
    commands.entity(gone).try_despawn();
    commands.entity(reserved).try_despawn();
    queue.apply(&mut world);

    assert_eq!(world.entity(cleared).archetype().component_count(), 0);
    assert!(world.entity(kept).contains::<Tagged>());
    assert!(!world.entity(kept).contains::<Pace>());
    assert!(!world.contains_entity(reserved));
    check_invariants(&world);
}

#[test]
fn a_deferred_world_reaches_entities_and_queries_without_structural_changes() {
    /// The query the hook runs, made beforehand (a hook cannot register).
    #[derive(Resource)]
    struct Stash(Option<QueryState<&'static mut Pace>>);
    #[derive(Resource, Default)]
    struct Ticks(Vec<u32>);
    /// Its `on_add` doubles every `Pace` through the stashed query and
    /// bumps the new entity's own through a deferred handle.
    #[derive(Component)]
    #[component(on_add = on_add_doubler)]
    struct Doubler;
    fn on_add_doubler(mut world: ecs::world::DeferredWorld, context: ecs::lifecycle::HookContext) {
        let mut state = world.resource_mut::<Stash>().0.take().unwrap();
        for mut pace in world.query(&mut state).iter_mut() {
            pace.0 *= 2;
        }
        world.resource_mut::<Stash>().0 = Some(state);
        world
            .entity_mut(context.entity)
            .get_mut::<Pace>()
            .unwrap()
            .0 += 1;
        assert!(world.get_entity_mut(Entity::PLACEHOLDER).is_err());
        let tick = world.change_tick();
        world.resource_mut::<Ticks>().0.push(tick.get());
    }
    let mut world = World::new();
    world.init_resource::<Ticks>();
    let state = world.query::<&mut Pace>();
    world.insert_resource(Stash(Some(state)));
    let a = world.spawn(Pace(1)).id();
    let b = world.spawn((Pace(5), Doubler)).id();
    assert_eq!(world.get::<Pace>(a), Some(&Pace(2)));
    assert_eq!(world.get::<Pace>(b), Some(&Pace(11)));
    assert_eq!(world.resource::<Ticks>().0, [world.change_tick().get()]);

    // The entity handle's other forms.
    let mut entity = world.entity_mut(a);
    assert_eq!(entity.as_readonly().get::<Pace>(), Some(&Pace(2)));
    entity.as_mutable().get_mut::<Pace>().unwrap().0 = 3;
    entity.into_mutable().get_mut::<Pace>().unwrap().0 += 1;
    assert_eq!(
        world.entity_mut(a).into_readonly().get::<Pace>(),
        Some(&Pace(4))
    );
}

#[test]
fn entity_handles_fetch_query_data_and_try_query_needs_no_mut_world() {
    #[derive(Component, Debug, PartialEq)]
    struct Heading(u32);
    #[derive(Component)]
    struct NeverSpawned;
    let mut world = World::new();
    assert!(world.try_query::<&Pace>().is_none());
    let e = world.spawn((Pace(1), Tagged)).id();
    let bare = world.spawn(Pace(9)).id();
    world.register_component::<Heading>();

    let entity = world.entity(e);
    assert_eq!(
        entity.components::<(&Pace, Has<Tagged>, Option<&Heading>)>(),
        (&Pace(1), true, None)
    );
    assert_eq!(
        entity.get_components::<&NeverSpawned>().err(),
        Some(ecs::query::QueryAccessError::ComponentNotRegistered)
    );
    assert_eq!(
        world
            .entity(bare)
            .get_components::<(&Pace, &Tagged)>()
            .err(),
        Some(ecs::query::QueryAccessError::EntityDoesNotMatch)
    );
    let message = expect_panic(|| world.entity(bare).components::<&Heading>());
    assert!(
        message.contains(&format!("{bare}")) && message.contains("Heading"),
        "{message}"
    );

    // Writes through the handle, change detection included.
    let mut entity = world.entity_mut(e);
    let (mut pace, tagged) = entity.get_components_mut::<(&mut Pace, &Tagged)>().unwrap();
    pace.0 += 1;
    assert!(pace.is_changed());
    let _ = tagged;
    assert_eq!(entity.components::<&Pace>(), &Pace(2));
    let message = expect_panic(|| {
        let mut entity = world.entity_mut(e);
        let _ = entity.get_components_mut::<(&mut Pace, &Pace)>();
    });
    assert!(message.contains("Pace"), "{message}");
    let mut query = world.query::<EntityMut>();
    let mut entity = query.get_mut(&mut world, e).unwrap();
    entity.get_components_mut::<&mut Pace>().unwrap().0 = 5;
    assert_eq!(entity.components::<&Pace>(), &Pace(5));
    assert_eq!(world.get::<Pace>(e), Some(&Pace(5)));

    // Change ticks, typed and by id.
    world.increment_change_tick();
    let spawned = world.entity(bare).get_change_ticks::<Pace>().unwrap();
    assert_eq!(spawned.added, spawned.changed);
    world.get_mut::<Pace>(bare).unwrap().0 += 1;
    let pace_id = world.component_id::<Pace>().unwrap();
    let changed = world
        .entity_mut(bare)
        .get_change_ticks_by_id(pace_id)
        .unwrap();
    assert_eq!(changed.added, spawned.added);
    assert!(changed.changed.get() > spawned.changed.get());
    assert!(world.entity(bare).get_change_ticks::<Tagged>().is_none());
    #[derive(Component)]
    #[component(no_change_ticks)]
    struct Tickless;
    let tickless = world.spawn(Tickless).id();
    let message = expect_panic(|| world.entity(tickless).get_change_ticks::<Tickless>());
    assert!(message.contains("Tickless"), "{message}");

    // Whole-entity terms, and the aliasing they are refused.
    assert_eq!(world.entity(e).components::<EntityRef>().id(), e);
    assert!(world.try_query::<EntityRef>().is_some());
    let message = expect_panic(|| {
        let mut entity = world.entity_mut(e);
        let _ = entity.get_components_mut::<(EntityMut, &Pace)>();
    });
    assert!(
        message.contains("Pace") && message.contains("writes"),
        "{message}"
    );
    assert!(world
        .try_query_filtered::<Entity, With<NeverSpawned>>()
        .is_none());

    let mut paces = world.try_query::<&Pace>().unwrap();
    assert_eq!(paces.iter(&world).count(), 2);
    let mut tagged = world.try_query_filtered::<Entity, With<Tagged>>().unwrap();
    assert_eq!(tagged.iter(&world).collect::<Vec<_>>(), [e]);
}

#[test]
fn resources_schedules_and_queues_reached_from_handles_and_commands() {
    #[derive(Resource, Debug, PartialEq)]
    struct Gold(u32);
    #[derive(ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    struct Payday;
    #[derive(ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    struct Missing;
    let mut world = World::new();
    assert!(world.get_resource_change_ticks::<Gold>().is_none());
    world.insert_resource(Gold(1));
    let gold = world.components().resource_id::<Gold>().unwrap();
    assert!(world.contains_resource_by_id(gold));
    let ticks = world.get_resource_change_ticks::<Gold>().unwrap();
    assert_eq!(Some(ticks), world.get_resource_change_ticks_by_id(gold));
    assert_eq!(world.read_change_tick(), world.change_tick());
    let id = world.id();
    assert_eq!(world.as_unsafe_world_cell_readonly().id(), id);
    assert_eq!(world.as_unsafe_world_cell().id(), id);

    let mut schedule = Schedule::new(Payday);
    schedule.add_systems(|mut gold: ResMut<Gold>| gold.0 += 10);
    world.add_schedule(schedule);
    let e = world.spawn(Pace(1)).id();
    let mut entity = world.entity_mut(e);
    assert_eq!(entity.resource::<Gold>(), &Gold(1));
    entity.resource_mut::<Gold>().0 += 1;
    assert!(entity.get_resource::<Pace2>().is_none());
    entity.get_resource_mut::<Gold>().unwrap().0 += 1;
    // SAFETY: the entity is moved below, then the handle re-reads its
    // location before it is used again.
    unsafe { entity.world_mut() }.entity_mut(e).insert(Tagged);
    entity.update_location();
    assert!(entity.contains::<Tagged>() && entity.contains::<Pace>());

    let mut queue = CommandQueue::default();
    let mut other = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.run_schedule(Payday);
    commands.run_schedule(Missing);
    commands.entity(e).commands_mut().insert_resource(Gold(100));
    {
        let mut more = Commands::new(&mut other, &world);
        more.run_schedule(Payday);
    }
    commands.append(&mut other);
    queue.apply(&mut world);
    // Payday ran on 3, then `Gold(100)` replaced it, then Payday again.
    assert_eq!(world.resource::<Gold>(), &Gold(110));
    world.remove_resource::<Gold>();
    assert!(!world.contains_resource_by_id(gold));
}

#[derive(Resource)]
struct Pace2;

#[test]
fn single_inner_contains_and_the_last_handle_forms() {
    #[derive(Resource, PartialEq, Debug)]
    struct Level(u32);
    let mut world = World::new();
    let e = world.spawn((Pace(1), Tagged)).id();
    let other = world.spawn(Pace(2)).id();

    let mut state = world.query_filtered::<&mut Pace, With<Tagged>>();
    state.query_mut(&mut world).single_inner().unwrap().0 = 7;
    assert_eq!(world.get::<Pace>(e), Some(&Pace(7)));
    let (last, now) = (world.last_change_tick(), world.change_tick());
    assert!(state.contains(e, &world, last, now));
    assert!(!state.contains(other, &world, last, now));
    // `contains` compares the ticks it is given.
    let changed = world.query_filtered::<Entity, Changed<Pace>>();
    world.clear_trackers();
    let (last, now) = (world.last_change_tick(), world.change_tick());
    assert!(!changed.contains(e, &world, last, now));
    world.get_mut::<Pace>(e).unwrap().0 = 7;
    world.increment_change_tick();
    assert!(changed.contains(e, &world, last, world.change_tick()));
    assert!(!changed.contains(other, &world, last, world.change_tick()));
    let mut all = world.query::<&mut Pace>();
    assert!(matches!(
        all.query_mut(&mut world).single_inner(),
        Err(ecs::query::QuerySingleError::MultipleEntities(_))
    ));

    let entity = world.entity_mut(e);
    assert_eq!(entity.try_location(), Some(entity.location()));
    assert!(entity
        .try_archetype()
        .unwrap()
        .contains(world_component::<Tagged>(&entity)));
    let mut doomed = world.spawn(Pace(0));
    let doomed_id = doomed.id();
    // SAFETY: the handle re-reads its location before any other use.
    unsafe { doomed.world_mut() }.despawn(doomed_id);
    doomed.update_location();
    assert!(!doomed.is_spawned() && doomed.try_location().is_none());
    assert!(doomed.try_archetype().is_none() && doomed.is_despawned());
    let mut pace = world
        .entity_mut(e)
        .into_components_mut::<&mut Pace>()
        .unwrap();
    pace.0 = 8;
    assert_eq!(world.get::<Pace>(e), Some(&Pace(8)));

    // Resources through commands and a deferred world.
    world.insert_resource(Level(1));
    world.clear_trackers();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.insert_resource_if_neq(Level(1));
    commands.entity(e).log_components();
    queue.apply(&mut world);
    assert!(!world.is_resource_changed::<Level>());
    let mut commands = Commands::new(&mut queue, &world);
    commands.insert_resource_if_neq(Level(2));
    queue.apply(&mut world);
    assert!(world.is_resource_changed::<Level>());
    let level = world.components().resource_id::<Level>().unwrap();
    let mut deferred = ecs::world::DeferredWorld::from(&mut world);
    let mut value = deferred.get_resource_mut_by_id(level).unwrap();
    // SAFETY: `level` is `Level`'s id.
    unsafe { value.as_mut().deref_mut::<Level>().0 = 3 };
    assert_eq!(world.resource::<Level>(), &Level(3));
}

fn world_component<T: Component>(entity: &EntityWorldMut) -> ecs::component::ComponentId {
    entity.world().components().component_id::<T>().unwrap()
}

#[test]
fn hooks_by_id_resource_scope_on_a_handle_and_inserts_by_id_through_commands() {
    #[derive(Resource, Default)]
    struct Added(u32);
    #[derive(Resource)]
    struct Bonus(u32);
    let mut world = World::new();
    world.init_resource::<Added>();
    assert!(world
        .register_component_hooks_by_id(ecs::component::ComponentId::new(9999))
        .is_none());
    let pace = world.register_component::<Pace>();
    world
        .register_component_hooks_by_id(pace)
        .unwrap()
        .on_add(|mut world, _| world.resource_mut::<Added>().0 += 1);
    let e = world.spawn(Pace(1)).id();
    assert_eq!(world.resource::<Added>().0, 1);

    world.insert_resource(Bonus(5));
    let mut entity = world.entity_mut(e);
    let total = entity.resource_scope(|entity, bonus: Mut<Bonus>| {
        entity.insert(Tagged);
        entity.get::<Pace>().unwrap().0 + bonus.0
    });
    assert_eq!(total, 6);
    assert!(entity.contains::<Tagged>());
    assert_eq!(world.resource::<Bonus>().0, 5);

    let other = world.spawn_empty().id();
    let gone = world.spawn_empty().id();
    world.despawn(gone);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    // SAFETY: `pace` is `Pace`'s id and the values are `Pace`s.
    unsafe {
        commands.entity(other).insert_by_id(pace, Pace(7));
        commands.entity(gone).try_insert_by_id(pace, Pace(8));
    }
    queue.apply(&mut world);
    assert_eq!(world.get::<Pace>(other), Some(&Pace(7)));
    assert_eq!(world.resource::<Added>().0, 2);
}

// ---- clearing and despawning in bulk ----------------------------------------

#[derive(Resource)]
struct Vault(#[allow(dead_code)] Payload);

#[derive(Resource)]
struct Till(#[allow(dead_code)] Payload);

/// Non-send: held for its drop.
struct LocalVault(
    #[allow(dead_code)] Payload,
    #[allow(dead_code)] std::rc::Rc<()>,
);

#[test]
fn clear_resources_drops_each_value_once_even_when_one_panics() {
    let log = DropLog::default();
    let mut world = World::new();
    world.insert_resource(Vault(Payload::armed(1, &log)));
    world.insert_resource(Till(Payload::new(2, &log)));
    world.insert_non_send(LocalVault(Payload::new(3, &log), Default::default()));
    let e = world.spawn(Health(1)).id();
    let message = expect_panic(|| world.clear_resources());
    assert!(message.contains("bomb 1 exploded"), "{message}");
    log.assert_dropped_once(&[1, 2]);
    log.assert_not_dropped(&[3]);
    assert!(!world.contains_resource::<Vault>());
    assert!(!world.contains_resource::<Till>());
    assert_eq!(world.iter_resources().count(), 0);
    // Entities and non-send resources stay; resources can come back.
    assert_eq!(world.get::<Health>(e), Some(&Health(1)));
    assert!(world.contains_non_send::<LocalVault>());
    world.insert_resource(Till(Payload::new(4, &log)));
    assert!(world.contains_resource::<Till>());
    // Queries still build with the world's filters resource gone.
    assert_eq!(world.query::<&Health>().iter(&world).count(), 1);
    check_invariants(&world);
}

#[test]
fn clear_non_send_refuses_another_threads_values_before_dropping_any() {
    let log = DropLog::default();
    let mut world = World::new();
    world.insert_non_send(LocalVault(Payload::new(1, &log), Default::default()));
    let message = std::thread::scope(|scope| {
        scope
            .spawn(|| expect_panic(|| world.clear_non_send()))
            .join()
            .unwrap()
    });
    assert!(message.contains("LocalVault"), "{message}");
    assert!(message.contains("inserted on thread"), "{message}");
    log.assert_not_dropped(&[1]);
    assert!(world.contains_non_send::<LocalVault>());
    world.clear_non_send();
    log.assert_dropped_once(&[1]);
    assert!(!world.contains_non_send::<LocalVault>());
}

#[test]
fn clear_all_empties_the_world_and_keeps_registrations() {
    let log = DropLog::default();
    let mut world = World::new();
    let cargo = world.spawn(Cargo(Payload::new(1, &log))).id();
    world.spawn((Health(1), Speed(2)));
    world.insert_resource(Vault(Payload::new(2, &log)));
    world.insert_non_send(LocalVault(Payload::new(3, &log), Default::default()));
    let health = world.register_component::<Health>();
    world.clear_all();
    log.assert_dropped_once(&[1, 2, 3]);
    assert_eq!(world.entities().len(), 0);
    assert!(world.get_entity(cargo).is_err());
    assert!(!world.contains_resource::<Vault>());
    assert!(!world.contains_non_send::<LocalVault>());
    assert_eq!(world.component_id::<Health>(), Some(health));
    let again = world.spawn(Health(5)).id();
    assert_ne!(again, cargo);
    assert_eq!(world.query::<&Health>().iter(&world).count(), 1);
    check_invariants(&world);
}

#[derive(Component)]
#[component(on_despawn = count_despawn)]
struct Doomed(u32);

#[derive(Resource, Default)]
struct Despawned(Vec<u32>);

fn count_despawn(mut world: ecs::world::DeferredWorld, ctx: ecs::component::HookContext) {
    let n = world.get::<Doomed>(ctx.entity).unwrap().0;
    world.resource_mut::<Despawned>().0.push(n);
}

#[test]
fn despawn_all_runs_hooks_in_reverse_walk_order_and_keeps_the_rest() {
    let mut world = World::new();
    world.init_resource::<Despawned>();
    let doomed: Vec<Entity> = (0..5).map(|i| world.spawn(Doomed(i)).id()).collect();
    let kept = world.spawn((Doomed(9), Marker)).id();
    let order: Vec<u32> = world
        .query_filtered::<&Doomed, Without<Marker>>()
        .iter(&world)
        .map(|d| d.0)
        .collect();
    world.despawn_all::<Without<Marker>>();
    let mut expected = order;
    expected.reverse();
    assert_eq!(world.resource::<Despawned>().0, expected);
    assert!(doomed.iter().all(|&e| world.get_entity(e).is_err()));
    assert!(world.get_entity(kept).is_ok());
    check_invariants(&world);
}

#[test]
fn despawn_all_where_tests_each_item_and_a_panicking_test_despawns_nothing() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..10).map(|i| world.spawn(Health(i)).id()).collect();
    let message = expect_panic(|| {
        world.despawn_all_where::<&Health, ()>(|h| {
            assert!(h.0 != 7, "health 7 cannot be judged");
            h.0 % 2 == 0
        })
    });
    assert!(message.contains("health 7 cannot be judged"), "{message}");
    assert_eq!(world.entities().len(), 10);
    // A mutable item may be changed by the test itself.
    world.despawn_all_where::<&mut Health, ()>(|mut h| {
        h.0 += 100;
        h.0 % 2 == 0
    });
    let left: Vec<u32> = entities
        .iter()
        .filter_map(|&e| world.get::<Health>(e).map(|h| h.0))
        .collect();
    assert_eq!(left, [101, 103, 105, 107, 109]);
    check_invariants(&world);
}

#[test]
fn despawn_all_skips_entities_a_hook_already_despawned() {
    let mut world = World::new();
    let parent = world.spawn(Marker).id();
    let child = world.spawn((Marker, ChildOf(parent))).id();
    world.despawn_all::<With<Marker>>();
    assert!(world.get_entity(parent).is_err());
    assert!(world.get_entity(child).is_err());
    assert_eq!(world.entities().len(), 0);
    check_invariants(&world);
}

#[test]
fn commands_despawn_all_and_despawn_all_where() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..6).map(|i| world.spawn(Health(i)).id()).collect();
    world.entity_mut(entities[0]).insert(Marker);
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.despawn_all::<With<Marker>>();
    commands.despawn_all_where::<&Health, ()>(|h| h.0 >= 4);
    // Nothing happens until the queue applies.
    assert_eq!(world.entities().len(), 6);
    queue.apply(&mut world);
    let alive: Vec<Entity> = entities
        .iter()
        .copied()
        .filter(|&e| world.get_entity(e).is_ok())
        .collect();
    assert_eq!(alive, entities[1..4]);
}

// ---- resources, non-send resources and registrations by id ------------------

#[test]
fn modify_resource_runs_f_and_marks_the_resource_changed() {
    let mut world = World::new();
    assert_eq!(world.modify_resource(|g: &mut Gold| g.0), Ok(None));
    world.insert_resource(Gold(1));
    world.clear_trackers();
    assert!(!world.is_resource_changed::<Gold>());
    // `f` gets `&mut Gold`: the resource counts as changed, as in bevy.
    assert_eq!(world.modify_resource(|g: &mut Gold| g.0), Ok(Some(1)));
    assert!(world.is_resource_changed::<Gold>());
    assert_eq!(
        world.modify_resource(|g: &mut Gold| {
            g.0 = 2;
        }),
        Ok(Some(()))
    );
    assert_eq!(world.resource::<Gold>(), &Gold(2));
    let id = world.components().resource_id::<Gold>().unwrap();
    world.clear_trackers();
    let read = world.modify_resource_by_id(id, |mut value| {
        // SAFETY: `id` is `Gold`'s.
        let gold = unsafe { value.as_mut().deref_mut::<Gold>() };
        gold.0 += 1;
        gold.0
    });
    assert_eq!(read, Ok(Some(3)));
    assert!(world.is_resource_changed::<Gold>());
    world.remove_resource::<Gold>();
    assert_eq!(world.modify_resource_by_id(id, |_| ()), Ok(None));
}

#[test]
fn iter_resources_mut_marks_only_what_it_writes() {
    let mut world = World::new();
    world.insert_resource(Gold(1));
    world.insert_resource(Despawned::default());
    world.clear_trackers();
    let gold = world.components().resource_id::<Gold>().unwrap();
    let mut seen = 0;
    for (id, info, mut value) in world.iter_resources_mut() {
        seen += 1;
        if id == gold {
            assert!(info.name().ends_with("Gold"));
            // SAFETY: `id` is `Gold`'s.
            unsafe { value.as_mut().deref_mut::<Gold>() }.0 = 10;
        }
    }
    assert_eq!(seen, world.iter_resources().count());
    assert_eq!(world.resource::<Gold>(), &Gold(10));
    assert!(world.is_resource_changed::<Gold>());
    assert!(!world.is_resource_changed::<Despawned>());
}

#[test]
fn non_send_by_id_family() {
    let log = DropLog::default();
    let mut world = World::new();
    let id = world.init_non_send::<Option<std::rc::Rc<u32>>>();
    assert!(world.contains_non_send_by_id(id));
    // SAFETY: `id` is `Option<Rc<u32>>`'s.
    assert!(unsafe {
        world
            .get_non_send_by_id(id)
            .unwrap()
            .deref::<Option<std::rc::Rc<u32>>>()
    }
    .is_none());
    world.clear_trackers();
    {
        let mut value = world.get_non_send_mut_by_id(id).unwrap();
        // SAFETY: as above.
        *unsafe { value.as_mut().deref_mut::<Option<std::rc::Rc<u32>>>() } =
            Some(std::rc::Rc::new(7));
    }
    assert!(world
        .get_non_send_mut::<Option<std::rc::Rc<u32>>>()
        .unwrap()
        .is_changed());
    assert_eq!(
        world
            .non_send::<Option<std::rc::Rc<u32>>>()
            .as_deref()
            .copied(),
        Some(7)
    );
    assert_eq!(world.remove_non_send_by_id(id), Some(()));
    assert_eq!(world.remove_non_send_by_id(id), None);
    assert!(!world.contains_non_send_by_id(id));
    assert!(world.get_non_send_by_id(id).is_none());

    let vault = world.init_non_send_id_of_local_vault(&log);
    log.assert_not_dropped(&[1]);
    OwningPtr::make(
        LocalVault(Payload::new(2, &log), Default::default()),
        // SAFETY: `vault` is `LocalVault`'s, and the value moves in.
        |ptr| unsafe { world.insert_non_send_by_id(vault, ptr) },
    );
    log.assert_dropped_once(&[1]);
    assert!(world.contains_non_send_by_id(vault));
    world.remove_non_send_by_id(vault);
    log.assert_dropped_once(&[1, 2]);
}

trait InitLocalVault {
    fn init_non_send_id_of_local_vault(&mut self, log: &DropLog) -> ecs::component::ComponentId;
}

impl InitLocalVault for World {
    fn init_non_send_id_of_local_vault(&mut self, log: &DropLog) -> ecs::component::ComponentId {
        self.insert_non_send(LocalVault(Payload::new(1, log), Default::default()));
        self.components()
            .get_resource_id(std::any::TypeId::of::<LocalVault>())
            .unwrap()
    }
}

#[test]
fn register_bundle_and_required_components() {
    let mut world = World::new();
    let info = world.register_bundle::<(Health, Body)>();
    let (bundle, ids) = (info.id(), info.explicit_components().to_vec());
    assert_eq!(
        ids,
        [
            world.component_id::<Health>().unwrap(),
            world.component_id::<Body>().unwrap()
        ]
    );
    assert_eq!(world.register_bundle::<(Health, Body)>().id(), bundle);
    let required = world.get_required_components::<Body>().unwrap();
    assert_eq!(required.len(), 1);
    assert_eq!(required[0].id, world.component_id::<Mass>().unwrap());
    let body = world.component_id::<Body>().unwrap();
    assert_eq!(world.get_required_components_by_id(body).unwrap().len(), 1);
    assert!(world.get_required_components::<Named>().is_none());
}

#[test]
fn try_hook_setters_refuse_a_second_hook() {
    fn hook(_: ecs::world::DeferredWorld, _: ecs::component::HookContext) {}
    let mut world = World::new();
    let hooks = world.register_component_hooks::<Speed>();
    assert!(hooks.try_on_add(hook).is_some());
    assert!(hooks.try_on_add(hook).is_none());
    assert!(hooks.try_on_insert(hook).is_some());
    assert!(hooks.try_on_discard(hook).is_some());
    assert!(hooks.try_on_remove(hook).is_some());
    assert!(hooks.try_on_despawn(hook).is_some());
    assert!(hooks.try_on_despawn(hook).is_none());
}

#[test]
fn deferred_world_reaches_non_send_resources() {
    #[derive(Component)]
    #[component(on_add = count_in_non_send)]
    struct Counted;
    fn count_in_non_send(mut world: ecs::world::DeferredWorld, _: ecs::component::HookContext) {
        let cell = world
            .non_send_mut::<std::rc::Rc<std::cell::Cell<u32>>>()
            .clone();
        cell.set(cell.get() + 1);
        assert!(world.get_non_send_mut::<u8>().is_none());
    }
    let mut world = World::new();
    let counter = std::rc::Rc::new(std::cell::Cell::new(0u32));
    world.insert_non_send(counter.clone());
    world.spawn(Counted);
    world.spawn(Counted);
    assert_eq!(counter.get(), 2);
}

// ---- filtered handles, ticks and small conversions --------------------------

#[test]
fn filtered_handles_convert_to_and_from_whole_entity_handles() {
    let mut world = World::new();
    let e = world.spawn((Health(1), Speed(2))).id();
    let health = world.register_component::<Health>();
    let speed = world.register_component::<Speed>();
    world.clear_trackers();
    world.entity_mut(e).get_mut::<Speed>().unwrap().0 = 3;

    let filtered = world.entity(e).into_filtered();
    assert!(filtered.contains_type_id(std::any::TypeId::of::<Health>()));
    assert!(!filtered.contains_type_id(std::any::TypeId::of::<Mass>()));
    let ticks = filtered.get_change_ticks::<Speed>().unwrap();
    assert_eq!(Some(ticks), world.entity(e).get_change_ticks::<Speed>());
    assert_eq!(
        filtered.get_change_ticks_by_id(health),
        world.entity(e).get_change_ticks::<Health>()
    );
    assert_eq!(
        filtered.try_into_all().unwrap().get::<Health>(),
        Some(&Health(1))
    );

    let mut entity_mut = world.entity_mut(e);
    let mut filtered = entity_mut.as_mutable().into_filtered();
    filtered.get_mut::<Health>().unwrap().0 = 10;
    assert!(filtered.contains_type_id(std::any::TypeId::of::<Speed>()));
    assert!(filtered.get_change_ticks_by_id(speed).is_some());
    let mut whole = filtered.try_into_all().unwrap();
    whole.get_mut::<Speed>().unwrap().0 = 20;
    assert_eq!(world.get::<Health>(e), Some(&Health(10)));
    assert_eq!(world.get::<Speed>(e), Some(&Speed(20)));

    // A built query's narrower access is refused, naming what is missing.
    let mut state = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .ref_id(health)
        .mut_id(speed)
        .build();
    let item = state.single_mut(&mut world).unwrap();
    assert!(item.get_change_ticks::<Health>().is_some());
    assert_eq!(
        item.try_into_all().err(),
        Some(ecs::world::TryFromFilteredError::MissingReadAllAccess)
    );
    let mut state = QueryBuilder::<FilteredEntityRef>::new(&mut world)
        .ref_id(speed)
        .build();
    let item = state.single(&world).unwrap();
    assert!(item.get_change_ticks::<Health>().is_none(), "not readable");
    assert_eq!(
        item.try_into_all().err().map(|e| e.to_string()),
        Some("the filtered handle may not read every component of its entity".into())
    );
}

#[test]
fn set_ticks_moves_what_changes_are_measured_against() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    world.clear_trackers();
    let changed_at = world.change_tick();
    world.entity_mut(e).get_mut::<Health>().unwrap().0 = 2;
    let mut entity = world.entity_mut(e);
    let mut health = entity.get_mut::<Health>().unwrap();
    assert!(health.is_changed());
    // Measured from after the write, nothing has changed.
    health.set_ticks(
        Tick::new(changed_at.get() + 5),
        Tick::new(changed_at.get() + 6),
    );
    assert!(!health.is_changed());
    health.0 = 3;
    assert!(health.is_changed());
    assert_eq!(health.last_changed(), Tick::new(changed_at.get() + 6));

    // The last write carries tick +6: seen from +5 it is a change, from +7
    // it is not.
    let mut seen = world.entity(e).get_ref::<Health>().unwrap();
    seen.set_ticks(
        Tick::new(changed_at.get() + 5),
        Tick::new(changed_at.get() + 8),
    );
    assert!(seen.is_changed());
    seen.set_ticks(
        Tick::new(changed_at.get() + 7),
        Tick::new(changed_at.get() + 8),
    );
    assert!(!seen.is_changed());
}

#[test]
fn res_clone_and_children_sorts() {
    fn read_twice(gold: Res<Gold>) -> (u32, Tick, bool) {
        let other = Res::clone(&gold);
        (gold.0 + other.0, other.last_changed(), other.is_added())
    }
    let mut world = World::new();
    world.insert_resource(Gold(4));
    let inserted_at = world.change_tick();
    // The clone carries the resource's ticks and the system's.
    assert_eq!(
        world.run_system_once(read_twice).unwrap(),
        (8, inserted_at, true)
    );

    let parent = world.spawn_empty().id();
    let kids: Vec<Entity> = (0..5)
        .map(|i| world.spawn((Health(i * 7 % 5), ChildOf(parent))).id())
        .collect();
    let mut children = world.get::<Children>(parent).unwrap().clone();
    let snapshot: std::collections::HashMap<Entity, u32> = kids
        .iter()
        .map(|&e| (e, world.get::<Health>(e).unwrap().0))
        .collect();
    children.sort_unstable_by_key(|e| snapshot[e]);
    assert_eq!(
        children.iter().map(|e| snapshot[&e]).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    children.sort_unstable_by(|a, b| snapshot[b].cmp(&snapshot[a]));
    assert_eq!(
        children.iter().map(|e| snapshot[&e]).collect::<Vec<_>>(),
        [4, 3, 2, 1, 0]
    );
    children.sort_by_cached_key(|e| snapshot[e]);
    assert_eq!(
        children.iter().map(|e| snapshot[&e]).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
}

#[test]
fn clear_all_drops_everything_even_when_a_component_drop_panics() {
    let log = DropLog::default();
    let mut world = World::new();
    world.spawn(Cargo(Payload::armed(1, &log)));
    world.spawn(Cargo(Payload::new(2, &log)));
    world.insert_resource(Vault(Payload::new(3, &log)));
    world.insert_non_send(LocalVault(Payload::new(4, &log), Default::default()));
    let message = expect_panic(|| world.clear_all());
    assert!(message.contains("bomb 1 exploded"), "{message}");
    log.assert_dropped_once(&[1, 2, 3, 4]);
    assert_eq!(world.entities().len(), 0);
    assert!(!world.contains_resource::<Vault>());
    assert!(!world.contains_non_send::<LocalVault>());
    check_invariants(&world);
}

#[test]
fn clear_all_refuses_another_threads_values_before_despawning_anything() {
    let log = DropLog::default();
    let mut world = World::new();
    let e = world.spawn(Cargo(Payload::new(1, &log))).id();
    world.insert_non_send(LocalVault(Payload::new(2, &log), Default::default()));
    let message = std::thread::scope(|scope| {
        scope
            .spawn(|| expect_panic(|| world.clear_all()))
            .join()
            .unwrap()
    });
    assert!(message.contains("LocalVault"), "{message}");
    log.assert_not_dropped(&[1, 2]);
    assert!(world.get_entity(e).is_ok());
}

#[test]
fn filtered_handles_convert_with_try_from() {
    let mut world = World::new();
    let e = world.spawn((Health(1), Speed(2))).id();
    let filtered = world.entity(e).into_filtered();
    let whole = EntityRef::try_from(&filtered).unwrap();
    assert_eq!(whole.get::<Speed>(), Some(&Speed(2)));
    assert!(EntityRef::try_from(filtered).is_ok());
    let speed = world.register_component::<Speed>();
    let mut state = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .mut_id(speed)
        .build();
    let mut item = state.single_mut(&mut world).unwrap();
    assert_eq!(
        EntityMut::try_from(&mut item).err(),
        Some(ecs::world::TryFromFilteredError::MissingReadAllAccess)
    );
    assert!(EntityRef::try_from(&item).is_err());
    assert!(EntityRef::try_from(item).is_err());
    let mut entity = world.entity_mut(e);
    let mut all = entity.as_mutable().into_filtered();
    EntityMut::try_from(&mut all)
        .unwrap()
        .get_mut::<Health>()
        .unwrap()
        .0 = 5;
    assert!(EntityRef::try_from(&all).is_ok());
    assert!(EntityMut::try_from(all).is_ok());
    assert_eq!(world.get::<Health>(e), Some(&Health(5)));
}

#[test]
fn introspection_by_bevys_names() {
    fn hook(_: ecs::world::DeferredWorld, _: ecs::component::HookContext) {}
    let mut world = World::new();
    world.register_component_hooks::<Speed>().on_add(hook);
    world.add_observer(|_: On<Remove<Health>>| {});
    world.flush();
    let e = world.spawn((Health(1), Speed(2))).id();
    let plain = world.spawn(Mass(3)).id();

    let archetype = world.entity(e).archetype();
    assert!(archetype.has_add_hook());
    assert!(!archetype.has_insert_hook());
    assert!(archetype.has_remove_observer());
    assert!(!archetype.has_add_observer());
    let mut ids: Vec<_> = archetype.iter_components().collect();
    ids.sort();
    let mut expected = vec![
        world.component_id::<Health>().unwrap(),
        world.component_id::<Speed>().unwrap(),
    ];
    expected.sort();
    assert_eq!(ids, expected);
    let archetype = world.entity(plain).archetype();
    assert!(!archetype.has_add_hook() && !archetype.has_remove_observer());

    let entities = world.entities();
    let live = entities.len();
    assert_eq!(entities.count_spawned(), live);
    assert!(entities.any_spawned());
    assert!(entities.is_index_spawned(e.index()));
    assert_eq!(entities.resolve_from_index(e.index()), e);
    world.despawn(plain);
    let entities = world.entities();
    assert!(!entities.is_index_spawned(plain.index()));
    let next = entities.resolve_from_index(plain.index());
    assert_eq!(next.index(), plain.index());
    assert_ne!(next, plain, "the next entity there gets a new generation");
    assert_eq!(world.spawn_empty().id(), next);
    assert_eq!(world.entities().resolve_from_index(1_000).index(), 1_000);

    let components = world.components();
    assert_eq!(components.num_registered(), components.len());
    assert!(components.any_registered());
    let health = components.valid_component_id::<Health>().unwrap();
    assert!(components.is_id_valid(health));
    assert_eq!(
        components
            .get_descriptor(health)
            .map(|d| d.name().to_owned()),
        components.get_info(health).map(|i| i.name().to_owned())
    );
    assert!(components
        .iter_registered()
        .any(|(id, info)| id == health && info.name().ends_with("Health")));
    assert_eq!(components.iter_registered().count(), components.len());

    let mut ticks = world.entity(e).get_change_ticks::<Health>().unwrap();
    ticks.set_changed(Tick::new(ticks.changed.get() + 3));
    assert!(ticks.is_changed(ticks.added, Tick::new(ticks.added.get() + 4)));
}

#[test]
fn entity_handle_scopes_borrows_and_commands() {
    let mut world = World::new();
    world.insert_resource(Gold(2));
    let e = world.spawn(Health(1)).id();
    let mut entity = world.entity_mut(e);
    // A scope whose handle moves the entity: this one follows.
    let moved = entity.reborrow_scope(|mut inner| {
        inner.insert(Speed(3));
        inner.location().archetype_id
    });
    assert_eq!(entity.location().archetype_id, moved);
    assert_eq!(entity.get::<Speed>(), Some(&Speed(3)));
    // The resource exists: the closure runs; otherwise it does not.
    let got = entity.try_resource_scope(|inner, mut gold: Mut<Gold>| {
        gold.0 += inner.get::<Health>().unwrap().0;
        gold.0
    });
    assert_eq!(got, Some(3));
    assert_eq!(
        entity.try_resource_scope(|_, _: Mut<Despawned>| unreachable!()),
        None::<()>
    );
    // Commands wait for the next flush.
    entity.entity_commands().insert(Marker);
    assert!(!entity.contains::<Marker>());
    entity.world_scope(|world| world.flush());
    assert!(entity.contains::<Marker>());
    assert_eq!(entity.into_borrow::<Health>(), Some(&Health(1)));
    let health = world.entity_mut(e).into_ref::<Health>().unwrap();
    assert!(health.is_added());
    let mut entity = world.entity_mut(e);
    assert_eq!(entity.as_mutable().into_borrow::<Speed>(), Some(&Speed(3)));
    assert!(entity.as_mutable().into_ref::<Mass>().is_none());
}

#[derive(Component)]
struct Slots(Vec<u32>);

#[derive(Resource)]
struct Budget(Vec<u32>);

#[test]
fn mut_maps_keep_the_ticks_and_mark_only_writes() {
    let mut world = World::new();
    let e = world.spawn(Slots(vec![1, 2])).id();
    world.insert_resource(Budget(vec![5]));
    world.clear_trackers();
    let start = world.change_tick();

    // A miss marks nothing.
    let slots = world.get_mut::<Slots>(e).unwrap();
    assert!(slots.filter_map_unchanged(|s| s.0.get_mut(7)).is_none());
    let slots = world.get_mut::<Slots>(e).unwrap();
    let err = slots
        .try_map_unchanged(|s| s.0.get_mut(9).ok_or("no slot 9"))
        .err();
    assert_eq!(err, Some("no slot 9"));
    let ticks = world.entity(e).get_change_ticks::<Slots>().unwrap();
    assert!(!ticks.is_changed(start, world.change_tick()));

    // A write through the mapped handle marks the whole component.
    world.increment_change_tick();
    let slots = world.get_mut::<Slots>(e).unwrap();
    let mut second = slots.filter_map_unchanged(|s| s.0.get_mut(1)).unwrap();
    *second += 10;
    let slots = world.get_mut::<Slots>(e).unwrap();
    *slots
        .try_map_unchanged(|s| s.0.first_mut().ok_or(()))
        .unwrap() = 0;
    assert_eq!(world.get::<Slots>(e).unwrap().0, [0, 12]);
    let ticks = world.entity(e).get_change_ticks::<Slots>().unwrap();
    assert!(ticks.is_changed(start, world.change_tick()));

    // Resources: map, reborrow, deref through a Box.
    let mut schedule = Schedule::default();
    schedule.add_systems(|budget: ResMut<Budget>| {
        let mut first = budget.map_unchanged(|b| &mut b.0[0]);
        *first.reborrow() += 1;
    });
    schedule.run(&mut world);
    assert_eq!(world.resource::<Budget>().0, [6]);

    let mut schedule = Schedule::default();
    schedule.add_systems(|budget: ResMut<Budget>| {
        assert!(budget.filter_map_unchanged(|b| b.0.get_mut(3)).is_none());
    });
    world.clear_trackers();
    let before = world.change_tick();
    schedule.run(&mut world);
    assert!(!world
        .get_resource_change_ticks::<Budget>()
        .unwrap()
        .is_changed(before, world.change_tick()));

    let boxed = world.spawn(Name::new("boxed")).id();
    #[derive(Component)]
    struct Boxed(Box<u32>);
    world.entity_mut(boxed).insert(Boxed(Box::new(1)));
    let mut handle = world.get_mut::<Boxed>(boxed).unwrap();
    let mut inner = handle.reborrow().map_unchanged(|b| &mut b.0);
    *inner.as_deref_mut() += 1;
    assert_eq!(*world.get::<Boxed>(boxed).unwrap().0, 2);
}

#[test]
fn non_send_mut_maps_like_mut() {
    let mut world = World::new();
    world.insert_non_send(std::rc::Rc::new(std::cell::Cell::new(1u8)));
    world.insert_non_send(vec![1u8, 2]);
    let mut schedule = Schedule::default();
    schedule.add_systems(|mut bytes: NonSendMut<Vec<u8>>| {
        bytes.reborrow().push(3);
        let last = bytes.filter_map_unchanged(|b| b.last_mut()).unwrap();
        *last.map_unchanged(|b| b) += 1;
    });
    schedule.run(&mut world);
    assert_eq!(*world.non_send::<Vec<u8>>(), [1, 2, 4]);
    let mut schedule = Schedule::default();
    schedule.add_systems(|shared: NonSendMut<std::rc::Rc<std::cell::Cell<u8>>>| {
        let cell = shared.try_map_unchanged(|rc| Ok::<_, ()>(rc)).unwrap();
        cell.set(cell.get() + 1);
    });
    schedule.run(&mut world);
    assert_eq!(
        world.non_send::<std::rc::Rc<std::cell::Cell<u8>>>().get(),
        2
    );
}

#[test]
fn rebound_commands_spawn_into_the_other_queue() {
    let mut world = World::new();
    let mut main = CommandQueue::default();
    let mut side = CommandQueue::default();
    let mut commands = Commands::new(&mut main, &world);
    let from_side = commands.rebound_to(&mut side).spawn(Name::new("side")).id();
    let from_main = commands.spawn(Name::new("main")).id();
    assert_ne!(from_side, from_main, "both reserve from the same world");
    main.apply(&mut world);
    assert!(world.get::<Name>(from_main).is_some());
    assert!(world.get::<Name>(from_side).is_none());
    side.apply(&mut world);
    assert_eq!(world.get::<Name>(from_side).unwrap().as_str(), "side");

    // A queue holding another world's commands is refused.
    let mut other = World::new();
    let mut foreign = CommandQueue::default();
    Commands::new(&mut foreign, &other).spawn(Name::new("other"));
    let mut main = CommandQueue::default();
    let commands = Commands::new(&mut main, &world);
    let message = expect_panic(|| {
        commands.rebound_to(&mut foreign);
    });
    assert!(message.contains("world"), "{message}");
    foreign.apply(&mut other);
}

#[test]
fn query_states_answer_for_component_sets() {
    #[derive(Component)]
    struct A;
    #[derive(Component)]
    struct B;
    #[derive(Component)]
    struct C;
    let mut world = World::new();
    let [a, b, c] = [
        world.register_component::<A>(),
        world.register_component::<B>(),
        world.register_component::<C>(),
    ];
    let set = |ids: &'static [usize]| {
        let ids: Vec<_> = ids.iter().map(|&i| [a, b, c][i]).collect();
        move |id| ids.contains(&id)
    };
    let state = world.query_filtered::<&A, (With<B>, Without<C>)>();
    assert!(state.matches_component_set(&set(&[0, 1])));
    assert!(!state.matches_component_set(&set(&[0])));
    assert!(!state.matches_component_set(&set(&[0, 1, 2])));
    let state = world.query_filtered::<Entity, Or<(With<A>, With<C>)>>();
    assert!(state.matches_component_set(&set(&[2])));
    assert!(!state.matches_component_set(&set(&[1])));
    // Disabled entities are left out by default.
    let disabled = world.register_component::<ecs::entity_disabling::Disabled>();
    let state = world.query::<&A>();
    assert!(!state.matches_component_set(&|id| id == a || id == disabled));
    assert!(state.matches_component_set(&|id| id == a));
}

#[test]
fn mapped_resource_handles_mark_changes_only_on_writes() {
    let mut world = World::new();
    world.insert_resource(Budget(vec![1, 2]));
    world.insert_non_send(vec![1u8]);
    let mut schedule = Schedule::default();
    schedule.add_systems(
        |budget: ResMut<Budget>, bytes: NonSendMut<Vec<u8>>, mut runs: Local<u32>| {
            *runs += 1;
            // The first run writes through the maps, the second only looks.
            let mut first = budget.map_unchanged(|b| &mut b.0[0]);
            let mut byte = bytes.filter_map_unchanged(|b| b.first_mut()).unwrap();
            if *runs == 1 {
                *first += 1;
                *byte += 1;
            } else {
                assert_eq!(*first, 2);
                assert_eq!(*byte, 2);
            }
        },
    );
    let mut check = Schedule::default();
    check.add_systems(
        |budget: Res<Budget>, bytes: NonSend<Vec<u8>>, mut seen: ResMut<Seen>| {
            seen.0.push((budget.is_changed(), bytes.is_changed()));
        },
    );
    world.init_resource::<Seen>();
    check.run(&mut world);
    schedule.run(&mut world);
    check.run(&mut world);
    schedule.run(&mut world);
    check.run(&mut world);
    assert_eq!(
        world.resource::<Seen>().0,
        [(true, true), (true, true), (false, false)]
    );
}

#[derive(Resource, Default)]
struct Seen(Vec<(bool, bool)>);

#[derive(Resource, Default)]
struct Order(Vec<String>);

fn note(world: &mut DeferredWorld, what: &str) {
    world.resource_mut::<Order>().0.push(what.to_string());
}

#[derive(Component)]
#[component(on_add = hook_add, on_insert = hook_insert, on_discard = hook_discard,
    on_remove = hook_remove, on_despawn = hook_despawn)]
struct Ordered;

fn hook_add(mut world: DeferredWorld, _: ecs::lifecycle::HookContext) {
    note(&mut world, "hook add");
}
fn hook_insert(mut world: DeferredWorld, _: ecs::lifecycle::HookContext) {
    note(&mut world, "hook insert");
}
fn hook_discard(mut world: DeferredWorld, _: ecs::lifecycle::HookContext) {
    note(&mut world, "hook discard");
}
fn hook_remove(mut world: DeferredWorld, _: ecs::lifecycle::HookContext) {
    note(&mut world, "hook remove");
}
fn hook_despawn(mut world: DeferredWorld, _: ecs::lifecycle::HookContext) {
    note(&mut world, "hook despawn");
}

/// Hooks run before observers when a component comes, after them when it
/// goes, as in bevy: an observer of the removal of `ChildOf` still sees
/// the parent list the child.
#[test]
fn observers_of_a_removal_run_before_its_hooks() {
    let mut world = World::new();
    world.init_resource::<Order>();
    world.add_observer(|_: On<Add<Ordered>>, mut o: ResMut<Order>| o.0.push("observer add".into()));
    world.add_observer(|_: On<Insert<Ordered>>, mut o: ResMut<Order>| {
        o.0.push("observer insert".into())
    });
    world.add_observer(|_: On<Discard<Ordered>>, mut o: ResMut<Order>| {
        o.0.push("observer discard".into())
    });
    world.add_observer(|_: On<Remove<Ordered>>, mut o: ResMut<Order>| {
        o.0.push("observer remove".into())
    });
    world.add_observer(|_: On<Despawn<Ordered>>, mut o: ResMut<Order>| {
        o.0.push("observer despawn".into())
    });
    let e = world.spawn(Ordered).id();
    world.entity_mut(e).remove::<Ordered>();
    world.entity_mut(e).insert(Ordered);
    world.despawn(e);
    let order = std::mem::take(&mut world.resource_mut::<Order>().0);
    assert_eq!(
        order,
        [
            "hook add",
            "observer add",
            "hook insert",
            "observer insert",
            "observer discard",
            "hook discard",
            "observer remove",
            "hook remove",
            "hook add",
            "observer add",
            "hook insert",
            "observer insert",
            "observer despawn",
            "hook despawn",
            "observer discard",
            "hook discard",
            "observer remove",
            "hook remove",
        ]
    );

    #[derive(Resource, Default)]
    struct Seen(Vec<usize>);
    world.init_resource::<Seen>();
    world.add_observer(
        |discard: On<Discard<ChildOf>>,
         parents: Query<&ChildOf>,
         children: Query<&Children>,
         mut seen: ResMut<Seen>| {
            let parent = parents.get(discard.entity).unwrap().parent();
            seen.0.push(children.get(parent).map_or(0, |c| c.len()));
        },
    );
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf(parent)).id();
    world.entity_mut(child).remove::<ChildOf>();
    assert_eq!(world.resource::<Seen>().0, [1]);
}

/// `spawn_empty` applies no queued command (no hook or observer can run
/// for an entity without components), as in bevy; `spawn` does.
#[test]
fn spawn_empty_leaves_queued_commands_queued() {
    let mut world = World::new();
    world.init_resource::<Order>();
    world.commands().queue(|world: &mut World| {
        world.resource_mut::<Order>().0.push("applied".into());
    });
    world.spawn_empty();
    assert!(world.resource::<Order>().0.is_empty());
    world.spawn(Ordered);
    assert_eq!(world.resource::<Order>().0[0], "hook add");
    assert!(world.resource::<Order>().0.contains(&"applied".to_string()));
}

/// `location` on a handle whose entity an observer despawned panics
/// naming the entity, as `archetype` does.
#[test]
fn location_of_an_entity_despawned_meanwhile_panics() {
    #[derive(Component)]
    struct Doomed;
    let mut world = World::new();
    world.add_observer(|add: On<Add<Doomed>>, mut commands: Commands| {
        commands.entity(add.entity).despawn();
    });
    let e = world.spawn_empty().id();
    let message = expect_panic(|| {
        let mut handle = world.entity_mut(e);
        handle.insert(Doomed);
        handle.location()
    });
    assert!(message.contains(&format!("{e:?}")), "{message}");
}

/// `EntityWorldMut` converts into the other handles, as in bevy, each
/// reaching every component.
#[test]
fn an_entity_world_mut_converts_into_the_other_handles() {
    use ecs::world::{FilteredEntityMut, FilteredEntityRef};
    #[derive(Component, Debug, PartialEq)]
    struct Level(u32);
    let mut world = World::new();
    let e = world.spawn(Level(1)).id();

    let mut handle = world.entity_mut(e);
    assert_eq!(EntityRef::from(&handle).get::<Level>(), Some(&Level(1)));
    assert_eq!(
        FilteredEntityRef::from(&handle).get::<Level>(),
        Some(&Level(1))
    );
    EntityMut::from(&mut handle).get_mut::<Level>().unwrap().0 = 2;
    FilteredEntityMut::from(&mut handle)
        .get_mut::<Level>()
        .unwrap()
        .0 += 1;
    assert_eq!(EntityRef::from(handle).get::<Level>(), Some(&Level(3)));
    let mut owned = EntityMut::from(world.entity_mut(e));
    owned.get_mut::<Level>().unwrap().0 = 4;
    let filtered = FilteredEntityRef::from(world.entity_mut(e));
    assert_eq!(filtered.get::<Level>(), Some(&Level(4)));
    let mut filtered = FilteredEntityMut::from(world.entity_mut(e));
    filtered.get_mut::<Level>().unwrap().0 = 5;
    assert_eq!(world.get::<Level>(e), Some(&Level(5)));
}
