//! Schedule labels and many schedules: `#[derive(ScheduleLabel)]` on every
//! kind of type, interning, the `Schedules` resource, running schedules by
//! label (also from an exclusive system, as a fixed-timestep loop does),
//! and the errors for an unknown label and for a schedule run inside
//! itself. A panic inside a running schedule puts it back: the world is
//! consistent, the schedule runnable, every value dropped once.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::schedule::{ExecutorKind, InternedScheduleLabel, ScheduleLabel};
use ecs::world::error::TryRunScheduleError;

// ---- labels ------------------------------------------------------------------------------

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Main;

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct FixedUpdate;

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Level(u32);

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Named {
    name: &'static str,
}

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
enum Stage {
    Load,
    Play,
    Round(u8),
}

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Generic<T>(T);

/// A second unit label whose `Debug` reads like `Main`'s.
mod other {
    #[derive(ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    pub struct Main;
}

#[test]
fn derive_on_unit_tuple_named_and_enum_labels() {
    assert_eq!(Main.intern(), Main.intern());
    assert_eq!(Level(3).intern(), Level(3).clone().intern());
    assert_ne!(Level(3).intern(), Level(4).intern());
    assert_eq!(Named { name: "a" }.intern(), Named { name: "a" }.intern());
    assert_ne!(Named { name: "a" }.intern(), Named { name: "b" }.intern());
    assert_eq!(Stage::Round(2).intern(), Stage::Round(2).intern());
    assert_ne!(Stage::Round(2).intern(), Stage::Round(3).intern());
    assert_ne!(Stage::Load.intern(), Stage::Play.intern());
    assert_eq!(Generic(1u8).intern(), Generic(1u8).intern());
    // Same value, two types: two labels.
    assert_ne!(Generic(1u8).intern(), Generic(1u16).intern());
    assert_ne!(Main.intern(), other::Main.intern());
    assert_eq!(
        format!("{:?}", Main.intern()),
        format!("{:?}", other::Main.intern())
    );
}

#[test]
fn interned_labels_are_equal_across_clones_and_threads() {
    let label = Stage::Round(7);
    let copy: InternedScheduleLabel = label.clone().intern();
    assert_eq!(label.intern(), copy);
    assert!(
        std::ptr::addr_eq(label.intern().0, copy.0),
        "one leaked value"
    );
    // An interned label is a label: interning it again is the identity.
    assert_eq!(copy.intern(), copy);
    // `dyn_clone` gives an equal label that interns to the same handle.
    let boxed: Box<dyn ScheduleLabel> = copy.dyn_clone();
    assert!(*boxed == *copy);
    let from_threads: Vec<InternedScheduleLabel> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| Stage::Round(7).intern()))
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    assert!(from_threads.iter().all(|label| *label == copy));
    let mut set = std::collections::HashSet::new();
    set.insert(copy);
    assert!(set.contains(&Stage::Round(7).intern()));
    assert!(!set.contains(&Stage::Round(8).intern()));
}

// ---- many schedules ----------------------------------------------------------------------

#[derive(Resource, Default)]
struct Trace(Vec<String>);

fn traced(name: &'static str) -> impl FnMut(ResMut<Trace>) {
    move |mut trace: ResMut<Trace>| trace.0.push(name.to_owned())
}

fn trace_world() -> World {
    let mut world = World::new();
    world.init_resource::<Trace>();
    world
}

#[test]
fn many_schedules_run_by_label_in_any_order() {
    let mut world = trace_world();
    world.add_schedule(Schedule::new(Stage::Load));
    {
        let mut schedules = world.resource_mut::<Schedules>();
        schedules.add_systems(Stage::Load, traced("load"));
        schedules.add_systems(Stage::Play, traced("play"));
        schedules.add_systems(Level(1), traced("level 1"));
        schedules.add_systems(Level(2), traced("level 2"));
        schedules.add_systems(Named { name: "menu" }, traced("menu"));
    }
    for label in [
        Level(2).intern(),
        Stage::Play.intern(),
        Level(1).intern(),
        Stage::Load.intern(),
        Named { name: "menu" }.intern(),
        Level(2).intern(),
    ] {
        world.run_schedule(label);
    }
    assert_eq!(
        world.resource::<Trace>().0,
        ["level 2", "play", "level 1", "load", "menu", "level 2"]
    );
    assert_eq!(world.resource::<Schedules>().iter().count(), 5);
    assert!(world
        .resource::<Schedules>()
        .get_temporarily_removed()
        .is_empty());
}

