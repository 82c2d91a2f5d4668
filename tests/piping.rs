//! Systems made of systems: `pipe`, `map`, `with_input`,
//! `with_input_from`, combinators, read-only systems, and the
//! `assert_*` checks bevy-shaped tests use.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::system::{
    assert_is_read_only_system, assert_is_system, assert_system_does_not_conflict,
    CombinatorSystem, Combine, PipeSystem, RunSystemError, RunSystemOnce,
};

#[derive(Component)]
struct Health(u32);

#[derive(Component)]
struct Player;

#[derive(Resource, Default)]
struct Log(Vec<String>);

#[derive(Resource, Default)]
struct Count(u32);

#[derive(Resource)]
struct Held(Payload);

fn count_health(query: Query<&Health>) -> usize {
    query.iter().count()
}

fn double(In(n): In<usize>) -> usize {
    n * 2
}

fn log_number(In(n): In<usize>, mut log: ResMut<Log>) {
    log.0.push(n.to_string());
}

// ---- pipe -------------------------------------------------------------------------

#[test]
fn pipe_feeds_the_first_output_into_the_second_input() {
    let mut world = World::new();
    world.spawn(Health(1));
    world.spawn(Health(2));
    let out = world.run_system_once(count_health.pipe(double)).unwrap();
    assert_eq!(out, 4);
}

#[test]
fn pipe_passes_its_input_to_the_first_system() {
    fn add(In((a, b)): In<(u32, u32)>) -> u32 {
        a + b
    }
    fn negate(In(n): In<u32>) -> i64 {
        -i64::from(n)
    }
    let mut world = World::new();
    let out = world
        .run_system_once_with(add.pipe(negate), (2, 3))
        .unwrap();
    assert_eq!(out, -5);
}

#[test]
fn pipes_chain_and_borrowed_inputs_reach_the_first_system() {
    fn len(InRef(text): InRef<str>) -> usize {
        text.len()
    }
    let mut world = World::new();
    let chained = len.pipe(double).pipe(double);
    assert_eq!(world.run_system_once_with(chained, "abc").unwrap(), 12);
}

#[test]
fn a_pipe_runs_in_a_schedule_every_time() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.spawn(Health(1));
    let mut schedule = Schedule::default();
    schedule.add_systems(count_health.pipe(double).pipe(log_number));
    schedule.run(&mut world);
    world.spawn(Health(2));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["2", "4"]);
}

#[test]
fn pipe_access_is_the_union_of_both_halves() {
    let mut world = World::new();
    let mut pipe = IntoSystem::into_system(count_health.pipe(log_number));
    pipe.initialize(&mut world);
    let health = world.component_id::<Health>().unwrap();
    let log = world.components().resource_id::<Log>().unwrap();
    let access = pipe.access().combined_access();
    assert!(access.has_read(health) && !access.has_write(health));
    assert!(access.has_write(log));

    // Another system writing `Health` conflicts with the pipe through its
    // first half, one reading `Log` through its second.
    let mut writer = IntoSystem::into_system(|_: Query<&mut Health>| {});
    writer.initialize(&mut world);
    assert!(!pipe.access().is_compatible(writer.access()));
    let mut reader = IntoSystem::into_system(|_: Res<Log>| {});
    reader.initialize(&mut world);
    assert!(!pipe.access().is_compatible(reader.access()));
    let mut unrelated = IntoSystem::into_system(|_: Query<&Player>| {});
    unrelated.initialize(&mut world);
    assert!(pipe.access().is_compatible(unrelated.access()));
}

#[test]
fn the_halves_of_a_pipe_may_write_the_same_data() {
    fn bump(mut count: ResMut<Count>) -> u32 {
        count.0 += 1;
        count.0
    }
    fn bump_by(In(n): In<u32>, mut count: ResMut<Count>) {
        count.0 += n;
    }
    let pipe = bump.pipe(bump_by);
    assert_is_system(bump.pipe(bump_by));
    let mut world = World::new();
    world.init_resource::<Count>();
    world.run_system_once(pipe).unwrap();
    assert_eq!(world.resource::<Count>().0, 2);
}

