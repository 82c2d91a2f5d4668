//! System sets, run conditions in schedules, `ApplyDeferred`, build errors
//! and the conflicting-systems report, on both executors.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::schedule::{ExecutorKind, LogLevel, ScheduleBuildError, ScheduleBuildSettings, SystemSet};

#[derive(Resource, Default)]
struct Log(Vec<&'static str>);

#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
enum Stage {
    Input,
    Logic,
    Render,
}

#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
struct Physics;

#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
struct Inner;

fn both_executors(mut test: impl FnMut(Schedule)) {
    for kind in [ExecutorKind::SingleThreaded, ExecutorKind::MultiThreaded] {
        let mut schedule = Schedule::default();
        schedule.set_executor_kind(kind);
        test(schedule);
    }
}

fn world() -> World {
    let mut world = World::new();
    world.init_resource::<Log>();
    world
}

macro_rules! logger {
    ($($name:ident),*) => {
        $(fn $name(mut log: ResMut<Log>) {
            log.0.push(stringify!($name));
        })*
    };
}

logger!(a, b, c, d, e);

#[test]
fn chained_sets_order_their_systems_whatever_the_add_order() {
    both_executors(|mut schedule| {
        let mut world = world();
        schedule.configure_sets((Stage::Input, Stage::Logic, Stage::Render).chain());
        schedule.add_systems((
            c.in_set(Stage::Render),
            b.in_set(Stage::Logic),
            a.in_set(Stage::Input),
            d.in_set(Stage::Logic).after(b),
        ));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Log>().0, ["a", "b", "d", "c"]);
    });
}

#[test]
fn nested_sets_take_their_parents_order_and_conditions() {
    both_executors(|mut schedule| {
        let mut world = world();
        world.insert_resource(Gate(true));
        schedule.configure_sets(Inner.in_set(Physics));
        schedule.configure_sets(Physics.after(Stage::Input).run_if(gate_open));
        schedule.add_systems((b.in_set(Inner), a.in_set(Stage::Input), c));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Log>().0, ["a", "b", "c"]);
        world.resource_mut::<Log>().0.clear();
        world.resource_mut::<Gate>().0 = false;
        schedule.run(&mut world);
        assert_eq!(world.resource::<Log>().0, ["a", "c"]);
    });
}

#[test]
fn systems_order_against_sets_and_sets_against_systems() {
    both_executors(|mut schedule| {
        let mut world = world();
        schedule.configure_sets(Physics.after(a).before(d));
        schedule.add_systems((d, c.in_set(Physics), b.before(Physics), a));
        schedule.run(&mut world);
        let log = &world.resource::<Log>().0;
        let at = |name| log.iter().position(|n| *n == name).unwrap();
        assert!(
            at("a") < at("c") && at("b") < at("c") && at("c") < at("d"),
            "{log:?}"
        );
    });
}

#[derive(Resource)]
struct Gate(bool);

fn gate_open(gate: Res<Gate>) -> bool {
    gate.0
}

static EVALUATED: AtomicUsize = AtomicUsize::new(0);

fn counted_gate(gate: Res<Gate>) -> bool {
    EVALUATED.fetch_add(1, Ordering::SeqCst);
    gate.0
}

#[test]
fn a_set_condition_runs_once_per_run_and_guards_every_system_in_the_set() {
    both_executors(|mut schedule| {
        EVALUATED.store(0, Ordering::SeqCst);
        let mut world = world();
        world.insert_resource(Gate(true));
        schedule.configure_sets(Physics.run_if(counted_gate));
        schedule.add_systems((a, b, c).in_set(Physics));
        schedule.add_systems(d);
        schedule.run(&mut world);
        assert_eq!(EVALUATED.load(Ordering::SeqCst), 1);
        assert_eq!(world.resource::<Log>().0.len(), 4);
        world.resource_mut::<Gate>().0 = false;
        schedule.run(&mut world);
        assert_eq!(EVALUATED.load(Ordering::SeqCst), 2);
        assert_eq!(world.resource::<Log>().0.len(), 5);
        assert_eq!(world.resource::<Log>().0[4], "d");
    });
}

#[test]
fn run_if_on_a_tuple_is_evaluated_once_and_distributive_run_if_per_system() {
    both_executors(|mut schedule| {
        EVALUATED.store(0, Ordering::SeqCst);
        let mut world = world();
        world.insert_resource(Gate(true));
        schedule.add_systems((a, b, c).run_if(counted_gate));
        schedule.run(&mut world);
        assert_eq!(EVALUATED.load(Ordering::SeqCst), 1);
        let mut schedule = Schedule::default();
        schedule.add_systems((a, b, c).distributive_run_if(counted_gate));
        schedule.run(&mut world);
        assert_eq!(EVALUATED.load(Ordering::SeqCst), 4);
        assert_eq!(world.resource::<Log>().0.len(), 6);
    });
}

