//! System parameter builders and `FilteredResources(Mut)`: built state
//! reaches the system, extra query terms narrow it, declared resource
//! access is recorded and enforced, and panics leave the world usable.

mod common;

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::schedule::{LogLevel, ScheduleBuildError, ScheduleBuildSettings};
use ecs::system::{
    assert_is_read_only_system, FilteredResourcesMutParamBuilder, FilteredResourcesParamBuilder,
    LocalBuilder, ParamBuilder, ParamSetBuilder, QueryParamBuilder, SystemState,
};
use ecs::world::error::ResourceFetchError;

#[derive(Component)]
struct Health(u32);
#[derive(Component)]
struct Player;
#[derive(Component)]
struct Enemy;

#[derive(Resource, Default, Debug)]
struct Score(u32);
#[derive(Resource, Default, Debug)]
struct Bonus(u32);
#[derive(Resource, Default, Debug)]
struct Secret(u32);

fn local_system(local: Local<u64>) -> u64 {
    *local
}

fn counting_system(mut local: Local<u64>) -> u64 {
    *local += 1;
    *local
}

#[test]
fn local_builder_gives_the_first_value_through_both_paths() {
    let mut world = World::new();
    let system = (LocalBuilder(10u64),)
        .build_state(&mut world)
        .build_system(local_system);
    assert_eq!(world.run_system_once(system).unwrap(), 10);

    let lazy = (LocalBuilder(20u64),).build_system(local_system);
    assert_eq!(world.run_system_once(lazy).unwrap(), 20);
}

#[test]
fn built_local_keeps_its_value_between_runs() {
    let mut world = World::new();
    let mut system = (LocalBuilder(5u64),)
        .build_state(&mut world)
        .build_system(counting_system);
    system.initialize(&mut world);
    assert_eq!(system.run((), &mut world).unwrap(), 6);
    assert_eq!(system.run((), &mut world).unwrap(), 7);
}

#[test]
fn query_param_builder_terms_narrow_the_query() {
    let mut world = World::new();
    world.spawn((Health(1), Player));
    world.spawn((Health(2), Player, Enemy));
    world.spawn(Health(4));

    let all = (ParamBuilder::query::<&Health>(),)
        .build_state(&mut world)
        .build_system(|q: Query<&Health>| q.iter().map(|h| h.0).sum::<u32>());
    assert_eq!(world.run_system_once(all).unwrap(), 7);

    let players = (QueryParamBuilder::new(|b: &mut QueryBuilder<&Health>| {
        b.with::<Player>();
    }),)
        .build_state(&mut world)
        .build_system(|q| q.iter().map(|h| h.0).sum::<u32>());
    assert_eq!(world.run_system_once(players).unwrap(), 3);

    let lazy = (QueryParamBuilder::new(|b: &mut QueryBuilder<&Health>| {
        b.with::<Player>().without::<Enemy>();
    }),)
        .build_system(|q: Query<&Health>| q.iter().map(|h| h.0).sum::<u32>());
    assert_eq!(world.run_system_once(lazy).unwrap(), 1);
}

#[test]
fn query_param_builder_filters_make_two_mutable_queries_disjoint() {
    let mut world = World::new();
    let p = world.spawn((Health(1), Player)).id();
    let e = world.spawn(Health(1)).id();
    let system = (
        QueryParamBuilder::new(|b: &mut QueryBuilder<&mut Health>| {
            b.with::<Player>();
        }),
        QueryParamBuilder::new(|b: &mut QueryBuilder<&mut Health>| {
            b.without::<Player>();
        }),
    )
        .build_state(&mut world)
        .build_system(|mut players, mut others| {
            for mut h in &mut players {
                h.0 += 10;
            }
            for mut h in &mut others {
                h.0 += 100;
            }
        });
    world.run_system_once(system).unwrap();
    assert_eq!(world.get::<Health>(p).unwrap().0, 11);
    assert_eq!(world.get::<Health>(e).unwrap().0, 101);
}

#[test]
fn conflicting_built_queries_panic_naming_the_system() {
    let mut world = World::new();
    let message = expect_panic(|| {
        (
            ParamBuilder::query::<&mut Health>(),
            ParamBuilder::query::<&Health>(),
        )
            .build_state(&mut world)
    });
    assert!(message.contains("error[B0001]"), "{message}");
    assert!(message.contains("Health"), "{message}");
    integrity(&world);
}

