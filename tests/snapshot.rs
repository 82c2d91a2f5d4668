//! World snapshots: `snapshot`, `restore` and `checksum`. A restored world
//! has the snapshot's entities (ids, archetypes, values, ticks), runs no
//! hook or observer, leaves components that are not opted in as they are,
//! and refuses, untouched, what it cannot restore.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use common::integrity::integrity;
use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::schedule::ScheduleLabel;
use ecs::world::{DeferredWorld, RestoreError, WorldSnapshot};

#[derive(Component, Clone, Debug, PartialEq, Hash)]
struct Pos(i64, i64);

#[derive(Component, Clone, Debug, PartialEq, Hash)]
#[component(storage = "SparseSet")]
struct Stunned(u32);

#[derive(Component, Clone, Debug, PartialEq, Hash)]
struct Tag;

#[derive(Component, Clone, Debug, PartialEq)]
#[repr(align(64))]
struct Wide([u8; 3]);

/// Not opted into snapshots.
#[derive(Component, Debug, PartialEq)]
struct Sprite(&'static str);

#[derive(Resource, Clone, Debug, PartialEq, Hash)]
struct Score(u64);

#[derive(Resource, Debug, PartialEq)]
struct Untracked(u32);

fn opted_in() -> World {
    let mut world = World::new();
    world.register_snapshot_hashed::<Pos>();
    world.register_snapshot_hashed::<Stunned>();
    world.register_snapshot_hashed::<Tag>();
    world.register_snapshot::<Wide>();
    world.register_resource_snapshot_hashed::<Score>();
    world
}

/// A live entity: id, archetype index and opted-in values.
type Row = (
    Entity,
    usize,
    Option<Pos>,
    Option<Stunned>,
    bool,
    Option<Wide>,
);

/// Every live entity with its archetype and opted-in values, by id.
fn contents(world: &mut World) -> Vec<Row> {
    let mut rows: Vec<_> = world
        .query::<(
            Entity,
            Option<&Pos>,
            Option<&Stunned>,
            Has<Tag>,
            Option<&Wide>,
        )>()
        .iter(world)
        .map(|(e, p, s, t, w)| (e, p.cloned(), s.cloned(), t, w.cloned()))
        .collect();
    rows.sort_by_key(|r| r.0);
    rows.into_iter()
        .map(|(e, p, s, t, w)| {
            let archetype = world.entity(e).location().archetype_id.index();
            (e, archetype, p, s, t, w)
        })
        .collect()
}

#[test]
fn restore_puts_back_ids_archetypes_and_values() {
    let mut world = opted_in();
    let mut entities = Vec::new();
    for i in 0..24i64 {
        let mut e = world.spawn(Pos(i, -i));
        if i % 2 == 0 {
            e.insert(Stunned(i as u32));
        }
        if i % 3 == 0 {
            e.insert(Tag);
        }
        if i % 5 == 0 {
            e.insert(Wide([i as u8; 3]));
        }
        entities.push(e.id());
    }
    world.despawn(entities[7]);
    world.insert_resource(Score(5));
    let before = contents(&mut world);
    let snapshot = world.snapshot();
    assert_eq!(snapshot.entity_count(), 23);

    // What the world does next: every kind of change.
    let next_spawn = world.spawn(Pos(100, 100)).id();
    world.despawn(next_spawn);
    world.get_mut::<Pos>(entities[0]).unwrap().0 = 999;
    world.despawn(entities[1]);
    world.despawn(entities[2]);
    world
        .entity_mut(entities[3])
        .insert((Stunned(7), Tag))
        .remove::<Pos>();
    world.entity_mut(entities[4]).remove::<Stunned>();
    for i in 0..10 {
        world.spawn((Pos(i, i), Wide([9; 3]), Stunned(1)));
    }
    world.insert_resource(Score(77));
    assert_ne!(contents(&mut world), before);

    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(contents(&mut world), before);
    assert_eq!(world.resource::<Score>(), &Score(5));
    assert!(world.get_entity(entities[7]).is_err());
    assert_eq!(world.entities().len(), 23);
    // The allocator is the snapshot's: the next id is the one it gave then.
    assert_eq!(world.spawn(Pos(0, 0)).id(), next_spawn);

    // And again: a snapshot restores as often as asked.
    world.get_mut::<Stunned>(entities[0]).unwrap().0 = 1234;
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(contents(&mut world), before);
    world.clear_trackers();
}

#[test]
fn queries_made_before_a_restore_still_work() {
    let mut world = opted_in();
    let a = world.spawn((Pos(1, 1), Tag)).id();
    let mut query = world.query::<(&Pos, Has<Tag>)>();
    assert_eq!(query.iter(&world).count(), 1);
    let snapshot = world.snapshot();
    world.spawn((Pos(2, 2), Stunned(3)));
    world.spawn(Wide([1; 3]));
    assert_eq!(query.iter(&world).count(), 2);
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(
        query.iter(&world).collect::<Vec<_>>(),
        vec![(&Pos(1, 1), true)]
    );
    assert_eq!(query.get(&world, a).unwrap().0, &Pos(1, 1));
}

static HOOK_CALLS: AtomicUsize = AtomicUsize::new(0);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_add = count_hook, on_remove = count_hook, on_insert = count_hook, on_despawn = count_hook)]
struct Hooked(u8);

