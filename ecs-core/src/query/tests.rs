//! Query behaviour on table storage, sparse storage and mixes.

use std::collections::BTreeSet;

use crate::prelude::*;
use crate::{
    change_detection::Tick,
    query::{QueryEntityError, QuerySingleError},
};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct A(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct B(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct S(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct T(u32);

fn scaled(full: usize) -> usize {
    if cfg!(miri) {
        (full / 50).max(4)
    } else {
        full
    }
}

/// Entities 0..n: A on all, B on evens, S on multiples of 3, T on
/// multiples of 5.
fn mixed_world(n: u32) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities = (0..n)
        .map(|i| {
            let mut e = world.spawn(A(i));
            if i % 2 == 0 {
                e.insert(B(i));
            }
            if i % 3 == 0 {
                e.insert(S(i));
            }
            if i % 5 == 0 {
                e.insert(T(i));
            }
            e.id()
        })
        .collect();
    (world, entities)
}

fn set<I: IntoIterator<Item = u32>>(iter: I) -> BTreeSet<u32> {
    iter.into_iter().collect()
}

#[test]
fn reads_on_table_sparse_and_mixed() {
    let (mut world, _) = mixed_world(30);
    let mut q = world.query::<&A>();
    assert_eq!(set(q.iter(&world).map(|a| a.0)), set(0..30));
    let mut q = world.query::<(&A, &B)>();
    assert_eq!(
        set(q.iter(&world).map(|(a, b)| {
            assert_eq!(a.0, b.0);
            a.0
        })),
        set((0..30).step_by(2))
    );
    let mut q = world.query::<&S>();
    assert_eq!(set(q.iter(&world).map(|s| s.0)), set((0..30).step_by(3)));
    let mut q = world.query::<(&A, &S, &T)>();
    assert_eq!(
        set(q.iter(&world).map(|(a, s, t)| {
            assert_eq!((a.0, s.0), (t.0, t.0));
            a.0
        })),
        set((0..30).step_by(15))
    );
    let mut q = world.query::<(Entity, &B, &S)>();
    for (e, b, s) in q.iter(&world) {
        assert_eq!(b.0, s.0);
        assert_eq!(world.get::<A>(e).unwrap().0, b.0);
    }
    assert_eq!(q.iter(&world).count(), 5);
}

#[test]
fn writes_through_iter_mut_on_both_storages() {
    let (mut world, entities) = mixed_world(30);
    let mut q = world.query::<(&mut A, Option<&mut S>)>();
    for (mut a, s) in q.iter_mut(&mut world) {
        a.0 += 100;
        if let Some(mut s) = s {
            s.0 += 1000;
        }
    }
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(world.get::<A>(e).unwrap().0, i as u32 + 100);
        if i % 3 == 0 {
            assert_eq!(world.get::<S>(e).unwrap().0, i as u32 + 1000);
        }
    }
}

#[test]
fn filters_with_without_or() {
    let (mut world, _) = mixed_world(30);
    let mut q = world.query_filtered::<&A, With<B>>();
    assert_eq!(set(q.iter(&world).map(|a| a.0)), set((0..30).step_by(2)));
    let mut q = world.query_filtered::<&A, Without<S>>();
    assert_eq!(
        set(q.iter(&world).map(|a| a.0)),
        set((0..30).filter(|i| i % 3 != 0))
    );
    let mut q = world.query_filtered::<&A, (With<B>, Without<T>)>();
    assert_eq!(
        set(q.iter(&world).map(|a| a.0)),
        set((0..30).filter(|i| i % 2 == 0 && i % 5 != 0))
    );
    let mut q = world.query_filtered::<&A, Or<(With<S>, With<T>)>>();
    assert_eq!(
        set(q.iter(&world).map(|a| a.0)),
        set((0..30).filter(|i| i % 3 == 0 || i % 5 == 0))
    );
    let mut q = world.query_filtered::<&A, Or<(With<B>, Without<A>)>>();
    assert_eq!(q.iter(&world).count(), 15);
}

#[test]
fn option_has_anyof_with_and_without_the_component() {
    let (mut world, _) = mixed_world(30);
    let mut q = world.query::<(&A, Option<&B>, Has<S>, Option<&T>)>();
    let mut seen = 0;
    for (a, b, has_s, t) in q.iter(&world) {
        assert_eq!(b.map(|b| b.0), (a.0 % 2 == 0).then_some(a.0));
        assert_eq!(has_s, a.0 % 3 == 0);
        assert_eq!(t.map(|t| t.0), (a.0 % 5 == 0).then_some(a.0));
        seen += 1;
    }
    assert_eq!(seen, 30);
    let mut q = world.query::<AnyOf<(&B, &S)>>();
    let mut matched = BTreeSet::new();
    for (b, s) in q.iter(&world) {
        assert!(b.is_some() || s.is_some());
        matched.insert(b.map(|b| b.0).or(s.map(|s| s.0)).unwrap());
    }
    assert_eq!(matched, set((0..30).filter(|i| i % 2 == 0 || i % 3 == 0)));
    let mut q = world.query::<AnyOf<(&mut B, &T)>>();
    for (b, _) in q.iter_mut(&mut world) {
        if let Some(mut b) = b {
            b.0 += 1;
        }
    }
    let mut q = world.query::<&B>();
    assert!(q.iter(&world).all(|b| b.0 % 2 == 1));
}

#[test]
fn a_state_picks_up_archetypes_created_after_it() {
    let mut world = World::new();
    let mut q = world.query::<&A>();
    assert_eq!(q.iter(&world).count(), 0);
    world.spawn(A(1));
    world.spawn((A(2), S(2)));
    world.spawn((A(3), B(3), T(3)));
    world.spawn(B(4));
    assert_eq!(set(q.iter(&world).map(|a| a.0)), set([1, 2, 3]));
    assert_eq!(q.matched_archetypes().len(), 3);
    world.spawn((A(5), B(5)));
    assert_eq!(q.iter(&world).count(), 4);
}

#[test]
fn get_and_get_many_mut_errors() {
    let (mut world, entities) = mixed_world(10);
    let mut q = world.query::<(&mut A, &S)>();
    let [a, b] = q
        .get_many_mut(&mut world, [entities[0], entities[3]])
        .unwrap();
    assert_eq!((a.0 .0, b.0 .0), (0, 3));
    assert_eq!(
        q.get_many_mut(&mut world, [entities[0], entities[0]]).err(),
        Some(QueryEntityError::AliasedMutability(entities[0]))
    );
    assert_eq!(
        q.get_many_mut(&mut world, [entities[0], entities[1]]).err(),
        Some(QueryEntityError::QueryDoesNotMatch(entities[1]))
    );
    world.despawn(entities[6]);
    assert_eq!(
        q.get_many_mut(&mut world, [entities[6], entities[3]]).err(),
        Some(QueryEntityError::NoSuchEntity(entities[6]))
    );
    assert_eq!(
        q.get(&world, entities[9]).map(|(a, s)| (a.0, s.0)),
        Ok((9, 9))
    );
    let message = q.get(&world, entities[6]).unwrap_err().to_string();
    assert!(message.contains(&format!("{:?}", entities[6])), "{message}");
    let mut q = world.query_filtered::<&A, Changed<A>>();
    world.clear_trackers();
    assert!(matches!(
        q.get(&world, entities[0]),
        Err(QueryEntityError::QueryDoesNotMatch(_))
    ));
}

/// A query that walks tables finds `get`'s entity by its table: every
/// archetype sharing a matched table (here, through a sparse-set
/// component) matches, tables matched later are found, and an unmatched
/// table or a failed per-row filter is `QueryDoesNotMatch`.
#[test]
fn get_of_a_table_walking_query_decides_by_table() {
    #[derive(Component)]
    struct C;
    let mut world = World::new();
    let both = world.spawn((A(1), B(10))).id();
    let only_a = world.spawn(A(2)).id();
    let mut q = world.query::<(&A, &mut B)>();
    let mut q_without_c = world.query_filtered::<&A, (With<B>, Without<C>)>();
    // A new archetype in the matched table, and a new matched table.
    let with_sparse = world.spawn((A(3), B(30), S(0))).id();
    let later_table = world.spawn((B(40), A(4), C)).id();
    let get = |q: &mut QueryState<(&A, &mut B)>, world: &mut World, e| {
        q.get_mut(world, e).map(|(a, b)| (a.0, b.0))
    };
    assert_eq!(get(&mut q, &mut world, both), Ok((1, 10)));
    assert_eq!(get(&mut q, &mut world, with_sparse), Ok((3, 30)));
    assert_eq!(get(&mut q, &mut world, later_table), Ok((4, 40)));
    assert_eq!(
        get(&mut q, &mut world, only_a),
        Err(QueryEntityError::QueryDoesNotMatch(only_a))
    );
    assert_eq!(q_without_c.get(&world, with_sparse).map(|a| a.0), Ok(3));
    assert_eq!(
        q_without_c.get(&world, later_table).map(|a| a.0),
        Err(QueryEntityError::QueryDoesNotMatch(later_table))
    );
    world.despawn(both);
    assert_eq!(
        get(&mut q, &mut world, both),
        Err(QueryEntityError::NoSuchEntity(both))
    );
    let mut changed = world.query_filtered::<&A, Changed<B>>();
    world.clear_trackers();
    world.get_mut::<B>(later_table).unwrap().0 += 1;
    assert_eq!(changed.get(&world, later_table).map(|a| a.0), Ok(4));
    assert_eq!(
        changed.get(&world, with_sparse).map(|a| a.0),
        Err(QueryEntityError::QueryDoesNotMatch(with_sparse))
    );
}

#[test]
fn single_errors() {
    let mut world = World::new();
    let mut q = world.query::<&S>();
    assert!(matches!(
        q.single(&world),
        Err(QuerySingleError::NoEntities(_))
    ));
    world.spawn(S(1));
    assert_eq!(q.single(&world).unwrap().0, 1);
    q.single_mut(&mut world).unwrap();
    world.spawn((A(0), S(2)));
    let error = q.single(&world).unwrap_err();
    assert!(matches!(error, QuerySingleError::MultipleEntities(_)));
    assert!(error.to_string().contains("S"), "{error}");
    assert!(!q.is_empty(&world));
}

fn changed_and_added_on<C: Component<Mutability = crate::component::Mutable> + Copy>(
    make: impl Fn(u32) -> C,
    bump: impl Fn(&mut C),
) {
    let mut world = World::new();
    let old: Vec<_> = (0..4).map(|i| world.spawn(make(i)).id()).collect();
    world.clear_trackers();
    let new = world.spawn(make(9)).id();
    let mut added = world.query_filtered::<Entity, Added<C>>();
    let mut changed = world.query_filtered::<Entity, Changed<C>>();
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![new]);
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![new]);
    world.clear_trackers();
    assert_eq!(added.iter(&world).count(), 0);
    assert_eq!(changed.iter(&world).count(), 0);
    // Change one through iter_mut (only the one written counts) and one
    // through get_mut.
    let mut q = world.query::<(Entity, &mut C)>();
    for (e, mut c) in q.iter_mut(&mut world) {
        if e == old[1] {
            bump(&mut c);
        }
    }
    bump(&mut world.get_mut::<C>(old[2]).unwrap());
    let mut changed_now: Vec<_> = changed.iter(&world).collect();
    changed_now.sort();
    assert_eq!(changed_now, vec![old[1], old[2]]);
    assert_eq!(added.iter(&world).count(), 0);
    let mut r = world.query::<Ref<C>>();
    assert_eq!(r.iter(&world).filter(|c| c.is_changed()).count(), 2);
    assert_eq!(r.iter(&world).filter(|c| c.is_added()).count(), 0);
    world.clear_trackers();
    assert_eq!(changed.iter(&world).count(), 0);
}