#[test]
fn a_conflict_in_a_lazy_builder_system_names_the_function() {
    fn clash(_: Query<&mut Health>, _: Query<&Health>) {}
    let mut world = World::new();
    let mut system = IntoSystem::into_system(
        (
            ParamBuilder::query::<&mut Health>(),
            ParamBuilder::query::<&Health>(),
        )
            .build_system(clash),
    );
    let message = expect_panic(|| system.initialize(&mut world));
    assert!(message.contains("error[B0001]"), "{message}");
    assert!(message.contains("clash"), "{message}");
}

#[test]
fn a_query_state_is_a_builder_for_its_own_world_only() {
    let mut world = World::new();
    world.spawn((Health(3), Player));
    let state = world.query_filtered::<&Health, With<Player>>();
    let system = (state,)
        .build_state(&mut world)
        .build_system(|q: Query<&Health, With<Player>>| q.iter().count());
    assert_eq!(world.run_system_once(system).unwrap(), 1);

    let mut other = World::new();
    let foreign = other.query::<&Health>();
    expect_panic(|| (foreign,).build_state(&mut world));
}

#[test]
fn param_set_builder_builds_each_member() {
    let mut world = World::new();
    let enemy = world.spawn((Health(5), Enemy)).id();
    let ally = world.spawn(Health(5)).id();
    let system = (ParamSetBuilder((
        QueryParamBuilder::new(|b: &mut QueryBuilder<&mut Health>| {
            b.with::<Enemy>();
        }),
        ParamBuilder,
        LocalBuilder(3u32),
    )),)
        .build_state(&mut world)
        .build_system(
            |mut set: ParamSet<(Query<&mut Health>, Query<&mut Health>, Local<u32>)>| {
                let step = *set.p2();
                for mut h in &mut set.p0() {
                    h.0 -= step;
                }
                for mut h in &mut set.p1() {
                    h.0 += 1;
                }
            },
        );
    world.run_system_once(system).unwrap();
    assert_eq!(world.get::<Health>(enemy).unwrap().0, 3);
    assert_eq!(world.get::<Health>(ally).unwrap().0, 6);
}

#[test]
fn param_set_builder_members_still_conflict_with_other_parameters() {
    let mut world = World::new();
    let message = expect_panic(|| {
        (
            ParamSetBuilder((ParamBuilder::query::<&Health>(),)),
            ParamBuilder::query::<&mut Health>(),
        )
            .build_state(&mut world)
    });
    assert!(message.contains("error[B0001]"), "{message}");
}

#[test]
fn built_system_with_input() {
    let mut world = World::new();
    let system = (LocalBuilder(2u32),)
        .build_state(&mut world)
        .build_system_with_input(|In(x): In<u32>, factor| {
            let factor: Local<u32> = factor;
            x * *factor
        });
    assert_eq!(world.run_system_once_with(system, 21).unwrap(), 42);
}

#[derive(Resource, Default)]
struct Seen(Vec<u32>);

#[test]
fn lazy_builder_systems_run_in_a_schedule() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.spawn((Health(1), Player));
    world.spawn(Health(2));
    let mut schedule = Schedule::default();
    schedule.add_systems(
        (
            LocalBuilder(100u32),
            QueryParamBuilder::new(|b: &mut QueryBuilder<&Health>| {
                b.with::<Player>();
            }),
            ParamBuilder,
        )
            .build_system(
                |mut base: Local<u32>, q: Query<&Health>, mut seen: ResMut<Seen>| {
                    *base += 1;
                    seen.0.extend(q.iter().map(|h| h.0 + *base));
                },
            ),
    );
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [102, 103]);
}

#[test]
fn a_lazy_builder_system_is_uninitialised_until_initialize() {
    let mut world = World::new();
    let mut system =
        IntoSystem::into_system((LocalBuilder(1u32),).build_system(|_: Local<u32>| {}));
    assert!(system.access().combined_access().is_read_only());
    let message = expect_panic(|| system.run((), &mut world));
    assert!(message.contains("before `initialize`"), "{message}");
    system.initialize(&mut world);
    system.run((), &mut world).unwrap();
}

#[derive(Default)]
struct Logged(Option<Payload>);