#[derive(Resource, Default)]
struct Counter(u32);

#[derive(Component)]
struct Marker;

fn bump(mut counter: ResMut<Counter>) {
    counter.0 += 1;
}

fn is_even(counter: Res<Counter>) -> bool {
    counter.0.is_multiple_of(2)
}

#[test]
fn a_skipped_system_keeps_its_last_run_so_it_sees_changes_since_it_ran() {
    #[derive(Resource, Default)]
    struct Seen(Vec<bool>);
    fn watch(counter: Res<Counter>, mut seen: ResMut<Seen>) {
        seen.0.push(counter.is_changed());
    }
    both_executors(|mut schedule| {
        let mut world = world();
        world.init_resource::<Counter>();
        world.init_resource::<Seen>();
        world.insert_resource(Gate(true));
        schedule.add_systems(watch.run_if(gate_open));
        schedule.run(&mut world); // first run: everything is new
        schedule.run(&mut world); // nothing changed since
        world.resource_mut::<Gate>().0 = false;
        world.resource_mut::<Counter>().0 += 1;
        schedule.run(&mut world); // skipped
        world.resource_mut::<Gate>().0 = true;
        schedule.run(&mut world); // sees the change made while it was skipped
        assert_eq!(world.resource::<Seen>().0, [true, false, true]);
    });
}

#[test]
fn a_skipped_system_queues_no_commands() {
    fn spawn(mut commands: Commands) {
        commands.spawn(Marker);
    }
    both_executors(|mut schedule| {
        let mut world = world();
        world.init_resource::<Counter>();
        schedule.add_systems((bump, spawn.run_if(is_even)).chain());
        for _ in 0..4 {
            schedule.run(&mut world);
        }
        // Counter after bump: 1, 2, 3, 4; even twice.
        assert_eq!(world.query::<&Marker>().iter(&world).count(), 2);
    });
}

#[test]
fn a_conditions_access_orders_it_against_writers() {
    // `is_even` reads `Counter`: the guarded system conflicts with `bump`,
    // so the two are ordered (by insertion), never run at once.
    let mut world = world();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::default();
    schedule.add_systems((a.run_if(is_even), bump));
    schedule.initialize(&mut world).unwrap();
    let conflicts = schedule.graph().conflicting_systems();
    assert_eq!(
        conflicts.len(),
        0,
        "a condition's access is not the system's own"
    );
    let order = schedule.execution_order().unwrap();
    assert!(
        order[0].ends_with("::a") && order[1].ends_with("::bump"),
        "{order:?}"
    );
    for _ in 0..10 {
        schedule.run(&mut world);
    }
    // `a` always sees `Counter` before this run's bump: 0, 1, 2, ... even
    // half the time.
    assert_eq!(world.resource::<Log>().0.len(), 5);
}

#[test]
fn apply_deferred_is_a_sync_point_for_systems_ordered_before_it() {
    #[derive(Resource, Default)]
    struct Seen(Vec<usize>);
    fn spawn(mut commands: Commands) {
        commands.spawn(Marker);
    }
    fn count(q: Query<&Marker>, mut seen: ResMut<Seen>) {
        seen.0.push(q.iter().count());
    }
    both_executors(|mut schedule| {
        let mut world = World::new();
        world.init_resource::<Seen>();
        schedule.add_systems((spawn, count).chain_ignore_deferred());
        schedule.run(&mut world);
        let mut with_sync = Schedule::default();
        with_sync.add_systems((spawn, ApplyDeferred, count).chain_ignore_deferred());
        with_sync.run(&mut world);
        let mut chained = Schedule::default();
        chained.add_systems((spawn, count).chain());
        chained.run(&mut world);
        // Not applied yet (0), applied by the sync point (1 + 1), applied by
        // the chain (2 + 1).
        assert_eq!(world.resource::<Seen>().0, [0, 2, 3]);
    });
}

#[test]
fn without_auto_apply_commands_wait_for_the_end_or_a_sync_point() {
    #[derive(Resource, Default)]
    struct Seen(Vec<usize>);
    fn spawn(mut commands: Commands) {
        commands.spawn(Marker);
    }
    fn count(q: Query<&Marker>, mut seen: ResMut<Seen>) {
        seen.0.push(q.iter().count());
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::default();
    schedule.set_build_settings(ScheduleBuildSettings {
        auto_insert_apply_deferred: false,
        ..Default::default()
    });
    schedule.add_systems((spawn, count).chain());
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [0, 1]);
}

