//! The query methods beyond `iter`/`get`: lists of entities (`iter_many`),
//! several entities at once (`get_many`), combinations, exact lengths, and
//! the `Query` views of a `QueryState`.

mod common;

use std::collections::BTreeSet;

use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::query::{QueryEntityError, QueryState};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Value(u32);

#[derive(Component)]
struct Marker;

#[derive(Component)]
struct Late;

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct Sparse(u32);

/// Entities with `Value(0..n)` spread over several tables and archetypes
/// (some with a sparse-set component, some with `Marker`).
fn spread(world: &mut World, n: u32) -> Vec<Entity> {
    (0..n)
        .map(|i| match i % 3 {
            0 => world.spawn(Value(i)).id(),
            1 => world.spawn((Value(i), Marker)).id(),
            _ => world.spawn((Value(i), Sparse(i))).id(),
        })
        .collect()
}

// ---- iter_many -------------------------------------------------------------

#[test]
fn iter_many_follows_the_list_and_reports_each_failure() {
    let mut world = World::new();
    let e = spread(&mut world, 4);
    let empty = world.spawn_empty().id();
    let gone = world.spawn(Value(99)).id();
    world.despawn(gone);

    let mut query = world.query::<&Value>();
    let items: Vec<_> = query
        .iter_many(&world, [e[3], e[0], empty, e[3], gone])
        .map(|r| r.map(|v| v.0))
        .collect();
    assert_eq!(
        items,
        [
            Ok(3),
            Ok(0),
            Err(QueryEntityError::QueryDoesNotMatch(empty)),
            Ok(3),
            Err(QueryEntityError::NoSuchEntity(gone)),
        ]
    );
}

#[test]
fn iter_many_respects_the_filter_and_takes_borrowed_lists() {
    let mut world = World::new();
    let e = spread(&mut world, 6);
    let mut marked = world.query_filtered::<&Value, With<Marker>>();
    let list: Vec<Entity> = e.clone();
    let values: Vec<u32> = marked
        .iter_many(&world, &list)
        .matched()
        .map(|v| v.0)
        .collect();
    assert_eq!(values, [1, 4]);
    assert_eq!(marked.iter_many(&world, &list).size_hint(), (6, Some(6)));
    assert_eq!(
        marked.iter_many(&world, &list).matched().size_hint(),
        (0, Some(6))
    );
    // From the back.
    let back: Vec<u32> = marked
        .iter_many(&world, list.iter())
        .rev()
        .filter_map(Result::ok)
        .map(|v| v.0)
        .collect();
    assert_eq!(back, [4, 1]);
}

#[test]
fn iter_many_sees_change_ticks() {
    let mut world = World::new();
    let e = spread(&mut world, 3);
    world.clear_trackers();
    world.get_mut::<Value>(e[2]).unwrap().0 = 20;
    let mut changed = world.query_filtered::<Entity, Changed<Value>>();
    let hits: Vec<Entity> = changed.iter_many(&world, &e).matched().collect();
    assert_eq!(hits, [e[2]]);
}

#[test]
fn iter_many_mut_applies_a_repeated_entity_once_per_mention() {
    let mut world = World::new();
    let e = spread(&mut world, 3);
    let mut query = world.query::<&mut Value>();
    let mut iter = query.iter_many_mut(&mut world, [e[1], e[2], e[1], e[1]]);
    while let Some(item) = iter.fetch_next() {
        item.unwrap().0 += 100;
    }
    let mut iter = query.iter_many_mut(&mut world, [e[0], e[2]]);
    while let Some(mut value) = iter.fetch_next_back().map(Result::unwrap) {
        value.0 += 1;
    }
    let values: Vec<u32> = query.iter_many(&world, &e).map(|v| v.unwrap().0).collect();
    assert_eq!(values, [1, 301, 103]);
}

#[test]
fn iter_many_mut_adaptors_lend_one_item_at_a_time() {
    let mut world = World::new();
    let e = spread(&mut world, 3);
    let empty = world.spawn_empty().id();
    let mut query = world.query::<&mut Value>();

    let mut matched = query
        .iter_many_mut(&mut world, [empty, e[0], empty, e[0]])
        .matched();
    let mut seen = 0;
    while let Some(mut value) = matched.fetch_next() {
        value.0 += 10;
        seen += 1;
    }
    assert_eq!(seen, 2);

    let mut unwrapped = query.iter_many_mut(&mut world, [e[1]]).unwrapped();
    while let Some(mut value) = unwrapped.fetch_next() {
        value.0 += 5;
    }
    assert_eq!(world.get::<Value>(e[0]), Some(&Value(20)));
    assert_eq!(world.get::<Value>(e[1]), Some(&Value(6)));
}