#[test]
fn added_and_changed_on_table_storage() {
    changed_and_added_on(A, |a| a.0 += 1);
}

#[test]
fn added_and_changed_on_sparse_storage() {
    changed_and_added_on(S, |s| s.0 += 1);
}

#[test]
fn change_detection_survives_tick_wrap_around() {
    let mut world = World::new();
    world.set_change_tick_for_test(Tick::new(u32::MAX - 10));
    let e = world.spawn(A(0)).id();
    world.spawn(S(0));
    world.clear_trackers();
    // Advance across u32::MAX.
    for _ in 0..20 {
        world.increment_change_tick();
    }
    assert!(world.change_tick().get() < 100, "the tick wrapped");
    let mut changed = world.query_filtered::<Entity, Changed<A>>();
    let mut added = world.query_filtered::<Entity, Added<S>>();
    assert_eq!(changed.iter(&world).count(), 0);
    world.get_mut::<A>(e).unwrap().0 = 1;
    let s = world.spawn(S(1)).id();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), vec![e]);
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), vec![s]);
    world.clear_trackers();
    assert_eq!(changed.iter(&world).count(), 0);
    assert_eq!(added.iter(&world).count(), 0);
    // A value so old that it would wrap into "the future" is clamped by
    // check_change_ticks and stays unchanged.
    for _ in 0..3 {
        world.set_change_tick_for_test(Tick::new(
            world.change_tick().get().wrapping_add(u32::MAX / 3),
        ));
        world.check_change_ticks();
    }
    world.clear_trackers();
    assert_eq!(changed.iter(&world).count(), 0);
    assert_eq!(added.iter(&world).count(), 0);
}