fn expect_build_error(schedule: &mut Schedule) -> ScheduleBuildError {
    let mut world = world();
    let error = schedule.initialize(&mut world).unwrap_err();
    // Nothing was built: a second attempt fails the same way, and running
    // panics naming the schedule and the problem.
    assert_eq!(schedule.initialize(&mut world).unwrap_err(), error);
    assert!(schedule.execution_order().is_none());
    let message = expect_panic(|| schedule.run(&mut world));
    assert!(message.contains("DefaultSchedule"), "{message}");
    assert!(message.contains(&error.to_string()), "{message}");
    error
}

#[test]
fn bad_orderings_and_hierarchies_are_build_errors_naming_what_is_involved() {
    let mut schedule = Schedule::default();
    schedule.configure_sets(Physics.before(Physics));
    let error = expect_build_error(&mut schedule);
    assert_eq!(
        error.to_string(),
        "set `Physics` is ordered before or after itself"
    );

    let mut schedule = Schedule::default();
    schedule.configure_sets(Physics.in_set(Physics));
    let error = expect_build_error(&mut schedule);
    assert_eq!(
        error,
        ScheduleBuildError::HierarchyLoop("set `Physics`".into())
    );

    let mut schedule = Schedule::default();
    schedule.configure_sets((Physics.in_set(Inner), Inner.in_set(Physics)));
    let error = expect_build_error(&mut schedule);
    assert!(matches!(error, ScheduleBuildError::HierarchyCycle(ref sets) if sets.len() == 2));
    assert!(error.to_string().contains("`Physics`") && error.to_string().contains("`Inner`"));

    // A system in two chained sets that contradict.
    let mut schedule = Schedule::default();
    schedule.configure_sets((Stage::Input, Stage::Logic).chain());
    schedule.add_systems(a.in_set(Stage::Input).in_set(Stage::Logic));
    let error = expect_build_error(&mut schedule);
    assert!(
        matches!(error, ScheduleBuildError::SetsHaveOrderButIntersect(..)),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(text.contains("Input") && text.contains("Logic"), "{text}");

    // A cycle through sets.
    let mut schedule = Schedule::default();
    schedule.configure_sets((Stage::Input, Stage::Logic).chain());
    schedule.add_systems((
        a.in_set(Stage::Logic).before(b),
        b.before(Stage::Input),
        c.in_set(Stage::Input),
    ));
    let error = expect_build_error(&mut schedule);
    assert!(error.to_string().contains("cycle"), "{error}");

    // A system ordered against a set it is in.
    let mut schedule = Schedule::default();
    schedule.add_systems(a.in_set(Physics).after(Physics));
    let error = expect_build_error(&mut schedule);
    assert!(
        matches!(error, ScheduleBuildError::CrossDependency(..)),
        "{error:?}"
    );
    assert!(error.to_string().contains("::a`") && error.to_string().contains("`Physics`"));

    // A system ordered against a function with no system here.
    let mut schedule = Schedule::default();
    schedule.add_systems(a.after(e));
    let error = expect_build_error(&mut schedule);
    assert!(
        error.to_string().contains("not in this schedule"),
        "{error}"
    );
}

#[test]
fn putting_systems_in_a_functions_set_panics_naming_it() {
    let message = expect_panic(|| {
        let _ = b.in_set(a.into_system_set());
    });
    assert!(message.contains("::a"), "{message}");
}

#[test]
fn conflicting_systems_are_listed_in_run_order_unless_accepted() {
    let mut world = world();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::default();
    schedule.add_systems((
        a,
        b,
        bump,
        c.ambiguous_with(a).ambiguous_with(b),
        d.ambiguous_with_all(),
    ));
    schedule.initialize(&mut world).unwrap();
    let graph = schedule.graph();
    let pairs: Vec<(String, String)> = graph
        .conflicting_systems()
        .iter()
        .map(|&(x, y, _)| {
            (
                graph.system_name(x).into_owned(),
                graph.system_name(y).into_owned(),
            )
        })
        .collect();
    let short: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(x, y)| {
            (
                x.rsplit("::").next().unwrap(),
                y.rsplit("::").next().unwrap(),
            )
        })
        .collect();
    assert_eq!(short, [("a", "b")]);
    let mut strict = Schedule::default();
    strict.add_systems((a, b));
    strict.set_build_settings(ScheduleBuildSettings {
        ambiguity_detection: LogLevel::Error,
        ..Default::default()
    });
    let error = strict.initialize(&mut world).unwrap_err();
    assert!(error.to_string().contains("::a` runs before `"), "{error}");
    strict.add_systems(e.ambiguous_with_all());
    strict.set_build_settings(ScheduleBuildSettings::default());
    strict.initialize(&mut world).unwrap();
}

#[test]
fn a_panicking_condition_is_named_and_the_world_stays_usable() {
    fn explode() -> bool {
        panic!("condition exploded")
    }
    both_executors(|mut schedule| {
        let mut world = world();
        schedule.add_systems((a, b.run_if(explode)));
        let message = expect_panic(|| schedule.run(&mut world));
        assert!(message.contains("run condition"), "{message}");
        assert!(message.contains("explode"), "{message}");
        assert!(message.contains("condition exploded"), "{message}");
        world.resource_mut::<Log>().0.push("after");
        assert!(world.resource::<Log>().0.contains(&"after"));
    });
}

