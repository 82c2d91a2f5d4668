//! Entity sets and the query and command paths that take them:
//! `iter_many_unique(_mut)`, `get_many_unique(_mut)`, sorting a
//! many-iterator, and `EntityCommand`.

use std::{
    collections::BTreeSet,
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Arc, Mutex},
};

use ecs::entity::{
    EntityHashSet, EntitySetIterator, UniqueEntityArray, UniqueEntityEquivalentVec,
    UniqueEntitySlice, UniqueEntityVec,
};
use ecs::error::{BevyError, ErrorContext};
use ecs::prelude::*;
use ecs::query::QueryEntityError;
use ecs::system::CommandQueue;

#[derive(Component, Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
struct Rank(u32);

#[derive(Component)]
struct Marker;

fn ranked(world: &mut World, ranks: &[u32]) -> Vec<Entity> {
    ranks.iter().map(|&r| world.spawn(Rank(r)).id()).collect()
}

#[test]
fn unique_vec_keeps_one_of_each_entity() {
    let mut world = World::new();
    let e = ranked(&mut world, &[1, 2, 3]);
    let collected: UniqueEntityVec = [e[0], e[1], e[0], e[2], e[1]].into_iter().collect();
    assert_eq!(collected, [e[0], e[1], e[2]]);

    let from_btree = UniqueEntityVec::from(BTreeSet::from([e[2], e[0], e[2]]));
    assert_eq!(from_btree.len(), 2);
    let from_hash = UniqueEntityVec::from(EntityHashSet::from([e[1], e[1], e[2]]));
    assert_eq!(from_hash.len(), 2);
    let set: EntityHashSet = from_btree.iter().copied().collect_set();
    assert!(set.contains(&e[0]) && set.contains(&e[2]));

    let array = UniqueEntityArray::<3>::try_from(collected.clone()).unwrap();
    assert_eq!(array, [e[0], e[1], e[2]]);
    let short = UniqueEntityArray::<2>::try_from(collected.clone()).unwrap_err();
    assert_eq!(short.len(), 3, "the vector comes back on a length mismatch");
    let slice: &UniqueEntitySlice = &collected;
    let (left, right) = slice.split_at(1);
    assert_eq!((left.len(), right.len()), (1, 2));
    assert_eq!(
        UniqueEntityArray::<2>::try_from(right).unwrap(),
        [e[1], e[2]]
    );
}

#[test]
fn iter_many_unique_mut_writes_each_item_once_and_marks_it_changed() {
    let mut world = World::new();
    let e = ranked(&mut world, &[1, 2, 3, 4]);
    world.clear_trackers();
    let targets = EntityHashSet::from([e[0], e[2], e[3]]);
    world
        .run_system_once(move |mut query: Query<&mut Rank>| {
            // All items alive at once: a plain iterator over mutable items.
            let mut items: Vec<Mut<Rank>> = query
                .iter_many_unique_mut(&targets)
                .map(Result::unwrap)
                .collect();
            assert_eq!(items.len(), 3);
            for rank in &mut items {
                rank.0 += 100;
            }
        })
        .unwrap();
    let ranks: Vec<u32> = e.iter().map(|&x| world.get::<Rank>(x).unwrap().0).collect();
    assert_eq!(ranks, [101, 2, 103, 104]);
    let mut changed = world.query_filtered::<Entity, Changed<Rank>>();
    let mut changed: Vec<Entity> = changed.iter(&world).collect();
    changed.sort();
    assert_eq!(changed, [e[0], e[2], e[3]]);
}

#[test]
fn iter_many_unique_reports_a_despawned_entity_by_name() {
    let mut world = World::new();
    let e = ranked(&mut world, &[1, 2]);
    let plain = world.spawn(Marker).id();
    world.despawn(e[1]);
    let set = UniqueEntityVec::from(BTreeSet::from([e[0], e[1], plain]));
    let mut query = world.query::<&Rank>();
    let results: Vec<_> = query.iter_many_unique(&world, &set).collect();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0].unwrap().0, 1);
    let gone = results[1].unwrap_err();
    assert!(matches!(gone, QueryEntityError::NoSuchEntity(x) if x == e[1]));
    assert!(gone.to_string().contains(&format!("{}", e[1])), "{gone}");
    assert!(matches!(results[2], Err(QueryEntityError::QueryDoesNotMatch(x)) if x == plain));
    let matched: Vec<u32> = query
        .iter_many_unique(&world, &set)
        .matched()
        .map(|r| r.0)
        .collect();
    assert_eq!(matched, [1]);
}

#[test]
fn get_many_unique_returns_items_or_the_failing_entity() {
    let mut world = World::new();
    let e = ranked(&mut world, &[5, 7]);
    let pair: UniqueEntityVec = [e[1], e[0]].into_iter().collect();
    let pair = UniqueEntityArray::<2>::try_from(pair).unwrap();
    let mut query = world.query::<&mut Rank>();
    let [mut a, mut b] = query.get_many_unique_mut(&mut world, pair).unwrap();
    std::mem::swap(&mut a.0, &mut b.0);
    assert_eq!(world.get::<Rank>(e[0]).unwrap().0, 7);
    let [x, y] = query.get_many_unique(&world, pair).unwrap();
    assert_eq!((x.0, y.0), (5, 7));

    world.despawn(e[0]);
    let err = query.get_many_unique(&world, pair).unwrap_err();
    assert!(matches!(err, QueryEntityError::NoSuchEntity(x) if x == e[0]));
    world
        .run_system_once(move |mut query: Query<&mut Rank>| {
            let err = query.get_many_unique_mut(pair).unwrap_err();
            assert!(matches!(err, QueryEntityError::NoSuchEntity(x) if x == e[0]));
        })
        .unwrap();
}