#[test]
fn iter_many_unwrapped_panics_naming_the_entity() {
    let mut world = World::new();
    let empty = world.spawn_empty().id();
    let mut query = world.query::<&Value>();
    let message = expect_panic(|| query.iter_many(&world, [empty]).unwrapped().count());
    assert!(message.contains(&format!("{empty:?}")), "{message}");
    assert!(message.contains("does not match"), "{message}");
}

#[test]
fn query_iter_many_in_a_system() {
    let mut world = World::new();
    let e = spread(&mut world, 4);
    world
        .run_system_once(move |mut query: Query<&mut Value>| {
            let mut iter = query.iter_many_mut([e[3], e[3]]);
            while let Some(mut v) = iter.fetch_next().map(Result::unwrap) {
                v.0 *= 2;
            }
            let values: Vec<u32> = query.iter_many(&e).map(|v| v.unwrap().0).collect();
            assert_eq!(values, [0, 1, 2, 12]);
        })
        .unwrap();
}

// ---- get_many ----------------------------------------------------------------

#[test]
fn get_many_reads_repeats_and_reports_the_first_failure() {
    let mut world = World::new();
    let e = spread(&mut world, 3);
    let empty = world.spawn_empty().id();
    let mut query = world.query::<&Value>();
    let [a, b, a2] = query.get_many(&world, [e[2], e[0], e[2]]).unwrap();
    assert_eq!((a.0, b.0, a2.0), (2, 0, 2));
    assert_eq!(
        query.get_many(&world, [e[0], empty, e[5 % 3]]).err(),
        Some(QueryEntityError::QueryDoesNotMatch(empty))
    );
    let empty_list: [&Value; 0] = query.get_many(&world, []).unwrap();
    assert!(empty_list.is_empty());
}

#[test]
fn get_many_mut_refuses_a_repeated_entity_before_anything_else() {
    let mut world = World::new();
    let e = spread(&mut world, 3);
    let empty = world.spawn_empty().id();
    let mut query = world.query::<&mut Value>();
    assert_eq!(
        query.get_many_mut(&mut world, [empty, e[1], e[1]]).err(),
        Some(QueryEntityError::AliasedMutability(e[1]))
    );
    assert_eq!(
        query.get_many_mut(&mut world, [e[1], empty]).err(),
        Some(QueryEntityError::QueryDoesNotMatch(empty))
    );
    let [mut x, mut y] = query.get_many_mut(&mut world, [e[0], e[2]]).unwrap();
    std::mem::swap(&mut x.0, &mut y.0);
    assert_eq!(world.get::<Value>(e[0]), Some(&Value(2)));
    assert_eq!(world.get::<Value>(e[2]), Some(&Value(0)));
}

#[test]
fn query_get_many_in_a_system() {
    let mut world = World::new();
    let e = spread(&mut world, 3);
    let list = e.clone();
    world
        .run_system_once(move |mut query: Query<(&mut Value, Option<&Sparse>)>| {
            let e = &list;
            let [(a, _), (b, sparse)] = query.get_many([e[0], e[2]]).unwrap();
            assert_eq!((a.0, b.0, sparse.map(|s| s.0)), (0, 2, Some(2)));
            assert_eq!(
                query.get_many_mut([e[2], e[2]]).err(),
                Some(QueryEntityError::AliasedMutability(e[2]))
            );
            let [(mut a, _), (mut b, _)] = query.get_many_mut([e[0], e[2]]).unwrap();
            a.0 += 7;
            b.0 += 7;
        })
        .unwrap();
    assert_eq!(world.get::<Value>(e[0]), Some(&Value(7)));
    assert_eq!(world.get::<Value>(e[2]), Some(&Value(9)));
}

// ---- iter_combinations -----------------------------------------------------------

fn choose(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    (1..=k).fold(1, |acc, i| acc * (n - k + i) / i)
}