#[test]
fn a_schedule_with_sets_runs_the_same_on_both_executors() {
    // 30 systems in nested, chained, guarded sets: the log is identical.
    fn run(kind: ExecutorKind) -> Vec<&'static str> {
        let mut world = world();
        world.insert_resource(Gate(false));
        world.init_resource::<Counter>();
        let mut schedule = Schedule::default();
        schedule.set_executor_kind(kind);
        schedule.configure_sets((Stage::Input, Stage::Logic, Stage::Render).chain());
        schedule.configure_sets(Physics.in_set(Stage::Logic).run_if(is_even));
        schedule.configure_sets(Inner.in_set(Physics));
        schedule.add_systems((
            (a, b).chain().in_set(Stage::Input),
            (c, d).in_set(Inner),
            e.in_set(Physics),
            bump.in_set(Stage::Render),
            (a, b).chain().in_set(Stage::Render).run_if(gate_open),
        ));
        for _ in 0..6 {
            schedule.run(&mut world);
        }
        world.remove_resource::<Log>().unwrap().0
    }
    assert_eq!(
        run(ExecutorKind::SingleThreaded),
        run(ExecutorKind::MultiThreaded)
    );
}

#[test]
fn a_fixed_step_schedule_with_sets_and_a_condition_runs_from_an_exclusive_system() {
    #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    struct Fixed;
    #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    struct Frame;
    #[derive(Resource)]
    struct Accumulator {
        left: u32,
        frame: u32,
    }
    #[derive(Resource)]
    struct Paused;
    fn step_all(world: &mut World) {
        let frame = world.resource::<Accumulator>().frame;
        world.resource_mut::<Accumulator>().left += frame;
        while world.resource::<Accumulator>().left >= 10 {
            world.resource_mut::<Accumulator>().left -= 10;
            world.run_schedule(Fixed);
        }
    }
    let mut world = world();
    world.insert_resource(Accumulator { left: 0, frame: 0 });
    let mut fixed = Schedule::new(Fixed);
    fixed.configure_sets(
        (Stage::Input, Stage::Logic)
            .chain()
            .run_if(not(resource_exists::<Paused>)),
    );
    fixed.add_systems((
        b.in_set(Stage::Logic),
        a.in_set(Stage::Input),
        c.after(Stage::Logic),
    ));
    world.add_schedule(fixed);
    let mut frame = Schedule::new(Frame);
    frame.add_systems(step_all);
    world.add_schedule(frame);
    // Frames of 25, 5 and 0 time units: 2, 1 and 0 fixed steps (the 5 left
    // from the first frame completes a step in the second); then one step
    // while paused, where only `c`, outside the guarded sets, runs.
    for length in [25, 5, 0] {
        world.resource_mut::<Accumulator>().frame = length;
        world.run_schedule(Frame);
    }
    world.insert_resource(Paused);
    world.resource_mut::<Accumulator>().frame = 10;
    world.run_schedule(Frame);
    assert_eq!(
        world.resource::<Log>().0,
        ["a", "b", "c", "a", "b", "c", "a", "b", "c", "c"]
    );
}

#[test]
fn ambiguities_can_be_accepted_per_pair_and_per_resource() {
    #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    struct Update;
    fn bump_again(mut counter: ResMut<Counter>) {
        counter.0 += 10;
    }
    let strict = ScheduleBuildSettings {
        ambiguity_detection: LogLevel::Error,
        ..Default::default()
    };
    let mut world = world();
    world.init_resource::<Counter>();
    world.init_resource::<Schedules>();
    world
        .resource_mut::<Schedules>()
        .add_systems(Update, (bump, bump_again, a, b.after(a)))
        .configure_schedules(strict.clone());
    let message = expect_panic(|| world.run_schedule(Update));
    assert!(message.contains("::bump` runs before `"), "{message}");
    assert!(
        message.contains("(conflict on `system_sets::Counter`)"),
        "{message}"
    );
    world
        .resource_mut::<Schedules>()
        .ignore_ambiguity(Update, bump, bump_again);
    // `a` and `b` both write `Log`, but they are ordered.
    world.run_schedule(Update);
    assert_eq!(world.resource::<Counter>().0, 11);

    let mut schedules = world.remove_resource::<Schedules>().unwrap();
    schedules.add_systems(Update, (c, d));
    schedules.configure_schedules(strict);
    world.insert_resource(schedules);
    assert!(expect_panic(|| world.run_schedule(Update)).contains("::c` runs before `"));
    world.resource_scope(|world, mut schedules: Mut<Schedules>| {
        schedules.allow_ambiguous_resource::<Log>(world);
    });
    world.run_schedule(Update);
    assert_eq!(world.resource::<Counter>().0, 22);
}