#[test]
fn parallel_iter_for_each_and_par_iter_agree() {
    // 100,000 entities over 30 archetypes (fewer under Miri).
    let mut world = World::new();
    let n = scaled(100_000) as u32;
    for i in 0..n {
        let mut e = world.spawn(A(i));
        match i % 30 {
            k if k < 10 => {
                e.insert(B(k));
            }
            k if k < 20 => {
                e.insert((B(k), S(i)));
            }
            k => {
                e.insert(T(k));
            }
        }
        // Split each group into more archetypes with sparse markers.
        if i % 3 == 0 {
            e.insert(S(i));
        }
    }
    assert!(world.archetypes().len() >= 5);
    let mut q = world.query::<(Entity, &A, Option<&B>)>();
    let collected: BTreeSet<_> = q
        .iter(&world)
        .map(|(e, a, b)| (e, a.0, b.map(|b| b.0)))
        .collect();
    let mut folded = BTreeSet::new();
    q.for_each(&world, |(e, a, b)| {
        folded.insert((e, a.0, b.map(|b| b.0)));
    });
    let parallel = std::sync::Mutex::new(BTreeSet::new());
    q.par_iter(&world).for_each(|(e, a, b)| {
        parallel.lock().unwrap().insert((e, a.0, b.map(|b| b.0)));
    });
    assert_eq!(collected.len(), n as usize);
    assert_eq!(collected, folded);
    assert_eq!(collected, parallel.into_inner().unwrap());
    // A sparse query in parallel, mutably, with small batches.
    let mut q = world.query::<(&mut A, &S)>();
    q.par_iter_mut(&mut world)
        .batching(7)
        .for_each(|(mut a, s)| a.0 = s.0 * 2);
    let mut check = world.query::<(&A, Option<&S>)>();
    for (a, s) in check.iter(&world) {
        if let Some(s) = s {
            assert_eq!(a.0, s.0 * 2);
        }
    }
}

#[test]
fn size_hint_is_exact_for_archetypal_filters() {
    let (mut world, _) = mixed_world(30);
    let mut q = world.query_filtered::<&A, With<B>>();
    let mut iter = q.iter(&world);
    assert_eq!(iter.size_hint(), (15, Some(15)));
    iter.next();
    assert_eq!(iter.size_hint(), (14, Some(14)));
    let mut q = world.query_filtered::<&A, With<S>>();
    assert_eq!(q.iter(&world).size_hint(), (10, Some(10)));
    let mut q = world.query_filtered::<&A, Changed<A>>();
    assert_eq!(q.iter(&world).size_hint(), (0, Some(30)));
    assert_eq!(q.iter(&world).count(), 30);
}

#[test]
#[should_panic(expected = "component `ecs_core::query::tests::A`")]
fn conflicting_terms_panic_naming_the_component() {
    let mut world = World::new();
    world.query::<(&mut A, &A)>();
}

#[test]
#[should_panic(expected = "component `ecs_core::query::tests::A`")]
fn two_mutable_terms_panic() {
    let mut world = World::new();
    world.query::<(&mut A, &mut A)>();
}

#[test]
fn shared_terms_and_filters_on_a_written_component_are_fine() {
    let mut world = World::new();
    world.query::<(&A, &A)>();
    world.query_filtered::<&mut A, With<A>>();
    world.query_filtered::<&mut A, Changed<A>>();
    world.query::<(&mut A, Has<A>)>();
}

#[test]
#[should_panic(expected = "a query state belongs to the world that made it")]
fn a_state_refuses_another_world() {
    let mut one = World::new();
    let two = World::new();
    let mut q = one.query::<&A>();
    q.iter(&two).count();
}

#[test]
fn dense_and_archetype_cursors_are_chosen_by_constant() {
    let chosen = [
        QueryState::<(&A, &mut B), With<A>>::IS_DENSE,
        QueryState::<(&A, &S)>::IS_DENSE,
        QueryState::<&A, With<S>>::IS_DENSE,
        QueryState::<(Entity, Option<&B>)>::IS_DENSE,
    ];
    assert_eq!(chosen, [true, false, false, true]);
}

/// The world of [`column_cache_finds_each_term_in_tables_of_different_layouts`]:
/// components at different column positions in different tables, and a
/// model of what each entity has.
mod layouts {
    use std::collections::BTreeSet;

    use super::{A, B};
    use crate::prelude::*;

    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    pub(super) struct C(pub(super) u32);
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    pub(super) struct D(pub(super) u32);
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    pub(super) struct E(pub(super) u32);
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    pub(super) struct Z(pub(super) u32);

    pub(super) type Data = (
        Entity,
        &'static A,
        Option<&'static mut B>,
        Has<C>,
        AnyOf<(&'static D, &'static E)>,
        Ref<'static, A>,
    );
    pub(super) type Filter = (Without<Z>, Or<(With<C>, Added<B>)>);

    /// (entity, a, b, c, d, e, z): the model of each entity's components.
    pub(super) type Model = (
        Entity,
        u32,
        Option<u32>,
        bool,
        Option<u32>,
        Option<u32>,
        bool,
    );

