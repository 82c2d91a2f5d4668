//! Query lenses (`transmute_lens`, `join`), sorted iteration and
//! contiguous column access.

mod common;

use std::collections::BTreeSet;

use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::query::{QueryData, QueryFilter, QueryState, WorldQuery};
use ecs::system::QueryLens;

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct A(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct B(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct C(u32);

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[component(storage = "SparseSet")]
struct S(u32);

#[derive(QueryData)]
struct AAndB {
    a: &'static A,
    b: &'static B,
}

#[derive(QueryFilter)]
struct WithAWithoutC {
    _a: With<A>,
    _c: Without<C>,
}

fn values<'a>(items: impl IntoIterator<Item = &'a A>) -> BTreeSet<u32> {
    items.into_iter().map(|a| a.0).collect()
}

// ---- get_state --------------------------------------------------------------

#[test]
fn get_state_is_none_until_every_component_is_registered() {
    let mut world = World::new();
    assert!(<&A as WorldQuery>::get_state(world.components()).is_none());
    assert!(<(Entity, Option<&B>) as WorldQuery>::get_state(world.components()).is_none());
    assert!(<Entity as WorldQuery>::get_state(world.components()).is_some());
    assert!(<AAndB as WorldQuery>::get_state(world.components()).is_none());
    world.register_component::<A>();
    assert!(<&A as WorldQuery>::get_state(world.components()).is_some());
    assert!(<AAndB as WorldQuery>::get_state(world.components()).is_none());
    assert!(<WithAWithoutC as WorldQuery>::get_state(world.components()).is_none());
    world.register_component::<B>();
    world.register_component::<C>();
    assert!(<AAndB as WorldQuery>::get_state(world.components()).is_some());
    assert!(<WithAWithoutC as WorldQuery>::get_state(world.components()).is_some());
    assert!(<(
        Has<A>,
        AnyOf<(&A, &mut B)>,
        Or<(Changed<A>, Added<B>)>,
        Ref<C>
    ) as WorldQuery>::get_state(world.components())
    .is_some());
}

#[test]
fn get_state_gives_the_ids_init_state_registered() {
    let mut world = World::new();
    let built = <(&A, &B) as WorldQuery>::init_state(&mut world);
    let looked_up = <(&A, &B) as WorldQuery>::get_state(world.components()).unwrap();
    assert_eq!(built, looked_up);
}

// ---- transmute --------------------------------------------------------------

fn world_abc() -> World {
    let mut world = World::new();
    world.spawn((A(1), B(10)));
    world.spawn((A(2), B(20), C(200)));
    world.spawn(A(3));
    world.spawn((A(4), S(40)));
    world.spawn((A(5), B(50), S(50)));
    world
}

#[test]
fn transmute_lens_keeps_the_source_matches() {
    let mut world = world_abc();
    world
        .run_system_once(|mut query: Query<(&A, &B)>| {
            let mut lens = query.transmute_lens::<&A>();
            assert_eq!(values(lens.query().iter()), BTreeSet::from([1, 2, 5]));
            let mut entities = query.transmute_lens::<Entity>();
            assert_eq!(entities.query().iter().count(), 3);
        })
        .unwrap();
}

#[test]
fn a_lens_may_write_what_the_source_writes() {
    let mut world = world_abc();
    world
        .run_system_once(|mut query: Query<(&mut A, &B)>| {
            let mut lens = query.transmute_lens::<&mut A>();
            for mut a in lens.query().iter_mut() {
                a.0 += 100;
            }
        })
        .unwrap();
    let mut all = world.query::<&A>();
    assert_eq!(
        values(all.iter(&world)),
        BTreeSet::from([101, 102, 3, 4, 105])
    );
}

#[test]
fn a_lens_of_a_mutable_query_marks_what_it_writes_changed() {
    let mut world = world_abc();
    world.clear_trackers();
    let mut state = world.query::<(&mut A, &B)>();
    let mut query = state.query_mut(&mut world);
    let mut lens = query.transmute_lens::<&mut A>();
    for mut a in lens.query().iter_mut() {
        if a.0 == 2 {
            a.0 = 22;
        }
    }
    let mut changed = world.query_filtered::<&A, Changed<A>>();
    assert_eq!(values(changed.iter(&world)), BTreeSet::from([22]));
}

#[test]
fn a_dense_lens_of_a_sparse_query_sees_only_the_source_matches() {
    let mut world = world_abc();
    // A(4)+S and A(3) share the table of `A`; the source matches only the
    // archetype with `S`.
    world
        .run_system_once(|mut query: Query<(&A, &S)>| {
            let mut lens = query.transmute_lens::<&A>();
            let q = lens.query();
            assert_eq!(values(q.iter()), BTreeSet::from([4, 5]));
            assert_eq!(q.iter().count(), 2);
            assert_eq!(q.iter().size_hint(), (2, Some(2)));
            let mut seen = BTreeSet::new();
            q.iter().for_each(|a| {
                seen.insert(a.0);
            });
            assert_eq!(seen, BTreeSet::from([4, 5]));
            let mut par = std::sync::Mutex::new(BTreeSet::new());
            q.par_iter().for_each(|a| {
                par.lock().unwrap().insert(a.0);
            });
            assert_eq!(*par.get_mut().unwrap(), BTreeSet::from([4, 5]));
            assert_eq!(q.iter_combinations::<2>().count(), 1);
        })
        .unwrap();
}

#[test]
fn a_dense_lens_walks_interleaved_rows_of_a_shared_table() {
    let mut world = World::new();
    // Rows of table (A) alternate between the archetypes (A) and (A, S).
    for i in 0..20 {
        let mut e = world.spawn(A(i));
        if i % 3 != 0 {
            e.insert(S(i));
        }
    }
    let state = world.query_filtered::<&mut A, With<S>>();
    let mut lens = state.transmute::<&mut A>(&mut world);
    for mut a in lens.iter_mut(&mut world) {
        a.0 += 1000;
    }
    let mut all = world.query::<&A>();
    for a in all.iter(&world) {
        let i = a.0 % 1000;
        assert_eq!(a.0 >= 1000, i % 3 != 0, "A({i})");
    }
}

#[test]
fn a_dense_lens_size_hint_counts_down_through_runs_and_archetypes() {
    let mut world = World::new();
    // Table (A) holds runs of (A, S) rows broken by (A) rows; a second
    // table (A, B) holds (A, B, S) rows only.
    for i in 0..30 {
        let mut e = world.spawn(A(i));
        if i % 4 != 0 {
            e.insert(S(i));
        }
    }
    for i in 100..105 {
        world.spawn((A(i), B(i), S(i)));
    }
    let state = world.query_filtered::<&A, With<S>>();
    let mut lens = state.transmute::<&A>(&mut world);
    let expected: BTreeSet<u32> = (0..30).filter(|i| i % 4 != 0).chain(100..105).collect();
    let mut iter = lens.iter(&world);
    let mut seen = BTreeSet::new();
    let mut left = expected.len();
    loop {
        assert_eq!(iter.size_hint(), (left, Some(left)));
        let Some(a) = iter.next() else { break };
        assert!(seen.insert(a.0), "A({}) twice", a.0);
        left -= 1;
    }
    assert_eq!(left, 0);
    assert_eq!(seen, expected);
    // `fold` (and so `for_each`) walks the same rows.
    assert_eq!(values(lens.iter(&world)), expected);
    assert_eq!(lens.iter(&world).count(), expected.len());
}

#[test]
fn transmute_with_a_derived_query_and_filter() {
    let mut world = world_abc();
    let state = world.query_filtered::<(&A, &B, Option<&C>), With<A>>();
    let mut lens = state.transmute_filtered::<AAndB, WithAWithoutC>(&world);
    let items: BTreeSet<_> = lens.iter(&world).map(|i| (i.a.0, i.b.0)).collect();
    assert_eq!(items, BTreeSet::from([(1, 10), (5, 50)]));
}

#[test]
fn a_lens_asking_for_more_access_panics_naming_the_component() {
    let mut world = world_abc();
    let state = world.query::<(&A, Option<&B>)>();
    let msg = expect_panic(|| state.transmute::<&C>(&world));
    assert!(msg.contains("reads") && msg.contains("C"), "{msg}");
    let msg = expect_panic(|| state.transmute::<&mut A>(&world));
    assert!(msg.contains("writes") && msg.contains("A"), "{msg}");
    let msg = expect_panic(|| state.transmute::<&B>(&world));
    assert!(msg.contains("requires") && msg.contains("B"), "{msg}");
    // What `Option` reads may stay optional.
    let mut lens = state.transmute::<Option<&B>>(&world);
    assert_eq!(lens.iter(&world).flatten().count(), 3);
}

#[test]
fn a_read_only_view_lends_no_writes() {
    let mut world = world_abc();
    let state = world.query::<&mut A>();
    let msg = expect_panic(|| state.as_readonly().transmute::<&mut A>(&world));
    assert!(msg.contains("writes") && msg.contains("A"), "{msg}");
}

#[test]
fn a_lens_of_an_unregistered_component_panics_naming_the_query() {
    let mut world = world_abc();
    #[derive(Component)]
    struct Never;
    let state = world.query::<&A>();
    let msg = expect_panic(|| state.transmute::<(&A, Option<&Never>)>(&world));
    assert!(
        msg.contains("Never") && msg.contains("not registered"),
        "{msg}"
    );
}

#[test]
fn transmute_to_a_lens_with_changed_filter() {
    let mut world = world_abc();
    world.clear_trackers();
    let mut state = world.query::<&mut A>();
    for mut a in state.iter_mut(&mut world) {
        if a.0 % 2 == 1 {
            a.0 += 10;
        }
    }
    let mut lens = state.transmute_filtered::<&A, Changed<A>>(&world);
    assert_eq!(values(lens.iter(&world)), BTreeSet::from([11, 13, 15]));
}

#[test]
fn lens_conversions() {
    fn sum(lens: &mut QueryLens<&A>) -> u32 {
        lens.query().iter().map(|a| a.0).sum()
    }
    let mut world = world_abc();
    world
        .run_system_once(|mut query: Query<&A, With<B>>| {
            let mut lens: QueryLens<&A> = query.as_query_lens();
            assert_eq!(sum(&mut lens), 8);
            let mut lens: QueryLens<&A, With<B>> = (&mut query).into();
            let q: Query<&A, With<B>> = (&mut lens).into();
            assert_eq!(q.iter().count(), 3);
            let lens = query.transmute_lens_inner::<&A>();
            let items: Vec<&A> = lens.query_inner().iter_inner().collect();
            assert_eq!(items.len(), 3);
        })
        .unwrap();
}

// ---- join ---------------------------------------------------------------------

#[test]
fn join_yields_what_both_match() {
    let mut world = world_abc();
    world
        .run_system_once(|mut a: Query<&A>, mut b: Query<&B, Without<C>>| {
            let mut lens = a.join_filtered::<_, _, (&A, &B), ()>(&mut b);
            let items: BTreeSet<_> = lens.query().iter().map(|(a, b)| (a.0, b.0)).collect();
            assert_eq!(items, BTreeSet::from([(1, 10), (5, 50)]));
        })
        .unwrap();
}

#[test]
fn join_may_write_what_either_writes() {
    let mut world = world_abc();
    world
        .run_system_once(|mut a: Query<&mut A>, mut s: Query<&S>| {
            let mut lens = a.join_filtered::<_, (), (&mut A, &S), ()>(&mut s);
            for (mut a, s) in lens.query().iter_mut() {
                a.0 = s.0 + 1;
            }
        })
        .unwrap();
    let mut all = world.query::<&A>();
    assert_eq!(values(all.iter(&world)), BTreeSet::from([1, 2, 3, 41, 51]));
}

#[test]
fn join_refuses_access_neither_has() {
    let mut world = world_abc();
    let a = world.query::<&A>();
    let b = world.query::<&B>();
    let msg = expect_panic(|| a.join::<_, (&A, &C)>(&world, &b));
    assert!(msg.contains("reads") && msg.contains("C"), "{msg}");
    let msg = expect_panic(|| a.join::<_, &mut B>(&world, &b));
    assert!(msg.contains("writes") && msg.contains("B"), "{msg}");
    let mut joined: QueryState<Entity> = a.join(&world, &b);
    assert_eq!(joined.iter(&world).count(), 3);
}

#[test]
fn join_of_states_from_different_worlds_panics() {
    let mut one = world_abc();
    let mut two = world_abc();
    let a = one.query::<&A>();
    let b = two.query::<&A>();
    let msg = expect_panic(|| a.join::<_, Entity>(&one, &b));
    assert!(msg.contains("different worlds"), "{msg}");
}

// ---- sort ---------------------------------------------------------------------

fn ranked() -> World {
    let mut world = World::new();
    for (i, rank) in [5u32, 3, 9, 1, 7, 3].into_iter().enumerate() {
        let mut e = world.spawn((A(rank), B(i as u32)));
        if i % 2 == 0 {
            e.insert(S(rank));
        }
    }
    world
}

#[test]
fn sort_orders_the_items_by_the_lens() {
    let mut world = ranked();
    let mut query = world.query::<(&A, &B)>();
    let ranks: Vec<u32> = query.iter(&world).sort::<&A>().map(|(a, _)| a.0).collect();
    assert_eq!(ranks, [1, 3, 3, 5, 7, 9]);
    let ranks: Vec<u32> = query
        .iter(&world)
        .sort_unstable::<&A>()
        .rev()
        .map(|(a, _)| a.0)
        .collect();
    assert_eq!(ranks, [9, 7, 5, 3, 3, 1]);
    let iter = query.iter(&world).sort_by::<&B>(|x, y| y.0.cmp(&x.0));
    assert_eq!(iter.len(), 6);
    let order: Vec<u32> = iter.map(|(_, b)| b.0).collect();
    assert_eq!(order, [5, 4, 3, 2, 1, 0]);
}

#[test]
fn sort_by_key_and_friends_agree() {
    let mut world = ranked();
    let mut query = world.query::<(Entity, &A)>();
    let key = |a: &&A| std::cmp::Reverse(a.0);
    let by_key: Vec<u32> = query
        .iter(&world)
        .sort_by_key::<&A, _>(key)
        .map(|(_, a)| a.0)
        .collect();
    let cached: Vec<u32> = query
        .iter(&world)
        .sort_by_cached_key::<&A, _>(key)
        .map(|(_, a)| a.0)
        .collect();
    let unstable: Vec<u32> = query
        .iter(&world)
        .sort_unstable_by_key::<&A, _>(key)
        .map(|(_, a)| a.0)
        .collect();
    let unstable_by: Vec<u32> = query
        .iter(&world)
        .sort_unstable_by::<&A>(|x, y| y.cmp(x))
        .map(|(_, a)| a.0)
        .collect();
    assert_eq!(by_key, [9, 7, 5, 3, 3, 1]);
    assert_eq!(by_key, cached);
    assert_eq!(by_key, unstable);
    assert_eq!(by_key, unstable_by);
}

#[test]
fn a_stable_sort_keeps_the_iteration_order_of_equal_keys() {
    let mut world = ranked();
    let mut query = world.query::<(Entity, &A)>();
    let unsorted: Vec<Entity> = query
        .iter(&world)
        .filter(|(_, a)| a.0 == 3)
        .map(|(e, _)| e)
        .collect();
    let sorted: Vec<Entity> = query
        .iter(&world)
        .sort::<&A>()
        .filter(|(_, a)| a.0 == 3)
        .map(|(e, _)| e)
        .collect();
    assert_eq!(unsorted, sorted);
}

#[test]
fn sort_of_a_mutable_query_may_write_the_sort_key() {
    let mut world = ranked();
    let mut query = world.query::<&mut A>();
    for (rank, mut a) in query.iter_mut(&mut world).sort::<&A>().enumerate() {
        a.0 = rank as u32;
    }
    let mut all = world.query::<&A>();
    assert_eq!(values(all.iter(&world)), (0..6).collect());
}

#[test]
fn sort_in_a_system_with_a_filter_and_sparse_terms() {
    let mut world = ranked();
    world
        .run_system_once(|query: Query<(&A, &S), With<B>>| {
            let ranks: Vec<u32> = query.iter().sort::<&S>().map(|(a, _)| a.0).collect();
            assert_eq!(ranks, [5, 7, 9]);
            let ranks: Vec<u32> = query.iter().sort::<&A>().map(|(a, _)| a.0).collect();
            assert_eq!(ranks, [5, 7, 9]);
        })
        .unwrap();
}

#[test]
fn sort_after_next_panics() {
    let mut world = ranked();
    let mut query = world.query::<&A>();
    let msg = expect_panic(|| {
        let mut iter = query.iter(&world);
        iter.next();
        iter.sort::<&A>().count()
    });
    assert!(msg.contains("after `next`"), "{msg}");
    // An empty query may be sorted after `next`.
    let mut empty = world.query::<&C>();
    let mut iter = empty.iter(&world);
    assert!(iter.next().is_none());
    assert_eq!(iter.sort::<Entity>().count(), 0);
}

#[test]
fn sort_with_a_lens_outside_the_access_panics() {
    let mut world = ranked();
    let mut query = world.query::<&A>();
    let msg = expect_panic(|| {
        query
            .iter(&world)
            .sort_by::<&B>(|x, y| x.0.cmp(&y.0))
            .count()
    });
    assert!(msg.contains("B"), "{msg}");
}

#[test]
fn a_panicking_comparator_leaves_the_world_usable() {
    let mut world = ranked();
    let mut query = world.query::<&mut A>();
    let msg = expect_panic(|| {
        query
            .iter_mut(&mut world)
            .sort_by::<&A>(|_, _| panic!("comparator failed"))
            .count()
    });
    assert!(msg.contains("comparator failed"));
    for mut a in query.iter_mut(&mut world) {
        a.0 += 1;
    }
    let mut all = world.query::<&A>();
    assert_eq!(all.iter(&world).count(), 6);
}

// ---- contiguous access ----------------------------------------------------------

#[test]
fn contiguous_iter_yields_each_table_as_slices() {
    let mut world = World::new();
    for i in 0..10 {
        let mut e = world.spawn((A(i), B(i * 10)));
        if i % 2 == 0 {
            e.insert(C(i));
        }
    }
    world.spawn(B(99));
    world
        .run_system_once(|query: Query<(Entity, &A, Option<&C>, Has<C>)>| {
            let mut tables = 0;
            let mut total = 0;
            for (entities, a, c, has_c) in query.contiguous_iter().unwrap() {
                tables += 1;
                assert_eq!(entities.len(), a.len());
                assert_eq!(c.is_some(), has_c);
                if let Some(c) = c {
                    assert_eq!(c.len(), a.len());
                    assert!(a.iter().zip(c).all(|(a, c)| a.0 == c.0));
                }
                total += a.iter().map(|a| a.0).sum::<u32>();
            }
            assert_eq!(tables, 2);
            assert_eq!(total, 45);
        })
        .unwrap();
}

#[test]
fn contiguous_iter_mut_writes_and_marks_changed_once_per_table() {
    let mut world = World::new();
    for i in 0..6 {
        world.spawn((A(i), B(i)));
    }
    world.spawn(A(100));
    world.clear_trackers();
    let mut state = world.query_filtered::<(&mut A, Ref<B>), Without<C>>();
    for (mut a, b) in state.contiguous_iter_mut(&mut world).unwrap() {
        assert!(b.is_changed_iter().all(|changed| !changed));
        assert_eq!(a.is_changed_iter().filter(|c| *c).count(), 0);
        for (a, b) in a.iter_mut().zip(b.iter()) {
            a.0 += b.0;
        }
        assert!(a.is_changed_iter().all(|changed| changed));
    }
    let mut changed = world.query_filtered::<&A, Changed<A>>();
    assert_eq!(
        values(changed.iter(&world)),
        BTreeSet::from([0, 2, 4, 6, 8, 10])
    );
}

#[test]
fn bypassing_change_detection_marks_nothing() {
    let mut world = World::new();
    world.spawn(A(1));
    world.clear_trackers();
    let mut state = world.query::<&mut A>();
    for mut a in state.contiguous_iter_mut(&mut world).unwrap() {
        a.bypass_change_detection()[0].0 = 7;
    }
    let mut changed = world.query_filtered::<&A, Changed<A>>();
    assert_eq!(changed.iter(&world).count(), 0);
    let mut all = world.query::<&A>();
    assert_eq!(values(all.iter(&world)), BTreeSet::from([7]));
}

#[test]
fn contiguous_iter_of_a_sparse_query_is_an_error() {
    let mut world = world_abc();
    let mut state = world.query::<(&A, &S)>();
    let error = state.contiguous_iter(&world).err().unwrap();
    assert!(error.to_string().contains("not dense"), "{error}");
    let mut filtered = world.query_filtered::<&A, With<S>>();
    assert!(filtered.contiguous_iter(&world).is_err());
    // A dense lens of a sparse query walks archetypes, so it is refused too.
    world
        .run_system_once(|mut query: Query<(&A, &S)>| {
            let mut lens = query.transmute_lens::<&A>();
            assert!(lens.query().contiguous_iter().is_err());
        })
        .unwrap();
}

mod filtered_lenses {
    use ecs::prelude::*;
    use ecs::world::{FilteredEntityMut, FilteredEntityRef};

    #[derive(Component, Debug, PartialEq)]
    struct Hp(u32);
    #[derive(Component, Debug, PartialEq)]
    struct Mp(u32);
    #[derive(Component, Debug, PartialEq)]
    struct Xp(u32);

    #[test]
    fn a_lens_to_a_filtered_handle_gets_the_sources_access() {
        let mut world = World::new();
        let e = world.spawn((Hp(1), Mp(2), Xp(3))).id();
        let query = world.query::<(&mut Hp, &Mp)>();
        let mut lens = query.transmute::<FilteredEntityMut>(&world);
        for mut handle in lens.iter_mut(&mut world) {
            handle.get_mut::<Hp>().unwrap().0 += 10;
            assert_eq!(handle.get::<Mp>(), Some(&Mp(2)));
            assert!(handle.get_mut::<Mp>().is_none(), "read only in the source");
            assert!(handle.get::<Xp>().is_none(), "not in the source");
        }
        assert_eq!(world.get::<Hp>(e), Some(&Hp(11)));

        // A read-only source lends reads only.
        let query = world.query::<(&Hp, &Mp)>();
        let mut lens = query.transmute::<FilteredEntityMut>(&world);
        let mut handle = lens.single_mut(&mut world).unwrap();
        assert!(handle.get_mut::<Hp>().is_none());
        assert_eq!(handle.get::<Hp>(), Some(&Hp(11)));

        // Beside a typed term, the handle gets the rest.
        let query = world.query::<(&mut Hp, &mut Mp)>();
        let mut lens = query.transmute::<(&Hp, FilteredEntityMut)>(&world);
        let (hp, mut handle) = lens.single_mut(&mut world).unwrap();
        assert_eq!(hp, &Hp(11));
        assert!(handle.get::<Hp>().is_none(), "the typed term reads it");
        handle.get_mut::<Mp>().unwrap().0 = 7;
        assert_eq!(world.get::<Mp>(e), Some(&Mp(7)));

        let mut system_state = ecs::system::SystemState::<Query<(&mut Hp, &Mp)>>::new(&mut world);
        let mut q = system_state.get_mut(&mut world);
        let mut lens = q.transmute_lens::<FilteredEntityRef>();
        let lensed = lens.query();
        let handle = lensed.single().unwrap();
        assert_eq!(handle.get::<Hp>(), Some(&Hp(11)));
        assert!(handle.get::<Xp>().is_none());
    }
}
