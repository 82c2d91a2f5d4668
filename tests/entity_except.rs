//! `EntityRefExcept` and `EntityMutExcept`: whole-entity handles leaving
//! out a bundle's components, beside typed terms of those components, in
//! queries, systems and schedules; and the "all but" access behind them.

mod common;

use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::query::Access;
use ecs::system::SystemState;
use ecs::world::{EntityMutExcept, EntityRefExcept, FilteredEntityMut, FilteredEntityRef};

#[derive(Component, Debug, PartialEq)]
struct Pos(f32);

#[derive(Component, Debug, PartialEq)]
struct Vel(f32);

#[derive(Component, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct Tag(u32);

#[derive(Component)]
struct Late;

fn world() -> (World, Entity, Entity) {
    let mut world = World::new();
    let a = world.spawn((Pos(1.0), Vel(2.0), Tag(7))).id();
    let b = world.spawn((Pos(10.0), Vel(-1.0))).id();
    (world, a, b)
}

#[test]
fn except_handles_read_and_write_everything_but_the_bundle() {
    let (mut world, a, b) = world();
    let mut query = world.query::<(EntityMutExcept<Vel>, &Vel)>();
    for (mut rest, vel) in query.iter_mut(&mut world) {
        assert!(rest.get::<Vel>().is_none());
        assert!(rest.get_ref::<Vel>().is_none());
        assert!(rest.get_mut::<Vel>().is_none());
        assert!(
            rest.contains::<Vel>(),
            "it has it, it just may not touch it"
        );
        rest.get_mut::<Pos>().unwrap().0 += vel.0;
        if let Some(mut tag) = rest.get_mut::<Tag>() {
            tag.0 += 1;
        }
    }
    assert_eq!(world.get::<Pos>(a), Some(&Pos(3.0)));
    assert_eq!(world.get::<Pos>(b), Some(&Pos(9.0)));
    assert_eq!(world.get::<Tag>(a), Some(&Tag(8)));

    let vel = world.component_id::<Vel>().unwrap();
    let pos = world.component_id::<Pos>().unwrap();
    let mut query = world.query::<(EntityRefExcept<(Vel, Tag)>, &Tag)>();
    let (rest, tag) = query.single(&world).unwrap();
    assert_eq!(rest.id(), a);
    assert_eq!(tag, &Tag(8));
    assert!(rest.get::<Tag>().is_none());
    assert!(rest.get_by_id(vel).is_none());
    assert!(rest.get_by_id(pos).is_some());
    assert!(rest.get_change_ticks::<Vel>().is_none());
    assert!(rest.get_change_ticks::<Pos>().is_some());
    let filtered: FilteredEntityRef = rest.into_filtered();
    assert!(filtered.get::<Vel>().is_none());
    assert_eq!(filtered.get::<Pos>(), Some(&Pos(3.0)));
}

#[test]
fn except_handles_convert_as_bevys_do() {
    let (mut world, a, _) = world();
    let mut query = world.query_filtered::<EntityMutExcept<Vel>, With<Tag>>();
    let mut rest = query.single_mut(&mut world).unwrap();
    {
        let borrowed: EntityMutExcept<Vel> = (&mut rest).into();
        assert_eq!(borrowed.id(), a);
    }
    let read: EntityRefExcept<Vel> = (&rest).into();
    assert_eq!(read.get::<Pos>(), Some(&Pos(1.0)));
    let mut filtered: FilteredEntityMut = rest.into();
    filtered.get_mut::<Pos>().unwrap().0 = 5.0;
    assert!(filtered.get_mut::<Vel>().is_none());
    assert_eq!(world.get::<Pos>(a), Some(&Pos(5.0)));
}

#[test]
fn except_handles_conflict_with_what_they_do_not_leave_out() {
    let (mut world, _, _) = world();
    for message in [
        expect_panic(|| {
            world.query::<(EntityMutExcept<Vel>, &Pos)>();
        }),
        expect_panic(|| {
            world.query::<(EntityRefExcept<Vel>, &mut Pos)>();
        }),
        expect_panic(|| {
            world.query::<(&mut Pos, EntityRefExcept<Vel>)>();
        }),
        expect_panic(|| {
            world.query::<(EntityMutExcept<Vel>, EntityRef)>();
        }),
        expect_panic(|| {
            world.query::<(EntityRef, EntityMutExcept<Vel>)>();
        }),
        expect_panic(|| {
            world.query::<(EntityMutExcept<Vel>, EntityMutExcept<Pos>)>();
        }),
    ] {
        assert!(
            message.contains("Pos") || message.contains("Vel") || message.contains("Entity"),
            "{message}"
        );
    }
    // Leaving a component out makes room for a typed term of it, on
    // either side.
    world.query::<(&mut Vel, EntityRefExcept<Vel>)>();
    world.query::<(EntityMutExcept<(Vel, Pos)>, &mut Vel, &Pos)>();
    world.query::<(EntityRefExcept<Vel>, EntityRefExcept<Pos>)>();
}