#[test]
fn schedules_resource_stores_by_label() {
    let mut schedules = Schedules::new();
    assert!(schedules.insert(Schedule::new(Level(1))).is_none());
    let replaced = schedules.insert(Schedule::new(Level(1)));
    assert_eq!(replaced.map(|s| s.label()), Some(Level(1).intern()));
    assert!(schedules.contains(Level(1)));
    assert!(!schedules.contains(Level(2)));
    assert!(schedules.get(Level(2)).is_none());

    schedules.entry(Level(2)).add_systems(traced("two"));
    assert_eq!(schedules.get(Level(2)).unwrap().system_names().len(), 1);
    schedules
        .get_mut(Level(2))
        .unwrap()
        .set_executor_kind(ExecutorKind::SingleThreaded);
    assert_eq!(
        schedules.get(Level(2)).unwrap().executor(),
        ExecutorKind::SingleThreaded
    );

    for (label, schedule) in schedules.iter_mut() {
        assert!(*schedule.label() == *label, "stored under its own label");
    }
    let (label, _) = schedules.remove_entry(Level(1)).unwrap();
    assert_eq!(label, Level(1).intern());
    assert!(schedules.remove(Level(1)).is_none());
    assert!(schedules.remove(Level(2)).is_some());
    assert_eq!(schedules.iter().count(), 0);
}

#[test]
fn default_schedules_share_one_label() {
    let mut world = trace_world();
    let mut first = Schedule::default();
    first.add_systems(traced("first"));
    let second = Schedule::default();
    assert_eq!(first.label(), second.label());
    assert_eq!(first.label(), Schedule::single_threaded().label());
    assert_eq!(format!("{:?}", first.label()), "DefaultSchedule");
    world.add_schedule(first);
    world.add_schedule(second);
    assert_eq!(world.resource::<Schedules>().iter().count(), 1);
}

// ---- a fixed-timestep loop ---------------------------------------------------------------

/// Seconds not yet simulated, and the length of one fixed step.
#[derive(Resource)]
struct Accumulator {
    pending: f64,
    step: f64,
}

#[derive(Resource, Default)]
struct FixedSteps(u32);

#[derive(Resource, Default)]
struct Frames(u32);

fn physics(mut steps: ResMut<FixedSteps>) {
    steps.0 += 1;
}

fn count_frame(mut frames: ResMut<Frames>) {
    frames.0 += 1;
}

/// Runs `FixedUpdate` once per whole step accumulated, as a game loop does.
fn run_fixed_update(world: &mut World) {
    loop {
        let mut accumulator = world.resource_mut::<Accumulator>();
        if accumulator.pending < accumulator.step {
            break;
        }
        accumulator.pending -= accumulator.step;
        world.run_schedule(FixedUpdate);
    }
}

#[test]
fn fixed_timestep_loop_runs_a_schedule_from_an_exclusive_system() {
    for executor in [ExecutorKind::MultiThreaded, ExecutorKind::SingleThreaded] {
        let mut world = World::new();
        world.insert_resource(Accumulator {
            pending: 0.0,
            step: 0.25,
        });
        world.init_resource::<FixedSteps>();
        world.init_resource::<Frames>();
        let mut main = Schedule::new(Main);
        main.set_executor_kind(executor);
        main.add_systems((count_frame, run_fixed_update.after(count_frame)));
        world.add_schedule(main);
        world
            .resource_mut::<Schedules>()
            .add_systems(FixedUpdate, physics);

        let mut steps_per_frame = Vec::new();
        for delta in [0.1, 0.1, 0.1, 1.0, 0.0, 0.3] {
            let before = world.resource::<FixedSteps>().0;
            world.resource_mut::<Accumulator>().pending += delta;
            world.run_schedule(Main);
            steps_per_frame.push(world.resource::<FixedSteps>().0 - before);
        }
        // Pending after each frame: 0.1, 0.2, 0.05 (one step), 0.05 (four), 0.05, 0.1 (one).
        assert_eq!(steps_per_frame, [0, 0, 1, 4, 0, 1], "{executor:?}");
        assert_eq!(world.resource::<Frames>().0, 6);
        let schedules = world.resource::<Schedules>();
        assert!(schedules.contains(Main) && schedules.contains(FixedUpdate));
        assert!(schedules.get_temporarily_removed().is_empty());
    }
}

