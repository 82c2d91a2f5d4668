//! Systems, schedules and commands. Tests that start rayon threads are
//! named `parallel_*` (Miri runs them under Tree Borrows only; see
//! `.ci/run`).

use std::{
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Mutex,
    },
    time::{Duration, Instant},
};

use crate::prelude::*;
use crate::{schedule::ExecutorKind, system::CommandQueue};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct A(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct B(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct C(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct D(u32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct E(u32);
#[derive(Component)]
#[component(storage = "SparseSet")]
struct Marker;

#[derive(Resource, Default, Debug)]
struct Trace(Vec<&'static str>);

fn push(name: &'static str) -> impl FnMut(ResMut<Trace>) {
    move |mut t: ResMut<Trace>| t.0.push(name)
}

fn trace_world() -> World {
    let mut world = World::new();
    world.init_resource::<Trace>();
    world
}

#[test]
fn a_function_system_reads_and_writes() {
    fn movement(mut q: Query<(&mut A, &B)>) {
        for (mut a, b) in &mut q {
            a.0 += b.0;
        }
    }
    let mut world = World::new();
    let e = world.spawn((A(1), B(10))).id();
    world.run_system_once(movement).unwrap();
    world.run_system_once(movement).unwrap();
    assert_eq!(world.get::<A>(e), Some(&A(21)));
    let count = world
        .run_system_once(|q: Query<&A>| q.iter().count())
        .unwrap();
    assert_eq!(count, 1);
}

#[test]
fn query_param_methods() {
    let mut world = World::new();
    let a = world.spawn((A(1), B(1), Marker)).id();
    let b = world.spawn(A(2)).id();
    world
        .run_system_once(
            move |mut q: Query<(Entity, &mut A)>, single: Query<&B, With<Marker>>| {
                assert_eq!(single.single().unwrap().0, 1);
                assert_eq!(q.get(b).unwrap().1 .0, 2);
                let [mut x, mut y] = q.get_many_mut([a, b]).unwrap();
                std::mem::swap(&mut x.1 .0, &mut y.1 .0);
                assert!(q.get_many_mut([a, a]).is_err());
                assert_eq!(q.iter().count(), 2);
                assert!(!q.is_empty());
                q.get_mut(a).unwrap().1 .0 += 10;
                assert!(q.single_mut().is_err());
            },
        )
        .unwrap();
    assert_eq!(world.get::<A>(a), Some(&A(12)));
    assert_eq!(world.get::<A>(b), Some(&A(1)));
}

#[test]
#[should_panic(expected = "conflicts with an earlier parameter on `ecs_core::system::tests::A`")]
fn conflicting_parameters_panic_naming_system_and_component() {
    fn bad(_: Query<&mut A>, _: Query<&A>) {}
    let mut world = World::new();
    world.run_system_once(bad).unwrap();
}

#[test]
fn conflicting_parameter_message_names_the_system() {
    fn bad_system(_: Query<&mut A>, _: Query<(&A, &B)>) {}
    let mut world = World::new();
    let error = catch_unwind(AssertUnwindSafe(|| {
        world.run_system_once(bad_system).unwrap()
    }))
    .unwrap_err();
    let message = error.downcast_ref::<String>().unwrap();
    assert!(message.starts_with("error[B0001]: "), "{message}");
    assert!(message.contains("bad_system"), "{message}");
    assert!(message.contains("::A`"), "{message}");
}

#[test]
fn disjoint_filters_make_parameters_compatible() {
    fn ok(mut with: Query<&mut A, With<Marker>>, mut without: Query<&mut A, Without<Marker>>) {
        for mut a in &mut with {
            a.0 += 100;
        }
        for mut a in &mut without {
            a.0 += 1;
        }
    }
    let mut world = World::new();
    let m = world.spawn((A(0), Marker)).id();
    let n = world.spawn(A(0)).id();
    world.run_system_once(ok).unwrap();
    assert_eq!(
        (world.get::<A>(m).unwrap().0, world.get::<A>(n).unwrap().0),
        (100, 1)
    );
}

#[test]
#[should_panic(expected = "error[B0002]: system")]
fn res_and_res_mut_of_one_resource_conflict() {
    let mut world = trace_world();
    world
        .run_system_once(|_: Res<Trace>, _: ResMut<Trace>| {})
        .unwrap();
}

#[test]
fn resources_options_locals_and_world() {
    let mut world = trace_world();
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems(
        (
            |mut counter: Local<u32>, mut t: ResMut<Trace>| {
                *counter += 1;
                if *counter == 3 {
                    t.0.push("third run");
                }
            },
            |missing: Option<Res<Marker2>>, missing_mut: Option<ResMut<Marker3>>| {
                assert!(missing.is_none() && missing_mut.is_none());
            },
            |world: &World| assert!(world.contains_resource::<Trace>()),
        )
            .chain(),
    );
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Trace>().0, ["third run"]);
}

#[derive(Resource)]
struct Marker2;
#[derive(Resource)]
struct Marker3;

#[test]
#[should_panic(expected = "resource `ecs_core::system::tests::Marker2` requested by system")]
fn a_missing_resource_panics_naming_it_and_the_system() {
    let mut world = World::new();
    world.run_system_once(|_: Res<Marker2>| {}).unwrap();
}

#[test]
fn parallel_exclusive_systems_get_the_world() {
    let mut world = trace_world();
    let mut schedule = Schedule::default();
    schedule.add_systems((
        push("before"),
        (|world: &mut World| {
            world.spawn(A(7));
            world.resource_mut::<Trace>().0.push("exclusive");
        })
        .after(push_before),
    ));
    // `push("before")` returns a closure type; order by a named function
    // instead.
    fn push_before(mut t: ResMut<Trace>) {
        t.0.push("named");
    }
    schedule.add_systems(push_before);
    schedule.run(&mut world);
    let trace = &world.resource::<Trace>().0;
    let named = trace.iter().position(|s| *s == "named").unwrap();
    let exclusive = trace.iter().position(|s| *s == "exclusive").unwrap();
    assert!(named < exclusive, "{trace:?}");
    assert_eq!(world.query::<&A>().iter(&world).count(), 1);
}

/// What an exclusive system saw on each run: `Added<A>` and `Changed<A>`
/// counts from a world query, and whether `get_ref` reported a change.
#[derive(Resource, Default)]
struct SeenByExclusive(Vec<(usize, usize, bool)>);

fn exclusive_watcher(world: &mut World) {
    let added = world
        .query_filtered::<Entity, Added<A>>()
        .iter(world)
        .count();
    let changed = world
        .query_filtered::<Entity, Changed<A>>()
        .iter(world)
        .count();
    let first = world.query_filtered::<Entity, With<A>>().iter(world).next();
    let ref_changed = first.is_some_and(|e| world.get_ref::<A>(e).unwrap().is_changed());
    world
        .resource_mut::<SeenByExclusive>()
        .0
        .push((added, changed, ref_changed));
    // Its own write must not show up on its next run.
    for mut a in world.query_filtered::<&mut A, With<B>>().iter_mut(world) {
        a.0 += 1;
    }
}

#[test]
fn exclusive_systems_see_changes_since_their_last_run() {
    let mut world = World::new();
    world.init_resource::<SeenByExclusive>();
    let watched = world.spawn(A(1)).id();
    world.spawn((A(10), B(0)));
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems(exclusive_watcher);
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.get_mut::<A>(watched).unwrap().0 = 2;
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.spawn(A(3));
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<SeenByExclusive>().0,
        [
            (2, 2, true),
            (0, 0, false),
            (0, 1, true),
            (0, 0, false),
            (1, 1, false)
        ]
    );
    // Outside systems the world's own frame is back: nothing was cleared,
    // so everything still counts as added.
    assert_eq!(
        world
            .query_filtered::<Entity, Added<A>>()
            .iter(&world)
            .count(),
        3
    );
}

#[test]
fn an_exclusive_system_panicking_leaves_the_worlds_tick_frame() {
    let mut world = World::new();
    world.spawn(A(1));
    world.clear_trackers();
    let before = world.last_change_tick();
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems(|_: &mut World| panic!("exclusive boom"));
    let err = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(
        msg.starts_with("system `") && msg.ends_with("` panicked: exclusive boom"),
        "{msg}"
    );
    assert_eq!(world.last_change_tick(), before);
}

fn first(mut t: ResMut<Trace>) {
    t.0.push("first");
}
fn second(mut t: ResMut<Trace>) {
    t.0.push("second");
}
fn third(mut t: ResMut<Trace>) {
    t.0.push("third");
}

#[test]
fn parallel_before_after_and_chain_order_systems() {
    for kind in [ExecutorKind::MultiThreaded, ExecutorKind::SingleThreaded] {
        let mut schedule = Schedule::default();
        schedule.set_executor_kind(kind);
        let mut world = trace_world();
        schedule.add_systems((third.after(second), second.after(first), first));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Trace>().0, ["first", "second", "third"]);

        let mut schedule = Schedule::default();

        schedule.set_executor_kind(kind);
        let mut world = trace_world();
        schedule.add_systems((third, first.before(second), second.before(third)));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Trace>().0, ["first", "second", "third"]);

        let mut schedule = Schedule::default();

        schedule.set_executor_kind(kind);
        let mut world = trace_world();
        schedule.add_systems((third, second, first).chain());
        schedule.run(&mut world);
        assert_eq!(world.resource::<Trace>().0, ["third", "second", "first"]);
    }
}

#[test]
fn schedules_take_built_and_boxed_systems_and_order_against_them() {
    use crate::schedule::ScheduleConfigs;
    use crate::system::ScheduleSystem;

    let mut world = trace_world();
    let mut schedule = Schedule::single_threaded();
    let built = IntoSystem::into_system(second);
    let boxed: ScheduleSystem = Box::new(IntoSystem::into_system(first));
    // A config built ahead of time is itself schedulable.
    let later: ScheduleConfigs<ScheduleSystem> = third.after(IntoSystem::into_system(second));
    schedule.add_systems((later, built.after(first), boxed));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Trace>().0, ["first", "second", "third"]);
}