#[test]
fn a_pipe_with_an_exclusive_half_is_exclusive() {
    fn exclusive(world: &mut World) -> u32 {
        world.spawn(Health(5));
        7
    }
    fn check(In(n): In<u32>, query: Query<&Health>, mut count: ResMut<Count>) {
        count.0 = n + query.iter().map(|h| h.0).sum::<u32>();
    }
    let mut world = World::new();
    world.init_resource::<Count>();
    let mut pipe = IntoSystem::into_system(exclusive.pipe(check));
    let plain = IntoSystem::into_system(count_health.pipe(double));
    assert!(pipe.is_exclusive());
    assert!(!plain.is_exclusive());
    pipe.initialize(&mut world);

    let mut schedule = Schedule::default();
    schedule.add_systems(exclusive.pipe(check));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Count>().0, 12);
}

#[test]
fn both_halves_deferred_work_is_applied_first_then_second() {
    fn first(mut commands: Commands) -> u32 {
        commands.queue(|world: &mut World| world.resource_mut::<Log>().0.push("first".into()));
        1
    }
    fn second(In(_): In<u32>, mut commands: Commands) {
        commands.queue(|world: &mut World| world.resource_mut::<Log>().0.push("second".into()));
    }
    fn plain(In(_): In<u32>) {}
    fn no_commands() -> u32 {
        0
    }

    let mut world = World::new();
    let mut has_deferred = |mut system: Box<dyn System<In = (), Out = ()>>| {
        system.initialize(&mut world);
        system.has_deferred()
    };
    assert!(has_deferred(Box::new(IntoSystem::into_system(
        first.pipe(plain)
    ))));
    assert!(has_deferred(Box::new(IntoSystem::into_system(
        no_commands.pipe(second)
    ))));
    assert!(!has_deferred(Box::new(IntoSystem::into_system(
        no_commands.pipe(plain)
    ))));

    let mut world = World::new();
    world.init_resource::<Log>();
    let mut schedule = Schedule::default();
    schedule.add_systems(first.pipe(second));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["first", "second"]);

    let mut world = World::new();
    world.init_resource::<Log>();
    world.run_system_once(first.pipe(second)).unwrap();
    assert_eq!(world.resource::<Log>().0, ["first", "second"]);
}

#[test]
fn pipe_names() {
    fn first() {}
    fn second(_: In<()>) {}
    fn third(_: In<()>) {}
    let name = |s: &dyn System<In = (), Out = ()>| s.name().into_owned();
    let f = IntoSystem::into_system(first).name().into_owned();
    let s = IntoSystem::into_system(second).name().into_owned();
    let t = IntoSystem::into_system(third).name().into_owned();

    let pipe = IntoSystem::into_system(first.pipe(second));
    assert_eq!(name(&pipe), format!("Pipe({f}, {s})"));
    let pipe = IntoSystem::into_system(first.pipe(second).with_name("custom"));
    assert_eq!(name(&pipe), "custom");
    let pipe = IntoSystem::into_system(first.pipe(second).with_first_name());
    assert_eq!(name(&pipe), f);
    let pipe = IntoSystem::into_system(first.pipe(second).with_second_name());
    assert_eq!(name(&pipe), s);
    let pipe = IntoSystem::into_system(first.pipe(second).pipe(third).with_first_name());
    assert_eq!(name(&pipe), format!("Pipe({f}, {s})"));
    let pipe = IntoSystem::into_system(first.pipe(second.pipe(third)).with_second_name());
    assert_eq!(name(&pipe), format!("Pipe({s}, {t})"));
    let pipe = IntoSystem::into_system(
        first
            .pipe(second)
            .with_name_fn(|a, b| format!("{}+{}", a.len(), b.len()).into()),
    );
    assert_eq!(name(&pipe), format!("{}+{}", f.len(), s.len()));
}

#[test]
fn a_pipe_of_function_items_is_zero_sized() {
    fn first() {}
    fn second(_: In<()>) {}
    assert_eq!(std::mem::size_of_val(&first.pipe(second)), 0);
    assert_eq!(
        std::mem::size_of_val(&first.pipe(second).with_first_name()),
        0
    );
}