// ---- bad input ---------------------------------------------------------------------------

#[test]
fn unknown_label_error_names_the_label() {
    let mut world = World::new();
    // No `Schedules` resource at all.
    let error = world.try_run_schedule(Level(9)).unwrap_err();
    assert_eq!(error.0, Level(9).intern());
    assert_eq!(error.label(), Level(9).intern());
    assert!(!error.is_already_running());
    let expected = "the schedule with the label Level(9) was not found: add it with \
                    `World::add_schedule` or `Schedules::add_systems`";
    assert_eq!(error.to_string(), expected);

    // A `Schedules` resource without that label.
    world.add_schedule(Schedule::new(Level(1)));
    assert_eq!(
        world.try_run_schedule(Level(9)).unwrap_err().to_string(),
        expected
    );
    assert!(world
        .resource::<Schedules>()
        .get_empty_labels()
        .contains(&Level(9).intern()));
    assert_eq!(expect_panic(|| world.run_schedule(Level(9))), expected);
    let scoped = world.try_schedule_scope(Level(9), |_, _| unreachable!("not run"));
    assert_eq!(scoped.unwrap_err().to_string(), expected);
    assert_eq!(
        expect_panic(|| world.schedule_scope(Level(9), |_, _| ())),
        expected
    );
    // Nothing was changed by the failed calls.
    assert!(world.resource::<Schedules>().contains(Level(1)));
    assert!(world
        .resource::<Schedules>()
        .get_temporarily_removed()
        .is_empty());
}

#[derive(Resource, Default)]
struct Seen(Vec<TryRunScheduleError>);

fn try_run_fixed_update(world: &mut World) {
    let result = world.try_run_schedule(FixedUpdate);
    world.resource_mut::<Seen>().0.extend(result.err());
}

fn run_fixed_update_once(world: &mut World) {
    world.run_schedule(FixedUpdate);
}

#[test]
fn running_a_schedule_inside_itself_is_an_error_naming_the_labels() {
    let mut world = World::new();
    world.init_resource::<Schedules>();
    world.init_resource::<Seen>();
    world.init_resource::<FixedSteps>();
    {
        let mut schedules = world.resource_mut::<Schedules>();
        schedules.add_systems(Main, run_fixed_update_once);
        schedules.add_systems(FixedUpdate, (physics, try_run_fixed_update.after(physics)));
    }
    world.run_schedule(Main);
    assert_eq!(world.resource::<FixedSteps>().0, 1, "FixedUpdate ran once");
    let seen = &world.resource::<Seen>().0;
    assert_eq!(seen.len(), 1);
    assert!(seen[0].is_already_running());
    assert_eq!(seen[0].0, FixedUpdate.intern());
    assert_eq!(
        seen[0].to_string(),
        "the schedule with the label FixedUpdate is already running, and a schedule cannot \
         run inside itself (running now, outermost first: Main > FixedUpdate)"
    );
    // Both are back, and run again.
    world.run_schedule(Main);
    assert_eq!(world.resource::<FixedSteps>().0, 2);
    assert_eq!(world.resource::<Seen>().0.len(), 2);
}

#[test]
fn run_schedule_inside_itself_panics_and_puts_it_back() {
    let mut world = World::new();
    world.init_resource::<Schedules>();
    world.init_resource::<FixedSteps>();
    world
        .resource_mut::<Schedules>()
        .add_systems(FixedUpdate, (physics, run_fixed_update_once.after(physics)));
    let message = expect_panic(|| world.run_schedule(FixedUpdate));
    assert!(
        message.contains("the schedule with the label FixedUpdate is already running")
            && message.contains("running now, outermost first: FixedUpdate)"),
        "{message}"
    );
    let schedules = world.resource::<Schedules>();
    assert!(schedules.contains(FixedUpdate));
    assert!(schedules.get_temporarily_removed().is_empty());
    // The scope's own closure cannot run its schedule either.
    let error = world
        .schedule_scope(FixedUpdate, |world, _| world.try_run_schedule(FixedUpdate))
        .unwrap_err();
    assert!(error.is_already_running());
}

// ---- panics ------------------------------------------------------------------------------