#[test]
fn a_cycle_panics_naming_its_systems() {
    let mut schedule = Schedule::default();
    schedule.add_systems((first.after(third), second.after(first), third.after(second)));
    let mut world = trace_world();
    let error = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).unwrap_err();
    let message = error.downcast_ref::<String>().unwrap();
    assert!(message.contains("cycle"), "{message}");
    for name in ["tests::first", "tests::second", "tests::third"] {
        assert!(message.contains(name), "{message}");
    }
}

#[test]
#[should_panic(
    expected = "is ordered after `ecs_core::system::tests::second`, which is not in this schedule"
)]
fn ordering_against_a_missing_system_panics() {
    let mut schedule = Schedule::default();
    schedule.add_systems(first.after(second));
    schedule.run(&mut trace_world());
}

#[test]
fn parallel_commands_apply_before_systems_ordered_after() {
    fn spawner(mut commands: Commands) {
        let e = commands.spawn(A(1)).id();
        commands.entity(e).insert(B(2));
    }
    fn reader(q: Query<(&A, &B)>, mut t: ResMut<Trace>) {
        if q.iter().count() == 1 {
            t.0.push("saw the spawn");
        }
    }
    for mut schedule in [Schedule::default(), Schedule::single_threaded()] {
        let mut world = trace_world();
        schedule.add_systems((spawner, reader.after(spawner)));
        schedule.run(&mut world);
        assert_eq!(world.resource::<Trace>().0, ["saw the spawn"]);
        // Applied at the end of the run as well: 2 entities after 2 runs.
        schedule.run(&mut world);
        assert_eq!(world.query::<&A>().iter(&world).count(), 2);
    }
}

