//! Fallible systems, observers and commands: an `Err` they return goes to
//! the world's error handler (by default a panic naming what failed), and
//! the world stays usable whatever the handler does.

mod common;

use std::sync::Mutex;

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::error::{
    ignore, warn, BevyError, ContextExt, ErrorContext, FallbackErrorHandler, ResultSeverityExt,
    Severity,
};
use ecs::prelude::*;
use ecs::schedule::ExecutorKind;
use ecs::system::{
    CombinatorSystem, Combine, CommandQueue, RegisteredSystemError, RunSystemError, SystemId,
    SystemParamValidationError,
};

#[derive(Resource, Default)]
struct Ran(Vec<&'static str>);

#[derive(Component)]
struct Fuel(u32);

#[derive(Debug)]
struct OutOfFuel;

impl std::fmt::Display for OutOfFuel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("out of fuel")
    }
}

impl std::error::Error for OutOfFuel {}

/// What [`record`] saw: kind, name and error, for every world of every
/// test in this binary; each test reads the entries of its own names.
static RECORDED: Mutex<Vec<(String, String, String)>> = Mutex::new(Vec::new());

fn record(error: BevyError, ctx: ErrorContext) {
    let entry = (
        ctx.kind().to_owned(),
        ctx.name().into_owned(),
        error.to_string(),
    );
    RECORDED.lock().unwrap().push(entry);
}

/// The recorded (kind, error) of the failures of names ending in `suffix`.
fn recorded(suffix: &str) -> Vec<(String, String)> {
    RECORDED
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, name, _)| name.ends_with(suffix))
        .map(|(kind, _, error)| (kind.clone(), error.clone()))
        .collect()
}

fn burn(fuel: Query<&Fuel>, mut ran: ResMut<Ran>) -> Result {
    ran.0.push("burn");
    fuel.iter().find(|f| f.0 > 0).ok_or(OutOfFuel)?;
    Ok(())
}

fn after_burn(mut ran: ResMut<Ran>) {
    ran.0.push("after");
}

fn world_with_ran() -> World {
    let mut world = World::new();
    world.init_resource::<Ran>();
    world.spawn(Fuel(0));
    world
}

fn schedule(kind: ExecutorKind) -> Schedule {
    let mut schedule = Schedule::default();
    schedule.set_executor_kind(kind);
    schedule.add_systems((burn, after_burn.after(burn)));
    schedule
}

const KINDS: [ExecutorKind; 2] = [ExecutorKind::SingleThreaded, ExecutorKind::MultiThreaded];

#[test]
fn a_failing_system_panics_by_default_naming_itself_and_the_world_stays_usable() {
    for kind in KINDS {
        let mut world = world_with_ran();
        let mut schedule = schedule(kind);
        let message = expect_panic(|| schedule.run(&mut world));
        assert!(
            message.contains("Encountered an error in system `")
                && message.contains("burn`: out of fuel"),
            "{kind:?}: {message}"
        );
        integrity(&world);
        world.spawn(Fuel(3));
        schedule.run(&mut world);
        assert_eq!(
            world.resource::<Ran>().0,
            ["burn", "burn", "after"],
            "{kind:?}"
        );
    }
}

#[test]
fn with_warn_or_ignore_the_schedule_goes_on() {
    for handler in [warn as fn(BevyError, ErrorContext), ignore] {
        for kind in KINDS {
            let mut world = world_with_ran();
            world.insert_resource(FallbackErrorHandler(handler));
            let mut schedule = schedule(kind);
            schedule.run(&mut world);
            schedule.run(&mut world);
            assert_eq!(
                world.resource::<Ran>().0,
                ["burn", "after", "burn", "after"],
                "{kind:?}"
            );
        }
    }
}

#[test]
fn a_custom_handler_gets_the_system_its_name_and_the_error() {
    fn burn_recorded(fuel: Query<&Fuel>) -> Result {
        fuel.iter().find(|f| f.0 > 0).ok_or(OutOfFuel)?;
        Ok(())
    }
    let mut world = world_with_ran();
    world.insert_resource(FallbackErrorHandler(record));
    let mut schedule = Schedule::default();
    schedule.add_systems((burn_recorded, after_burn));
    schedule.run(&mut world);
    assert_eq!(
        recorded("burn_recorded"),
        [("system".to_owned(), "out of fuel".to_owned())]
    );
    assert_eq!(world.resource::<Ran>().0, ["after"]);
}