#[derive(Component)]
struct Held(#[allow(dead_code)] Payload);

#[derive(Resource)]
struct HeldResource(#[allow(dead_code)] Payload);

#[derive(Resource)]
struct Fuse(bool);

/// Spawns an entity holding a drop-logged value, then panics if the fuse is lit.
fn spawn_then_maybe_panic(world: &mut World) {
    let log = world.resource::<LogHandle>().0.clone();
    let id = world.resource::<LogHandle>().1;
    world.resource_mut::<LogHandle>().1 += 1;
    world.spawn(Held(Payload::new(id, &log)));
    if world.resource::<Fuse>().0 {
        panic!("fuse lit in FixedUpdate");
    }
}

#[derive(Resource)]
struct LogHandle(DropLog, u32);

fn panicking_world(log: &DropLog) -> World {
    let mut world = World::new();
    world.insert_resource(Fuse(true));
    world.insert_resource(LogHandle(log.clone(), 10));
    world.insert_resource(HeldResource(Payload::new(1, log)));
    world.init_resource::<FixedSteps>();
    world.init_resource::<Schedules>();
    world
        .resource_mut::<Schedules>()
        .add_systems(Main, run_fixed_update_once);
    world.resource_mut::<Schedules>().add_systems(
        FixedUpdate,
        (physics, spawn_then_maybe_panic.after(physics)),
    );
    world
}

#[test]
fn panic_inside_a_running_schedule_puts_every_schedule_back() {
    let log = DropLog::default();
    let mut world = panicking_world(&log);
    let message = expect_panic(|| world.run_schedule(Main));
    assert_eq!(
        message,
        "system `schedule_labels::run_fixed_update_once` panicked: \
         system `schedule_labels::spawn_then_maybe_panic` panicked: fuse lit in FixedUpdate"
    );
    integrity(&world);
    {
        let schedules = world.resource::<Schedules>();
        assert!(schedules.contains(Main) && schedules.contains(FixedUpdate));
        assert!(schedules.get_temporarily_removed().is_empty());
    }
    log.assert_not_dropped(&[1, 10]);

    // Still runnable, and keeps its systems' state.
    world.resource_mut::<Fuse>().0 = false;
    world.run_schedule(Main);
    assert_eq!(world.resource::<FixedSteps>().0, 2);
    assert_eq!(world.query::<&Held>().iter(&world).count(), 2);
    integrity(&world);

    drop(world);
    log.assert_dropped_once(&[1, 10, 11]);
    log.assert_dropped(&[1, 10, 11]);
}

#[test]
fn panic_in_a_scope_closure_puts_the_schedule_back() {
    let log = DropLog::default();
    let mut world = panicking_world(&log);
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.schedule_scope(Main, |world, _schedule| {
            world.spawn(Held(Payload::new(50, &log)));
            panic!("closure panicked");
        })
    }));
    assert!(result.is_err());
    integrity(&world);
    assert!(world.resource::<Schedules>().contains(Main));
    assert!(world
        .resource::<Schedules>()
        .get_temporarily_removed()
        .is_empty());
    drop(world);
    log.assert_dropped_once(&[1, 50]);
    log.assert_dropped(&[1, 50]);
}

#[test]
fn a_schedule_stored_under_a_running_label_is_replaced_when_it_returns() {
    let mut world = trace_world();
    let mut update = Schedule::new(Level(1));
    update.add_systems(traced("original"));
    world.add_schedule(update);
    world.schedule_scope(Level(1), |world, schedule| {
        let mut other = Schedule::new(Level(1));
        other.add_systems(traced("inserted"));
        world.add_schedule(other);
        // The inserted one is stored, so this runs it (not the running one).
        world.run_schedule(Level(1));
        schedule.run(world);
    });
    world.run_schedule(Level(1));
    assert_eq!(
        world.resource::<Trace>().0,
        ["inserted", "original", "original"]
    );
}

#[test]
fn a_scope_that_removes_the_resource_still_gets_its_schedule_back() {
    let mut world = trace_world();
    world.add_schedule(Schedule::new(Level(1)));
    world
        .resource_mut::<Schedules>()
        .add_systems(Level(1), traced("one"));
    world.schedule_scope(Level(1), |world, _| {
        world.remove_resource::<Schedules>();
    });
    world.run_schedule(Level(1));
    assert_eq!(world.resource::<Trace>().0, ["one"]);
}