#[test]
fn an_ordering_through_an_empty_set_still_orders_its_neighbours() {
    #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
    struct Empty;
    both_executors(|mut schedule| {
        let mut world = world();
        schedule.configure_sets((Stage::Input, Empty, Stage::Logic).chain());
        schedule.add_systems((b.in_set(Stage::Logic), a.in_set(Stage::Input)));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Log>().0, ["a", "b"]);
    });
}

#[test]
fn ambiguous_with_on_a_set_covers_its_systems() {
    let mut world = world();
    let mut schedule = Schedule::default();
    schedule.configure_sets(Physics.ambiguous_with(Inner));
    schedule.add_systems((a.in_set(Physics), b.in_set(Inner), c));
    schedule.initialize(&mut world).unwrap();
    let graph = schedule.graph();
    let pairs: Vec<String> = graph
        .conflicting_systems()
        .iter()
        .map(|&(x, y, _)| format!("{} {}", graph.system_name(x), graph.system_name(y)))
        .collect();
    // a–b accepted by the set; a–c and b–c still reported.
    assert_eq!(pairs.len(), 2, "{pairs:?}");
    assert!(pairs.iter().all(|p| p.ends_with("::c")), "{pairs:?}");
}

#[test]
fn a_set_condition_may_itself_iterate_in_parallel() {
    // The condition runs on the thread driving the schedule, so a
    // condition using rayon does not wait on workers busy with its set.
    #[derive(Component)]
    struct P(u32);
    fn any_big(q: Query<&P>) -> bool {
        let big = AtomicUsize::new(0);
        q.par_iter().for_each(|p| {
            if p.0 > 5 {
                big.fetch_add(1, Ordering::Relaxed);
            }
        });
        big.load(Ordering::Relaxed) > 0
    }
    fn w(_q: Query<&P>) {}
    // Under Miri, a few runs over fewer entities keep the test short.
    let (entities, runs) = if cfg!(miri) { (64, 3) } else { (2000, 200) };
    let mut world = World::new();
    world.spawn_batch((0..entities).map(P));
    let mut schedule = Schedule::default();
    schedule.configure_sets(Physics.run_if(any_big));
    schedule.add_systems((w, w, w, w, w, w).in_set(Physics));
    for _ in 0..runs {
        schedule.run(&mut world);
    }
}

#[test]
fn a_panicking_set_condition_is_evaluated_once_per_run() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    fn explode() -> bool {
        CALLS.fetch_add(1, Ordering::SeqCst);
        panic!("set condition exploded")
    }
    both_executors(|mut schedule| {
        CALLS.store(0, Ordering::SeqCst);
        let mut world = world();
        schedule.configure_sets(Physics.run_if(explode));
        schedule.add_systems((a, b, c, d).in_set(Physics));
        let message = expect_panic(|| schedule.run(&mut world));
        assert!(message.contains("set condition exploded"), "{message}");
        assert_eq!(CALLS.load(Ordering::SeqCst), 1);
        assert!(world.resource::<Log>().0.is_empty());
    });
}

#[derive(Component)]
struct Spawned(&'static str);

fn spawned(world: &mut World) -> Vec<&'static str> {
    let mut names: Vec<_> = world.query::<&Spawned>().iter(world).map(|s| s.0).collect();
    names.sort_unstable();
    names
}

#[test]
fn without_final_apply_commands_wait_for_apply_deferred() {
    both_executors(|mut schedule| {
        let mut world = world();
        schedule.set_apply_final_deferred(false);
        schedule.add_systems(
            (
                |mut commands: Commands| {
                    commands.spawn(Spawned("first"));
                },
                // Ordered after `first` with automatic sync points: it sees
                // `first`'s entity, whose commands are applied mid-run.
                |query: Query<&Spawned>, mut log: ResMut<Log>, mut commands: Commands| {
                    log.0.push(if query.iter().count() == 1 {
                        "saw first"
                    } else {
                        "missed first"
                    });
                    commands.spawn(Spawned("second"));
                },
            )
                .chain(),
        );
        schedule.run(&mut world);
        assert_eq!(world.resource::<Log>().0, ["saw first"]);
        assert_eq!(spawned(&mut world), ["first"]);

        // A second run records more: the pending commands wait in order.
        world.despawn_all::<With<Spawned>>();
        schedule.run(&mut world);
        assert_eq!(spawned(&mut world), ["first"]);
        schedule.apply_deferred(&mut world);
        assert_eq!(spawned(&mut world), ["first", "second", "second"]);

        // On again, a run applies everything.
        schedule.set_apply_final_deferred(true);
        world.despawn_all::<With<Spawned>>();
        schedule.run(&mut world);
        assert_eq!(spawned(&mut world), ["first", "second"]);
        schedule.apply_deferred(&mut world);
        assert_eq!(spawned(&mut world), ["first", "second"]);
    });
}