fn count_hook(_: DeferredWorld, _: HookContext) {
    HOOK_CALLS.fetch_add(1, Ordering::Relaxed);
}

#[derive(Resource, Default)]
struct ObserverCalls(usize);

#[test]
fn a_restore_runs_no_hook_and_no_observer() {
    let mut world = opted_in();
    world.register_snapshot::<Hooked>();
    world.init_resource::<ObserverCalls>();
    world.add_observer(|_: On<Add<Pos>>, mut calls: ResMut<ObserverCalls>| calls.0 += 1);
    world.add_observer(|_: On<Remove<Pos>>, mut calls: ResMut<ObserverCalls>| calls.0 += 1);
    let kept = world.spawn((Pos(1, 2), Hooked(1))).id();
    let snapshot = world.snapshot();
    let gone = world.spawn((Pos(3, 4), Hooked(2))).id();
    world.despawn(kept);
    let (hooks, observed) = (
        HOOK_CALLS.load(Ordering::Relaxed),
        world.resource::<ObserverCalls>().0,
    );
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(HOOK_CALLS.load(Ordering::Relaxed), hooks);
    assert_eq!(world.resource::<ObserverCalls>().0, observed);
    assert_eq!(world.get::<Hooked>(kept), Some(&Hooked(1)));
    assert!(world.get_entity(gone).is_err());
    // The observers (entities of their own, not opted in) still observe.
    world.spawn(Pos(0, 0));
    assert_eq!(world.resource::<ObserverCalls>().0, observed + 1);
}

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Frame;

#[derive(Resource, Default, Clone, Debug, PartialEq)]
struct Seen(Vec<(usize, usize)>);

/// Counts, each frame, the `Pos` added and changed since the system's last
/// run, and moves the entity with the lowest `x` (a change for next frame).
fn watch(mut all: Query<&mut Pos>, mut seen: ResMut<Seen>) {
    let mut rows: Vec<Mut<Pos>> = all.iter_mut().collect();
    let added = rows.iter().filter(|p| p.is_added()).count();
    let changed = rows.iter().filter(|p| p.is_changed()).count();
    seen.0.push((added, changed));
    if let Some(p) = rows.iter_mut().min_by_key(|p| p.0) {
        p.0 += 10;
    }
}

#[test]
fn added_and_changed_answer_as_they_did_at_the_snapshot() {
    let mut world = opted_in();
    world.init_resource::<Seen>();
    world.register_resource_snapshot::<Seen>();
    let mut schedule = Schedule::new(Frame);
    schedule.add_systems(watch.run_if(resource_exists::<Score>));
    world.add_schedule(schedule);
    world.insert_resource(Score(0));
    for i in 0..5 {
        world.spawn(Pos(i, 0));
    }
    world.run_schedule(Frame);
    world.spawn(Pos(50, 0));
    let snapshot = world.snapshot();
    for _ in 0..4 {
        world.run_schedule(Frame);
    }
    let first = world.resource::<Seen>().clone();
    // Time passes outside the schedule: the restore must not count it as
    // the systems' (their last runs come back with the values).
    for _ in 0..100 {
        world.increment_change_tick();
    }

    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(world.resource::<Seen>().0.len(), 1);
    for _ in 0..4 {
        world.run_schedule(Frame);
    }
    assert_eq!(world.resource::<Seen>(), &first);
    // The frame after the snapshot saw the spawn and the move, not everything.
    assert_eq!(first.0[1], (1, 1));
}

#[test]
fn components_not_opted_in_are_left_as_they_are() {
    let mut world = opted_in();
    world.insert_resource(Untracked(1));
    let a = world.spawn((Pos(1, 1), Sprite("a"))).id();
    let b = world.spawn(Pos(2, 2)).id();
    let snapshot = world.snapshot();
    world.get_mut::<Sprite>(a).unwrap().0 = "a2";
    world.get_mut::<Pos>(a).unwrap().0 = 10;
    world.entity_mut(b).insert(Sprite("b"));
    world.resource_mut::<Untracked>().0 = 2;
    world.restore(&snapshot).unwrap();
    integrity(&world);
    // `a` keeps its current sprite; `b` had none then, so its new one goes.
    assert_eq!(world.get::<Sprite>(a), Some(&Sprite("a2")));
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1, 1)));
    assert_eq!(world.get::<Sprite>(b), None);
    assert_eq!(world.resource::<Untracked>(), &Untracked(2));
}

