//! Unit tests of the world-level invariants (each entity's location names
//! its archetype and table rows, and each row holds that entity): locations
//! stay exact through swap-removes, rows stay aligned, edges are cached.

use std::collections::BTreeSet;

use crate::lifecycle::HookContext;
use crate::prelude::*;
use crate::world::DeferredWorld;
use crate::{archetype::ArchetypeId, storage::TableId};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct A(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct B(u64);
#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
struct S(String);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct Z;

fn n(full: usize) -> usize {
    if cfg!(miri) {
        full / 20
    } else {
        full
    }
}

#[test]
fn locations_stay_exact_through_swap_removes() {
    let mut world = World::new();
    let count = n(200);
    let entities: Vec<_> = (0..count)
        .map(|i| world.spawn((A(i as u32), B(i as u64))).id())
        .collect();
    // Move every third entity to another archetype and table, despawn every
    // fifth: each swap-remove moves some other entity, whose location must
    // follow.
    for (i, &e) in entities.iter().enumerate() {
        if i % 3 == 0 {
            world.entity_mut(e).remove::<B>().insert(S(format!("s{i}")));
        }
        if i % 5 == 0 {
            assert!(world.despawn(e));
        }
        world.check_integrity().unwrap();
    }
    for (i, &e) in entities.iter().enumerate() {
        if i % 5 == 0 {
            assert!(!world.contains_entity(e));
            continue;
        }
        assert_eq!(world.get::<A>(e), Some(&A(i as u32)));
        if i % 3 == 0 {
            assert_eq!(world.get::<B>(e), None);
            assert_eq!(world.get::<S>(e), Some(&S(format!("s{i}"))));
        } else {
            assert_eq!(world.get::<B>(e), Some(&B(i as u64)));
        }
    }
}

#[test]
fn insert_and_remove_edges_are_cached() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let from = world.entity(e).archetype().id();
    world.entity_mut(e).insert(B(2));
    let to = world.entity(e).archetype().id();
    let bundle = world.bundles().get_id(std::any::TypeId::of::<B>()).unwrap();
    let edge = world.archetypes()[from]
        .edges()
        .get_archetype_after_bundle_insert(bundle)
        .unwrap();
    assert_eq!(edge.archetype_id, to);
    assert_eq!(
        &*edge.bundle_status,
        &[crate::archetype::ComponentStatus::Added]
    );
    world.entity_mut(e).remove::<B>();
    assert_eq!(world.entity(e).archetype().id(), from);
    assert_eq!(
        world.archetypes()[to]
            .edges()
            .get_archetype_after_bundle_remove(bundle),
        Some(from)
    );
    // Taking B from an archetype without it is cached as impossible.
    assert!(world.entity_mut(e).take::<B>().is_none());
    assert_eq!(
        world.archetypes()[from]
            .edges()
            .get_archetype_after_bundle_take(bundle),
        Some(None)
    );
    // Going around again creates no archetype.
    let archetypes = world.archetypes().len();
    world.entity_mut(e).insert(B(3)).remove::<B>();
    assert_eq!(world.archetypes().len(), archetypes);
}