#[test]
fn systems_and_schedules_see_the_left_out_components_as_free() {
    let (mut world, a, _) = world();
    let mut state = SystemState::<(Query<EntityMutExcept<Vel>>, Query<&mut Vel>)>::new(&mut world);
    let (mut rest, mut vel) = state.get_mut(&mut world);
    for mut v in &mut vel {
        v.0 *= 2.0;
    }
    for mut r in &mut rest {
        r.get_mut::<Pos>().unwrap().0 = 0.0;
    }
    assert_eq!(world.get::<Vel>(a), Some(&Vel(4.0)));
    let message = expect_panic(|| {
        SystemState::<(Query<EntityMutExcept<Vel>>, Query<&Pos>)>::new(&mut world);
    });
    assert!(message.contains("B0001"), "{message}");

    let mut schedule = Schedule::default();
    schedule.add_systems((
        |mut q: Query<EntityMutExcept<Vel>>| {
            for mut r in &mut q {
                r.get_mut::<Pos>().unwrap().0 += 1.0;
            }
        },
        |mut q: Query<&mut Vel>| {
            for mut v in &mut q {
                v.0 += 1.0;
            }
        },
        |q: Query<&Pos>| {
            let _ = q.iter().count();
        },
    ));
    schedule.initialize(&mut world).unwrap();
    // Only the `Pos` writer and reader conflict.
    assert_eq!(schedule.graph().conflicting_systems().len(), 1);
    schedule.run(&mut world);
    assert_eq!(world.get::<Vel>(a), Some(&Vel(5.0)));
    assert_eq!(world.get::<Pos>(a), Some(&Pos(1.0)));
}

#[test]
fn a_bundle_component_registered_after_the_state_is_still_left_out() {
    let (world, a, _) = world();
    let state = ecs::query::QueryState::<EntityRefExcept<(Vel, Late)>>::try_new(&world)
        .expect("unregistered bundle components are skipped");
    let mut world = world;
    world.entity_mut(a).insert(Late);
    let mut state = state;
    let rest = state.get(&world, a).unwrap();
    assert!(rest.get::<Late>().is_none());
    assert!(rest.contains::<Late>());
    let late = world.component_id::<Late>().unwrap();
    assert!(rest.get_by_id(late).is_none());
}

#[test]
fn lenses_cannot_widen_to_everything_but() {
    let (mut world, _, _) = world();
    let query = world.query::<(&Pos, &Vel)>();
    let message = expect_panic(|| {
        query.transmute::<EntityRefExcept<Vel>>(&world);
    });
    assert!(message.contains("read"), "{message}");
    let query = world.query::<EntityMutExcept<Vel>>();
    // Narrower than the source: allowed.
    let mut lens = query.transmute::<EntityRefExcept<(Vel, Tag)>>(&world);
    assert_eq!(lens.iter(&world).count(), 2);
    let mut lens = query.transmute::<Option<&mut Pos>>(&world);
    assert_eq!(lens.iter_mut(&mut world).flatten().count(), 2);
    let message = expect_panic(|| {
        query.transmute::<EntityRef>(&world);
    });
    assert!(message.contains("read"), "{message}");
    let message = expect_panic(|| {
        query.transmute::<&Vel>(&world);
    });
    assert!(message.contains("Vel"), "{message}");
    let message = expect_panic(|| {
        query.transmute::<EntityMutExcept<Tag>>(&world);
    });
    assert!(message.contains("Vel"), "{message}");
}

#[test]
fn access_to_everything_but_a_few_components() {
    let [a, b, c] = [0, 1, 2].map(ecs::component::ComponentId::new);
    let mut all_but_a = Access::default();
    all_but_a.write_all();
    all_but_a.remove_read(a);
    assert!(!all_but_a.has_read(a) && !all_but_a.has_write(a));
    assert!(all_but_a.has_write(b) && all_but_a.has_read(c));
    assert!(!all_but_a.has_read_all() && !all_but_a.has_write_all());
    assert!(all_but_a.has_any_read() && all_but_a.has_any_write());

    let mut writes_a = Access::default();
    writes_a.add_write(a);
    assert!(all_but_a.is_compatible(&writes_a));
    assert!(all_but_a.get_conflicts(&writes_a).is_empty());
    let mut reads_b = Access::default();
    reads_b.add_read(b);
    assert!(!all_but_a.is_compatible(&reads_b));
    assert_eq!(all_but_a.get_conflicts(&reads_b), vec![Some(b)]);
    let mut all_but_b = Access::default();
    all_but_b.read_all();
    all_but_b.remove_read(b);
    assert!(!all_but_a.is_compatible(&all_but_b), "both reach c");

    // A union leaves out only what both leave out; a listed id counts.
    let mut union = all_but_a.clone();
    union.extend(&all_but_b);
    assert!(union.has_read(a) && union.has_read(b));
    let mut listed = all_but_a.clone();
    listed.add_read(a);
    assert!(listed.has_read(a) && !listed.has_write(a));

    // Subsets: narrower exclusions are not within wider ones.
    let mut all_but_ab = Access::default();
    all_but_ab.write_all();
    all_but_ab.remove_read(a);
    all_but_ab.remove_read(b);
    assert!(all_but_ab.is_subset(&all_but_a));
    assert!(!all_but_a.is_subset(&all_but_ab));
    assert!(writes_a.is_subset(&{
        let mut w = Access::default();
        w.write_all();
        w
    }));
    assert!(!writes_a.is_subset(&all_but_a));
    // Removing from an explicit access removes the id.
    let mut explicit = Access::default();
    explicit.add_write(c);
    explicit.remove_write(c);
    assert!(explicit.has_read(c) && !explicit.has_write(c));
    explicit.remove_read(c);
    assert!(!explicit.has_read(c));
}