#[test]
fn a_restore_that_needs_a_value_no_longer_there_is_refused() {
    let mut world = opted_in();
    let a = world.spawn((Pos(1, 1), Sprite("a"))).id();
    let snapshot = world.snapshot();
    world.get_mut::<Pos>(a).unwrap().0 = 5;
    world.entity_mut(a).remove::<Sprite>();
    let err = world.restore(&snapshot).unwrap_err();
    assert_eq!(
        err,
        RestoreError::MissingComponent {
            entity: a,
            component: std::any::type_name::<Sprite>().to_owned()
        }
    );
    assert!(err.to_string().contains("Sprite"), "{err}");
    // Nothing changed.
    assert_eq!(world.get::<Pos>(a), Some(&Pos(5, 1)));

    world.despawn(a);
    let err = world.restore(&snapshot).unwrap_err();
    assert!(matches!(err, RestoreError::MissingComponent { entity, .. } if entity == a));
    assert!(world.get_entity(a).is_err());
}

#[test]
fn a_restore_that_would_drop_an_observer_is_refused() {
    let mut world = opted_in();
    let e = world.spawn(Pos(1, 1)).id();
    let snapshot = world.snapshot();
    let observer = world.add_observer(|_: On<Add<Pos>>| {}).id();
    world.get_mut::<Pos>(e).unwrap().0 = 3;
    let err = world.restore(&snapshot).unwrap_err();
    assert!(
        matches!(&err, RestoreError::WouldDropHooked { entity, .. } if *entity == observer),
        "{err}"
    );
    assert_eq!(world.get::<Pos>(e), Some(&Pos(3, 1)));
    // Once the observer is gone the restore goes through.
    world.despawn(observer);
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1, 1)));
}

#[test]
fn a_snapshot_of_another_world_is_refused() {
    let mut first = opted_in();
    let mut second = opted_in();
    first.spawn(Pos(1, 1));
    let snapshot = first.snapshot();
    let err = second.restore(&snapshot).unwrap_err();
    assert_eq!(
        err,
        RestoreError::WrongWorld {
            snapshot: first.id(),
            world: second.id()
        }
    );
    assert_eq!(second.entities().len(), 0);
}

#[test]
fn components_registered_after_the_snapshot() {
    #[derive(Component, Clone, Debug, PartialEq)]
    struct Later(u8);
    let mut world = opted_in();
    let e = world.spawn(Pos(1, 1)).id();
    let snapshot = world.snapshot();
    world.register_snapshot::<Later>();
    world.entity_mut(e).insert(Later(1));
    let f = world.spawn((Later(2), Stunned(3))).id();
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(world.get::<Later>(e), None);
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1, 1)));
    assert!(world.get_entity(f).is_err());
    assert_eq!(world.query::<&Later>().iter(&world).count(), 0);
}

#[test]
fn resources_opted_in_come_back_as_they_were() {
    let mut world = opted_in();
    let snapshot_without = world.snapshot();
    world.insert_resource(Score(3));
    let snapshot_with = world.snapshot();
    world.resource_mut::<Score>().0 = 9;
    world.restore(&snapshot_with).unwrap();
    assert_eq!(world.resource::<Score>(), &Score(3));
    assert!(!world.is_resource_changed::<Score>() || world.resource_ref::<Score>().is_added());
    world.restore(&snapshot_without).unwrap();
    assert!(world.get_resource::<Score>().is_none());
}

/// Counts live values, to check each is dropped exactly once.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PANIC_ON_CLONE: AtomicBool = AtomicBool::new(false);

#[derive(Component, Debug, PartialEq)]
struct Counted(u32);

impl Counted {
    fn new(v: u32) -> Counted {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Counted(v)
    }
}

