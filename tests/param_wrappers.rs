//! The wrapping system parameters and their builders: `Option<P>`,
//! `Result<P, SystemParamValidationError>`, `If<P>`, `Vec<P>`,
//! `ParamSet<Vec<P>>`, `DynSystemParam`, and `#[system_param(builder)]`.

mod common;

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::system::{
    assert_is_read_only_system, DynParamBuilder, DynSystemParam, IfBuilder, LocalBuilder,
    OptionBuilder, ParamBuilder, ParamSetBuilder, QueryParamBuilder, ResultBuilder, RunSystemError,
    SystemParamValidationError,
};

#[derive(Component)]
struct Health(u32);
#[derive(Component)]
struct Player;
#[derive(Component)]
struct Enemy;

#[derive(Resource, Default, Debug)]
struct Score(u32);
#[derive(Resource, Default, Debug)]
struct Runs(u32);

// ---- Option, Result, If -------------------------------------------------------------

#[test]
fn option_of_any_param_is_none_when_it_cannot_be_fetched() {
    fn probe(
        score: Option<Res<Score>>,
        player: Option<Single<&Health, With<Player>>>,
        both: Option<(Res<Score>, Populated<&Health>)>,
    ) -> (Option<u32>, Option<u32>, bool) {
        (score.map(|s| s.0), player.map(|h| h.0), both.is_some())
    }
    let mut world = World::new();
    assert_eq!(world.run_system_once(probe).unwrap(), (None, None, false));
    world.insert_resource(Score(2));
    world.spawn((Health(7), Player));
    assert_eq!(
        world.run_system_once(probe).unwrap(),
        (Some(2), Some(7), true)
    );
    // Two players: `Single` fails, the `Option` is `None`, the system runs.
    world.spawn((Health(8), Player));
    assert_eq!(world.run_system_once(probe).unwrap(), (Some(2), None, true));
}

#[test]
fn option_res_mut_writes_when_present() {
    fn bump(score: Option<ResMut<Score>>) {
        if let Some(mut score) = score {
            score.0 += 1;
        }
    }
    let mut world = World::new();
    world.run_system_once(bump).unwrap();
    world.insert_resource(Score(1));
    world.run_system_once(bump).unwrap();
    assert_eq!(world.resource::<Score>().0, 2);
}

#[test]
fn result_gives_the_validation_error() {
    fn probe(
        score: Result<Res<Score>, SystemParamValidationError>,
        player: Result<Single<&Health, With<Player>>, SystemParamValidationError>,
    ) -> (
        Result<u32, SystemParamValidationError>,
        Result<u32, SystemParamValidationError>,
    ) {
        (score.map(|s| s.0), player.map(|h| h.0))
    }
    let mut world = World::new();
    let (score, player) = world.run_system_once(probe).unwrap();
    let score = score.unwrap_err();
    assert!(!score.skipped, "a missing resource is an error, not a skip");
    assert!(score.param.contains("Score"), "{score:?}");
    assert!(score.message.contains("does not exist"), "{score:?}");
    let player = player.unwrap_err();
    assert!(player.skipped, "`Single` asks to skip");
    assert!(player.param.contains("Single"), "{player:?}");

    world.insert_resource(Score(3));
    world.spawn((Health(4), Player));
    let (score, player) = world.run_system_once(probe).unwrap();
    assert_eq!((score, player), (Ok(3), Ok(4)));
}

fn count_runs(If(score): If<Res<Score>>, mut runs: ResMut<Runs>) -> u32 {
    runs.0 += 1;
    score.0
}

#[test]
fn if_skips_the_system_and_keeps_its_last_run() {
    let mut world = World::new();
    world.init_resource::<Runs>();
    world.insert_resource(Score(9));
    let mut system = IntoSystem::into_system(count_runs);
    system.initialize(&mut world);
    assert_eq!(system.run((), &mut world).unwrap(), 9);
    let before = system.last_run();

    world.remove_resource::<Score>();
    world.increment_change_tick();
    let error = system.run((), &mut world).unwrap_err();
    let RunSystemError::Skipped(error) = error else {
        panic!("expected a skip, got {error}")
    };
    assert!(error.skipped);
    assert!(error.param.contains("Res"), "{error:?}");
    assert!(error.message.contains("Score"), "{error:?}");
    assert_eq!(
        system.last_run(),
        before,
        "a skipped run keeps the last run"
    );
    assert_eq!(world.resource::<Runs>().0, 1);

    world.insert_resource(Score(4));
    assert_eq!(system.run((), &mut world).unwrap(), 4);
    assert_ne!(system.last_run(), before);
    assert_eq!(world.resource::<Runs>().0, 2);
}