#[test]
fn a_panicking_query_builder_closure_leaves_the_world_usable() {
    let log = DropLog::default();
    let mut world = World::new();
    world.spawn((Health(1), Player));
    let builder = (
        LocalBuilder(Logged(Some(Payload::new(1, &log)))),
        QueryParamBuilder::new(|_: &mut QueryBuilder<&Health>| panic!("builder closure failed")),
    );
    let mut system =
        IntoSystem::into_system(builder.build_system(|_: Local<Logged>, _: Query<&Health>| {}));
    let message = expect_panic(|| system.initialize(&mut world));
    assert!(message.contains("builder closure failed"), "{message}");
    // The local built before the panic and the builder were dropped by the unwind.
    log.assert_dropped_once(&[1]);

    let again = expect_panic(|| system.initialize(&mut world));
    assert!(
        again.contains("building its parameters panicked"),
        "{again}"
    );
    drop(system);
    log.assert_dropped_once(&[1]);

    integrity(&world);
    let mut q = world.query::<&Health>();
    assert_eq!(q.iter(&world).count(), 1);
    world.spawn(Health(2));
    assert_eq!(q.iter(&world).count(), 2);
}

#[test]
fn a_panicking_built_system_drops_its_local_once() {
    let log = DropLog::default();
    let mut world = World::new();
    world.spawn(Health(1));
    let mut system = (
        LocalBuilder(Logged(Some(Payload::new(7, &log)))),
        ParamBuilder::query::<&mut Health>(),
    )
        .build_state(&mut world)
        .build_system(|local: Local<Logged>, mut q: Query<&mut Health>| {
            assert!(local.0.is_some());
            for mut h in &mut q {
                h.0 += 1;
            }
            // Conditional, so the closure returns `()`: a diverging one
            // leaves its output type to never-type fallback.
            if local.0.is_some() {
                panic!("system failed");
            }
        });
    let message = expect_panic(|| system.run((), &mut world));
    assert!(message.contains("system failed"));
    log.assert_not_dropped(&[7]);
    expect_panic(|| system.run((), &mut world));
    drop(system);
    log.assert_dropped_once(&[7]);
    integrity(&world);
    let mut q = world.query::<&Health>();
    assert_eq!(q.single(&world).unwrap().0, 3);
}

// ---- FilteredResources ----------------------------------------------------------------

#[test]
fn filtered_resources_reads_what_was_declared() {
    let mut world = World::new();
    world.insert_resource(Score(3));
    world.insert_resource(Secret(9));
    let system = (FilteredResourcesParamBuilder::new(|b| {
        b.add_read::<Score>().add_read::<Bonus>();
    }),)
        .build_state(&mut world)
        .build_system(|res: FilteredResources| {
            assert!(res.has_read::<Score>());
            assert!(!res.has_read::<Secret>());
            let score = res.get::<Score>().unwrap();
            assert!(score.is_added());
            let bonus = res.get::<Bonus>().unwrap_err();
            assert!(
                matches!(bonus, ResourceFetchError::DoesNotExist { .. }),
                "{bonus:?}"
            );
            assert!(bonus.to_string().contains("Bonus"), "{bonus}");
            score.0
        });
    assert_eq!(world.run_system_once(system).unwrap(), 3);
}

#[test]
fn reading_an_undeclared_resource_is_an_error_naming_it() {
    let mut world = World::new();
    world.insert_resource(Score(3));
    world.insert_resource(Secret(9));
    let secret_id = world.components().resource_id::<Secret>().unwrap();
    let system = (FilteredResourcesParamBuilder::new(|b| {
        b.add_read::<Score>();
    }),)
        .build_state(&mut world)
        .build_system(move |res: FilteredResources| {
            let error = res.get::<Secret>().unwrap_err();
            assert_eq!(
                error,
                ResourceFetchError::NoResourceAccess {
                    id: secret_id,
                    name: std::any::type_name::<Secret>().into(),
                    write: false,
                }
            );
            let text = error.to_string();
            assert!(
                text.contains("Secret") && text.contains("add_read"),
                "{text}"
            );
            assert!(res.get_by_id(secret_id).is_err());
            #[derive(Resource, Debug)]
            struct NeverSeen;
            let unknown = res.get::<NeverSeen>().unwrap_err();
            assert!(matches!(unknown, ResourceFetchError::NotRegistered { .. }));
            assert!(unknown.to_string().contains("NeverSeen"), "{unknown}");
        });
    world.run_system_once(system).unwrap();
}

#[test]
fn a_default_filtered_resources_reads_nothing() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    let system = |res: FilteredResources| res.get::<Score>().is_err();
    assert!(world.run_system_once(system).unwrap());
}