#[test]
fn commands_queue_resources_and_despawns_and_ignore_dead_targets() {
    let mut world = World::new();
    let doomed = world.spawn(A(0)).id();
    let mut queue = CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    commands.insert_resource(Trace(vec!["inserted"]));
    commands.entity(doomed).despawn();
    // Aimed at an entity that is gone by the time these apply (`insert`
    // would report to the error handler, which panics by default).
    commands.entity(doomed).try_insert(B(1)).remove::<A>();
    commands.entity(doomed).despawn();
    let spawned = commands.spawn_empty().id();
    commands.entity(spawned).insert((A(5), B(6)));
    commands.spawn_batch((0..3).map(C));
    commands.queue(|world: &mut World| world.resource_mut::<Trace>().0.push("custom"));
    queue.apply(&mut world);
    assert!(!world.contains_entity(doomed));
    assert_eq!(world.resource::<Trace>().0, ["inserted", "custom"]);
    assert_eq!(world.get::<B>(spawned), Some(&B(6)));
    assert_eq!(world.query::<&C>().iter(&world).count(), 3);
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).remove_resource::<Trace>();
    queue.apply(&mut world);
    assert!(!world.contains_resource::<Trace>());
}

#[test]
fn parallel_each_system_sees_changes_since_its_own_last_run() {
    #[derive(Resource, Default)]
    struct Seen(Vec<(&'static str, usize)>);
    fn writer(mut q: Query<&mut A>, mut runs: Local<u32>) {
        *runs += 1;
        if *runs == 1 {
            for mut a in &mut q {
                a.0 += 1;
            }
        }
    }
    fn early(q: Query<(), Changed<A>>, mut seen: ResMut<Seen>) {
        seen.0.push(("early", q.iter().count()));
    }
    fn late(q: Query<(), Changed<A>>, mut seen: ResMut<Seen>) {
        seen.0.push(("late", q.iter().count()));
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.spawn_batch((0..5).map(A));
    let mut schedule = Schedule::default();
    schedule.add_systems((early, writer.after(early), late.after(writer)));
    schedule.run(&mut world);
    // Run 1: every A is new to both readers; the writer changes them
    // after `early` ran, before `late`.
    // Run 2: `early` sees the writer's change from run 1; `late` already
    // saw it.
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<Seen>().0,
        [
            ("early", 5),
            ("late", 5),
            ("early", 5),
            ("late", 0),
            ("early", 0),
            ("late", 0)
        ]
    );
}

#[test]
fn parallel_a_panicking_system_propagates_and_the_world_stays_usable() {
    fn boom(_: Query<&A>) {
        panic!("system failed");
    }
    for mut schedule in [Schedule::default(), Schedule::single_threaded()] {
        let mut world = trace_world();
        world.spawn(A(1));
        schedule.add_systems((first, boom.after(first), second.after(boom)));
        let error = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).unwrap_err();
        assert_eq!(
            *error.downcast_ref::<String>().unwrap(),
            format!(
                "system `{}` panicked: system failed",
                std::any::type_name_of_val(&boom)
            )
        );
        assert_eq!(world.resource::<Trace>().0, ["first"]);
        world.check_integrity().unwrap();
        world.spawn(A(2));
        assert_eq!(world.query::<&A>().iter(&world).count(), 2);
    }
}

/// The executor runs the last ready system itself while a worker runs
/// the one it offered; when its own panics after the worker's has
/// finished, the run still settles every offered system and ends with the
/// system's own panic (in debug builds the executor also asserts that
/// every report it takes is of a system it knows a worker claimed).
#[test]
fn parallel_a_system_panicking_beside_an_offered_one() {
    fn quick(_: Query<&A>) {}
    fn slow_boom(_: Query<&A>) {
        std::thread::sleep(std::time::Duration::from_millis(20));
        panic!("slow system failed");
    }
    let mut world = trace_world();
    world.spawn(A(1));
    let mut schedule = Schedule::default();
    schedule.add_systems((quick, slow_boom));
    for _ in 0..3 {
        let error = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).unwrap_err();
        assert_eq!(
            *error.downcast_ref::<String>().unwrap(),
            format!(
                "system `{}` panicked: slow system failed",
                std::any::type_name_of_val(&slow_boom)
            )
        );
        world.check_integrity().unwrap();
    }
    world.spawn(A(2));
    assert_eq!(world.query::<&A>().iter(&world).count(), 2);
}