#[test]
fn if_in_a_schedule_skips_quietly_where_the_bare_param_fails() {
    let mut world = World::new();
    world.init_resource::<Runs>();
    let mut schedule = Schedule::default();
    schedule.add_systems(count_runs.map(drop));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 0);

    fn strict(score: Res<Score>) -> u32 {
        score.0
    }
    let mut strict_schedule = Schedule::default();
    strict_schedule.add_systems(strict.map(drop));
    let message = expect_panic(|| strict_schedule.run(&mut world));
    assert!(message.contains("Score"), "{message}");
    assert!(message.contains("strict"), "{message}");

    world.insert_resource(Score(1));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1);
}

#[test]
fn wrappers_conflict_as_their_inner_params() {
    fn clash(_: Option<ResMut<Score>>, _: If<Res<Score>>) {}
    let message = expect_panic(|| World::new().run_system_once(clash));
    assert!(message.contains("clash"), "{message}");
    assert!(message.contains("Score"), "{message}");

    fn clash_query(_: Result<Single<&mut Health>, SystemParamValidationError>, _: Query<&Health>) {}
    let message = expect_panic(|| World::new().run_system_once(clash_query));
    assert!(message.contains("clash_query"), "{message}");
    assert!(message.contains("Health"), "{message}");
}

#[test]
fn wrappers_of_read_only_params_are_read_only() {
    fn reader(
        _: Option<Res<Score>>,
        _: If<Query<&Health>>,
        _: Result<Res<Runs>, SystemParamValidationError>,
        _: Vec<Query<&Health>>,
        _: ParamSet<Vec<Query<&Health>>>,
    ) {
    }
    assert_is_read_only_system(reader);
}

#[test]
fn wrapper_builders_build_the_inner_param() {
    let mut world = World::new();
    world.spawn((Health(1), Player));
    world.spawn(Health(2));
    let system = (
        OptionBuilder(QueryParamBuilder::new(|q| {
            q.with::<Player>();
        })),
        ResultBuilder(ParamBuilder::resource::<Score>()),
        IfBuilder(LocalBuilder(5u32)),
    )
        .build_state(&mut world)
        .build_system(
            |players: Option<Query<&Health>>,
             score: Result<Res<Score>, SystemParamValidationError>,
             local: If<Local<u32>>| {
                let players: u32 = players.unwrap().iter().map(|h| h.0).sum();
                (players, score.is_err(), **local)
            },
        );
    assert_eq!(world.run_system_once(system).unwrap(), (1, true, 5));
}