    /// What a query item shows of an entity: (entity, a, b, c, d, e).
    pub(super) type Seen = (Entity, u32, Option<u32>, bool, Option<u32>, Option<u32>);

    /// Spawns three entities per `[b, c, d, e, z]` layout, each with an
    /// `A(i)` and the components its flags name, and records them.
    fn spawn_layouts(world: &mut World, model: &mut Vec<Model>, flags: &[[bool; 5]]) {
        for &[b, c, d, e, z] in flags {
            for _ in 0..3 {
                let i = model.len() as u32;
                let mut entity = world.spawn(A(i));
                if b {
                    entity.insert(B(1_000 + i));
                }
                if c {
                    entity.insert(C(2_000 + i));
                }
                if d {
                    entity.insert(D(3_000 + i));
                }
                if e {
                    entity.insert(E(4_000 + i));
                }
                if z {
                    entity.insert(Z(5_000 + i));
                }
                let id = entity.id();
                model.push((
                    id,
                    i,
                    b.then_some(1_000 + i),
                    c,
                    d.then_some(3_000 + i),
                    e.then_some(4_000 + i),
                    z,
                ));
            }
        }
    }

    /// The world, its model, a query state built halfway through (so some
    /// tables appear after it), and how many tables it matched when built.
    pub(super) fn world() -> (World, Vec<Model>, QueryState<Data, Filter>, usize) {
        let mut world = World::new();
        // Ids in an order that puts `A` and `B` at different positions in
        // different tables (columns are sorted by id).
        world.register_component::<C>();
        world.register_component::<A>();
        world.register_component::<E>();
        world.register_component::<B>();
        world.register_component::<D>();
        world.register_component::<Z>();
        let mut model = Vec::new();
        spawn_layouts(
            &mut world,
            &mut model,
            &[
                [true, false, true, false, false],
                [false, true, false, true, false],
                [true, true, true, true, false],
            ],
        );
        let q = world.query_filtered::<Data, Filter>();
        // Tables created after the state: their slots are added on the
        // next use.
        spawn_layouts(
            &mut world,
            &mut model,
            &[
                [false, true, true, false, false],
                [true, false, false, true, false],
                [true, true, false, false, true],
                [false, true, false, false, false],
                [true, false, false, false, false],
            ],
        );
        let tables = q.matched_tables().len();
        (world, model, q, tables)
    }

    /// What the query should yield; with `only_added_b` non-empty, `Added<B>`
    /// passes only those entities.
    pub(super) fn expected(model: &[Model], only_added_b: &[Entity]) -> BTreeSet<Seen> {
        model
            .iter()
            .filter(|m| {
                !m.6 && (m.3
                    || (m.2.is_some() && (only_added_b.is_empty() || only_added_b.contains(&m.0))))
            })
            .filter(|m| m.4.is_some() || m.5.is_some())
            .map(|&(e, a, b, c, d, dd, _)| (e, a, b, c, d, dd))
            .collect()
    }

    /// Every entity's stored components, read by a query that caches no
    /// filter slot, checking the values of `C` and `Z`.
    pub(super) fn stored(world: &mut World) -> BTreeSet<Model> {
        let mut all = world.query::<(
            Entity,
            &A,
            Option<&B>,
            Option<&C>,
            Option<&D>,
            Option<&E>,
            Option<&Z>,
        )>();
        all.iter(world)
            .map(|(e, a, b, c, d, dd, z)| {
                if let Some(c) = c {
                    assert_eq!(c.0, 2_000 + a.0);
                }
                if let Some(z) = z {
                    assert_eq!(z.0, 5_000 + a.0);
                }
                (
                    e,
                    a.0,
                    b.map(|b| b.0),
                    c.is_some(),
                    d.map(|d| d.0),
                    dd.map(|d| d.0),
                    z.is_some(),
                )
            })
            .collect()
    }
}

/// Dense iteration finds each term's column by the position cached per
/// matched table. Components sit at different positions in different
/// tables, some tables appear after the state is built, and every term
/// kind that caches a slot (`&T`, `&mut T`, `Ref<T>`, `Option`, `Has`,
/// `AnyOf`, `Or`, `Added`) reads or writes its own column: a wrong
/// position would read another component's values or write into them.
#[test]
fn column_cache_finds_each_term_in_tables_of_different_layouts() {
    use layouts::{expected, stored, Data, Filter};

    let (mut world, mut model, mut q, tables) = layouts::world();
    let mut seen = BTreeSet::new();
    for (e, a, b, c, (d, dd), a_ref) in q.iter_mut(&mut world) {
        assert_eq!(a.0, a_ref.0);
        seen.insert((e, a.0, b.map(|b| b.0), c, d.map(|d| d.0), dd.map(|d| d.0)));
    }
    assert_eq!(seen, expected(&model, &[]));
    assert!(q.matched_tables().len() > tables);

    // Writes through `Option<&mut B>` land in `B`'s column only.
    q.for_each_mut(&mut world, |(_, a, b, ..)| {
        if let Some(mut b) = b {
            b.0 = 7_000 + a.0;
        }
    });
    for m in &mut model {
        if !m.6 && (m.3 || m.2.is_some()) && (m.4.is_some() || m.5.is_some()) {
            if let Some(b) = &mut m.2 {
                *b = 7_000 + m.1;
            }
        }
    }
    assert_eq!(
        stored(&mut world),
        model.iter().copied().collect::<BTreeSet<_>>()
    );

    // `Added<B>` after the trackers are cleared: only new `B`s pass (or
    // entities with `C`).
    world.clear_trackers();
    let fresh: Vec<Entity> = model
        .iter()
        .filter(|m| m.2.is_none() && !m.6)
        .map(|m| m.0)
        .collect();
    for &e in &fresh {
        world.entity_mut(e).insert(B(9));
        let m = model.iter_mut().find(|m| m.0 == e).unwrap();
        m.2 = Some(9);
    }
    let mut q = world.query_filtered::<Data, Filter>();
    let want = expected(&model, &fresh);
    let seen: BTreeSet<_> = q
        .iter_mut(&mut world)
        .map(|(e, a, b, c, (d, dd), _)| {
            (e, a.0, b.map(|b| b.0), c, d.map(|d| d.0), dd.map(|d| d.0))
        })
        .collect();
    assert_eq!(seen, want);
}