#[test]
fn change_ticks_are_clamped_so_they_never_wrap_unnoticed() {
    fn reader(q: Query<(), Changed<A>>, mut seen: ResMut<Trace>) {
        if q.iter().count() > 0 {
            seen.0.push("changed");
        }
    }
    let mut world = trace_world();
    let e = world.spawn(A(0)).id();
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems(reader);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Trace>().0, ["changed"]);
    // Let the clock run far (several times the check threshold, past a
    // wrap) between runs, as a long-running game would.
    for _ in 0..6 {
        let tick = world
            .change_tick()
            .get()
            .wrapping_add(crate::change_detection::CHECK_TICK_THRESHOLD + 7);
        world.set_change_tick_for_test(crate::change_detection::Tick::new(tick));
        schedule.run(&mut world);
    }
    assert_eq!(
        world.resource::<Trace>().0,
        ["changed"],
        "an old change must not look new"
    );
    world.get_mut::<A>(e).unwrap().0 = 1;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Trace>().0, ["changed", "changed"]);
}

#[test]
fn parallel_conflicting_unordered_systems_run_in_the_order_added() {
    #[derive(Resource, Default)]
    struct Order(Vec<u8>);
    fn s1(mut o: ResMut<Order>) {
        o.0.push(1);
    }
    fn s2(mut o: ResMut<Order>) {
        o.0.push(2);
    }
    fn s3(mut o: ResMut<Order>) {
        o.0.push(3);
    }
    let runs = if cfg!(miri) { 3 } else { 200 };
    let mut world = World::new();
    world.init_resource::<Order>();
    let mut schedule = Schedule::default();
    schedule.add_systems((s2, s3, s1));
    for _ in 0..runs {
        schedule.run(&mut world);
    }
    let expected: Vec<u8> = [2, 3, 1].repeat(runs);
    assert_eq!(world.resource::<Order>().0, expected);
}