#[test]
fn a_handler_changed_between_runs_applies_from_the_next() {
    fn fails_twice() -> Result {
        Err("no".into())
    }
    let mut world = World::new();
    world.insert_resource(FallbackErrorHandler(ignore));
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems(fails_twice);
    schedule.run(&mut world);
    world.insert_resource(FallbackErrorHandler(record));
    schedule.run(&mut world);
    assert_eq!(recorded("fails_twice").len(), 1);
}

#[test]
fn question_mark_converts_io_and_custom_errors() {
    fn read_missing() -> Result {
        // An I/O error made by hand: opening a file is not allowed under Miri.
        let missing: std::io::Result<Vec<u8>> = Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no save file",
        ));
        missing?;
        Ok(())
    }
    fn custom() -> Result<u32> {
        Err(OutOfFuel)?
    }
    let mut world = World::new();
    let Err(RunSystemError::Failed(error)) = world.run_system_once::<_, (), _>(read_missing) else {
        panic!("reading a missing file fails");
    };
    assert!(error.is::<std::io::Error>());
    let Err(RunSystemError::Failed(error)) = world.run_system_once::<_, u32, _>(custom) else {
        panic!("custom fails");
    };
    assert!(error.downcast_ref::<OutOfFuel>().is_some());
}

#[test]
fn one_shot_runs_report_a_failure_as_an_error() {
    fn fails(mut ran: ResMut<Ran>) -> Result<u32> {
        ran.0.push("fails");
        Err(OutOfFuel.into())
    }
    let mut world = world_with_ran();
    let error = world.run_system_once::<_, u32, _>(fails).unwrap_err();
    assert!(matches!(error, RunSystemError::Failed(ref e) if e.is::<OutOfFuel>()));
    assert_eq!(error.to_string(), "out of fuel");

    let id: SystemId<(), u32> = world.register_system(fails);
    let error = world.run_system(id).unwrap_err();
    assert!(matches!(error, RegisteredSystemError::Failed(ref e) if e.is::<OutOfFuel>()));
    assert_eq!(error.to_string(), "System returned error: out of fuel");
    assert_eq!(world.resource::<Ran>().0, ["fails", "fails"]);
    // The system stays registered and runs again.
    assert!(world.run_system(id).is_err());
}

#[test]
fn a_one_shot_failure_still_applies_the_commands_queued_before_it() {
    fn spawn_then_fail(mut commands: Commands) -> Result {
        commands.spawn(Fuel(9));
        Err("after spawning".into())
    }
    let mut world = World::new();
    let id: SystemId = world.register_system(spawn_then_fail);
    assert!(world.run_system(id).is_err());
    assert_eq!(world.query::<&Fuel>().iter(&world).count(), 1);
}