#[test]
fn combinations_visit_every_set_of_distinct_entities_once() {
    let mut world = World::new();
    let n = 8;
    spread(&mut world, n);
    let mut query = world.query::<(Entity, &Value)>();
    let all: BTreeSet<Entity> = query.iter(&world).map(|(e, _)| e).collect();

    let pairs: Vec<[(Entity, &Value); 2]> = query.iter_combinations::<2>(&world).collect();
    assert_eq!(pairs.len(), choose(n as usize, 2));
    let sets: BTreeSet<BTreeSet<Entity>> = pairs
        .iter()
        .map(|combo| combo.iter().map(|(e, _)| *e).collect::<BTreeSet<_>>())
        .collect();
    assert_eq!(sets.len(), pairs.len(), "a combination repeats");
    assert!(sets.iter().all(|s| s.len() == 2 && s.is_subset(&all)));

    let triples: BTreeSet<BTreeSet<Entity>> = query
        .iter_combinations::<3>(&world)
        .map(|combo| combo.iter().map(|(e, _)| *e).collect())
        .collect();
    assert_eq!(triples.len(), choose(n as usize, 3));
    assert!(triples.iter().all(|s| s.len() == 3));

    let singles: Vec<Entity> = query
        .iter_combinations::<1>(&world)
        .map(|[(e, _)]| e)
        .collect();
    let in_order: Vec<Entity> = query.iter(&world).map(|(e, _)| e).collect();
    assert_eq!(singles, in_order);

    assert_eq!(query.iter_combinations::<9>(&world).count(), 0);
    assert_eq!(
        query.iter_combinations::<9>(&world).size_hint(),
        (0, Some(0))
    );
}

#[test]
fn combinations_size_hint_is_exact_at_every_step() {
    let mut world = World::new();
    spread(&mut world, 7);
    let mut query = world.query_filtered::<&Value, Without<Marker>>();
    let n = query.iter(&world).count();
    for k in 1..=4 {
        let mut left = choose(n, k);
        match k {
            1 => check_steps(query.iter_combinations::<1>(&world), &mut left),
            2 => check_steps(query.iter_combinations::<2>(&world), &mut left),
            3 => check_steps(query.iter_combinations::<3>(&world), &mut left),
            _ => check_steps(query.iter_combinations::<4>(&world), &mut left),
        }
    }

    fn check_steps<I: Iterator>(mut iter: I, left: &mut usize) {
        loop {
            assert_eq!(iter.size_hint(), (*left, Some(*left)));
            if iter.next().is_none() {
                break;
            }
            *left -= 1;
        }
        assert_eq!(*left, 0);
        assert!(iter.next().is_none(), "not fused");
    }
}

#[test]
fn combinations_with_a_row_filter_bound_from_above() {
    let mut world = World::new();
    let e = spread(&mut world, 6);
    world.clear_trackers();
    for &entity in &e[1..4] {
        world.get_mut::<Value>(entity).unwrap().0 += 10;
    }
    let mut changed = world.query_filtered::<Entity, Changed<Value>>();
    let iter = changed.iter_combinations::<2>(&world);
    assert_eq!(iter.size_hint(), (0, Some(choose(6, 2))));
    let pairs: BTreeSet<BTreeSet<Entity>> = iter.map(|c| c.into_iter().collect()).collect();
    let expected: BTreeSet<BTreeSet<Entity>> = [[e[1], e[2]], [e[1], e[3]], [e[2], e[3]]]
        .into_iter()
        .map(|c| c.into_iter().collect())
        .collect();
    assert_eq!(pairs, expected);
}

#[test]
fn combinations_mut_lend_one_array_at_a_time() {
    let mut world = World::new();
    let e = spread(&mut world, 5);
    let mut query = world.query::<&mut Value>();
    let mut combos = query.iter_combinations_mut::<2>(&mut world);
    let mut count = 0;
    while let Some([mut a, mut b]) = combos.fetch_next() {
        a.0 += 1;
        b.0 += 1;
        count += 1;
    }
    assert_eq!(count, choose(5, 2));
    // Each entity is in `n - 1` pairs.
    for (i, &entity) in e.iter().enumerate() {
        assert_eq!(world.get::<Value>(entity), Some(&Value(i as u32 + 4)));
    }

    world
        .run_system_once(|mut query: Query<&mut Value, With<Marker>>| {
            let mut combos = query.iter_combinations_mut::<2>();
            while let Some([mut a, b]) = combos.fetch_next() {
                a.0 += b.0;
            }
            assert_eq!(query.iter_combinations::<2>().count(), 1);
        })
        .unwrap();
    // `Marker` is on e[1] (5) and e[4] (8): the first gains the second.
    assert_eq!(world.get::<Value>(e[1]), Some(&Value(13)));
}