#[derive(Resource, Default)]
struct Overlap {
    started: [AtomicBool; 2],
    running: AtomicUsize,
    max_running: AtomicUsize,
    met: AtomicUsize,
}

fn wait_for(flag: &AtomicBool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !flag.load(Ordering::SeqCst) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

#[test]
fn parallel_non_conflicting_systems_overlap_in_time() {
    fn left(_: Query<&mut A>, o: Res<Overlap>) {
        o.started[0].store(true, Ordering::SeqCst);
        if wait_for(&o.started[1]) {
            o.met.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn right(_: Query<&mut B>, o: Res<Overlap>) {
        o.started[1].store(true, Ordering::SeqCst);
        if wait_for(&o.started[0]) {
            o.met.fetch_add(1, Ordering::SeqCst);
        }
    }
    let mut world = World::new();
    world.init_resource::<Overlap>();
    let mut schedule = Schedule::default();
    schedule.add_systems((left, right));
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<Overlap>().met.load(Ordering::SeqCst),
        2,
        "both saw the other running"
    );
}

#[test]
fn parallel_conflicting_systems_never_overlap() {
    fn track(o: &Overlap) {
        let now = o.running.fetch_add(1, Ordering::SeqCst) + 1;
        o.max_running.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(2));
        o.running.fetch_sub(1, Ordering::SeqCst);
    }
    fn w1(_: Query<&mut A>, o: Res<Overlap>) {
        track(&o);
    }
    fn w2(_: Query<&mut A>, o: Res<Overlap>) {
        track(&o);
    }
    fn r3(_: Query<&A>, o: Res<Overlap>) {
        track(&o);
    }
    let mut world = World::new();
    world.init_resource::<Overlap>();
    world.spawn(A(0));
    let mut schedule = Schedule::default();
    schedule.add_systems((w1, w2, r3));
    for _ in 0..20 {
        schedule.run(&mut world);
    }
    assert_eq!(
        world
            .resource::<Overlap>()
            .max_running
            .load(Ordering::SeqCst),
        1
    );
}

#[test]
fn parallel_bench_suite_schedule_scenario() {
    // ecs_bench_suite `schedule`: systems (A, B), (C, D), (C, E) over four
    // archetypes; (C, D) and (C, E) conflict on C, (A, B) conflicts with
    // neither.
    static ACTIVE: Mutex<Vec<&str>> = Mutex::new(Vec::new());
    static OVERLAPS: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());
    fn enter(name: &'static str) {
        let mut active = ACTIVE.lock().unwrap();
        for other in active.iter() {
            OVERLAPS
                .lock()
                .unwrap()
                .push((other.to_string(), name.to_string()));
        }
        active.push(name);
    }
    fn leave(name: &'static str) {
        ACTIVE.lock().unwrap().retain(|n| *n != name);
    }
    fn ab(mut q: Query<(&mut A, &mut B)>) {
        enter("ab");
        for (mut a, mut b) in &mut q {
            std::mem::swap(&mut a.0, &mut b.0);
        }
        std::thread::sleep(Duration::from_millis(5));
        leave("ab");
    }
    fn cd(mut q: Query<(&mut C, &mut D)>) {
        enter("cd");
        for (mut c, mut d) in &mut q {
            std::mem::swap(&mut c.0, &mut d.0);
        }
        std::thread::sleep(Duration::from_millis(5));
        leave("cd");
    }
    fn ce(mut q: Query<(&mut C, &mut E)>) {
        enter("ce");
        for (mut c, mut e) in &mut q {
            std::mem::swap(&mut c.0, &mut e.0);
        }
        std::thread::sleep(Duration::from_millis(5));
        leave("ce");
    }
    let mut world = World::new();
    // Interpreted, a few rows per table show the same overlaps.
    let (n, runs) = if cfg!(miri) { (8, 2) } else { (1_000, 10) };
    world.spawn_batch((0..n).map(|i| (A(i), B(0))));
    world.spawn_batch((0..n).map(|i| (A(i), B(0), C(i))));
    world.spawn_batch((0..n).map(|i| (A(i), B(0), C(i), D(0))));
    world.spawn_batch((0..n).map(|i| (A(i), B(0), C(i), E(0))));
    let mut schedule = Schedule::default();
    schedule.add_systems((ab, cd, ce));
    for _ in 0..runs {
        schedule.run(&mut world);
    }
    // An even number of swaps: every value is back where it started.
    let mut q = world.query::<(&A, &B)>();
    assert!(q.iter(&world).all(|(a, b)| b.0 == 0 && a.0 < n));
    let overlaps = OVERLAPS.lock().unwrap();
    let pair = |x: &str, y: &str| {
        overlaps
            .iter()
            .any(|(a, b)| (a == x && b == y) || (a == y && b == x))
    };
    assert!(
        !pair("cd", "ce"),
        "cd and ce conflict on C and must be serialised"
    );
    assert!(
        pair("ab", "cd") || pair("ab", "ce"),
        "ab runs in parallel with the C systems: {overlaps:?}"
    );
    let order = schedule.execution_order().unwrap();
    assert_eq!(order.len(), 3);
}