/// The parallel walk hands each batch its table's column cache slots:
/// writes through `&mut B` and `Option<&mut C>` land in the right column
/// of tables where `B` and `C` sit at different positions.
#[test]
fn parallel_walk_uses_each_tables_column_cache() {
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    struct C(u32);
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    struct D(u32);

    let mut world = World::new();
    world.register_component::<D>();
    world.register_component::<B>();
    world.register_component::<C>();
    world.register_component::<A>();
    let n = scaled(400) as u32;
    let entities: Vec<Entity> = (0..n)
        .map(|i| {
            let mut e = world.spawn((A(i), B(0)));
            if i % 2 == 0 {
                e.insert(C(0));
            }
            if i % 3 == 0 {
                e.insert(D(i));
            }
            e.id()
        })
        .collect();
    let mut q = world.query::<(&A, &mut B, Option<&mut C>, Has<D>)>();
    q.par_iter_mut(&mut world)
        .batching(3)
        .for_each(|(a, mut b, c, has_d)| {
            b.0 = a.0 * 2 + 1;
            if let Some(mut c) = c {
                c.0 = a.0 + u32::from(has_d) * 10_000;
            }
        });
    for (i, &e) in (0..n).zip(&entities) {
        assert_eq!(world.get::<A>(e), Some(&A(i)));
        assert_eq!(world.get::<B>(e), Some(&B(i * 2 + 1)));
        let c = (i % 2 == 0).then_some(C(i + u32::from(i % 3 == 0) * 10_000));
        assert_eq!(world.get::<C>(e).copied(), c);
        assert_eq!(world.get::<D>(e).copied(), (i % 3 == 0).then_some(D(i)));
    }

    // A filter with slots of its own (`Changed<C>` and `Or`'s match
    // flags), after the data's slots.
    world.clear_trackers();
    for (i, &e) in (0..n).zip(&entities) {
        if i % 4 == 0 {
            world.get_mut::<C>(e).unwrap().0 += 1;
        }
    }
    let mut q = world.query_filtered::<(&A, &mut B), Or<(Changed<C>, With<D>)>>();
    q.par_iter_mut(&mut world)
        .batching(3)
        .for_each(|(a, mut b)| b.0 = a.0 + 50_000);
    for (i, &e) in (0..n).zip(&entities) {
        let picked = i % 4 == 0 || i % 3 == 0;
        let want = if picked { i + 50_000 } else { i * 2 + 1 };
        assert_eq!(world.get::<B>(e), Some(&B(want)), "entity {i}");
    }
}

/// The dense walk folds short runs two rows per turn and long ones in a
/// plain loop: every table length (odd, even, 0, 1, either side of the
/// switch) and every start (after some `next()` calls) must still visit
/// each row exactly once.
#[test]
fn fold_visits_every_row_once_whatever_the_length_and_start() {
    #[derive(Component)]
    struct Marker;
    for len in (0..7u32).chain([14, 15, 16, 17, 18, 33]) {
        for consumed in 0..=len as usize {
            let mut world = World::new();
            // Two tables: the walk crosses from one into the other.
            for i in 0..len {
                world.spawn(A(i));
                world.spawn((A(100 + i), Marker));
            }
            let mut q = world.query::<&mut A>();
            let mut seen = Vec::new();
            let mut iter = q.iter_mut(&mut world);
            for mut a in iter.by_ref().take(consumed) {
                seen.push(a.0);
                a.0 += 1000;
            }
            iter.for_each(|mut a| {
                seen.push(a.0);
                a.0 += 1000;
            });
            seen.sort_unstable();
            let expected: Vec<u32> = (0..len).chain(100..100 + len).collect();
            assert_eq!(seen, expected, "len {len}, {consumed} taken by next()");
            // Each row was written once: +1000 exactly.
            let mut after: Vec<u32> = world.query::<&A>().iter(&world).map(|a| a.0).collect();
            after.sort_unstable();
            let written: Vec<u32> = expected.iter().map(|v| v + 1000).collect();
            assert_eq!(after, written, "len {len}, {consumed} taken by next()");
        }
    }
}

/// A filter decided per row (`Changed`) walks long tables too: every
/// length and start visits exactly the changed rows.
#[test]
fn filtered_fold_visits_exactly_the_passing_rows_whatever_the_length() {
    for len in (0..5u32).chain([15, 16, 17, 40]) {
        for consumed in [0usize, 1, 3] {
            let mut world = World::new();
            let entities: Vec<Entity> = (0..len).map(|i| world.spawn(A(i)).id()).collect();
            world.clear_trackers();
            for (i, &e) in entities.iter().enumerate() {
                if i % 3 != 1 {
                    world.get_mut::<A>(e).unwrap().0 += 1000;
                }
            }
            let mut q = world.query_filtered::<&A, Changed<A>>();
            let mut seen = Vec::new();
            let mut iter = q.iter(&world);
            seen.extend(iter.by_ref().take(consumed).map(|a| a.0));
            iter.for_each(|a| seen.push(a.0));
            seen.sort_unstable();
            let expected: Vec<u32> = (0..len).filter(|i| i % 3 != 1).map(|i| i + 1000).collect();
            assert_eq!(seen, expected, "len {len}, {consumed} taken by next()");
        }
    }
}

/// The parallel walk folds two rows per turn too: batches of every size
/// write each row once.
#[test]
fn parallel_batches_visit_every_row_once_whatever_their_length() {
    for len in 0..7u32 {
        for batch in 1..=len.max(1) as usize {
            let mut world = World::new();
            for i in 0..len {
                world.spawn(A(i));
            }
            world
                .query::<&mut A>()
                .par_iter_mut(&mut world)
                .batching(batch)
                .for_each(|mut a| a.0 += 1000);
            let mut after: Vec<u32> = world.query::<&A>().iter(&world).map(|a| a.0).collect();
            after.sort_unstable();
            let written: Vec<u32> = (1000..1000 + len).collect();
            assert_eq!(after, written, "len {len}, batches of {batch}");
        }
    }
}