impl Clone for Counted {
    fn clone(&self) -> Self {
        if PANIC_ON_CLONE.load(Ordering::SeqCst) && self.0 == 3 {
            panic!("clone of Counted(3)");
        }
        Counted::new(self.0)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn every_value_is_dropped_once_and_a_panicking_clone_changes_nothing() {
    {
        let mut world = World::new();
        world.register_snapshot::<Counted>();
        let entities: Vec<Entity> = (0..6).map(|i| world.spawn(Counted::new(i)).id()).collect();
        let snapshot = world.snapshot();
        assert_eq!(LIVE.load(Ordering::SeqCst), 12);

        // A clone panics while restoring: the world is as it was.
        world.get_mut::<Counted>(entities[0]).unwrap().0 = 100;
        world.despawn(entities[5]);
        assert_eq!(LIVE.load(Ordering::SeqCst), 11);
        PANIC_ON_CLONE.store(true, Ordering::SeqCst);
        let panicked = catch_unwind(AssertUnwindSafe(|| world.restore(&snapshot)));
        assert!(panicked.is_err());
        assert_eq!(world.get::<Counted>(entities[0]).map(|c| c.0), Some(100));
        assert!(world.get_entity(entities[5]).is_err());
        assert_eq!(LIVE.load(Ordering::SeqCst), 11);

        // And while snapshotting.
        let panicked = catch_unwind(AssertUnwindSafe(|| world.snapshot()));
        assert!(panicked.is_err());
        assert_eq!(LIVE.load(Ordering::SeqCst), 11);
        PANIC_ON_CLONE.store(false, Ordering::SeqCst);

        world.restore(&snapshot).unwrap();
        integrity(&world);
        assert_eq!(world.get::<Counted>(entities[0]).map(|c| c.0), Some(0));
        assert_eq!(world.get::<Counted>(entities[5]).map(|c| c.0), Some(5));
        assert_eq!(LIVE.load(Ordering::SeqCst), 12);
        drop(snapshot);
        assert_eq!(LIVE.load(Ordering::SeqCst), 6);
    }
    assert_eq!(LIVE.load(Ordering::SeqCst), 0);
}

#[test]
fn the_checksum_ignores_history_and_sees_values() {
    let build = |order: bool| {
        let mut world = World::new();
        if order {
            world.register_snapshot_hashed::<Pos>();
            world.register_snapshot_hashed::<Tag>();
        } else {
            world.register_snapshot_hashed::<Tag>();
            world.register_snapshot_hashed::<Pos>();
        }
        world.register_snapshot_hashed::<Stunned>();
        world.insert_resource(Score(1));
        world.register_resource_snapshot_hashed::<Score>();
        for i in 0..8i64 {
            // The same entities and values, reached through other archetypes.
            let mut e = world.spawn_empty();
            if order {
                e.insert(Pos(i, 0)).insert(Tag);
            } else {
                e.insert(Tag)
                    .insert(Stunned(0))
                    .insert(Pos(i, 0))
                    .remove::<Stunned>();
            }
        }
        world
    };
    let (mut a, b) = (build(true), build(false));
    assert_eq!(a.checksum(), b.checksum());
    let snapshot = a.snapshot();
    let e = a
        .query_filtered::<Entity, With<Pos>>()
        .iter(&a)
        .next()
        .unwrap();
    a.get_mut::<Pos>(e).unwrap().1 = 1;
    assert_ne!(a.checksum(), b.checksum());
    a.restore(&snapshot).unwrap();
    integrity(&a);
    assert_eq!(a.checksum(), b.checksum());
    a.resource_mut::<Score>().0 = 2;
    assert_ne!(a.checksum(), b.checksum());
    a.restore(&snapshot).unwrap();
    integrity(&a);
    a.spawn_empty();
    assert_ne!(a.checksum(), b.checksum(), "a new empty entity counts");
}

#[test]
fn a_panicking_drop_during_restore_still_restores_everything() {
    static PANIC_ON_DROP: AtomicBool = AtomicBool::new(false);
    #[derive(Component, Clone)]
    struct Bomb(#[allow(dead_code)] Arc<()>);
    impl Drop for Bomb {
        fn drop(&mut self) {
            if PANIC_ON_DROP.swap(false, Ordering::SeqCst) {
                panic!("Bomb dropped");
            }
        }
    }
    let mut world = opted_in();
    world.register_snapshot::<Bomb>();
    let shared = Arc::new(());
    let a = world.spawn((Pos(1, 1), Bomb(shared.clone()))).id();
    let snapshot = world.snapshot();
    world.get_mut::<Pos>(a).unwrap().0 = 7;
    world.spawn((Pos(2, 2), Bomb(shared.clone())));
    PANIC_ON_DROP.store(true, Ordering::SeqCst);
    let panicked = catch_unwind(AssertUnwindSafe(|| world.restore(&snapshot)));
    assert!(panicked.is_err());
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1, 1)));
    assert_eq!(world.query::<&Bomb>().iter(&world).count(), 1);
    drop(world);
    drop(snapshot);
    assert_eq!(Arc::strong_count(&shared), 1);
}

#[derive(Relation)]
struct Likes;

#[derive(Message, Clone, Debug, PartialEq)]
struct Ping(u32);

#[test]
fn hierarchy_relations_and_messages_come_back() {
    use ecs::relation::{Sources, Targets};
    let mut world = opted_in();
    world.register_snapshot::<ChildOf>();
    world.register_snapshot::<Children>();
    world.register_snapshot::<Targets<Likes>>();
    world.register_snapshot::<Sources<Likes>>();
    world.add_message::<Ping>();
    world.register_resource_snapshot::<Messages<Ping>>();

    let parent = world.spawn(Pos(0, 0)).id();
    let a = world.spawn((Pos(1, 0), ChildOf(parent))).id();
    let b = world.spawn((Pos(2, 0), ChildOf(parent))).id();
    world.entity_mut(a).relate::<Likes>(b).unwrap();
    world.write_message(Ping(1));
    let snapshot = world.snapshot();

    world.entity_mut(b).remove::<ChildOf>();
    world.despawn(a);
    world.write_message(Ping(2));
    world.restore(&snapshot).unwrap();
    integrity(&world);

    assert_eq!(world.get::<ChildOf>(a), Some(&ChildOf(parent)));
    assert_eq!(world.get::<Children>(parent).unwrap().to_vec(), vec![a, b]);
    assert_eq!(&**world.get::<Targets<Likes>>(a).unwrap(), &[b]);
    assert_eq!(&**world.get::<Sources<Likes>>(b).unwrap(), &[a]);
    let messages = world.resource::<Messages<Ping>>();
    let mut cursor = messages.get_cursor();
    assert_eq!(
        cursor.read(messages).cloned().collect::<Vec<_>>(),
        vec![Ping(1)]
    );
    // The hooks keep working from the restored state.
    world.despawn(parent);
    assert!(world.get_entity(a).is_err() && world.get_entity(b).is_err());
}