#[test]
fn filtered_resources_conflicts_with_a_res_mut_writer_in_ambiguity_detection() {
    fn writer(mut score: ResMut<Score>) {
        score.0 += 1;
    }
    fn bonus_writer(mut bonus: ResMut<Bonus>) {
        bonus.0 += 1;
    }
    let build = |schedule: &mut Schedule, world: &mut World, other: bool| {
        let reader = (FilteredResourcesParamBuilder::new(|b| {
            b.add_read::<Score>();
        }),)
            .build_state(world)
            .build_system(|res: FilteredResources| {
                let _ = res.get::<Score>();
            });
        if other {
            schedule.add_systems((reader, bonus_writer));
        } else {
            schedule.add_systems((reader, writer));
        }
        schedule.set_build_settings(ScheduleBuildSettings {
            ambiguity_detection: LogLevel::Error,
            ..Default::default()
        });
        schedule.initialize(world)
    };

    let mut world = World::new();
    world.init_resource::<Score>();
    world.init_resource::<Bonus>();
    let mut schedule = Schedule::default();
    let error = build(&mut schedule, &mut world, false).unwrap_err();
    assert!(matches!(error, ScheduleBuildError::Ambiguity(_)), "{error}");
    assert!(error.to_string().contains("Score"), "{error}");

    let mut disjoint = Schedule::default();
    build(&mut disjoint, &mut world, true).unwrap();
    disjoint.run(&mut world);
    assert_eq!(world.resource::<Bonus>().0, 1);
}

#[test]
fn filtered_resources_access_is_the_systems_access() {
    let mut world = World::new();
    let system = (FilteredResourcesMutParamBuilder::new(|b| {
        b.add_read::<Bonus>().add_write::<Score>();
    }),)
        .build_state(&mut world)
        .build_system(|_: FilteredResourcesMut| {});
    let score = world.components().resource_id::<Score>().unwrap();
    let bonus = world.components().resource_id::<Bonus>().unwrap();
    let access = system.access().combined_access();
    assert!(access.has_write(score));
    assert!(access.has_read(bonus) && !access.has_write(bonus));
}

#[test]
fn filtered_resources_beside_a_conflicting_res_mut_panics_naming_the_resource() {
    let mut world = World::new();
    let message = expect_panic(|| {
        (
            FilteredResourcesParamBuilder::new(|b| {
                b.add_read::<Score>();
            }),
            ParamBuilder::resource_mut::<Score>(),
        )
            .build_state(&mut world)
    });
    assert!(message.contains("error[B0002]"), "{message}");
    assert!(message.contains("Score"), "{message}");

    // A read beside a read, and beside a write of another resource, is fine.
    (
        FilteredResourcesParamBuilder::new(|b| {
            b.add_read::<Score>();
        }),
        ParamBuilder::resource::<Score>(),
        ParamBuilder::resource_mut::<Bonus>(),
    )
        .build_state(&mut world);
}

#[test]
fn filtered_resources_mut_writes_declared_resources_only() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    world.insert_resource(Bonus(10));
    let bonus_id = world.components().resource_id::<Bonus>().unwrap();
    let score_id = world.components().resource_id::<Score>().unwrap();
    let mut system = (FilteredResourcesMutParamBuilder::new(|b| {
        b.add_write::<Score>().add_read::<Bonus>();
    }),)
        .build_state(&mut world)
        .build_system(move |mut res: FilteredResourcesMut| {
            assert!(res.has_write::<Score>() && !res.has_write::<Bonus>());
            let bonus = res.get::<Bonus>().unwrap().0;
            res.get_mut::<Score>().unwrap().0 += bonus;
            let error = res.get_mut::<Bonus>().unwrap_err();
            assert!(
                matches!(
                    error,
                    ResourceFetchError::NoResourceAccess { write: true, .. }
                ),
                "{error:?}"
            );
            assert!(error.to_string().contains("add_write"), "{error}");
            assert!(res.get_mut_by_id(bonus_id).is_err());
            let mut score = res.get_mut_by_id(score_id).unwrap();
            // SAFETY: `score_id` is `Score`'s id.
            unsafe { score.as_mut().deref_mut::<Score>().0 += 100 };
            let read: FilteredResources = res.as_readonly();
            assert!(read.get::<Score>().is_ok());
        });
    system.run((), &mut world).unwrap();
    assert_eq!(world.resource::<Score>().0, 111);
    assert!(world.is_resource_changed::<Score>());
}

#[test]
fn filtered_resources_see_change_ticks_since_the_last_run() {
    let mut world = World::new();
    world.insert_resource(Score(0));
    let mut system = (FilteredResourcesParamBuilder::new(|b| {
        b.add_read::<Score>();
    }),)
        .build_state(&mut world)
        .build_system(|res: FilteredResources| res.get::<Score>().unwrap().is_changed());
    system.initialize(&mut world);
    assert!(system.run((), &mut world).unwrap());
    assert!(!system.run((), &mut world).unwrap());
    world.resource_mut::<Score>().0 = 5;
    assert!(system.run((), &mut world).unwrap());
}