#[test]
fn without_final_apply_an_apply_deferred_still_applies_what_runs_before_it() {
    both_executors(|mut schedule| {
        let mut world = world();
        schedule.set_apply_final_deferred(false);
        schedule.add_systems(
            (
                |mut commands: Commands| {
                    commands.spawn(Spawned("before"));
                },
                ApplyDeferred,
                |mut commands: Commands| {
                    commands.spawn(Spawned("after"));
                },
            )
                .chain_ignore_deferred(),
        );
        schedule.run(&mut world);
        assert_eq!(spawned(&mut world), ["before"]);
        schedule.apply_deferred(&mut world);
        assert_eq!(spawned(&mut world), ["after", "before"]);
    });
}

#[test]
fn apply_deferred_names_the_system_whose_command_panics_and_keeps_the_rest_queued() {
    let mut world = world();
    let mut schedule = Schedule::default();
    schedule.set_apply_final_deferred(false);
    fn failing(mut commands: Commands) {
        commands.spawn(Spawned("kept"));
        commands.queue(|_: &mut World| panic!("bad command"));
        commands.spawn(Spawned("dropped"));
    }
    fn later(mut commands: Commands) {
        commands.spawn(Spawned("later"));
    }
    schedule.add_systems((failing, later).chain_ignore_deferred());
    // Before the first run nothing is queued.
    schedule.apply_deferred(&mut world);
    assert!(spawned(&mut world).is_empty());

    schedule.run(&mut world);
    let message = expect_panic(|| schedule.apply_deferred(&mut world));
    assert!(message.contains("failing"), "{message}");
    assert!(message.contains("bad command"), "{message}");
    assert_eq!(spawned(&mut world), ["kept"]);
    schedule.apply_deferred(&mut world);
    assert_eq!(spawned(&mut world), ["kept", "later"]);
}

#[test]
fn node_ids_say_what_they_are() {
    let mut schedule = Schedule::default();
    schedule.add_systems(a.in_set(Physics));
    let graph = schedule.graph();
    let (system, _) = graph.systems().next().expect("one system");
    let (set, _) = graph
        .system_sets()
        .find(|&(_, s)| s == Physics.intern())
        .expect("the set");
    let system_node = ecs::schedule::NodeId::from(system);
    let set_node = ecs::schedule::NodeId::from(set);
    assert!(system_node.is_system() && !system_node.is_set());
    assert!(set_node.is_set() && !set_node.is_system());
    assert_eq!(system_node.as_system(), Some(system));
    assert_eq!(system_node.as_set(), None);
    assert_eq!(set_node.as_set(), Some(set));
    assert_eq!(set_node.as_system(), None);
}

mod removal {
    use super::*;
    use ecs::schedule::{ScheduleCleanupPolicy, ScheduleError};

    #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
    struct Debug;

    #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
    struct Outer;

    #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
    struct Sub;

    /// `c`, `b`, `a` added in that order, ordered `a` → `b` (in `Debug`)
    /// → `c`: only the orderings put `a` first.
    fn ordered(schedule: &mut Schedule) {
        schedule.add_systems((c.after(b), b.in_set(Debug), a.before(Debug)));
    }

    #[test]
    fn bridging_keeps_what_ran_through_the_removed_systems_in_order() {
        both_executors(|mut schedule| {
            let mut world = world();
            ordered(&mut schedule);
            schedule.run(&mut world);
            assert_eq!(world.resource::<Log>().0, ["a", "b", "c"]);
            let removed = schedule
                .remove_systems_in_set(Debug, &mut world, ScheduleCleanupPolicy::default())
                .unwrap();
            assert_eq!(removed, 1);
            assert_eq!(schedule.systems_len(), 2);
            world.resource_mut::<Log>().0.clear();
            schedule.run(&mut world);
            assert_eq!(world.resource::<Log>().0, ["a", "c"]);
            // The set is gone too.
            assert_eq!(
                schedule.remove_systems_in_set(Debug, &mut world, ScheduleCleanupPolicy::default()),
                Err(ScheduleError::SetNotFound)
            );
        });
    }

    #[test]
    fn breaking_policies_drop_the_orderings_through_the_removed_systems() {
        both_executors(|mut schedule| {
            let mut world = world();
            ordered(&mut schedule);
            schedule
                .remove_systems_in_set(
                    Debug,
                    &mut world,
                    ScheduleCleanupPolicy::RemoveSetAndSystemsAllowBreakages,
                )
                .unwrap();
            schedule.run(&mut world);
            // Unordered conflicting systems run in the order added.
            assert_eq!(world.resource::<Log>().0, ["c", "a"]);
        });
    }