fn no_op_hook(_: DeferredWorld, _: HookContext) {}

#[derive(Component, Clone, Debug, PartialEq)]
#[component(on_remove = no_op_hook, on_despawn = no_op_hook)]
struct Guarded(u8);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(storage = "SparseSet", on_remove = no_op_hook)]
struct GuardedSparse(u8);

#[test]
fn opted_in_hooked_values_in_storage_made_after_the_snapshot_are_replaced() {
    let mut world = opted_in();
    world.register_snapshot::<Guarded>();
    world.register_snapshot::<GuardedSparse>();
    let kept = world.spawn((Pos(1, 1), Guarded(1))).id();
    let snapshot = world.snapshot();
    // A table ({Guarded, Wide}) and a sparse set (`GuardedSparse`) that did
    // not exist at the snapshot hold opted-in values the restore drops.
    let later = world.spawn((Guarded(2), Wide([0; 3]))).id();
    world.entity_mut(kept).insert(GuardedSparse(3));
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert!(world.get_entity(later).is_err());
    assert_eq!(world.get::<Guarded>(kept), Some(&Guarded(1)));
    assert_eq!(world.get::<GuardedSparse>(kept), None);
    assert_eq!(world.query::<&Guarded>().iter(&world).count(), 1);
}

#[derive(Component, Clone, Debug, PartialEq, Hash)]
#[component(snapshot = hash)]
struct DerivedHashed(u32);

#[derive(Component, Clone, Debug, PartialEq)]
#[component(snapshot, storage = "SparseSet")]
struct DerivedSparse(String);

#[derive(Resource, Clone, Debug, PartialEq)]
#[resource(snapshot)]
struct DerivedResource(Vec<u8>);

#[derive(Resource, Clone, Debug, PartialEq, Hash)]
#[resource(snapshot = hash)]
struct DerivedHashedResource(u8);

#[test]
fn derived_opt_in_takes_part_without_a_registration_call() {
    // No `register_snapshot` call: the types opt themselves in.
    let mut world = World::new();
    let a = world
        .spawn((DerivedHashed(1), DerivedSparse("a".into())))
        .id();
    world.insert_resource(DerivedResource(vec![1]));
    world.insert_resource(DerivedHashedResource(1));
    let snapshot = world.snapshot();
    let checksum = world.checksum();

    world.get_mut::<DerivedHashed>(a).unwrap().0 = 2;
    world.entity_mut(a).remove::<DerivedSparse>();
    let b = world.spawn(DerivedSparse("b".into())).id();
    world.resource_mut::<DerivedResource>().0.push(2);
    world.remove_resource::<DerivedHashedResource>();
    assert_ne!(world.checksum(), checksum);

    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(world.get::<DerivedHashed>(a), Some(&DerivedHashed(1)));
    assert_eq!(
        world.get::<DerivedSparse>(a).map(|s| s.0.as_str()),
        Some("a")
    );
    assert!(world.get_entity(b).is_err());
    assert_eq!(
        world.resource::<DerivedResource>(),
        &DerivedResource(vec![1])
    );
    assert_eq!(
        world.get_resource::<DerivedHashedResource>(),
        Some(&DerivedHashedResource(1))
    );
    assert_eq!(world.checksum(), checksum);
}

#[test]
fn the_hashed_form_feeds_the_checksum_and_the_plain_form_does_not() {
    let mut world = World::new();
    let e = world
        .spawn((DerivedHashed(1), DerivedSparse("x".into())))
        .id();
    world.insert_resource(DerivedResource(vec![]));
    world.insert_resource(DerivedHashedResource(0));
    let checksum = world.checksum();
    world.get_mut::<DerivedSparse>(e).unwrap().0.push('y');
    world.resource_mut::<DerivedResource>().0.push(1);
    assert_eq!(world.checksum(), checksum, "not hashed");
    world.get_mut::<DerivedHashed>(e).unwrap().0 = 5;
    assert_ne!(world.checksum(), checksum);
    world.get_mut::<DerivedHashed>(e).unwrap().0 = 1;
    assert_eq!(world.checksum(), checksum);
    world.resource_mut::<DerivedHashedResource>().0 = 1;
    assert_ne!(world.checksum(), checksum);
}