mod builders {
    use super::*;
    use ecs::query::QueryBuilder;
    use ecs::system::{ParamBuilder, QueryParamBuilder, SystemParamBuilder};

    #[test]
    fn a_filtered_handle_beside_an_except_handle_takes_nothing_it_keeps() {
        let (mut world, _, _) = world();
        let mut state = QueryBuilder::<(EntityMutExcept<Vel>, FilteredEntityMut)>::new(&mut world)
            .data::<EntityMut>()
            .build();
        for (mut rest, mut filtered) in state.iter_mut(&mut world) {
            assert!(rest.get_mut::<Pos>().is_some());
            assert!(
                filtered.get_mut::<Pos>().is_none(),
                "the except handle has it"
            );
            assert!(filtered.get::<Pos>().is_none());
        }
        let mut state = QueryBuilder::<(EntityMutExcept<Vel>, FilteredEntityRef)>::new(&mut world)
            .data::<EntityRef>()
            .build();
        for (_, filtered) in state.iter_mut(&mut world) {
            assert!(filtered.get::<Pos>().is_none());
        }
        let mut system = (QueryParamBuilder::new(
            |b: &mut QueryBuilder<(EntityMutExcept<Vel>, FilteredEntityMut)>| {
                b.data::<EntityMut>();
            },
        ),)
            .build_state(&mut world)
            .build_system(|mut q: Query<(EntityMutExcept<Vel>, FilteredEntityMut)>| {
                for (mut rest, mut filtered) in &mut q {
                    assert!(rest.get_mut::<Pos>().is_some());
                    assert!(filtered.get_mut::<Pos>().is_none());
                }
            });
        system.initialize(&mut world);
        system.run((), &mut world).unwrap();
        let _ = ParamBuilder;
    }

    #[test]
    fn two_filtered_handles_never_share_a_component() {
        let (mut world, a, _) = world();
        let pos = world.component_id::<Pos>().unwrap();
        let vel = world.component_id::<Vel>().unwrap();
        let mut state = QueryBuilder::<(FilteredEntityMut, FilteredEntityMut)>::new(&mut world)
            .mut_id(pos)
            .ref_id(vel)
            .build();
        let (mut x, mut y) = state.get_mut(&mut world, a).unwrap();
        assert!(x.get_mut::<Pos>().is_some());
        assert!(y.get_mut::<Pos>().is_none() && y.get::<Pos>().is_none());
        // Shared reads may be shared.
        assert!(x.get::<Vel>().is_some() && y.get::<Vel>().is_some());
        let mut state = QueryBuilder::<(FilteredEntityRef, FilteredEntityMut)>::new(&mut world)
            .mut_id(pos)
            .build();
        let (x, mut y) = state.get_mut(&mut world, a).unwrap();
        assert!(x.get::<Pos>().is_some());
        assert!(y.get_mut::<Pos>().is_none(), "the first handle reads it");
    }

    #[test]
    fn an_id_listed_again_is_no_longer_left_out() {
        let [a, b] = [0, 1].map(ecs::component::ComponentId::new);
        let mut access = Access::default();
        access.read_all();
        access.remove_read(a);
        assert!(!access.has_read_all());
        access.add_read(a);
        assert!(access.has_read_all());
        let mut left_out = Access::default();
        left_out.write_all();
        left_out.remove_read(b);
        let mut writes_b = Access::default();
        writes_b.add_write(b);
        left_out.extend(&writes_b);
        assert!(left_out.has_write_all());
        // What conflicts is dropped; what is left out of the other stays.
        let mut everything = Access::default();
        everything.write_all();
        let mut all_but_a = Access::default();
        all_but_a.write_all();
        all_but_a.remove_read(a);
        everything.remove_conflicting_access(&all_but_a);
        assert!(everything.has_write(a) && !everything.has_read(b));
    }
}