#[test]
fn pipe_system_new_and_boxing() {
    let pipe = PipeSystem::new(
        IntoSystem::into_system(|| 3usize),
        IntoSystem::into_system(double),
        "three doubled".into(),
    );
    let mut boxed: Box<dyn System<In = (), Out = usize>> = Box::new(pipe);
    let mut world = World::new();
    boxed.initialize(&mut world);
    assert_eq!(boxed.name(), "three doubled");
    assert_eq!(boxed.run((), &mut world).unwrap(), 6);
}

#[test]
fn a_pipe_can_be_ordered_against_by_its_type() {
    fn first() -> usize {
        1
    }
    fn last(mut log: ResMut<Log>) {
        log.0.push("last".into());
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut schedule = Schedule::default();
    schedule.add_systems((last, first.pipe(log_number).before(last)));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, ["1", "last"]);
}

// ---- map ----------------------------------------------------------------------------

#[test]
fn map_transforms_the_output() {
    let mut world = World::new();
    world.spawn(Health(1));
    let mapped = count_health.map(|n| n == 1);
    assert!(world.run_system_once(mapped).unwrap());
}

#[test]
fn map_keeps_the_name_access_and_deferred_work_of_the_system() {
    fn spawner(mut commands: Commands, _: Query<&Health>) -> u32 {
        commands.spawn(Player);
        3
    }
    let mut world = World::new();
    let mut mapped = IntoSystem::into_system(spawner.map(|n: u32| n + 1));
    let inner = IntoSystem::into_system(spawner);
    assert_eq!(mapped.name(), inner.name());
    assert!(!mapped.is_exclusive());
    mapped.initialize(&mut world);
    assert!(mapped.has_deferred());
    let health = world.component_id::<Health>().unwrap();
    assert!(mapped.access().combined_access().has_read(health));
    assert_eq!(mapped.run((), &mut world).unwrap(), 4);
    let mut players = world.query::<&Player>();
    assert_eq!(players.iter(&world).count(), 1);
}

#[test]
fn map_drop_lets_a_schedule_run_a_system_with_output() {
    fn fallible(mut count: ResMut<Count>) -> Result<(), String> {
        count.0 += 1;
        Err("ignored".into())
    }
    let mut world = World::new();
    world.init_resource::<Count>();
    let mut schedule = Schedule::default();
    schedule.add_systems(fallible.map(drop));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Count>().0, 1);
}

#[test]
fn map_keeps_the_input_of_the_system() {
    let mut world = World::new();
    let out = world
        .run_system_once_with(double.map(|n| n + 1), 5)
        .unwrap();
    assert_eq!(out, 11);
}

// ---- with_input -------------------------------------------------------------------------

#[test]
fn with_input_keeps_its_value_between_runs() {
    fn count(InMut(runs): InMut<u32>, mut total: ResMut<Count>) {
        *runs += 1;
        total.0 = *runs;
    }
    let mut world = World::new();
    world.init_resource::<Count>();
    let mut schedule = Schedule::default();
    schedule.add_systems(count.with_input(10));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Count>().0, 12);

    let mut system = IntoSystem::into_system(count.with_input(0));
    system.initialize(&mut world);
    system.run((), &mut world).unwrap();
    assert_eq!(*system.value(), 1);
    *system.value_mut() = 40;
    system.run((), &mut world).unwrap();
    assert_eq!(*system.value(), 41);
    assert_eq!(world.resource::<Count>().0, 41);
    assert_is_system(count.with_input(0));
}

#[derive(Debug)]
struct Seed(u32);

impl FromWorld for Seed {
    fn from_world(world: &mut World) -> Self {
        Seed(world.resource::<Count>().0)
    }
}

fn grow(InMut(seed): InMut<Seed>) -> u32 {
    seed.0 += 1;
    seed.0
}

#[test]
fn with_input_from_builds_the_value_from_the_world_once() {
    let mut world = World::new();
    world.insert_resource(Count(5));
    let mut system = IntoSystem::into_system(grow.with_input_from::<Seed>());
    assert!(system.value().is_none());
    system.initialize(&mut world);
    world.resource_mut::<Count>().0 = 100;
    system.initialize(&mut world);
    assert_eq!(system.run((), &mut world).unwrap(), 6);
    assert_eq!(system.run((), &mut world).unwrap(), 7);
    assert_eq!(system.value().unwrap().0, 7);
    system.value_mut().unwrap().0 = 0;
    assert_eq!(system.run((), &mut world).unwrap(), 1);
}