    #[test]
    fn removing_a_system_function_removes_its_systems_and_the_orderings_against_it() {
        for policy in [
            ScheduleCleanupPolicy::RemoveSetAndSystems,
            ScheduleCleanupPolicy::RemoveSystemsOnly,
            ScheduleCleanupPolicy::RemoveSetAndSystemsAllowBreakages,
            ScheduleCleanupPolicy::RemoveSystemsOnlyAllowBreakages,
        ] {
            let mut world = world();
            let mut schedule = Schedule::default();
            // `c` orders itself against the function `b`, twice added.
            schedule.add_systems((c.after(b), b, b, a.before(b)));
            assert_eq!(
                schedule.remove_systems_in_set(b, &mut world, policy),
                Ok(2),
                "{policy:?}"
            );
            schedule.run(&mut world);
            let expected: &[&str] = match policy {
                ScheduleCleanupPolicy::RemoveSetAndSystems
                | ScheduleCleanupPolicy::RemoveSystemsOnly => &["a", "c"],
                _ => &["c", "a"],
            };
            assert_eq!(world.resource::<Log>().0, expected, "{policy:?}");
            assert_eq!(
                schedule.remove_systems_in_set(b, &mut world, policy),
                Err(ScheduleError::SetNotFound)
            );
        }
    }

    #[test]
    fn removing_systems_only_keeps_the_set_its_conditions_and_its_orderings() {
        let mut world = world();
        world.insert_resource(Gate(false));
        let mut schedule = Schedule::default();
        schedule.configure_sets((Debug.run_if(|gate: Res<Gate>| gate.0), Debug.after(a)));
        schedule.add_systems((b.in_set(Debug), d.after(Debug), a));
        assert_eq!(
            schedule.remove_systems_in_set(
                Debug,
                &mut world,
                ScheduleCleanupPolicy::RemoveSystemsOnly
            ),
            Ok(1)
        );
        schedule.run(&mut world);
        // `a` -> (empty Debug) -> `d` still orders `a` first.
        assert_eq!(world.resource::<Log>().0, ["a", "d"]);
        // A system added to the kept set is under its condition again.
        schedule.add_systems(e.in_set(Debug));
        world.resource_mut::<Log>().0.clear();
        schedule.run(&mut world);
        assert_eq!(world.resource::<Log>().0, ["a", "d"]);
        world.resource_mut::<Gate>().0 = true;
        world.resource_mut::<Log>().0.clear();
        schedule.run(&mut world);
        assert_eq!(world.resource::<Log>().0, ["a", "e", "d"]);
    }

    #[derive(Resource)]
    struct Gate(bool);

    #[test]
    fn sets_in_a_removed_set_move_into_its_parents() {
        let mut world = world();
        world.insert_resource(Gate(false));
        let mut schedule = Schedule::default();
        schedule.configure_sets((
            Outer.run_if(|gate: Res<Gate>| gate.0),
            Debug.in_set(Outer),
            Sub.in_set(Debug),
        ));
        schedule.add_systems((a.in_set(Sub), b.in_set(Debug), c));
        assert_eq!(
            schedule.remove_systems_in_set(Debug, &mut world, ScheduleCleanupPolicy::default()),
            Ok(2),
            "the systems of the sets inside go too"
        );
        schedule.add_systems(d.in_set(Sub));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Log>().0, ["c"], "Sub is now in Outer");
        world.resource_mut::<Gate>().0 = true;
        schedule.run(&mut world);
        assert_eq!(world.resource::<Log>().0, ["c", "c", "d"]);
    }

    #[test]
    fn removed_systems_are_dropped_and_errors_change_nothing() {
        struct Token(std::sync::Arc<AtomicUsize>);
        impl Drop for Token {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let drops = std::sync::Arc::new(AtomicUsize::new(0));
        let token = Token(drops.clone());
        let mut world = world();
        let mut schedule = Schedule::default();
        schedule.set_timing(true);
        schedule.add_systems((
            a,
            (move || {
                let _held = &token;
            })
            .in_set(Debug),
        ));
        schedule.run(&mut world);
        assert_eq!(
            schedule.remove_systems_in_set(Outer, &mut world, ScheduleCleanupPolicy::default()),
            Err(ScheduleError::SetNotFound)
        );
        assert_eq!(schedule.systems_len(), 2);
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        schedule
            .remove_systems_in_set(Debug, &mut world, ScheduleCleanupPolicy::default())
            .unwrap();
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        schedule.run(&mut world);
        let timings = schedule.system_timings();
        assert_eq!(timings.len(), 1);
        assert!(timings[0].name.ends_with("::a"), "{}", timings[0].name);
        assert_eq!(timings[0].runs, 2);
    }

    #[test]
    fn schedules_remove_by_label() {
        #[derive(ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
        struct Update;
        #[derive(ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
        struct Missing;
        let mut world = world();
        let mut schedules = Schedules::default();
        schedules.add_systems(Update, (a, b.in_set(Debug)));
        assert_eq!(
            schedules.remove_systems_in_set(
                Missing,
                Debug,
                &mut world,
                ScheduleCleanupPolicy::default()
            ),
            Err(ScheduleError::ScheduleNotFound)
        );
        assert_eq!(
            schedules.remove_systems_in_set(
                Update,
                Debug,
                &mut world,
                ScheduleCleanupPolicy::default()
            ),
            Ok(1)
        );
        world.insert_resource(schedules);
        world.run_schedule(Update);
        assert_eq!(world.resource::<Log>().0, ["a"]);
    }
}