#[test]
fn a_panicking_clone_of_a_type_without_drop_changes_nothing() {
    static PANIC_AT: AtomicUsize = AtomicUsize::new(usize::MAX);
    #[derive(Component, Debug, PartialEq)]
    #[component(snapshot)]
    struct Fragile(usize);
    impl Clone for Fragile {
        fn clone(&self) -> Self {
            if self.0 == PANIC_AT.load(Ordering::SeqCst) {
                panic!("clone of Fragile({})", self.0);
            }
            Fragile(self.0)
        }
    }
    let mut world = World::new();
    let entities: Vec<Entity> = (0..5).map(|i| world.spawn(Fragile(i)).id()).collect();
    let snapshot = world.snapshot();
    world.get_mut::<Fragile>(entities[1]).unwrap().0 = 10;
    world.despawn(entities[4]);
    PANIC_AT.store(3, Ordering::SeqCst);
    assert!(catch_unwind(AssertUnwindSafe(|| world.restore(&snapshot))).is_err());
    assert!(catch_unwind(AssertUnwindSafe(|| world.snapshot())).is_err());
    integrity(&world);
    assert_eq!(world.get::<Fragile>(entities[1]), Some(&Fragile(10)));
    assert!(world.get_entity(entities[4]).is_err());
    PANIC_AT.store(usize::MAX, Ordering::SeqCst);
    world.restore(&snapshot).unwrap();
    integrity(&world);
    let values: Vec<usize> = entities
        .iter()
        .map(|&e| world.get::<Fragile>(e).unwrap().0)
        .collect();
    assert_eq!(values, [0, 1, 2, 3, 4]);
}

#[test]
fn a_table_empty_at_the_snapshot_with_a_column_not_opted_in_restores() {
    let mut world = opted_in();
    // The table {Pos, Sprite} exists but is empty when the snapshot is taken.
    let e = world.spawn((Pos(1, 1), Sprite("s"))).id();
    world.entity_mut(e).remove::<Sprite>();
    let snapshot = world.snapshot();
    let f = world.spawn((Pos(2, 2), Sprite("t"))).id();
    world.get_mut::<Pos>(e).unwrap().0 = 9;
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(world.get::<Pos>(e), Some(&Pos(1, 1)));
    assert!(world.get_entity(f).is_err());
    assert_eq!(world.query::<&Sprite>().iter(&world).count(), 0);
}

// ---- snapshot_into --------------------------------------------------------------------------

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash)]
struct Vel(i32);

#[derive(Component, Clone, Copy, Debug, PartialEq, Hash)]
#[component(storage = "SparseSet")]
struct Heat(u8);

/// `opted_in` with `Copy` components too (copied column by column).
fn opted_in_with_copies() -> World {
    let mut world = opted_in();
    world.register_snapshot_copy_hashed::<Vel>();
    world.register_snapshot_copy_hashed::<Heat>();
    world
}

/// `contents` with the `Copy` components.
fn contents_with_copies(world: &mut World) -> Vec<(Row, Option<Vel>, Option<Heat>)> {
    let rows = contents(world);
    rows.into_iter()
        .map(|row| {
            let (vel, heat) = (
                world.get::<Vel>(row.0).copied(),
                world.get::<Heat>(row.0).copied(),
            );
            (row, vel, heat)
        })
        .collect()
}

/// One frame of changes, chosen by `frame`: spawns in shapes that bring
/// new archetypes (and tables) as frames go by, despawns, value changes,
/// and sparse-set inserts and removes.
fn churn(world: &mut World, live: &mut Vec<Entity>, frame: u32) {
    let shape = frame % 5;
    for i in 0..3 + frame % 4 {
        let v = (frame * 10 + i) as i32;
        let e = match (shape + i) % 5 {
            0 => world.spawn((Pos(v as i64, 0), Vel(v))).id(),
            1 => world.spawn((Vel(v), Heat(frame as u8))).id(),
            2 => world.spawn((Pos(0, v as i64), Stunned(frame), Tag)).id(),
            3 => world.spawn((Wide([frame as u8; 3]), Vel(-v))).id(),
            _ => world.spawn(Pos(v as i64, v as i64)).id(),
        };
        live.push(e);
    }
    if frame.is_multiple_of(3) && live.len() > 4 {
        let e = live.remove((frame as usize * 7) % live.len());
        world.despawn(e);
    }
    for (i, &e) in live.iter().enumerate() {
        if (i as u32 + frame).is_multiple_of(4) {
            if let Some(mut vel) = world.get_mut::<Vel>(e) {
                vel.0 += 1;
            }
        }
        if (i as u32 + frame) % 6 == 1 {
            if world.get::<Heat>(e).is_some() {
                world.entity_mut(e).remove::<Heat>();
            } else {
                world.entity_mut(e).insert(Heat(i as u8));
            }
        }
    }
}