#[test]
fn read_all_reaches_resources_registered_later_and_is_read_only() {
    let mut world = World::new();
    let system = (FilteredResourcesParamBuilder::new(|b| {
        b.add_read_all();
    }),)
        .build_state(&mut world)
        .build_system(|res: FilteredResources| res.get::<Secret>().map(|s| s.0));
    // A lazily built system, since this check initialises it on a world of its own.
    assert_is_read_only_system(
        (FilteredResourcesParamBuilder::new(|b| {
            b.add_read_all();
        }),)
            .build_system(|_: FilteredResources| {}),
    );
    world.insert_resource(Secret(4));
    assert_eq!(world.run_system_once(system).unwrap().unwrap(), 4);
}

#[test]
fn filtered_resources_from_a_world() {
    let mut world = World::new();
    world.insert_resource(Score(2));
    let res = FilteredResources::from(&world);
    assert_eq!(res.get::<Score>().unwrap().0, 2);
    let mut res = FilteredResourcesMut::from(&mut world);
    res.get_mut::<Score>().unwrap().0 = 9;
    assert_eq!(world.resource::<Score>().0, 9);
}

#[test]
fn a_panicking_filtered_resources_builder_leaves_the_world_usable() {
    let mut world = World::new();
    world.insert_resource(Score(1));
    let message = expect_panic(|| {
        (FilteredResourcesParamBuilder::new(|b| {
            b.add_read::<Score>();
            panic!("declaring failed");
        }),)
            .build_state(&mut world)
    });
    assert!(message.contains("declaring failed"));
    integrity(&world);
    let mut state: SystemState<Res<Score>> = SystemState::new(&mut world);
    assert_eq!(state.get(&world).0, 1);
}

#[derive(Resource)]
struct First(u32);
#[derive(Resource)]
struct Second(#[allow(dead_code)] u32);

/// A local whose construction swaps the world it is given for another.
struct Swapper;

thread_local! {
    static SPARE: std::cell::RefCell<Option<World>> = const { std::cell::RefCell::new(None) };
}

impl FromWorld for Swapper {
    fn from_world(world: &mut World) -> Self {
        SPARE.with(|spare| {
            if let Some(other) = spare.borrow_mut().as_mut() {
                std::mem::swap(world, other);
            }
        });
        Swapper
    }
}

#[test]
fn a_builder_or_local_that_swaps_the_world_is_refused() {
    let worlds = || {
        let (mut w1, mut w2) = (World::new(), World::new());
        w1.insert_resource(First(1));
        w2.insert_resource(Second(2));
        (w1, w2)
    };
    // A builder closure swapping the world mid-build.
    let (mut w1, mut w2) = worlds();
    let message = expect_panic(|| {
        let _ = (
            ParamBuilder::resource::<First>(),
            QueryParamBuilder::new(|b: &mut QueryBuilder<()>| {
                std::mem::swap(b.world_mut(), &mut w2)
            }),
        )
            .build_state(&mut w1);
    });
    assert!(message.contains("replaced the world"), "{message}");

    // A `Local`'s `FromWorld` swapping it, in a system and a SystemState.
    let (w1, w2) = worlds();
    let mut w1 = w1;
    SPARE.with(|spare| *spare.borrow_mut() = Some(w2));
    let message = expect_panic(|| {
        let _ = w1.run_system_once(|first: Res<First>, _swap: Local<Swapper>| first.0);
    });
    assert!(message.contains("replaced the world"), "{message}");
    // The swap happened; swap back for the next case.
    SPARE.with(|spare| std::mem::swap(&mut w1, spare.borrow_mut().as_mut().unwrap()));
    let message = expect_panic(|| {
        let _ = SystemState::<(Res<First>, Local<Swapper>)>::new(&mut w1);
    });
    assert!(message.contains("replaced the world"), "{message}");
    SPARE.with(|spare| *spare.borrow_mut() = None);
}

#[test]
fn a_built_system_initialised_again_with_another_world_keeps_working() {
    let mut w1 = World::new();
    let mut w2 = World::new();
    let mut system =
        IntoSystem::into_system((LocalBuilder(7u32),).build_system(|local: Local<u32>| *local));
    system.initialize(&mut w1);
    let message = expect_panic(|| system.initialize(&mut w2));
    assert!(message.contains("another world"), "{message}");
    assert_eq!(system.run((), &mut w1).unwrap(), 7);
}