/// Query builders as one type (a function pointer), `Send + Sync +
/// 'static` as `build_system` wants.
type HealthQuery = QueryParamBuilder<fn(&mut QueryBuilder<&'static mut Health>)>;

fn players() -> HealthQuery {
    QueryParamBuilder::new(|q| {
        q.with::<Player>();
    })
}

fn non_players() -> HealthQuery {
    QueryParamBuilder::new(|q| {
        q.without::<Player>();
    })
}

fn everyone() -> HealthQuery {
    QueryParamBuilder::new(|_| {})
}

// ---- Vec ------------------------------------------------------------------------------

#[test]
fn vec_of_queries_built_differently() {
    let mut world = World::new();
    let player = world.spawn((Health(10), Player)).id();
    let enemy = world.spawn((Health(10), Enemy)).id();
    let system = (vec![players(), non_players()],)
        .build_state(&mut world)
        .build_system(|queries: Vec<Query<&mut Health>>| {
            let mut counts = Vec::new();
            for (i, mut query) in queries.into_iter().enumerate() {
                counts.push(query.iter().count());
                for mut health in &mut query {
                    health.0 += i as u32 + 1;
                }
            }
            counts
        });
    assert_eq!(world.run_system_once(system).unwrap(), [1, 1]);
    assert_eq!(world.get::<Health>(player).unwrap().0, 11);
    assert_eq!(world.get::<Health>(enemy).unwrap().0, 12);
}

#[test]
fn vec_built_by_default_is_empty() {
    fn none(queries: Vec<Query<&Health>>, locals: Vec<Local<u8>>) -> usize {
        queries.len() + locals.len()
    }
    let mut world = World::new();
    world.spawn(Health(1));
    assert_eq!(world.run_system_once(none).unwrap(), 0);
}

fn overlapping(_: Vec<Query<&mut Health>>) {}

#[test]
fn conflicting_vec_elements_panic_naming_the_system() {
    let mut world = World::new();
    let system = (vec![players(), everyone()],).build_system(overlapping);
    let message = expect_panic(|| world.run_system_once(system));
    assert!(message.contains("overlapping"), "{message}");
    assert!(message.contains("Health"), "{message}");
    integrity(&world);

    // Disjoint elements are fine.
    let system = (vec![players(), non_players()],).build_system(overlapping);
    world.run_system_once(system).unwrap();
}

#[test]
fn a_vec_element_that_cannot_be_fetched_skips_the_system() {
    let mut world = World::new();
    world.init_resource::<Runs>();
    world.spawn((Health(1), Player));
    fn singles(_: Vec<Single<&Health>>, mut runs: ResMut<Runs>) {
        runs.0 += 1;
    }
    let mut system = IntoSystem::into_system(
        (vec![ParamBuilder, ParamBuilder], ParamBuilder).build_system(singles),
    );
    system.initialize(&mut world);
    system.run((), &mut world).unwrap();
    world.spawn(Health(2));
    assert!(matches!(
        system.run((), &mut world),
        Err(RunSystemError::Skipped(_))
    ));
    assert_eq!(world.resource::<Runs>().0, 1);
}

#[test]
fn vec_of_commands_applies_each() {
    let mut world = World::new();
    fn spawn_each(commands: Vec<Commands>) {
        for mut commands in commands {
            commands.spawn(Player);
        }
    }
    let system = (vec![ParamBuilder, ParamBuilder, ParamBuilder],).build_system(spawn_each);
    world.run_system_once(system).unwrap();
    assert_eq!(world.query::<&Player>().iter(&world).count(), 3);
}

// ---- ParamSet<Vec<P>> ---------------------------------------------------------------

fn set_of_queries(mut set: ParamSet<Vec<Query<&mut Health>>>) -> Vec<u32> {
    let max = set.get_mut(1).iter().map(|h| h.0).max().unwrap_or(0);
    for mut health in &mut set.get_mut(0) {
        health.0 = max;
    }
    let mut sums = Vec::new();
    set.for_each(|query| sums.push(query.iter().map(|h| h.0).sum()));
    sums
}

#[test]
fn param_set_of_vec_reaches_conflicting_members_one_at_a_time() {
    let mut world = World::new();
    let player = world.spawn((Health(1), Player)).id();
    world.spawn(Health(5));
    let system = (ParamSetBuilder(vec![players(), everyone()]),).build_system(set_of_queries);
    assert_eq!(world.run_system_once(system).unwrap(), [5, 10]);
    assert_eq!(world.get::<Health>(player).unwrap().0, 5);
}

#[test]
fn param_set_of_vec_conflicts_with_other_params() {
    fn clash(_: ParamSet<Vec<Query<&mut Health>>>, _: Query<&Health>) {}
    let mut world = World::new();
    let system = (ParamSetBuilder(vec![players()]), ParamBuilder).build_system(clash);
    let message = expect_panic(|| world.run_system_once(system));
    assert!(message.contains("clash"), "{message}");
    assert!(message.contains("Health"), "{message}");
}

#[test]
fn param_set_of_vec_index_out_of_range_panics_naming_the_system() {
    fn third(mut set: ParamSet<Vec<Query<&Health>>>) {
        set.get_mut(2);
    }
    let mut world = World::new();
    let system = (ParamSetBuilder(vec![ParamBuilder, ParamBuilder]),).build_system(third);
    let message = expect_panic(|| world.run_system_once(system));
    assert!(message.contains("third"), "{message}");
    assert!(message.contains("member 2"), "{message}");
    integrity(&world);
}

#[test]
fn param_set_of_vec_member_that_cannot_be_fetched_skips_the_system() {
    fn singles(_: ParamSet<Vec<Single<&mut Health>>>) {}
    let mut world = World::new();
    let system = (ParamSetBuilder(vec![ParamBuilder, ParamBuilder]),).build_system(singles);
    let mut system = IntoSystem::into_system(system);
    system.initialize(&mut world);
    assert!(matches!(
        system.run((), &mut world),
        Err(RunSystemError::Skipped(_))
    ));
    world.spawn(Health(1));
    system.run((), &mut world).unwrap();
}

// ---- DynSystemParam ------------------------------------------------------------------

#[test]
fn dyn_param_downcasts_to_what_it_was_built_as() {
    let mut world = World::new();
    world.insert_resource(Score(3));
    world.spawn(Health(4));
    let system = (
        DynParamBuilder::new::<Res<Score>>(ParamBuilder),
        DynParamBuilder::new(LocalBuilder(10u32)),
        DynParamBuilder::new(QueryParamBuilder::new(|q: &mut QueryBuilder<&Health>| {
            q.with::<Health>();
        })),
    )
        .build_state(&mut world)
        .build_system(
            |mut score: DynSystemParam, mut local: DynSystemParam, query: DynSystemParam| {
                assert!(score.is::<Res<Score>>());
                assert!(!score.is::<Res<Runs>>());
                assert!(!score.is::<ResMut<Score>>());
                assert!(score.downcast_mut::<Res<Runs>>().is_none());
                assert!(score.downcast_mut::<Local<u32>>().is_none());
                assert!(local.downcast_mut::<Local<u64>>().is_none());
                *local.downcast_mut::<Local<u32>>().unwrap() += 1;
                let local: Local<u32> = local.downcast().unwrap();
                let query: Query<&Health> = query.downcast().unwrap();
                let score: &Score = score
                    .downcast_mut_inner::<Res<Score>>()
                    .unwrap()
                    .into_inner();
                score.0 + *local + query.single().unwrap().0
            },
        );
    let mut system = IntoSystem::into_system(system);
    system.initialize(&mut world);
    assert_eq!(system.run((), &mut world).unwrap(), 3 + 11 + 4);
    // The local is kept between runs.
    assert_eq!(system.run((), &mut world).unwrap(), 3 + 12 + 4);
}

#[test]
fn dyn_param_built_by_default_holds_unit() {
    fn plain(param: DynSystemParam) -> (bool, bool) {
        (param.is::<()>(), param.is::<Res<Score>>())
    }
    assert_eq!(World::new().run_system_once(plain).unwrap(), (true, false));
}

#[test]
fn dyn_param_validates_its_inner_param() {
    let mut world = World::new();
    let system = (DynParamBuilder::new::<Single<&Health>>(ParamBuilder),)
        .build_state(&mut world)
        .build_system(|_: DynSystemParam| {});
    let mut system = IntoSystem::into_system(system);
    system.initialize(&mut world);
    assert!(matches!(
        system.run((), &mut world),
        Err(RunSystemError::Skipped(_))
    ));
    world.spawn(Health(1));
    system.run((), &mut world).unwrap();

    let system = (DynParamBuilder::new::<Res<Score>>(ParamBuilder),)
        .build_state(&mut world)
        .build_system(|_: DynSystemParam| {});
    assert!(matches!(
        world.run_system_once(system),
        Err(RunSystemError::Failed(_))
    ));
}

#[test]
fn dyn_param_access_conflicts_with_other_params() {
    let mut world = World::new();
    // A `DynParamBuilder` is not `Send`: its state is built at once, before
    // there is a system to name, so the message names the parameters.
    let message = expect_panic(|| {
        (
            DynParamBuilder::new::<Query<&mut Health>>(ParamBuilder),
            ParamBuilder::query::<&Health>(),
        )
            .build_state(&mut world)
    });
    assert!(message.contains("DynSystemParam"), "{message}");
    assert!(message.contains("Health"), "{message}");
    integrity(&world);
}

#[test]
fn dyn_param_applies_the_inner_commands() {
    let mut world = World::new();
    let system = (DynParamBuilder::new::<Commands>(ParamBuilder),)
        .build_state(&mut world)
        .build_system(|param: DynSystemParam| {
            let mut commands: Commands = param.downcast().unwrap();
            commands.spawn(Player);
        });
    world.run_system_once(system).unwrap();
    assert_eq!(world.query::<&Player>().iter(&world).count(), 1);
}

// ---- panics while building ----------------------------------------------------------

#[test]
fn a_builder_that_panics_half_way_drops_what_was_built_once() {
    let log = DropLog::default();
    let mut world = World::new();
    world.spawn(Health(1));
    let builders = vec![
        DynParamBuilder::new(LocalBuilder(Some(Payload::new(1, &log)))),
        DynParamBuilder::new(QueryParamBuilder::new(|_: &mut QueryBuilder<&Health>| {
            panic!("builder closure fails")
        })),
        DynParamBuilder::new(LocalBuilder(Some(Payload::new(2, &log)))),
    ];
    let message = expect_panic(|| (builders,).build_state(&mut world));
    assert!(message.contains("builder closure fails"), "{message}");
    log.assert_dropped_once(&[1, 2]);
    integrity(&world);
    assert_eq!(world.query::<&Health>().iter(&world).count(), 1);
}

// ---- #[system_param(builder)] --------------------------------------------------------

/// Public, so that the generated builder is too.
#[derive(SystemParam)]
#[system_param(builder)]
pub struct Healths<'w, 's> {
    query: Query<'w, 's, &'static mut Health>,
    step: Local<'s, u32>,
    score: Option<Res<'w, Score>>,
}

#[derive(SystemParam)]
#[system_param(builder)]
struct Pair<'w, 's>(Query<'w, 's, &'static Health>, Local<'s, u8>);

#[derive(SystemParam)]
#[system_param(builder)]
struct Generic<'w, R: Resource> {
    resource: Res<'w, R>,
}