#[test]
fn snapshots_into_a_ring_restore_as_fresh_snapshots_do() {
    let mut world = opted_in_with_copies();
    world.insert_resource(Score(0));
    let mut live = Vec::new();
    let mut ring: Vec<WorldSnapshot> = (0..4).map(|_| world.snapshot()).collect();
    let mut seen = Vec::new();
    let mut fresh = Vec::new();
    for frame in 0..24u32 {
        churn(&mut world, &mut live, frame);
        world.resource_mut::<Score>().0 = u64::from(frame);
        world.snapshot_into(&mut ring[frame as usize % 4]);
        fresh.push(world.snapshot());
        seen.push((contents_with_copies(&mut world), world.checksum()));
    }
    // The ring holds the last four frames; each restores exactly.
    for frame in (20..24u32).rev() {
        world.restore(&ring[frame as usize % 4]).unwrap();
        integrity(&world);
        let (expected, checksum) = &seen[frame as usize];
        assert_eq!(&contents_with_copies(&mut world), expected, "frame {frame}");
        assert_eq!(world.checksum(), *checksum, "frame {frame}");
        assert_eq!(world.resource::<Score>(), &Score(u64::from(frame)));
        assert_eq!(
            ring[frame as usize % 4].entity_count(),
            fresh[frame as usize].entity_count()
        );
        // A fresh snapshot of the same frame gives the same world.
        world.restore(&fresh[frame as usize]).unwrap();
        assert_eq!(&contents_with_copies(&mut world), expected, "frame {frame}");
    }
    // Going on from a restored frame and snapshotting over an older one.
    world.restore(&ring[21 % 4]).unwrap();
    churn(&mut world, &mut live, 99);
    let after = (contents_with_copies(&mut world), world.checksum());
    world.snapshot_into(&mut ring[0]);
    world.restore(&ring[23 % 4]).unwrap();
    world.restore(&ring[0]).unwrap();
    integrity(&world);
    assert_eq!((contents_with_copies(&mut world), world.checksum()), after);
}

#[test]
fn a_snapshot_of_another_world_becomes_this_worlds() {
    let mut first = opted_in_with_copies();
    let mut second = opted_in_with_copies();
    first.spawn((Pos(1, 1), Vel(1)));
    first.spawn((Vel(2), Heat(2)));
    let mut snapshot = first.snapshot();
    let e = second.spawn((Wide([5; 3]), Vel(9))).id();
    second.spawn(Heat(7));
    second.snapshot_into(&mut snapshot);
    assert_eq!(snapshot.world_id(), second.id());
    let expected = contents_with_copies(&mut second);
    second.entity_mut(e).insert(Vel(0));
    second.despawn(e);
    second.restore(&snapshot).unwrap();
    integrity(&second);
    assert_eq!(contents_with_copies(&mut second), expected);
    assert!(matches!(
        first.restore(&snapshot),
        Err(RestoreError::WrongWorld { .. })
    ));
}

static BRITTLE_PANICS: AtomicBool = AtomicBool::new(false);

#[derive(Component, Debug, PartialEq)]
struct Brittle(u32);

impl Clone for Brittle {
    fn clone(&self) -> Self {
        if BRITTLE_PANICS.load(Ordering::SeqCst) && self.0 == 2 {
            panic!("clone of Brittle(2)");
        }
        Brittle(self.0)
    }
}

#[test]
fn a_panicking_clone_leaves_the_snapshot_written_into_as_it_was() {
    let mut world = opted_in_with_copies();
    world.register_snapshot::<Brittle>();
    let entities: Vec<Entity> = (0..4)
        .map(|i| world.spawn((Brittle(i), Vel(i as i32), Heat(i as u8))).id())
        .collect();
    let mut snapshot = world.snapshot();
    let expected = contents_with_copies(&mut world);
    for &e in &entities {
        world.get_mut::<Vel>(e).unwrap().0 += 100;
        world.get_mut::<Heat>(e).unwrap().0 += 100;
    }
    world.spawn((Vel(50), Pos(5, 5)));
    BRITTLE_PANICS.store(true, Ordering::SeqCst);
    let panicked = catch_unwind(AssertUnwindSafe(|| world.snapshot_into(&mut snapshot)));
    BRITTLE_PANICS.store(false, Ordering::SeqCst);
    assert!(panicked.is_err());
    integrity(&world);
    // Neither the `Copy` columns nor anything else was overwritten.
    world.restore(&snapshot).unwrap();
    integrity(&world);
    assert_eq!(contents_with_copies(&mut world), expected);
    let brittle: Vec<u32> = entities
        .iter()
        .map(|&e| world.get::<Brittle>(e).unwrap().0)
        .collect();
    assert_eq!(brittle, vec![0, 1, 2, 3]);
}

/// A sparse-set component not opted into snapshots.
#[derive(Component, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct Glow(u32);