/// Captures `log` records (one logger per process: only this test sets it).
struct Capture(Mutex<Vec<(log::Level, String)>>);

impl log::Log for Capture {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn
    }
    fn log(&self, record: &log::Record<'_>) {
        self.0
            .lock()
            .unwrap()
            .push((record.level(), record.args().to_string()));
    }
    fn flush(&self) {}
}

static CAPTURE: Capture = Capture(Mutex::new(Vec::new()));

#[test]
fn warnings_on_despawned_entities_go_through_log() {
    log::set_logger(&CAPTURE).expect("only this test sets a logger");
    log::set_max_level(log::LevelFilter::Warn);
    let mut world = World::new();
    let gone = world.spawn(A(1)).id();
    world.despawn(gone);
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).entity(gone).remove::<B>();
    queue.apply(&mut world);
    let records = CAPTURE.0.lock().unwrap();
    let warning = records
        .iter()
        .find(|(level, message)| {
            *level == log::Level::Warn && message.contains(&format!("{gone:?}"))
        })
        .unwrap_or_else(|| panic!("no warning naming {gone:?}: {records:?}"));
    assert!(warning.1.contains("remove"), "{warning:?}");
    drop(records);

    // The same logger (one per process) checks the entity-event warning.
    #[derive(crate::event::EntityEvent)]
    #[ecs(crate = crate)]
    struct Knock {
        entity: Entity,
    }
    world.trigger(Knock { entity: gone });
    let records = CAPTURE.0.lock().unwrap();
    assert!(
        records
            .iter()
            .any(|(level, message)| *level == log::Level::Warn
                && message.contains("Knock")
                && message.contains(&format!("{gone:?}"))
                && message.contains("does not exist")),
        "no warning naming the event and {gone:?}: {records:?}"
    );
}

#[test]
fn a_system_refuses_a_world_it_was_not_initialised_for() {
    #[derive(Resource)]
    struct Score(u32);
    #[derive(Resource)]
    struct Decoy(#[allow(dead_code)] u32);
    fn read(score: Res<Score>) -> u32 {
        score.0
    }
    let mut a = World::new();
    a.insert_resource(Score(1));
    let mut b = World::new();
    b.insert_resource(Decoy(666));
    b.insert_resource(Score(2));
    let mut system = IntoSystem::into_system(read);
    system.initialize(&mut a);
    assert_eq!(system.run((), &mut a).unwrap(), 1);
    let error = catch_unwind(AssertUnwindSafe(|| system.run((), &mut b))).unwrap_err();
    let message = error.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("tests::") && message.contains("another world"),
        "{message}"
    );
    // A schedule refuses too.
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems(first);
    let mut world = trace_world();
    schedule.run(&mut world);
    let error = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut trace_world()))).unwrap_err();
    assert!(error
        .downcast_ref::<String>()
        .unwrap()
        .contains("another world"));
}