#[test]
fn combinations_of_zero_panic_naming_the_query() {
    let mut world = World::new();
    spread(&mut world, 2);
    let mut query = world.query::<&Value>();
    let message = expect_panic(|| query.iter_combinations::<0>(&world).count());
    assert!(message.contains("Value"), "{message}");
    assert!(message.contains("K must be at least 1"), "{message}");
}

// ---- exact length, views, states -------------------------------------------------

#[test]
fn query_iter_len_is_exact_with_an_archetypal_filter() {
    let mut world = World::new();
    spread(&mut world, 10);
    let mut dense = world.query::<&Value>();
    let mut iter = dense.iter(&world);
    assert_eq!(iter.len(), 10);
    iter.next();
    iter.next();
    assert_eq!(iter.len(), 8);

    let mut sparse =
        world.query_filtered::<&Value, (With<Sparse>, Or<(With<Value>, Without<Marker>)>)>();
    assert_eq!(sparse.iter(&world).len(), 3);
    let mut unmarked = world.query_filtered::<Entity, Without<Marker>>();
    let mut iter = unmarked.iter_mut(&mut world);
    let total = iter.len();
    assert_eq!(total, 7);
    assert_eq!(iter.by_ref().count(), total);
    assert_eq!(iter.len(), 0);
}

#[test]
fn query_views_share_the_state() {
    let mut world = World::new();
    let e = spread(&mut world, 3);
    world
        .run_system_once(move |mut query: Query<&mut Value>| {
            let read = query.as_readonly();
            let copy = read;
            assert_eq!(read.get(e[1]).unwrap().0 + copy.get(e[2]).unwrap().0, 3);
            let mut again = query.reborrow();
            again.get_mut(e[0]).unwrap().0 = 50;
            let values: Vec<u32> = query.as_readonly().into_iter().map(|v| v.0).collect();
            assert_eq!(values.iter().sum::<u32>(), 53);
            let item = query.reborrow().get_inner(e[0]).unwrap();
            assert_eq!(item.0, 50);
            let readonly = query.into_readonly();
            assert_eq!(readonly.iter_inner().count(), 3);
        })
        .unwrap();
}

#[test]
fn state_query_views() {
    let mut world = World::new();
    let e = spread(&mut world, 3);
    let mut state: QueryState<&mut Value> = world.query::<&mut Value>();
    {
        let mut query = state.query_mut(&mut world);
        for mut v in query.iter_mut() {
            v.0 += 1;
        }
    }
    let query = state.query(&world);
    assert_eq!(query.iter().map(|v| v.0).collect::<Vec<_>>().len(), 3);
    assert_eq!(query.get(e[2]).unwrap().0, 3);
    assert_eq!(state.as_readonly().iter_manual(&world).count(), 3);

    // `*_manual` use the cache as it stands: a new table is unseen until an
    // update.
    let late = world.spawn((Value(7), Late)).id();
    assert_eq!(
        state.get_manual(&world, late).err(),
        Some(QueryEntityError::QueryDoesNotMatch(late))
    );
    assert_eq!(state.query_manual(&world).iter().count(), 3);
    assert_eq!(
        state
            .iter_many_manual(&world, [late, e[0]])
            .matched()
            .count(),
        1
    );
    state.update_archetypes(&world);
    assert_eq!(state.get_manual(&world, late).unwrap().0, 7);
    assert_eq!(state.query_manual(&world).iter().count(), 4);
}

#[test]
fn a_state_refuses_another_world() {
    let mut world = World::new();
    spread(&mut world, 1);
    let state = world.query::<&Value>();
    let other = World::new();
    let message = expect_panic(|| state.query_manual(&other).iter().count());
    assert!(message.contains("was built for world"), "{message}");
}

#[test]
fn remaining_walks_what_is_left_across_tables_and_archetypes() {
    #[derive(Component)]
    #[component(storage = "SparseSet")]
    struct Sparse;
    let mut world = World::new();
    for i in 0..12 {
        let mut e = world.spawn(Value(i));
        if i % 3 == 0 {
            e.insert(Marker);
        }
        if i % 4 == 0 {
            e.insert(Sparse);
        }
    }
    // Dense (tables) and archetype walks (a sparse term), each cut at
    // every point.
    let mut dense = world.query::<&Value>();
    let mut sparse = world.query::<(&Value, Has<Sparse>)>();
    for cut in 0..=12 {
        let mut iter = dense.iter(&world);
        let before: Vec<u32> = iter.by_ref().take(cut).map(|v| v.0).collect();
        let rest: Vec<u32> = iter.remaining().map(|v| v.0).collect();
        let after: Vec<u32> = iter.map(|v| v.0).collect();
        assert_eq!(rest, after, "cut {cut}");
        let mut all: Vec<u32> = before.into_iter().chain(rest).collect();
        all.sort_unstable();
        assert_eq!(all, (0..12).collect::<Vec<_>>(), "cut {cut}");

        let mut iter = sparse.iter(&world);
        iter.by_ref().take(cut).for_each(drop);
        let rest: Vec<u32> = iter.remaining().map(|(v, _)| v.0).collect();
        assert_eq!(
            rest,
            iter.map(|(v, _)| v.0).collect::<Vec<_>>(),
            "cut {cut}"
        );
    }
}