#[test]
fn with_input_from_run_before_initialize_names_the_system() {
    let mut world = World::new();
    let mut system = IntoSystem::into_system(grow.with_input_from::<Seed>());
    let message = expect_panic(|| system.run((), &mut world));
    assert!(message.contains("grow"), "{message}");
    assert!(message.contains("initialize"), "{message}");
}

// ---- combinators ------------------------------------------------------------------------

struct OrMarker;

impl<A, B> Combine<A, B> for OrMarker
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
        Ok(a((), data)? || b((), data)?)
    }
}

#[test]
fn a_combinator_runs_its_systems_as_combine_says() {
    fn first(mut log: ResMut<Log>) -> bool {
        log.0.push("a".into());
        true
    }
    fn second(mut log: ResMut<Log>) -> bool {
        log.0.push("b".into());
        false
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut either = CombinatorSystem::<OrMarker, _, _>::new(
        IntoSystem::into_system(second),
        IntoSystem::into_system(first),
        "b or a".into(),
    );
    either.initialize(&mut world);
    assert_eq!(either.name(), "b or a");
    assert!(either.run((), &mut world).unwrap());
    assert_eq!(world.resource::<Log>().0, ["b", "a"]);

    let make_short = || {
        CombinatorSystem::<OrMarker, _, _>::new(
            IntoSystem::into_system(first),
            IntoSystem::into_system(second),
            "a or b".into(),
        )
    };
    // Both halves write `Health`: they run one after the other, so they do
    // not conflict.
    let heal = |mut query: Query<&mut Health>| {
        query.iter_mut().all(|mut h| {
            h.0 += 1;
            true
        })
    };
    let both = CombinatorSystem::<OrMarker, _, _>::new(
        IntoSystem::into_system(heal),
        IntoSystem::into_system(heal),
        "heal or heal".into(),
    );
    assert_system_does_not_conflict(both.pipe(|_: In<bool>| {}));
    let mut short = make_short();
    short.initialize(&mut world);
    assert!(short.run((), &mut world).unwrap());
    assert_eq!(world.resource::<Log>().0, ["b", "a", "a"]);
}

// ---- read-only systems ----------------------------------------------------------------------

#[derive(ecs::system::SystemParam)]
struct Reader<'w, 's> {
    health: Query<'w, 's, &'static Health>,
    count: Res<'w, Count>,
    seen: Local<'s, u32>,
}

fn read_with_reader(mut reader: Reader) -> u32 {
    *reader.seen += 1;
    reader.count.0 + reader.health.iter().map(|h| h.0).sum::<u32>()
}

#[test]
fn read_only_systems_run_through_a_shared_world() {
    fn sum(query: Query<&Health>, count: Option<Res<Count>>, _: &World) -> u32 {
        query.iter().map(|h| h.0).sum::<u32>() + count.map_or(0, |c| c.0)
    }
    assert_is_read_only_system(sum);
    assert_is_read_only_system(read_with_reader);
    assert_is_read_only_system(sum.pipe(|In(n): In<u32>, _: Local<u8>| n));
    assert_is_read_only_system(sum.map(|n| n + 1));

    let mut world = World::new();
    world.insert_resource(Count(10));
    world.spawn(Health(1));
    world.spawn(Health(2));
    let mut system = IntoSystem::into_system(sum.pipe(|In(n): In<u32>| n * 2));
    system.initialize(&mut world);
    assert_eq!(system.run_readonly((), &world).unwrap(), 26);
    let mut reader = IntoSystem::into_system(read_with_reader);
    reader.initialize(&mut world);
    assert_eq!(reader.run_readonly((), &world).unwrap(), 13);
}

#[test]
fn read_only_run_sees_changes_since_its_last_run() {
    fn changed(query: Query<&Health, Changed<Health>>) -> usize {
        query.iter().count()
    }
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    let mut system = IntoSystem::into_system(changed);
    system.initialize(&mut world);
    assert_eq!(system.run_readonly((), &world).unwrap(), 1);
    assert_eq!(system.run_readonly((), &world).unwrap(), 0);
    world.get_mut::<Health>(e).unwrap().0 = 2;
    assert_eq!(system.run_readonly((), &world).unwrap(), 1);
}

// ---- assertions -------------------------------------------------------------------------------

#[test]
fn assert_is_system_accepts_systems_of_every_kind() {
    assert_is_system(count_health);
    assert_is_system(double);
    assert_is_system(|_: &mut World| {});
    assert_is_system(count_health.pipe(double).map(|n| n > 2));
}

#[test]
fn assert_is_system_names_the_conflict() {
    fn conflicting(_: Query<&mut Health>, _: Query<&Health>) {}
    let message = expect_panic(|| assert_is_system(conflicting));
    assert!(message.contains("conflicting"), "{message}");
    assert!(message.contains("Health"), "{message}");
    assert!(message.contains("B0001"), "{message}");

    let message = expect_panic(|| {
        assert_is_system(
            count_health
                .pipe(double)
                .pipe(|_: In<usize>, _: ResMut<Count>, _: Res<Count>| {}),
        )
    });
    assert!(message.contains("Count"), "{message}");
    assert!(message.contains("B0002"), "{message}");
}

#[test]
fn assert_system_does_not_conflict_runs_the_system_once() {
    fn disjoint(
        _players: Query<&mut Health, With<Player>>,
        _others: Query<&mut Health, Without<Player>>,
        mut commands: Commands,
    ) {
        commands.spawn(Player);
    }
    assert_system_does_not_conflict(disjoint);
    assert_system_does_not_conflict(count_health.map(drop));

    fn overlapping(_: Query<&mut Health, With<Player>>, _: Query<&mut Health>) {}
    let message = expect_panic(|| assert_system_does_not_conflict(overlapping));
    assert!(message.contains("overlapping"), "{message}");
    assert!(message.contains("Health"), "{message}");

    fn needs_count(_: Res<Count>) {}
    let message = expect_panic(|| assert_system_does_not_conflict(needs_count));
    assert!(message.contains("Count"), "{message}");
}

// ---- panics ---------------------------------------------------------------------------------

fn assert_usable(world: &mut World) {
    integrity(world);
    let e = world.spawn(Health(9)).id();
    assert_eq!(world.get::<Health>(e).unwrap().0, 9);
    world.despawn(e);
    integrity(world);
}

#[test]
fn a_panic_in_the_first_half_runs_nothing_of_the_second() {
    let log = DropLog::default();
    let mut world = World::new();
    world.init_resource::<Log>();
    let input = Payload::new(1, &log);
    let first = move |In(payload): In<Payload>, mut commands: Commands| -> Payload {
        commands.spawn(Player);
        if payload.id == 1 {
            panic!("first half failed");
        }
        payload
    };
    let second = |In(payload): In<Payload>, mut log: ResMut<Log>| {
        log.0.push(payload.id.to_string());
    };
    let mut system = IntoSystem::into_system(first.pipe(second));
    system.initialize(&mut world);
    let result = catch_unwind(AssertUnwindSafe(|| system.run(input, &mut world)));
    assert!(result.is_err());
    log.assert_dropped_once(&[1]);
    assert!(world.resource::<Log>().0.is_empty());
    assert_usable(&mut world);

    // The system still works, and the command queued before the panic is
    // applied with the next run's.
    system.run(Payload::new(2, &log), &mut world).unwrap();
    log.assert_dropped_once(&[1, 2]);
    assert_eq!(world.resource::<Log>().0, ["2"]);
    let mut players = world.query::<&Player>();
    assert_eq!(players.iter(&world).count(), 2);
    assert_usable(&mut world);
}

#[test]
fn a_panic_in_the_second_half_drops_the_piped_value_once() {
    let log = DropLog::default();
    let mut world = World::new();
    world.insert_resource(Count(0));
    let dropped = log.clone();
    let first = move |mut count: ResMut<Count>| -> Payload {
        count.0 += 1;
        Payload::new(count.0, &dropped)
    };
    let second = |In(payload): In<Payload>, mut commands: Commands| {
        commands.spawn(Player);
        if payload.id == 1 {
            panic!("second half failed with {}", payload.id);
        }
    };
    let mut schedule = Schedule::default();
    schedule.add_systems(first.pipe(second));
    let message = expect_panic(|| schedule.run(&mut world));
    assert!(message.contains("second half failed with 1"), "{message}");
    log.assert_dropped_once(&[1]);
    assert_eq!(world.resource::<Count>().0, 1);
    assert_usable(&mut world);

    schedule.run(&mut world);
    log.assert_dropped_once(&[1, 2]);
    assert_eq!(world.resource::<Count>().0, 2);
    assert_usable(&mut world);
    // The spawn queued by the run that panicked is applied with the next
    // run's, neither lost nor doubled.
    let mut players = world.query::<&Player>();
    assert_eq!(players.iter(&world).count(), 2);
    drop(schedule);
    log.assert_no_double_drop();
}

#[test]
fn a_panic_in_a_map_or_with_input_leaves_the_value_in_place() {
    let log = DropLog::default();
    let mut world = World::new();
    world.insert_resource(Held(Payload::new(7, &log)));
    let mut mapped = IntoSystem::into_system(
        (|held: Res<Held>| held.0.id).map(|id: u32| -> u32 { panic!("map of {id} failed") }),
    );
    mapped.initialize(&mut world);
    let message = expect_panic(|| mapped.run((), &mut world));
    assert!(message.contains("map of 7 failed"), "{message}");
    log.assert_not_dropped(&[7]);

    let kept = Payload::new(8, &log);
    let mut with_input = IntoSystem::into_system(
        (|InMut(p): InMut<Payload>| {
            if p.id == 8 {
                panic!("input {} refused", p.id);
            }
        })
        .with_input(kept),
    );
    with_input.initialize(&mut world);
    let message = expect_panic(|| with_input.run((), &mut world));
    assert!(message.contains("input 8 refused"), "{message}");
    log.assert_not_dropped(&[8]);
    assert_eq!(with_input.value().id, 8);
    drop(with_input);
    log.assert_dropped_once(&[8]);
    assert_usable(&mut world);
    drop(world);
    log.assert_dropped_once(&[7, 8]);
}

/// A parameter with no lifetime that is not read-only (it claims the
/// whole world for writing).
struct WritesEverything;

// SAFETY: records a write of everything; fetches nothing.
unsafe impl ecs::system::SystemParam for WritesEverything {
    type State = ();
    type Item<'w, 's> = WritesEverything;

    fn init_state(world: &mut World, meta: &mut ecs::system::SystemMeta) {
        let mut access = ecs::query::FilteredAccess::default();
        access.access_mut().write_all();
        meta.add_param_access("WritesEverything", access, world);
    }

    unsafe fn get_param<'w, 's>(
        _: &'s mut (),
        _: &ecs::system::SystemMeta,
        _: ecs::world::UnsafeWorldCell<'w>,
        _: ecs::change_detection::Tick,
    ) -> WritesEverything {
        WritesEverything
    }
}

/// Its derive must compile although its field is never read-only.
#[derive(ecs::system::SystemParam)]
struct WrapsWriter {
    _writer: WritesEverything,
}

#[test]
fn a_derived_param_whose_field_is_not_read_only_is_still_a_param() {
    fn uses(_: WrapsWriter) {}
    assert_is_system(uses);
    let mut world = World::new();
    let mut system = IntoSystem::into_system(uses);
    system.initialize(&mut world);
    assert!(system.access().combined_access().has_write_all());
}

#[test]
fn a_system_with_commands_is_read_only_and_its_commands_apply_later() {
    fn spawner(mut commands: Commands, query: Query<&Health>) -> usize {
        commands.spawn(Health(1));
        query.iter().count()
    }
    ecs::system::assert_is_read_only_system(spawner);
    let mut world = World::new();
    let mut system = IntoSystem::into_system(spawner);
    system.initialize(&mut world);
    assert_eq!(system.run_readonly((), &world).unwrap(), 0);
    assert_eq!(
        world.query::<&Health>().iter(&world).count(),
        0,
        "queued, not applied"
    );
    system.apply_deferred(&mut world);
    assert_eq!(world.query::<&Health>().iter(&world).count(), 1);
}