mod removal_edge_cases {
    use super::*;
    use ecs::schedule::{ScheduleCleanupPolicy, ScheduleError};

    #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
    enum S {
        Outer,
        Inner,
        Early,
        Late,
        Debug,
    }

    #[test]
    fn bridging_never_orders_a_set_against_a_set_in_it() {
        for policy in [
            ScheduleCleanupPolicy::RemoveSetAndSystems,
            ScheduleCleanupPolicy::RemoveSystemsOnly,
        ] {
            let mut world = world();
            let mut schedule = Schedule::default();
            schedule.configure_sets((
                S::Inner.in_set(S::Outer),
                S::Outer.before(S::Early),
                S::Late.before(S::Inner),
            ));
            schedule.add_systems((
                a.in_set(S::Outer),
                b.in_set(S::Early).in_set(S::Late).in_set(S::Debug),
            ));
            schedule.initialize(&mut world).unwrap();
            assert_eq!(
                schedule.remove_systems_in_set(S::Debug, &mut world, policy),
                Ok(1)
            );
            schedule.initialize(&mut world).unwrap();
            schedule.run(&mut world);
            assert_eq!(world.resource::<Log>().0, ["a"], "{policy:?}");
        }
    }

    #[test]
    fn a_panicking_drop_of_a_removed_system_leaves_the_schedule_whole() {
        struct Bomb;
        impl Drop for Bomb {
            fn drop(&mut self) {
                panic!("bomb");
            }
        }
        let mut world = world();
        let mut schedule = Schedule::default();
        schedule.set_timing(true);
        let bomb = Bomb;
        schedule.add_systems((
            a,
            (move || {
                let _held = &bomb;
            })
            .in_set(S::Debug),
            c.run_if(|| false),
        ));
        schedule.run(&mut world);
        let message = expect_panic(|| {
            schedule.remove_systems_in_set(S::Debug, &mut world, ScheduleCleanupPolicy::default())
        });
        assert!(message.contains("bomb"), "{message}");
        assert_eq!(schedule.systems_len(), 2);
        schedule.add_systems(b.run_if(|| true));
        world.resource_mut::<Log>().0.clear();
        schedule.run(&mut world);
        // `c` keeps its own condition; `b` has its own.
        assert_eq!(world.resource::<Log>().0, ["a", "b"]);
        assert_eq!(schedule.system_timings().len(), 3);
    }

    #[test]
    fn a_schedule_that_cannot_be_built_removes_nothing() {
        let mut world = world();
        let mut schedule = Schedule::default();
        schedule.configure_sets(S::Outer.before(S::Outer));
        schedule.add_systems((a.in_set(S::Debug), b));
        let result =
            schedule.remove_systems_in_set(S::Debug, &mut world, ScheduleCleanupPolicy::default());
        assert!(
            matches!(result, Err(ScheduleError::ScheduleBuildError(_))),
            "{result:?}"
        );
        assert_eq!(schedule.systems_len(), 2);
        assert_eq!(ScheduleError::SetNotFound.to_string(), "Set not found");
    }

    #[test]
    fn apply_deferred_after_a_change_keeps_the_orderings() {
        fn early(mut commands: Commands) {
            commands.queue(|world: &mut World| world.resource_mut::<Log>().0.push("early"));
        }
        fn late(mut commands: Commands) {
            commands.queue(|world: &mut World| world.resource_mut::<Log>().0.push("late"));
        }
        let mut world = world();
        let mut schedule = Schedule::default();
        schedule.set_apply_final_deferred(false);
        schedule.add_systems((late.after_ignore_deferred(early), early, b.in_set(S::Debug)));
        schedule.run(&mut world);
        schedule
            .remove_systems_in_set(S::Debug, &mut world, ScheduleCleanupPolicy::default())
            .unwrap();
        world.resource_mut::<Log>().0.clear();
        schedule.apply_deferred(&mut world);
        assert_eq!(world.resource::<Log>().0, ["early", "late"]);
    }
}