/// The dense walk of `fold`/`for_each` (and the parallel batches) reaches
/// the columns a query writes through pointers re-derived from slices of
/// the walked rows (`WorldQuery::scope_table`). Whatever row the walk
/// starts at, and with several written terms nested in a tuple, each value
/// and each changed tick lands on its own row, and only the rows written
/// through `DerefMut` are marked changed.
#[test]
fn scoped_walk_writes_values_and_ticks_on_the_right_rows() {
    #[derive(Component)]
    struct Marker;
    #[derive(Component, Default)]
    struct Zst;
    let len = 9u32;
    for consumed in 0..=2 * len as usize {
        let mut world = World::new();
        // Two tables, so the walk crosses into a second one.
        for i in 0..len {
            world.spawn((A(i), B(i), Zst));
            world.spawn((A(100 + i), B(100 + i), Zst, Marker));
        }
        world.clear_trackers();
        let mut q = world.query_filtered::<(Entity, &mut A, &mut B, &mut Zst), With<B>>();
        let mut iter = q.iter_mut(&mut world);
        let write = |(_, mut a, mut b, mut z): (Entity, Mut<A>, Mut<B>, Mut<Zst>)| {
            // A written on evens, B on multiples of 3 (read, not written,
            // elsewhere), the ZST on multiples of 4.
            if a.0 % 2 == 0 {
                a.0 += 1000;
            }
            if b.0 % 3 == 0 {
                b.0 += 1000;
            } else {
                assert!(b.0 < 1000);
            }
            if a.0 % 4 == 0 {
                *z = Zst;
            }
        };
        iter.by_ref().take(consumed).for_each(write);
        iter.for_each(write);

        let all: Vec<u32> = (0..len).chain(100..100 + len).collect();
        let bumped = |v: u32, k: u32| if v.is_multiple_of(k) { v + 1000 } else { v };
        let mut a_now: Vec<u32> = world.query::<&A>().iter(&world).map(|a| a.0).collect();
        a_now.sort_unstable();
        let mut a_expected: Vec<u32> = all.iter().map(|&v| bumped(v, 2)).collect();
        a_expected.sort_unstable();
        assert_eq!(a_now, a_expected, "{consumed} taken by next()");
        let mut b_now: Vec<u32> = world.query::<&B>().iter(&world).map(|b| b.0).collect();
        b_now.sort_unstable();
        let mut b_expected: Vec<u32> = all.iter().map(|&v| bumped(v, 3)).collect();
        b_expected.sort_unstable();
        assert_eq!(b_now, b_expected, "{consumed} taken by next()");

        // Changed: exactly the rows written, per component; nothing added.
        let changed_a = set(world
            .query_filtered::<&B, Changed<A>>()
            .iter(&world)
            .map(|b| b.0 % 1000));
        assert_eq!(changed_a, set(all.iter().copied().filter(|v| v % 2 == 0)));
        let changed_b = set(world
            .query_filtered::<&A, Changed<B>>()
            .iter(&world)
            .map(|a| a.0 % 1000));
        assert_eq!(changed_b, set(all.iter().copied().filter(|v| v % 3 == 0)));
        let changed_z = set(world
            .query_filtered::<&B, Changed<Zst>>()
            .iter(&world)
            .map(|b| b.0 % 1000));
        assert_eq!(changed_z, set(all.iter().copied().filter(|v| v % 4 == 0)));
        assert_eq!(
            world.query_filtered::<(), Added<A>>().iter(&world).count(),
            0
        );
        assert_eq!(
            world.query_filtered::<(), Added<B>>().iter(&world).count(),
            0
        );
    }
}

/// Items of the scoped walk outlive it: `Mut`s collected out of
/// `for_each` still read and write their rows (and mark them changed)
/// after the walk is over. Miri checks that the pointers stay valid.
#[test]
fn items_of_a_scoped_walk_outlive_it() {
    let mut world = World::new();
    for i in 0..scaled(100) as u32 {
        world.spawn((A(i), B(i)));
    }
    world.clear_trackers();
    let mut q = world.query::<(&mut A, &B)>();
    // Some rows through `next` (unscoped), the rest through the walk.
    let mut iter = q.iter_mut(&mut world);
    let mut kept: Vec<_> = iter.by_ref().take(3).collect();
    iter.for_each(|item| kept.push(item));
    assert_eq!(kept.len(), scaled(100));
    for (mut a, b) in kept {
        assert_eq!(a.0, b.0);
        a.0 += 1;
    }
    assert!(world
        .query::<(&A, &B)>()
        .iter(&world)
        .all(|(a, b)| a.0 == b.0 + 1));
    assert_eq!(
        world
            .query_filtered::<(), Changed<A>>()
            .iter(&world)
            .count(),
        scaled(100)
    );
}

/// A filter that reads ticks (`Changed<A>`) while the data writes `A`
/// takes the unscoped walk, and sees the rows' ticks as they were before
/// the walk wrote them.
#[test]
fn tick_filters_on_a_written_component_walk_correctly() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..10).map(|i| world.spawn((A(i), B(i))).id()).collect();
    world.clear_trackers();
    for &e in entities.iter().step_by(3) {
        world.get_mut::<A>(e).unwrap().0 += 100;
    }
    let mut q = world.query_filtered::<(&mut A, &mut B), Changed<A>>();
    let mut seen = Vec::new();
    q.iter_mut(&mut world).for_each(|(mut a, mut b)| {
        seen.push(b.0);
        a.0 += 1000;
        b.0 += 1000;
    });
    assert_eq!(seen, vec![0, 3, 6, 9]);
    let b_now: BTreeSet<u32> = world.query::<&B>().iter(&world).map(|b| b.0).collect();
    assert_eq!(b_now, set([1, 2, 4, 5, 7, 8, 1000, 1003, 1006, 1009]));
}