fn timing_schedule(executor: ExecutorKind) -> (World, Schedule) {
    fn slow(mut t: ResMut<Trace>) {
        std::thread::sleep(Duration::from_millis(20));
        t.0.push("slow");
    }
    fn spawns(mut commands: Commands) {
        commands.spawn(A(1));
    }
    fn reads(q: Query<&A>, mut seen: Local<usize>) {
        *seen = q.iter().count();
    }
    let mut world = trace_world();
    let mut schedule = Schedule::default();
    schedule.set_executor_kind(executor);
    schedule.add_systems((slow, spawns.before(reads)));
    assert!(schedule.system_timings().is_empty(), "timing starts off");
    schedule.set_timing(true);
    assert!(schedule.timing());
    // A system added after timing was turned on gets its own slot.
    schedule.add_systems(reads);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    (world, schedule)
}

fn check_timings(schedule: &mut Schedule) {
    let timings = schedule.system_timings();
    let names: Vec<&str> = timings
        .iter()
        .map(|t| t.name.rsplit("::").next().unwrap())
        .collect();
    assert_eq!(names, ["slow", "spawns", "reads"]);
    for t in &timings {
        assert_eq!(t.runs, 3, "{}", t.name);
        assert!(t.max <= t.total && t.mean() <= t.max, "{t:?}");
    }
    assert!(timings[0].total >= Duration::from_millis(60), "{timings:?}");
    assert!(timings[0].max >= Duration::from_millis(20), "{timings:?}");
    assert!(timings[0].total > timings[2].total, "{timings:?}");
    // Only `spawns` has commands to apply.
    assert!(timings[1].apply_total > Duration::ZERO, "{timings:?}");
    assert_eq!(timings[0].apply_total, Duration::ZERO);
    schedule.set_timing(false);
    assert!(schedule.system_timings().is_empty());
}

#[test]
fn schedule_timing_measures_each_system() {
    let (world, mut schedule) = timing_schedule(ExecutorKind::SingleThreaded);
    assert_eq!(world.resource::<Trace>().0, ["slow"; 3]);
    check_timings(&mut schedule);
}

#[test]
fn parallel_schedule_timing_measures_each_system() {
    let (world, mut schedule) = timing_schedule(ExecutorKind::MultiThreaded);
    assert_eq!(world.resource::<Trace>().0, ["slow"; 3]);
    check_timings(&mut schedule);
}