/// Inserts, removes and takes that move rows between tables whose columns
/// interleave (the new columns land between the old ones, so each column
/// sits at a different position in the two tables), with values of several
/// sizes and one that owns memory: every value must follow its entity,
/// and the integrity check verifies each edge's cached column positions.
#[test]
fn moves_between_tables_of_different_layouts_keep_every_value() {
    #[derive(Component, Debug, Clone, PartialEq)]
    struct P(u8);
    #[derive(Component, Debug, Clone, PartialEq)]
    struct Q(u32);
    #[derive(Component, Debug, Clone, PartialEq)]
    struct R(String);
    #[derive(Component, Debug, Clone, PartialEq)]
    struct T(u64);
    #[derive(Component, Debug, Clone, PartialEq)]
    struct U([u16; 3]);
    let mut world = World::new();
    // Register in this order so table columns sort P, Q, R, T, U.
    world.register_component::<P>();
    world.register_component::<Q>();
    world.register_component::<R>();
    world.register_component::<T>();
    world.register_component::<U>();
    let count = n(240) as u32;
    let entities: Vec<Entity> = (0..count)
        .map(|i| {
            world
                .spawn((U([i as u16; 3]), P(i as u8), R(format!("r{i}"))))
                .id()
        })
        .collect();
    let check = |world: &World, i: u32, has_q_t: bool, has_p: bool, has_r: bool| {
        let e = entities[i as usize];
        assert_eq!(world.get::<U>(e), Some(&U([i as u16; 3])), "U of {i}");
        assert_eq!(world.get::<P>(e), has_p.then_some(&P(i as u8)), "P of {i}");
        assert_eq!(
            world.get::<R>(e).map(|r| r.0.as_str()),
            has_r.then(|| format!("r{i}")).as_deref(),
            "R of {i}"
        );
        assert_eq!(world.get::<Q>(e), has_q_t.then_some(&Q(i * 7)), "Q of {i}");
        assert_eq!(
            world.get::<T>(e),
            has_q_t.then_some(&T(u64::from(i) << 33)),
            "T of {i}"
        );
    };
    // {P, R, U} -> {P, Q, R, T, U} for every other entity.
    for i in (0..count).step_by(2) {
        world
            .entity_mut(entities[i as usize])
            .insert((T(u64::from(i) << 33), Q(i * 7)));
    }
    world.check_integrity().unwrap();
    for i in 0..count {
        check(&world, i, i % 2 == 0, true, true);
    }
    // {P, Q, R, T, U} -> {Q, R, T, U} (remove drops P) for every fourth.
    for i in (0..count).step_by(4) {
        world.entity_mut(entities[i as usize]).remove::<P>();
    }
    // {P, R, U} -> {P, U} (take moves R out) for every third odd one.
    for i in (1..count).step_by(6) {
        let r = world.entity_mut(entities[i as usize]).take::<R>();
        assert_eq!(r, Some(R(format!("r{i}"))));
    }
    world.check_integrity().unwrap();
    for i in 0..count {
        let has_p = i % 4 != 0;
        let has_r = i % 6 != 1;
        check(&world, i, i % 2 == 0, has_p, has_r);
    }
    // And back: every entity ends with all five, values intact.
    for i in 0..count {
        let mut e = world.entity_mut(entities[i as usize]);
        if i % 4 == 0 {
            e.insert(P(i as u8));
        }
        if i % 6 == 1 {
            e.insert(R(format!("r{i}")));
        }
        if i % 2 == 1 {
            e.insert((Q(i * 7), T(u64::from(i) << 33)));
        }
    }
    world.check_integrity().unwrap();
    for i in 0..count {
        check(&world, i, true, true, true);
    }
}

/// A spawn writes each value at the column position its bundle cached for
/// the target table (`BundleInfo::spawn_columns`). Bundles here name their
/// components in an order unlike the table's (sorted by id), with a
/// sparse-set component and a required one among them, through `spawn`,
/// `spawn_batch` and a derived nested bundle: every value must land in its
/// own column, and `check_integrity` verifies each bundle's positions.
#[test]
fn spawned_values_land_in_their_columns_whatever_the_bundle_order() {
    #[derive(Component, Debug, Clone, PartialEq)]
    struct P(u8);
    #[derive(Component, Debug, Clone, PartialEq, Default)]
    struct W(u16);
    #[derive(Component, Debug, Clone, PartialEq)]
    struct Q(u32);
    #[derive(Component, Debug, Clone, PartialEq)]
    #[require(W)]
    struct R(String);
    #[derive(Component, Debug, Clone, PartialEq)]
    struct T(u64);
    #[derive(Bundle)]
    struct Inner {
        t: T,
        s: S,
    }
    let mut world = World::new();
    // Table columns sort P, W, Q, R, T: the column of W, which R requires
    // and no bundle names, sits between the bundles' own columns.
    world.register_component::<P>();
    world.register_component::<W>();
    world.register_component::<Q>();
    world.register_component::<R>();
    world.register_component::<T>();
    let count = n(40) as u32;
    let mut entities = Vec::new();
    for i in 0..count {
        let bundle = (
            T(u64::from(i) << 40),
            R(format!("r{i}")),
            S(format!("s{i}")),
            P(i as u8),
            Q(i * 3),
        );
        entities.push(world.spawn(bundle).id());
    }
    entities.extend(world.spawn_batch((count..2 * count).map(|i| {
        (
            Q(i * 3),
            Inner {
                t: T(u64::from(i) << 40),
                s: S(format!("s{i}")),
            },
            R(format!("r{i}")),
            P(i as u8),
        )
    })));
    world.check_integrity().unwrap();
    for (i, &e) in (0..).zip(&entities) {
        assert_eq!(world.get::<P>(e), Some(&P(i as u8)), "P of {i}");
        assert_eq!(world.get::<Q>(e), Some(&Q(i * 3)), "Q of {i}");
        assert_eq!(world.get::<R>(e), Some(&R(format!("r{i}"))), "R of {i}");
        assert_eq!(world.get::<S>(e), Some(&S(format!("s{i}"))), "S of {i}");
        assert_eq!(world.get::<T>(e), Some(&T(u64::from(i) << 40)), "T of {i}");
        assert_eq!(world.get::<W>(e), Some(&W(0)), "W of {i}");
    }
}