/// A query with a sparse-set term walks archetypes, but an archetype that
/// fills its table is walked by table rows, where the table term's written
/// column is scoped too: values and ticks still land on their own rows,
/// whatever row the walk starts at.
#[test]
fn archetype_walk_by_table_rows_writes_the_right_rows() {
    for consumed in 0..=6 {
        let mut world = World::new();
        let entities: Vec<Entity> = (0..6u32).map(|i| world.spawn((A(i), S(i))).id()).collect();
        world.clear_trackers();
        let mut q = world.query::<(&mut A, &mut S)>();
        const { assert!(!QueryState::<(&mut A, &mut S)>::IS_DENSE) };
        let step = |(mut a, mut s): (Mut<A>, Mut<S>)| {
            if a.0 % 2 == 0 {
                a.0 += 100;
            }
            s.0 += 1000;
        };
        let mut iter = q.iter_mut(&mut world);
        iter.by_ref().take(consumed).for_each(step);
        iter.for_each(step);
        for (i, &e) in entities.iter().enumerate() {
            let i = i as u32;
            let a = if i.is_multiple_of(2) { i + 100 } else { i };
            assert_eq!(world.get::<A>(e), Some(&A(a)), "{consumed} taken by next()");
            assert_eq!(world.get::<S>(e), Some(&S(i + 1000)));
        }
        let changed = set(world
            .query_filtered::<&S, Changed<A>>()
            .iter(&world)
            .map(|s| s.0 - 1000));
        assert_eq!(changed, set([0, 2, 4]), "{consumed} taken by next()");
    }
}

/// An archetype can hold every row of its table in another order than
/// the table's (here, `S` was inserted last-spawned first). Whichever
/// order `next` walks it in, a `for_each` after some `next()` calls must
/// go on in the same one: each entity once, none skipped.
#[test]
fn next_then_fold_visits_each_row_once_when_archetype_and_table_orders_differ() {
    for consumed in 0..=6 {
        let mut world = World::new();
        let entities: Vec<Entity> = (0..6u32).map(|i| world.spawn(A(i)).id()).collect();
        for &e in entities.iter().rev() {
            world.entity_mut(e).insert(S(0));
        }
        let mut q = world.query::<(Entity, &mut A, &S)>();
        let mut seen = Vec::new();
        let mut iter = q.iter_mut(&mut world);
        for (e, mut a, _) in iter.by_ref().take(consumed) {
            seen.push(e);
            a.0 += 100;
        }
        iter.for_each(|(e, mut a, _)| {
            seen.push(e);
            a.0 += 100;
        });
        let distinct: BTreeSet<Entity> = seen.iter().copied().collect();
        assert_eq!(distinct, entities.iter().copied().collect());
        assert_eq!(seen.len(), entities.len(), "{consumed} taken by next()");
        for (i, &e) in entities.iter().enumerate() {
            assert_eq!(world.get::<A>(e), Some(&A(i as u32 + 100)), "{consumed}");
        }
    }
}

/// A world where archetype {A, S} owns table {A} (stage 0), shares it but
/// holds all of its rows (stage 1), or shares it with an archetype that
/// holds some (stage 2); and the tagged entities with their values.
fn owning_and_sharing_world(stage: u32) -> (World, BTreeSet<(Entity, u32)>) {
    let mut world = World::new();
    let len = 7u32;
    // {A, S} first: it owns table {A}.
    let tagged: Vec<Entity> = (0..len).map(|i| world.spawn((A(i), S(i))).id()).collect();
    if stage >= 1 {
        // {A} shares the table now, and holds none of its rows.
        let e = world.spawn(A(999)).id();
        world.despawn(e);
    }
    if stage >= 2 {
        // Now it holds some: {A, S} no longer covers the table.
        for i in 0..3 {
            world.spawn(A(100 + i));
        }
        world.entity_mut(tagged[1]).remove::<S>();
    }
    world.check_integrity().unwrap();
    let owner = world.entity(tagged[0]).archetype().id();
    assert_eq!(world.archetypes()[owner].owns_table(), stage == 0);
    let expected = tagged
        .iter()
        .enumerate()
        .filter(|&(i, _)| stage < 2 || i != 1)
        .map(|(i, &e)| (e, i as u32))
        .collect();
    (world, expected)
}

/// Archetype walks (a sparse-set term) over an archetype that owns its
/// table (walked by table row, with no list of its own), over one that
/// shares its table but holds all of its rows, and over one that shares it
/// with others: each entity is visited once with its own values, whatever
/// number of items `next()` took before `for_each`.
#[test]
fn archetype_walks_over_owning_and_sharing_archetypes_visit_each_entity_once() {
    for stage in 0..3 {
        let (mut world, expected) = owning_and_sharing_world(stage);
        let mut q = world.query::<(Entity, &A, &S)>();
        for consumed in 0..=expected.len() {
            let mut iter = q.iter(&world);
            let mut seen: Vec<(Entity, u32)> = iter
                .by_ref()
                .take(consumed)
                .map(|(e, a, s)| {
                    assert_eq!(a.0, s.0);
                    (e, a.0)
                })
                .collect();
            iter.for_each(|(e, a, s)| {
                assert_eq!(a.0, s.0);
                seen.push((e, a.0));
            });
            assert_eq!(seen.len(), expected.len(), "stage {stage}");
            assert_eq!(seen.into_iter().collect::<BTreeSet<_>>(), expected);
        }
        let mut written = 0;
        world
            .query::<(&mut A, &S)>()
            .iter_mut(&mut world)
            .for_each(|(mut a, _)| {
                a.0 += 1000;
                written += 1;
            });
        assert_eq!(written, expected.len());
        for (_, a) in world
            .query_filtered::<(Entity, &A), Without<S>>()
            .iter(&world)
        {
            assert!(a.0 < 1000);
        }
    }
}

/// The parallel archetype walk over the same three shapes, in batches of
/// every length: each tagged entity is written once, no other.
#[test]
fn parallel_archetype_walks_over_owning_and_sharing_archetypes_write_each_entity_once() {
    for stage in 0..3 {
        let (mut world, expected) = owning_and_sharing_world(stage);
        for batch in 1..=expected.len() {
            world
                .query::<(&mut A, &S)>()
                .par_iter_mut(&mut world)
                .batching(batch)
                .for_each(|(mut a, _)| a.0 += 1000);
            let now: BTreeSet<(Entity, u32)> = world
                .query::<(Entity, &A, &S)>()
                .iter(&world)
                .map(|(e, a, s)| (e, a.0 - 1000 * batch as u32 - s.0))
                .collect();
            let zeroed: BTreeSet<(Entity, u32)> = expected.iter().map(|&(e, _)| (e, 0)).collect();
            assert_eq!(now, zeroed, "stage {stage}, batches of {batch}");
        }
        for (_, a) in world
            .query_filtered::<(Entity, &A), Without<S>>()
            .iter(&world)
        {
            assert!(a.0 < 1000);
        }
    }
}