#[test]
fn par_iter_inner_keeps_the_querys_lifetime() {
    fn double(query: Query<&mut Value>) {
        query.par_iter_inner().for_each(|mut v| v.0 *= 2);
    }
    let mut world = World::new();
    world.spawn_batch((0..100).map(Value));
    world.run_system_once(double).unwrap();
    let mut state = world.query::<&Value>();
    assert_eq!(state.iter(&world).map(|v| v.0).sum::<u32>(), 2 * 4950);
}

#[derive(Component, Debug, PartialEq)]
struct Label(&'static str);

#[test]
fn mut_is_query_data_like_a_mutable_reference() {
    let mut world = World::new();
    let a = world.spawn((Label("a"), Hp(1))).id();
    let b = world.spawn(Label("b")).id();
    let mut state = world.query::<(Entity, Mut<Label>)>();
    // The read-only iteration yields `Ref`, with change detection.
    let seen: Vec<(Entity, bool)> = state
        .iter(&world)
        .map(|(e, label)| (e, label.is_added()))
        .collect();
    assert_eq!(seen, vec![(a, true), (b, true)]);
    world.clear_trackers();
    for (e, mut label) in state.iter_mut(&mut world) {
        if e == b {
            label.0 = "B";
        }
    }
    assert_eq!(world.get::<Label>(b), Some(&Label("B")));
    let changed: Vec<Entity> = world
        .query_filtered::<Entity, Changed<Label>>()
        .iter(&world)
        .collect();
    assert_eq!(changed, vec![b]);

    // In a system, beside `&mut`, and refused beside a read of its component.
    let mut schedule = Schedule::default();
    schedule.add_systems(|mut q: Query<(Mut<Label>, &mut Hp)>| {
        for (mut label, mut health) in &mut q {
            label.0 = "healed";
            health.0 += 1;
        }
    });
    schedule.run(&mut world);
    assert_eq!(world.get::<Label>(a), Some(&Label("healed")));
    assert_eq!(world.get::<Hp>(a).map(|h| h.0), Some(2));
    let message = expect_panic(|| {
        world.query::<(&Label, Mut<Label>)>();
    });
    assert!(message.contains("`Mut<query_methods::Label>`"), "{message}");

    let message =
        expect_panic(|| world.run_system_once(|_: Query<Mut<Label>>, _: Query<&Label>| {}));
    assert!(message.contains("error[B0001]"), "{message}");
    world
        .run_system_once(|_: Query<Mut<Label>, With<Hp>>, _: Query<&Label, Without<Hp>>| {})
        .unwrap();

    // Table by table, as `&mut T`.
    let mut state = world.query::<Mut<Hp>>();
    for mut healths in state.contiguous_iter_mut(&mut world).unwrap() {
        for health in healths.iter_mut() {
            health.0 *= 10;
        }
    }
    assert_eq!(world.get::<Hp>(a).map(|h| h.0), Some(20));
}

#[derive(ecs::query::QueryData)]
struct Tagged<T: Send + Sync + 'static> {
    entity: Entity,
    label: &'static Label,
    marker: std::marker::PhantomData<T>,
}

#[test]
fn phantom_data_is_query_data_that_matches_everything() {
    let mut world = World::new();
    let a = world.spawn(Label("a")).id();
    let plain = world.spawn_empty().id();
    let all: Vec<Entity> = world
        .query::<(Entity, std::marker::PhantomData<str>)>()
        .iter(&world)
        .map(|(e, _)| e)
        .collect();
    assert!(all.contains(&a) && all.contains(&plain));
    let tagged: Vec<(Entity, &str)> = world
        .query::<Tagged<u8>>()
        .iter(&world)
        .map(|t| (t.entity, t.label.0))
        .collect();
    assert_eq!(tagged, vec![(a, "a")]);
}

#[derive(Component, Debug)]
struct Hp(u32);