#[test]
fn sparse_only_changes_keep_the_table_row() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let before = world.entity(e).location();
    world.entity_mut(e).insert(Z);
    let after = world.entity(e).location();
    assert_ne!(before.archetype_id, after.archetype_id);
    assert_eq!(before.table_id, after.table_id);
    assert_eq!(before.table_row, after.table_row);
    world.check_integrity().unwrap();
}

#[test]
fn empty_entities_live_in_the_empty_archetype_and_table() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    let location = world.entity(e).location();
    assert_eq!(location.archetype_id, ArchetypeId::EMPTY);
    assert_eq!(location.table_id, TableId::EMPTY);
    world.entity_mut(e).insert(Z).remove::<Z>();
    assert_eq!(world.entity(e).location().archetype_id, ArchetypeId::EMPTY);
    world.check_integrity().unwrap();
}

#[test]
fn reserved_entities_become_empty_entities_on_flush() {
    let mut world = World::new();
    let live = world.spawn(A(0)).id();
    world.despawn(live);
    let reused = world.entities().reserve_entity();
    let fresh = world.entities().reserve_entity();
    assert_eq!(reused.index(), live.index());
    assert!(reused.generation() > live.generation());
    assert!(!world.contains_entity(fresh));
    world.flush();
    assert!(world.contains_entity(reused));
    assert!(world.contains_entity(fresh));
    assert!(!world.contains_entity(live));
    world.entity_mut(fresh).insert(A(5));
    assert_eq!(world.get::<A>(fresh), Some(&A(5)));
    assert_eq!(world.entity_count(), 2);
    world.check_integrity().unwrap();
}

#[test]
fn insert_replace_and_keep_touch_ticks_as_documented() {
    let mut world = World::new();
    let e = world.spawn((A(1), S("a".into()))).id();
    world.clear_trackers();
    world.entity_mut(e).insert_if_new((A(2), S("b".into())));
    assert_eq!(world.get::<A>(e), Some(&A(1)));
    assert!(!world.get_ref::<A>(e).unwrap().is_changed());
    world.entity_mut(e).insert((A(3), S("c".into())));
    assert_eq!(world.get::<S>(e), Some(&S("c".into())));
    let a = world.get_ref::<A>(e).unwrap();
    assert!(a.is_changed() && !a.is_added());
    let s = world.get_ref::<S>(e).unwrap();
    assert!(s.is_changed() && !s.is_added());
}

#[test]
fn integrity_check_reports_a_broken_location() {
    let mut world = World::new();
    let a = world.spawn(A(1)).id();
    let b = world.spawn(A(2)).id();
    let location_a = world.entities.get(a).unwrap();
    // SAFETY: deliberately wrong, to show the checker notices; the world
    // is not used for anything but the check and drop (which walk tables,
    // not locations).
    unsafe { world.entities.set(b.index(), location_a) };
    assert!(world.check_integrity().unwrap_err().contains("location"));
}