#[test]
fn sorting_a_many_iter_orders_by_key_and_puts_errors_last() {
    let mut world = World::new();
    let e = ranked(&mut world, &[3, 1, 2]);
    let plain = world.spawn(Marker).id();
    let mut query = world.query::<(Entity, &Rank)>();
    let sorted: Vec<_> = query
        .iter_many(&world, [e[0], plain, e[1], e[2], e[1]])
        .sort::<&Rank>()
        .collect();
    let order: Vec<Entity> = sorted
        .iter()
        .filter_map(|r| r.ok().map(|(e, _)| e))
        .collect();
    assert_eq!(order, [e[1], e[1], e[2], e[0]]);
    assert!(matches!(sorted[4], Err(QueryEntityError::QueryDoesNotMatch(x)) if x == plain));

    let desc: Vec<u32> = query
        .iter_many(&world, &e)
        .sort_by::<&Rank>(|a, b| b.cmp(a))
        .map(|r| r.unwrap().1 .0)
        .collect();
    assert_eq!(desc, [3, 2, 1]);
    let by_key: Vec<u32> = query
        .iter_many(&world, &e)
        .sort_unstable_by_key::<&Rank, _>(|r| u32::MAX - r.0)
        .map(|r| r.unwrap().1 .0)
        .collect();
    assert_eq!(by_key, [3, 2, 1]);
}

#[test]
fn a_sorted_many_iter_hands_out_mutable_items_one_at_a_time() {
    let mut world = World::new();
    let e = ranked(&mut world, &[3, 1, 2]);
    let mut query = world.query::<&mut Rank>();
    let mut iter = query
        .iter_many_mut(&mut world, [e[0], e[1], e[2], e[1]])
        .sort_by_cached_key::<&Rank, _>(|r| r.0);
    let mut seen = Vec::new();
    while let Some(item) = iter.fetch_next() {
        let mut rank = item.unwrap();
        seen.push(rank.0);
        rank.0 += 10;
    }
    drop(iter);
    // e[1] is listed twice and written twice.
    assert_eq!(seen, [1, 11, 2, 3]);
    assert_eq!(world.get::<Rank>(e[1]).unwrap().0, 21);
}

#[test]
fn a_panicking_comparator_in_a_many_sort_leaves_the_world_usable() {
    let mut world = World::new();
    let e = ranked(&mut world, &[3, 1, 2]);
    let mut query = world.query::<&mut Rank>();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut iter = query
            .iter_many_mut(&mut world, &e)
            .sort_by::<&Rank>(|_, _| panic!("comparator failed"));
        while let Some(item) = iter.fetch_next() {
            item.unwrap().0 = 0;
        }
    }));
    assert!(result.is_err());
    let ranks: Vec<u32> = e.iter().map(|&x| world.get::<Rank>(x).unwrap().0).collect();
    assert_eq!(ranks, [3, 1, 2], "nothing was written");
    world.entity_mut(e[0]).insert(Marker);
    world.despawn(e[1]);
    let mut all = world.query::<&Rank>();
    assert_eq!(all.iter(&world).count(), 2);
}

#[test]
fn entity_commands_run_closures_and_command_types() {
    struct Bump(u32);
    impl EntityCommand for Bump {
        type Out = ();
        fn apply(self, mut entity: EntityWorldMut) {
            entity.get_mut::<Rank>().unwrap().0 += self.0;
        }
    }

    let mut world = World::new();
    let e = world.spawn(Rank(1)).id();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands
        .entity(e)
        .queue(Bump(2))
        .queue(|mut entity: EntityWorldMut| entity.get_mut::<Rank>().unwrap().0 *= 10)
        .queue_silenced(|entity: EntityWorldMut| -> Result {
            Err(format!("silenced failure on {}", entity.id()).into())
        });
    queue.apply(&mut world);
    assert_eq!(world.get::<Rank>(e).unwrap().0, 30);
}

#[test]
fn an_entity_command_on_a_despawned_entity_reports_the_entity() {
    let mut world = World::new();
    let e = world.spawn(Rank(1)).id();
    let reports: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(e).despawn();
    let sink = reports.clone();
    commands.entity(e).queue_handled(
        |mut entity: EntityWorldMut| {
            entity.insert(Marker);
        },
        move |error: BevyError, context: ErrorContext| {
            sink.lock().unwrap().push(format!("{error} / {context:?}"));
        },
    );
    queue.apply(&mut world);
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1);
    assert!(reports[0].contains(&format!("{e}")), "{}", reports[0]);

    // With the default handler, the error panics (naming the entity), and
    // the world stays usable.
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.entity(e).queue(|mut entity: EntityWorldMut| {
        entity.insert(Marker);
    });
    let panic = catch_unwind(AssertUnwindSafe(|| queue.apply(&mut world))).unwrap_err();
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(message.contains(&format!("{e}")), "{message}");
    let f = world.spawn(Rank(4)).id();
    assert_eq!(world.get::<Rank>(f).unwrap().0, 4);
}

#[test]
fn contains_entity_names_the_entity_of_each_handle() {
    let mut world = World::new();
    let e = world.spawn(Rank(1)).id();
    assert_eq!(e.entity(), e);
    assert_eq!(world.entity(e).entity(), e);
    assert_eq!(world.entity_mut(e).entity(), e);
    let mut query = world.query::<EntityRef>();
    let mut ranks = world.query::<&Rank>();
    let refs: UniqueEntityEquivalentVec<EntityRef> = query.iter(&world).collect();
    let via_refs: Vec<u32> = ranks
        .iter_many_unique(&world, &refs)
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(via_refs, [1]);
}