#[test]
fn a_restore_keeps_the_iteration_order_of_sparse_sets_left_out() {
    let mut world = opted_in();
    let entities: Vec<Entity> = (0..12).map(|i| world.spawn(Pos(i, 0)).id()).collect();
    // The set's order differs from the archetypes': backwards, with every
    // third entity in an archetype of its own.
    for (i, &e) in entities.iter().enumerate().rev() {
        world.entity_mut(e).insert(Glow(i as u32));
        if i % 3 == 0 {
            world.entity_mut(e).insert(Tag);
        }
    }
    let order = |world: &mut World| -> Vec<Entity> {
        let mut query = world.query::<(Entity, &Glow)>();
        query.iter(world).map(|(e, _)| e).collect()
    };
    let before = order(&mut world);
    let snapshot = world.snapshot();
    world.restore(&snapshot).unwrap();
    assert_eq!(order(&mut world), before, "restored at once");

    // Values changed, and the set reordered by a remove and re-insert.
    for &e in &entities[..6] {
        let glow = world.entity_mut(e).take::<Glow>().unwrap();
        world.entity_mut(e).insert(Glow(glow.0 + 100));
    }
    assert_ne!(order(&mut world), before);
    world.restore(&snapshot).unwrap();
    assert_eq!(order(&mut world), before, "restored after changes");
    // Left as they are: the values are today's, each on its own entity.
    for (i, &e) in entities.iter().enumerate() {
        let expected = if i < 6 { i as u32 + 100 } else { i as u32 };
        assert_eq!(world.get::<Glow>(e), Some(&Glow(expected)), "{e}");
    }
    integrity(&world);
}

/// A component or resource declaring the snapshot functions of another
/// type is refused when registered, naming both: they would copy its
/// values as that type.
#[test]
fn a_snapshot_behavior_of_another_type_is_refused_naming_both() {
    use ecs::component::{Mutable, SnapshotBehavior, StorageType};
    struct Small(#[allow(dead_code)] u8);
    impl Component for Small {
        const STORAGE_TYPE: StorageType = StorageType::Table;
        type Mutability = Mutable;
        fn snapshot_behavior() -> SnapshotBehavior {
            SnapshotBehavior::copied::<[u64; 16]>()
        }
    }
    struct Setting(#[allow(dead_code)] u8);
    impl Resource for Setting {
        fn snapshot_behavior() -> SnapshotBehavior {
            SnapshotBehavior::cloned::<String>()
        }
    }
    let mut world = World::new();
    let message = common::panics::expect_panic(|| {
        world.spawn(Small(1));
    });
    assert!(
        message.contains("Small") && message.contains("[u64; 16]"),
        "{message}"
    );
    let message = common::panics::expect_panic(|| world.insert_resource(Setting(1)));
    assert!(
        message.contains("Setting") && message.contains("String"),
        "{message}"
    );
    integrity(&world);
    assert_eq!(world.entities().len(), 0);
}

#[derive(Relation)]
struct Admires;

/// A restore with only one end of a relationship opted in is refused
/// before anything changes, naming both ends: the restored end would name
/// entities the kept one does not list back.
#[test]
fn a_restore_of_half_a_relationship_is_refused_naming_both_ends() {
    use ecs::relation::{Sources, Targets};
    let mut world = World::new();
    world.register_snapshot::<ChildOf>();
    let parent = world.spawn_empty().id();
    world.spawn(ChildOf(parent));
    let snapshot = world.snapshot();
    let late = world.spawn(ChildOf(parent)).id();
    let error = world.restore(&snapshot).unwrap_err();
    assert!(
        matches!(&error, RestoreError::HalfARelationship { opted_in, other }
            if opted_in.contains("ChildOf") && other.contains("Children")),
        "{error}"
    );
    assert!(world.contains_entity(late));
    integrity(&world);

    let mut world = World::new();
    world.register_snapshot::<Children>();
    let parent = world.spawn_empty().id();
    world.spawn(ChildOf(parent));
    let snapshot = world.snapshot();
    assert!(matches!(
        world.restore(&snapshot),
        Err(RestoreError::HalfARelationship { .. })
    ));

    let mut world = World::new();
    world.register_snapshot::<Targets<Admires>>();
    let [a, b, c] = [(); 3].map(|_| world.spawn_empty().id());
    world.relate::<Admires>(a, b).unwrap();
    let snapshot = world.snapshot();
    world.relate::<Admires>(c, b).unwrap();
    let error = world.restore(&snapshot).unwrap_err();
    assert!(error.to_string().contains("Sources"), "{error}");
    assert_eq!(world.sources_of::<Admires>(b), [a, c]);
    integrity(&world);

    // Both ends opted in: the restore goes through, whole.
    world.register_snapshot::<Sources<Admires>>();
    let snapshot = world.snapshot();
    world.unrelate::<Admires>(a, b);
    world.restore(&snapshot).unwrap();
    assert_eq!(world.sources_of::<Admires>(b), [a, c]);
    integrity(&world);
}