#[test]
fn bundle_ids_stay_right_when_types_alternate() {
    // `Bundles` remembers the last type it looked up; alternating types
    // (and a type registered between two lookups) must still resolve to
    // each type's own id.
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    world.entity_mut(e).insert(B(2));
    world.entity_mut(e).remove::<A>();
    world.entity_mut(e).insert((A(3), S("s".into())));
    world.entity_mut(e).remove::<B>();
    world.entity_mut(e).insert(B(4));
    world.entity_mut(e).remove::<(A, S)>();
    world.entity_mut(e).insert(A(5));
    let ids: Vec<_> = [
        world.bundles().get_id(std::any::TypeId::of::<A>()),
        world.bundles().get_id(std::any::TypeId::of::<B>()),
        world.bundles().get_id(std::any::TypeId::of::<(A, S)>()),
    ]
    .into_iter()
    .map(|id| id.expect("registered"))
    .collect();
    assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
    let entity = world.entity(e);
    assert_eq!(entity.get::<A>(), Some(&A(5)));
    assert_eq!(entity.get::<B>(), Some(&B(4)));
    assert!(!entity.contains::<S>());
    for (i, id) in ids.iter().enumerate() {
        let names = world.bundles().get(*id).expect("info").components().len();
        assert_eq!(names, [1, 1, 2][i]);
    }
}

/// The entities of an archetype, as `World::archetype_entities` lists
/// them.
fn listed(world: &World, archetype: ArchetypeId) -> Vec<(Entity, usize)> {
    world
        .archetype_entities(archetype)
        .expect("the archetype exists")
        .map(|e| (e.id(), e.table_row().index()))
        .collect()
}

/// An archetype alone on its table keeps no entity list: its rows are the
/// table's. Locations, swap-removes and listings stay exact while it owns
/// the table, when another archetype comes to share the table (the list
/// is rebuilt from the table's), and after.
#[test]
fn an_archetype_owns_its_table_until_another_shares_it() {
    let mut world = World::new();
    let count = n(240) as u32;
    let es: Vec<Entity> = (0..count).map(|i| world.spawn(A(i)).id()).collect();
    let only_a = world.entity(es[0]).archetype().id();
    assert!(world.archetypes()[only_a].owns_table());
    // Despawn from the middle and move to another table: the swapped
    // entities' archetype rows follow their table rows.
    for (i, &e) in es.iter().enumerate() {
        if i % 4 == 1 {
            assert!(world.despawn(e));
        } else if i % 4 == 2 {
            world.entity_mut(e).insert(B(i as u64));
        }
        world.check_integrity().unwrap();
    }
    let with_b = world.entity(es[2]).archetype().id();
    assert!(world.archetypes()[with_b].owns_table());
    for &e in &es {
        if let Ok(entity) = world.get_entity(e) {
            let location = entity.location();
            assert_eq!(location.archetype_row.index(), location.table_row.index());
        }
    }
    let before = listed(&world, only_a);
    assert_eq!(before.len(), world.archetypes()[only_a].len());
    assert!(before.iter().enumerate().all(|(row, &(_, t))| t == row));

    // A sparse-set component on one entity: archetype {A, Z} maps to the
    // same table, so neither owns it any more.
    let tagged = es[4];
    world.entity_mut(tagged).insert(Z);
    let with_z = world.entity(tagged).archetype().id();
    assert_ne!(with_z, only_a);
    assert_eq!(
        world.archetypes()[with_z].table_id(),
        world.archetypes()[only_a].table_id()
    );
    assert!(!world.archetypes()[only_a].owns_table());
    assert!(!world.archetypes()[with_z].owns_table());
    assert!(world.archetypes()[with_b].owns_table());
    world.check_integrity().unwrap();
    // The rebuilt list holds the same entities, less the one that moved.
    let entities_of = |world: &World, archetype| -> BTreeSet<Entity> {
        listed(world, archetype)
            .into_iter()
            .map(|(e, _)| e)
            .collect()
    };
    let expected: BTreeSet<Entity> = before
        .iter()
        .map(|&(e, _)| e)
        .filter(|&e| e != tagged)
        .collect();
    assert_eq!(entities_of(&world, only_a), expected);
    assert_eq!(entities_of(&world, with_z), BTreeSet::from([tagged]));

    // From now on both lists are kept, through moves and despawns.
    for (i, &e) in es.iter().enumerate() {
        if !world.contains_entity(e) {
            continue;
        }
        match i % 3 {
            0 => {
                world.entity_mut(e).insert(Z);
            }
            1 => {
                world.entity_mut(e).remove::<Z>();
            }
            _ => {
                assert!(world.despawn(e));
            }
        }
        world.check_integrity().unwrap();
    }
    for (i, &e) in es.iter().enumerate() {
        match (i % 4, i % 3) {
            (1, _) | (_, 2) => assert!(!world.contains_entity(e)),
            (r, _) => {
                assert_eq!(world.get::<A>(e), Some(&A(i as u32)));
                assert_eq!(world.get::<B>(e).is_some(), r == 2);
                assert_eq!(world.get::<Z>(e).is_some(), i % 3 == 0);
            }
        }
    }
    // `clear_entities` frees the entities of owning and sharing archetypes.
    world.clear_entities();
    assert_eq!(world.entity_count(), 0);
    assert!(listed(&world, only_a).is_empty());
    assert!(listed(&world, with_b).is_empty());
    world.check_integrity().unwrap();
    assert!(world.archetype_entities(ArchetypeId::new(10_000)).is_none());
}