/// A world whose `S` values were inserted in the reverse of spawn order, so
/// that `S`'s set lists its entities backwards from the archetypes: a walk
/// of the set shows in the order it yields. Entities 0..n have `A`; `S(i)`
/// goes on every entity, `T` on multiples of 4, `B` on evens.
fn sparse_walk_world(n: u32) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..n)
        .map(|i| {
            let mut e = world.spawn(A(i));
            if i % 2 == 0 {
                e.insert(B(i));
            }
            e.id()
        })
        .collect();
    for (i, &e) in entities.iter().enumerate().rev() {
        world.entity_mut(e).insert(S(i as u32));
        if i % 4 == 0 {
            world.entity_mut(e).insert(T(i as u32));
        }
    }
    (world, entities)
}

#[test]
fn a_query_of_one_sparse_component_walks_its_set_in_order() {
    let n = scaled(200) as u32;
    let (mut world, entities) = sparse_walk_world(n);
    let set_order: Vec<Entity> = entities.iter().rev().copied().collect();
    // Read, through `next` and through `for_each`.
    let mut query = world.query::<(Entity, &S)>();
    let seen: Vec<Entity> = query.iter(&world).map(|(e, _)| e).collect();
    assert_eq!(seen, set_order, "walked by the set's rows");
    assert_eq!(query.iter(&world).len(), n as usize);
    for (e, s) in query.iter(&world) {
        assert_eq!(entities[s.0 as usize], e);
    }
    let mut each = Vec::new();
    query.iter(&world).for_each(|(e, s)| each.push((e, s.0)));
    assert_eq!(each.len(), n as usize);
    assert!(each.iter().all(|&(e, i)| entities[i as usize] == e));

    // Write: each entity's own value, and only the written rows are changed.
    world.clear_trackers();
    let mut write = world.query::<&mut S>();
    for mut s in write.iter_mut(&mut world) {
        if s.0 < 1000 && s.0 % 3 == 0 {
            s.0 += 1000;
        }
    }
    write.for_each_mut(&mut world, |mut s| {
        if s.0 < 1000 && s.0 % 3 == 1 {
            s.0 += 2000;
        }
    });
    for (i, &e) in entities.iter().enumerate() {
        let i = i as u32;
        let expected = match i % 3 {
            0 => i + 1000,
            1 => i + 2000,
            _ => i,
        };
        assert_eq!(world.get::<S>(e), Some(&S(expected)), "{e}");
    }
    let mut changed = world.query_filtered::<&S, Changed<S>>();
    assert_eq!(
        changed.iter(&world).count(),
        entities
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 3 != 2)
            .count()
    );

    // Another sparse term looks its row up by entity.
    let mut both = world.query::<(Entity, &S, &T)>();
    let mut with_t: Vec<(Entity, u32)> = both.iter(&world).map(|(e, _, t)| (e, t.0)).collect();
    with_t.sort();
    let mut expected: Vec<(Entity, u32)> = (0..n)
        .filter(|i| i % 4 == 0)
        .map(|i| (entities[i as usize], i))
        .collect();
    expected.sort();
    assert_eq!(with_t, expected);
}

#[test]
fn a_sparse_query_missing_an_archetype_of_its_set_walks_archetypes() {
    let n = scaled(200) as u32;
    let (mut world, entities) = sparse_walk_world(n);
    // `Without<T>` leaves out the archetypes with `T`, and a table term
    // needs table rows: neither may walk the set, and both stay correct.
    let mut without = world.query_filtered::<(Entity, &S), Without<T>>();
    let mut seen: Vec<Entity> = without.iter(&world).map(|(e, _)| e).collect();
    seen.sort();
    let mut expected: Vec<Entity> = (0..n as usize)
        .filter(|i| i % 4 != 0)
        .map(|i| entities[i])
        .collect();
    expected.sort();
    assert_eq!(seen, expected);
    let mut with_table = world.query::<(&S, &B)>();
    assert_eq!(with_table.iter(&world).count(), n.div_ceil(2) as usize);
    assert!(with_table.iter(&world).all(|(s, b)| s.0 == b.0));

    // A disabled entity is in the set but not matched: no set walk.
    let disabled = entities[1];
    world
        .entity_mut(disabled)
        .insert(crate::entity_disabling::Disabled);
    let mut query = world.query::<(Entity, &mut S)>();
    let mut count = 0;
    for (e, mut s) in query.iter_mut(&mut world) {
        assert_ne!(e, disabled);
        s.0 += 1;
        count += 1;
    }
    assert_eq!(count, n as usize - 1);
    assert_eq!(world.entity(disabled).get::<S>(), Some(&S(1)));
}

#[test]
fn a_walk_of_a_sparse_set_sorts_until_its_first_item() {
    let n = scaled(50) as u32;
    let (mut world, entities) = sparse_walk_world(n);
    let mut query = world.query::<(Entity, &S)>();
    let sorted: Vec<u32> = query
        .iter(&world)
        .sort_by_key::<&S, u32>(|s| s.0)
        .map(|(_, s)| s.0)
        .collect();
    assert_eq!(sorted, (0..n).collect::<Vec<_>>());
    let by_entity: Vec<Entity> = query
        .iter(&world)
        .sort::<Entity>()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(by_entity, entities);
    // Ties keep the walk's order, even when the sort key's lens walks
    // archetypes.
    let tied: Vec<Entity> = query
        .iter(&world)
        .sort_by_key::<Entity, u8>(|_| 0)
        .map(|(e, _)| e)
        .collect();
    let walked: Vec<Entity> = query.iter(&world).map(|(e, _)| e).collect();
    assert_eq!(tied, walked);
    let mut started = query.iter(&world);
    started.next();
    let late = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        started.sort::<Entity>().count()
    }));
    assert!(late.is_err(), "sorting after the first item is refused");
}