#[test]
fn derived_builder_builds_each_field() {
    let mut world = World::new();
    let player = world.spawn((Health(1), Player)).id();
    let other = world.spawn(Health(1)).id();
    let system = (HealthsBuilder {
        query: QueryParamBuilder::new(|q| {
            q.with::<Player>();
        }),
        step: LocalBuilder(10),
        score: ParamBuilder,
    },)
        .build_state(&mut world)
        .build_system(|mut healths: Healths| {
            *healths.step += 1;
            let step = *healths.step + healths.score.map_or(0, |s| s.0);
            for mut health in &mut healths.query {
                health.0 += step;
            }
        });
    world.run_system_once(system).unwrap();
    assert_eq!(world.get::<Health>(player).unwrap().0, 12);
    assert_eq!(world.get::<Health>(other).unwrap().0, 1);
}

#[test]
fn derived_builder_of_tuple_and_generic_structs() {
    let mut world = World::new();
    world.spawn((Health(2), Player));
    world.spawn(Health(3));
    world.insert_resource(Score(4));
    let system = (
        PairBuilder(
            QueryParamBuilder::new(|q| {
                q.without::<Player>();
            }),
            LocalBuilder(7),
        ),
        GenericBuilder {
            resource: ParamBuilder,
        },
    )
        .build_state(&mut world)
        .build_system(|pair: Pair, generic: Generic<Score>| {
            pair.0.iter().map(|h| h.0).sum::<u32>() + u32::from(*pair.1) + generic.resource.0
        });
    assert_eq!(world.run_system_once(system).unwrap(), 3 + 7 + 4);
}

#[test]
fn derived_builder_fields_conflict_as_parameters_do() {
    fn clash(_: Healths, _: Query<&Health>) {}
    let mut world = World::new();
    let system = (
        HealthsBuilder {
            query: ParamBuilder,
            step: ParamBuilder,
            score: ParamBuilder,
        },
        ParamBuilder,
    )
        .build_system(clash);
    let message = expect_panic(|| world.run_system_once(system));
    assert!(message.contains("clash"), "{message}");
    assert!(message.contains("Health"), "{message}");
}