#[test]
fn a_skipped_system_is_no_error() {
    struct Player;
    fn skips(mut ran: ResMut<Ran>) -> Result<(), RunSystemError> {
        ran.0.push("skips");
        Err(SystemParamValidationError::skipped::<Player>("no player").into())
    }
    let mut world = world_with_ran();
    // The default handler would panic on an error.
    let mut schedule = Schedule::default();
    schedule.add_systems((skips, after_burn.after(skips)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Ran>().0, ["skips", "after"]);
    let Err(RunSystemError::Skipped(error)) = world.run_system_once::<_, (), _>(skips) else {
        panic!("skips");
    };
    assert!(error.skipped);
    assert_eq!(
        error.to_string(),
        "Parameter `Player` failed validation: no player"
    );
}

#[test]
fn an_invalid_parameter_error_fails_the_system() {
    struct Player;
    fn invalid() -> Result<(), RunSystemError> {
        Err(SystemParamValidationError::invalid::<Player>("two players").into())
    }
    let mut world = World::new();
    let Err(RunSystemError::Failed(error)) = world.run_system_once::<_, (), _>(invalid) else {
        panic!("invalid fails");
    };
    assert!(error
        .to_string()
        .starts_with("Parameter `Player` failed validation: two players"));
}

#[test]
fn an_exclusive_system_may_fail() {
    fn exclusive_fails(world: &mut World) -> Result {
        world.resource_mut::<Ran>().0.push("exclusive");
        Err(OutOfFuel)?
    }
    let mut world = world_with_ran();
    world.insert_resource(FallbackErrorHandler(record));
    let mut schedule = Schedule::default();
    schedule.add_systems((exclusive_fails, after_burn.after(exclusive_fails)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Ran>().0, ["exclusive", "after"]);
    assert_eq!(
        recorded("exclusive_fails"),
        [("system".to_owned(), "out of fuel".to_owned())]
    );
}

#[test]
fn a_pipe_whose_first_half_fails_does_not_run_the_second() {
    fn first_fails() -> Result<u32> {
        Err(OutOfFuel.into())
    }
    fn second(In(n): In<u32>, mut ran: ResMut<Ran>) {
        ran.0.push(if n > 0 { "second" } else { "zero" });
    }
    let mut world = world_with_ran();
    let error = world.run_system_once(first_fails.pipe(second)).unwrap_err();
    assert!(matches!(error, RunSystemError::Failed(ref e) if e.is::<OutOfFuel>()));
    assert!(world.resource::<Ran>().0.is_empty());

    // In a schedule, the pipe's failure is the pipe's.
    let mut schedule = Schedule::default();
    schedule.add_systems(first_fails.pipe(second));
    let message = expect_panic(|| schedule.run(&mut world));
    assert!(message.contains("Pipe("), "{message}");
    assert!(message.contains("first_fails"), "{message}");
    assert!(world.resource::<Ran>().0.is_empty());
}

#[test]
fn a_pipe_may_handle_its_first_halfs_result() {
    fn parse() -> Result<u32> {
        Ok("x".parse::<u32>()?)
    }
    fn fallback(In(parsed): In<Result<u32>>) -> u32 {
        parsed.unwrap_or(7)
    }
    let mut world = World::new();
    // `parse` is piped as a system whose output is the `Result` itself.
    let system = IntoSystem::<(), Result<u32>, _>::pipe(parse, fallback);
    assert_eq!(world.run_system_once(system).unwrap(), 7);
}

#[test]
fn the_default_handler_acts_on_severity() {
    fn mild(mut ran: ResMut<Ran>) -> Result {
        ran.0.push("mild");
        Err(BevyError::warning(OutOfFuel))
    }
    fn quiet() -> Result {
        Err(OutOfFuel).ignore()
    }
    fn severe() -> Result {
        Err(OutOfFuel).with_severity(Severity::Panic)
    }
    let mut world = world_with_ran();
    let mut schedule = Schedule::default();
    schedule.add_systems((mild, quiet, after_burn.after(mild)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Ran>().0, ["mild", "after"]);

    let mut schedule = Schedule::default();
    schedule.add_systems(severe);
    let message = expect_panic(|| schedule.run(&mut world));
    assert!(message.contains("severe`: out of fuel"), "{message}");
}

#[test]
fn context_shows_in_the_panic() {
    fn with_context(fuel: Query<&Fuel>) -> Result {
        let fuel = fuel.iter().next().context("no tank")?;
        if fuel.0 == 0 {
            return Err(OutOfFuel).context("starting the engine");
        }
        Ok(())
    }
    let mut world = world_with_ran();
    let mut schedule = Schedule::default();
    schedule.add_systems(with_context);
    let message = expect_panic(|| schedule.run(&mut world));
    assert!(
        message.contains("with_context`: starting the engine: out of fuel"),
        "{message}"
    );
}

#[derive(Event)]
struct Ignite;

#[test]
fn a_failing_observer_goes_to_the_handler() {
    fn observer_fails(_: On<Ignite>, mut ran: ResMut<Ran>) -> Result {
        ran.0.push("observer");
        Err(OutOfFuel.into())
    }
    let mut world = world_with_ran();
    world.add_observer(observer_fails);
    let message = expect_panic(|| world.trigger(Ignite));
    assert!(
        message.contains("Encountered an error in observer `") && message.contains("out of fuel"),
        "{message}"
    );
    integrity(&world);

    world.insert_resource(FallbackErrorHandler(record));
    world.trigger(Ignite);
    assert_eq!(
        recorded("observer_fails"),
        [("observer".to_owned(), "out of fuel".to_owned())]
    );
    assert_eq!(world.resource::<Ran>().0, ["observer", "observer"]);
}

#[test]
fn an_observer_that_fails_still_applies_its_commands() {
    fn observer_spawns_then_fails(_: On<Ignite>, mut commands: Commands) -> Result {
        commands.spawn(Fuel(1));
        Err("after spawning".into())
    }
    let mut world = World::new();
    world.insert_resource(FallbackErrorHandler(ignore));
    world.add_observer(observer_spawns_then_fails);
    world.trigger(Ignite);
    assert_eq!(world.query::<&Fuel>().iter(&world).count(), 1);
}

/// Queues commands as `record` does and applies them.
fn queue(world: &mut World, record: impl FnOnce(&mut Commands)) {
    let mut queue = CommandQueue::default();
    record(&mut Commands::new(&mut queue, world));
    queue.apply(world);
}

struct Refuel(u32);

impl Command for Refuel {
    type Out = Result;

    fn apply(self, world: &mut World) -> Result {
        let mut query = world.query::<&mut Fuel>();
        let mut fuel = query.iter_mut(world).next().ok_or(OutOfFuel)?;
        fuel.0 += self.0;
        Ok(())
    }
}

#[test]
fn a_failing_command_goes_to_the_handler() {
    let mut world = World::new();
    let message = expect_panic(|| queue(&mut world, |c| c.queue(Refuel(1))));
    assert!(
        message.contains("Encountered an error in command `") && message.contains("Refuel`"),
        "{message}"
    );
    integrity(&world);

    world.insert_resource(FallbackErrorHandler(record));
    queue(&mut world, |c| c.queue(Refuel(1)));
    assert_eq!(
        recorded("Refuel"),
        [("command".to_owned(), "out of fuel".to_owned())]
    );

    world.spawn(Fuel(0));
    queue(&mut world, |c| c.queue(Refuel(2)));
    assert_eq!(world.query::<&Fuel>().single(&world).unwrap().0, 2);
}

#[test]
fn a_command_handled_or_silenced_skips_the_worlds_handler() {
    static HANDLED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    fn count_handled(_: BevyError, ctx: ErrorContext) {
        assert_eq!(ctx.kind(), "command");
        HANDLED.lock().unwrap().push(ctx.name().into_owned());
    }
    let mut world = World::new();
    world.insert_resource(FallbackErrorHandler(ecs::error::panic));
    queue(&mut world, |c| {
        c.queue_handled(Refuel(1), count_handled);
        c.queue_silenced(Refuel(1));
    });
    let handled = HANDLED.lock().unwrap();
    assert_eq!(handled.len(), 1);
    assert!(handled[0].ends_with("Refuel"), "{handled:?}");
}

#[test]
fn a_closure_command_may_fail() {
    fn closure_command_fails(world: &mut World) -> Result {
        world.spawn(Fuel(1));
        Err("closure failed".into())
    }
    let mut world = World::new();
    world.insert_resource(FallbackErrorHandler(record));
    queue(&mut world, |c| c.queue(closure_command_fails));
    assert_eq!(
        recorded("closure_command_fails"),
        [("command".to_owned(), "closure failed".to_owned())]
    );
    assert_eq!(world.query::<&Fuel>().iter(&world).count(), 1);
}

#[test]
fn a_panicking_handler_drops_everything_once_and_leaves_the_world_usable() {
    let log = DropLog::default();
    let payload = Payload::new(1, &log);
    let pending = Payload::new(2, &log);
    let mut world = World::new();
    expect_panic(|| {
        queue(&mut world, |c| {
            c.queue(move |world: &mut World| -> Result {
                let _keep = &payload;
                world.spawn(Fuel(5));
                Err("after spawning".into())
            });
            c.queue(move |_: &mut World| drop(pending));
        })
    });
    log.assert_dropped_once(&[1, 2]);
    integrity(&world);
    world.spawn(Fuel(1));
    assert!(world.query::<&Fuel>().iter(&world).count() >= 1);
}

/// Runs both systems and is true when either is; a failure counts as
/// false.
struct EitherMarker;

impl<A, B> Combine<A, B> for EitherMarker
where
    A: System<In = (), Out = bool>,
    B: System<In = (), Out = bool>,
{
    type In = ();
    type Out = bool;

    fn combine<T>(
        _: (),
        data: &mut T,
        a: impl FnOnce((), &mut T) -> Result<bool, RunSystemError>,
        b: impl FnOnce((), &mut T) -> Result<bool, RunSystemError>,
    ) -> Result<bool, RunSystemError> {
        let a = a((), data).unwrap_or(false);
        let b = b((), data).unwrap_or(false);
        Ok(a || b)
    }
}

#[test]
fn a_combinator_hands_a_failing_half_to_the_handler() {
    fn combined_half_fails() -> Result<bool> {
        Err(OutOfFuel.into())
    }
    let mut world = World::new();
    world.insert_resource(FallbackErrorHandler(record));
    let either = CombinatorSystem::<EitherMarker, _, _>::new(
        IntoSystem::into_system(combined_half_fails),
        IntoSystem::into_system(|| true),
        "either".into(),
    );
    assert!(world.run_system_once(either).unwrap());
    assert_eq!(
        recorded("combined_half_fails"),
        [("system".to_owned(), "out of fuel".to_owned())]
    );
}