#[test]
fn parallel_schedule_runs_offered_systems_itself_when_workers_are_busy() {
    // Every rayon worker is blocked until the schedule has run: the
    // executor must run the systems it offered to rayon on its own thread
    // rather than wait for a worker.
    #[derive(Resource, Default)]
    struct R1(u32);
    #[derive(Resource, Default)]
    struct R2(u32);
    #[derive(Resource, Default)]
    struct R3(u32);
    fn s1(mut r: ResMut<R1>) {
        r.0 += 1;
    }
    fn s2(mut r: ResMut<R2>) {
        r.0 += 1;
    }
    fn s3(mut r: ResMut<R3>) {
        r.0 += 1;
    }
    static RELEASE: AtomicBool = AtomicBool::new(false);
    static BLOCKED: AtomicUsize = AtomicUsize::new(0);
    let workers = rayon::current_num_threads();
    for _ in 0..workers {
        rayon::spawn(|| {
            BLOCKED.fetch_add(1, Ordering::SeqCst);
            while !RELEASE.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
    }
    let start = Instant::now();
    while BLOCKED.load(Ordering::SeqCst) < workers {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "workers never started"
        );
        std::thread::yield_now();
    }
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let runner = std::thread::spawn(move || {
        let mut world = World::new();
        world.init_resource::<R1>();
        world.init_resource::<R2>();
        world.init_resource::<R3>();
        let mut schedule = Schedule::default();
        schedule.add_systems((s1, s2, s3));
        for _ in 0..5 {
            schedule.run(&mut world);
        }
        done_tx.send(()).unwrap();
        world
    });
    let finished = done_rx.recv_timeout(Duration::from_secs(20)).is_ok();
    RELEASE.store(true, Ordering::SeqCst);
    let world = runner.join().unwrap();
    assert!(finished, "the schedule waited for busy workers");
    assert_eq!(world.resource::<R1>().0, 5);
    assert_eq!(world.resource::<R2>().0, 5);
    assert_eq!(world.resource::<R3>().0, 5);
}

#[derive(Resource, Default, Debug)]
struct SeenAdded(Vec<(&'static str, usize)>);

/// `add_systems` makes the schedule initialise its systems again: each
/// keeps its last run, so values it has already seen are not `Added`
/// again (exclusive and function systems alike).
#[test]
fn adding_systems_keeps_what_each_system_has_seen() {
    fn exclusive(world: &mut World) {
        let added = world.query_filtered::<(), Added<A>>().iter(world).count();
        world
            .resource_mut::<SeenAdded>()
            .0
            .push(("exclusive", added));
    }
    fn function(q: Query<Ref<A>>, mut seen: ResMut<SeenAdded>) {
        let added = q.iter().filter(|a| a.is_added()).count();
        seen.0.push(("function", added));
    }
    fn later() {}
    let mut world = World::new();
    world.init_resource::<SeenAdded>();
    world.spawn(A(0));
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems((exclusive, function).chain());
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.add_systems(later);
    schedule.run(&mut world);
    world.spawn(A(1));
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<SeenAdded>().0,
        [
            ("exclusive", 1),
            ("function", 1),
            ("exclusive", 0),
            ("function", 0),
            ("exclusive", 0),
            ("function", 0),
            ("exclusive", 1),
            ("function", 1),
        ]
    );
}

/// An exclusive system, like a function system, belongs to the world it
/// was initialised with.
#[test]
fn an_exclusive_system_refuses_a_second_world() {
    fn exclusive(_: &mut World) {}
    let mut a = World::new();
    let mut b = World::new();
    let mut system = IntoSystem::into_system(exclusive);
    let before = catch_unwind(AssertUnwindSafe(|| system.run((), &mut a))).unwrap_err();
    assert!(before
        .downcast_ref::<String>()
        .unwrap()
        .contains("was run before `initialize`"));
    system.initialize(&mut a);
    system.run((), &mut a).unwrap();
    let init = catch_unwind(AssertUnwindSafe(|| system.initialize(&mut b))).unwrap_err();
    assert!(init
        .downcast_ref::<String>()
        .unwrap()
        .contains("was initialised for another world"));
    let run = catch_unwind(AssertUnwindSafe(|| system.run((), &mut b))).unwrap_err();
    assert!(run
        .downcast_ref::<String>()
        .unwrap()
        .contains("and run on another world"));
    system.run((), &mut a).unwrap();
}

/// Adding observers leaves the ones already there as they were: an
/// observer does not see values it has seen as added again.
#[test]
fn adding_observers_keeps_what_each_observer_has_seen() {
    #[derive(Event)]
    struct Look;
    let mut world = World::new();
    world.init_resource::<SeenAdded>();
    world.spawn(A(0));
    world.add_observer(
        |_: On<Look>, q: Query<Ref<A>>, mut seen: ResMut<SeenAdded>| {
            let added = q.iter().filter(|a| a.is_added()).count();
            seen.0.push(("observer", added));
        },
    );
    world.trigger(Look);
    world.add_observer(|_: On<Look>| {});
    world.trigger(Look);
    world.spawn(A(1));
    world.trigger(Look);
    assert_eq!(
        world.resource::<SeenAdded>().0,
        [("observer", 1), ("observer", 0), ("observer", 1)]
    );
}

#[test]
fn an_exclusive_system_applies_the_worlds_queue_before_it_returns() {
    #[derive(Component)]
    struct Queued;
    fn queue_a_spawn(world: &mut World) {
        crate::world::DeferredWorld::from(&mut *world)
            .commands()
            .spawn(Queued);
    }
    let mut world = World::new();
    let mut schedule = Schedule::default();
    schedule.add_systems(queue_a_spawn);
    schedule.run(&mut world);
    assert_eq!(world.query::<&Queued>().iter(&world).count(), 1);
    world.run_system_once(queue_a_spawn).unwrap();
    assert_eq!(world.query::<&Queued>().iter(&world).count(), 2);
}

#[test]
fn a_conflict_is_reported_again_on_every_initialize() {
    fn bad(_: Query<&mut A>, _: Query<&A>) {}
    let mut world = World::new();
    let mut system = IntoSystem::into_system(bad);
    for _ in 0..2 {
        let message = catch_unwind(AssertUnwindSafe(|| system.initialize(&mut world)))
            .expect_err("the parameters conflict");
        let message = crate::utils::panic_message(&*message).unwrap_or_default();
        assert!(
            message.contains("conflicts with an earlier parameter"),
            "{message}"
        );
    }
}