#[test]
fn flush_spawns_reserved_entities_then_applies_the_world_queue() {
    let mut world = World::new();
    let reserved = world.entities().reserve_entity();
    let spawned = DeferredWorld::from(&mut world).commands().spawn(A(1)).id();
    // Nothing happened yet: the entities are reserved, the command queued.
    assert!(!world.contains_entity(reserved));
    assert!(!world.contains_entity(spawned));
    world.flush_entities();
    assert!(world.contains_entity(reserved));
    assert_eq!(
        world.get::<A>(spawned),
        None,
        "flush_entities applies no command"
    );
    world.flush();
    assert_eq!(world.get::<A>(spawned), Some(&A(1)));
    assert_eq!(world.entity_count(), 2);
    world.check_integrity().unwrap();
}

#[test]
fn flush_applies_a_command_a_hook_queued_before_it_panicked() {
    fn queue_then_panic(mut world: DeferredWorld<'_>, context: HookContext) {
        world.commands().entity(context.entity).insert(B(7));
        panic!("hook failed after queueing");
    }
    let mut world = World::new();
    world
        .register_component_hooks::<S>()
        .on_add(queue_then_panic);
    let e = world.spawn(A(0)).id();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.entity_mut(e).insert(S("s".into()));
    }));
    assert!(caught.is_err());
    assert_eq!(
        world.get::<B>(e),
        None,
        "the queued insert waits in the world's queue"
    );
    world.flush();
    assert_eq!(world.get::<B>(e), Some(&B(7)));
    assert_eq!(world.get::<S>(e), Some(&S("s".into())));
    world.check_integrity().unwrap();
}

#[test]
fn entity_world_mut_flush_applies_queued_commands_and_returns_the_id() {
    let mut world = World::new();
    let e = world.spawn(A(0)).id();
    DeferredWorld::from(&mut world)
        .commands()
        .entity(e)
        .insert(B(3));
    let reserved = world.entities().reserve_entity();
    let id = world.entity_mut(e).flush();
    assert_eq!(id, e);
    assert_eq!(world.get::<B>(e), Some(&B(3)));
    assert!(world.contains_entity(reserved));
    // A queued despawn of the entity itself: the id comes back all the same.
    DeferredWorld::from(&mut world)
        .commands()
        .entity(e)
        .despawn();
    assert_eq!(world.entity_mut(e).flush(), e);
    assert!(!world.contains_entity(e));
    world.check_integrity().unwrap();
}
