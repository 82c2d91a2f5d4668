//! Behaviour of `#[derive(SystemParam)]`, end to end through systems,
//! schedules and observers.

mod common;

use common::panics::expect_panic;
use ecs::prelude::*;

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Position {
    x: f32,
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Velocity {
    x: f32,
}

#[derive(Component, Debug, Clone, PartialEq)]
struct Name(&'static str);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Arrived;

#[derive(Component)]
#[component(storage = "SparseSet")]
struct Frozen;

#[derive(Resource, Debug, Default)]
struct Time {
    delta: f32,
}

#[derive(Resource, Debug, Default, PartialEq)]
struct Stats {
    moved: u32,
    runs: u32,
}

#[derive(Resource)]
struct Missing;

/// Every kind of parameter, through both lifetimes.
#[derive(SystemParam)]
struct Movers<'w, 's> {
    query: Query<'w, 's, (Entity, &'static mut Position, &'static Velocity), Without<Frozen>>,
    time: Res<'w, Time>,
    stats: ResMut<'w, Stats>,
    commands: Commands<'w, 's>,
    runs: Local<'s, u32>,
    missing: Option<Res<'w, Missing>>,
}

impl Movers<'_, '_> {
    /// Moves every mover; the ones past `x = 10` arrive. Returns how many
    /// times this system has run.
    fn step(&mut self) -> u32 {
        assert!(self.missing.is_none());
        *self.runs += 1;
        self.stats.runs += 1;
        for (entity, mut position, velocity) in &mut self.query {
            position.x += velocity.x * self.time.delta;
            self.stats.moved += 1;
            if position.x > 10.0 {
                self.commands.entity(entity).insert(Arrived);
            }
        }
        *self.runs
    }
}

fn movement(mut movers: Movers) -> u32 {
    movers.step()
}

fn world_with_movers() -> (World, Entity, Entity) {
    let mut world = World::new();
    world.insert_resource(Time { delta: 4.0 });
    world.init_resource::<Stats>();
    let fast = world.spawn((Position { x: 0.0 }, Velocity { x: 2.0 })).id();
    let frozen = world
        .spawn((Position { x: 0.0 }, Velocity { x: 2.0 }, Frozen))
        .id();
    (world, fast, frozen)
}

#[test]
fn a_derived_param_runs_once() {
    let (mut world, fast, frozen) = world_with_movers();
    assert_eq!(world.run_system_once(movement).unwrap(), 1);
    assert_eq!(world.get::<Position>(fast), Some(&Position { x: 8.0 }));
    assert_eq!(world.get::<Position>(frozen), Some(&Position { x: 0.0 }));
    assert!(!world.entity(fast).contains::<Arrived>());

    // A new system each time: its `Local` starts again.
    assert_eq!(world.run_system_once(movement).unwrap(), 1);
    assert_eq!(world.get::<Position>(fast), Some(&Position { x: 16.0 }));
    // The commands were applied when the run ended.
    assert!(world.entity(fast).contains::<Arrived>());
    assert_eq!(world.resource::<Stats>(), &Stats { moved: 2, runs: 2 });
}

#[test]
fn a_derived_param_runs_in_a_schedule() {
    for mut schedule in [Schedule::default(), Schedule::single_threaded()] {
        let (mut world, fast, _) = world_with_movers();
        schedule.add_systems(|mut movers: Movers| {
            movers.step();
        });
        schedule.run(&mut world);
        schedule.run(&mut world);
        assert!(world.entity(fast).contains::<Arrived>());
        schedule.run(&mut world);
        assert_eq!(world.get::<Position>(fast), Some(&Position { x: 24.0 }));
        assert_eq!(world.resource::<Stats>(), &Stats { moved: 3, runs: 3 });
    }
}

#[test]
fn a_derived_params_local_persists_between_runs() {
    let (mut world, _, _) = world_with_movers();
    let mut schedule = Schedule::single_threaded();
    schedule.add_systems(|mut movers: Movers, mut seen: ResMut<Seen>| {
        let runs = movers.step();
        seen.0.push(runs);
    });
    world.init_resource::<Seen>();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Seen>().0, [1, 2, 3]);
}

#[derive(Resource, Default)]
struct Seen(Vec<u32>);

// ---- shapes ---------------------------------------------------------------------------

/// A derived param nested in another, beside a plain query.
#[derive(SystemParam)]
struct Named<'w, 's> {
    movers: Movers<'w, 's>,
    names: Query<'w, 's, (&'static Name, &'static Velocity)>,
}

/// Only the world lifetime.
#[derive(SystemParam)]
struct TimeOnly<'w> {
    time: Res<'w, Time>,
}

/// The whole world, read-only, beside a resource it also reads.
#[derive(SystemParam)]
struct WorldReader<'w> {
    world: &'w World,
    time: Res<'w, Time>,
}

/// Only the state lifetime, as a tuple struct.
#[derive(SystemParam)]
struct Counter<'s>(Local<'s, u32>);

/// No lifetime and no field.
#[derive(SystemParam)]
struct Nothing;

/// A tuple field, `Option<ResMut>`, and the runtime named explicitly.
#[derive(SystemParam)]
#[ecs(crate = ::ecs)]
struct Mixed<'w, 's> {
    pair: (Res<'w, Time>, Local<'s, u8>),
    stats: Option<ResMut<'w, Stats>>,
}

#[test]
fn nested_and_partial_params() {
    let (mut world, fast, _) = world_with_movers();
    world.entity_mut(fast).insert(Name("fast"));
    let names = world
        .run_system_once(|mut named: Named| {
            named.movers.step();
            named
                .names
                .iter()
                .map(|(name, velocity)| format!("{} at {}", name.0, velocity.x))
                .collect::<Vec<_>>()
        })
        .unwrap();
    assert_eq!(names, ["fast at 2"]);
    assert_eq!(world.get::<Position>(fast), Some(&Position { x: 8.0 }));

    let mut schedule = Schedule::single_threaded();
    schedule.add_systems(
        |time_only: TimeOnly, mut counter: Counter, _: Nothing, mut mixed: Mixed| {
            assert_eq!(time_only.time.delta, 4.0);
            *counter.0 += 1;
            *mixed.pair.1 += 2;
            assert_eq!(u32::from(*mixed.pair.1), *counter.0 * 2);
            assert_eq!(mixed.pair.0.delta, 4.0);
            mixed.stats.as_mut().unwrap().runs += 10;
        },
    );
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Stats>().runs, 21);

    let read = world
        .run_system_once(|reader: WorldReader| (reader.world.entity_count(), reader.time.delta))
        .unwrap();
    assert_eq!(read, (2, 4.0));
}

/// Generic parameters are kept, and the fields that name them work.
#[derive(SystemParam)]
struct CountOf<'w, 's, C: Component, R: Resource> {
    query: Query<'w, 's, &'static C>,
    resource: Option<Res<'w, R>>,
}

impl<C: Component, R: Resource> CountOf<'_, '_, C, R> {
    fn count(&self) -> (usize, bool) {
        (self.query.iter().count(), self.resource.is_some())
    }
}

/// Bounds naming `'w`, which the `'static` state cannot name.
#[derive(SystemParam)]
struct Bounded<'w, R: Resource + 'w>
where
    R: Default + 'w,
{
    resource: Res<'w, R>,
}

#[test]
fn generic_params() {
    let (mut world, _, _) = world_with_movers();
    let counts = world
        .run_system_once(
            |positions: CountOf<Position, Time>, frozen: CountOf<Frozen, Missing>| {
                (positions.count(), frozen.count())
            },
        )
        .unwrap();
    assert_eq!(counts, ((2, true), (1, false)));
    let runs = world
        .run_system_once(|stats: Bounded<Stats>| stats.resource.runs)
        .unwrap();
    assert_eq!(runs, 0);
}

/// A public param whose fields name private types: the generated impl
/// must not leak them (`SystemParam::State` is a hidden struct of the
/// param's own visibility).
#[derive(SystemParam)]
pub struct PublicParam<'w, 's> {
    time: Res<'w, Time>,
    movers: Query<'w, 's, &'static Velocity>,
}

/// Public, so the param is part of this crate's interface.
pub fn public_system(param: PublicParam) -> f32 {
    param.movers.iter().map(|v| v.x).sum::<f32>() * param.time.delta
}

#[test]
fn a_public_param_may_have_private_field_types() {
    let (mut world, _, _) = world_with_movers();
    assert_eq!(world.run_system_once(public_system).unwrap(), 16.0);
}

/// Fields that would conflict, made disjoint by their filters.
#[derive(SystemParam)]
struct Split<'w, 's> {
    moving: Query<'w, 's, &'static mut Position, Without<Frozen>>,
    frozen: Query<'w, 's, &'static mut Position, With<Frozen>>,
}

#[test]
fn disjoint_fields_are_compatible() {
    let (mut world, fast, frozen) = world_with_movers();
    world
        .run_system_once(|mut split: Split| {
            for mut position in &mut split.moving {
                position.x = 1.0;
            }
            for mut position in &mut split.frozen {
                position.x = -1.0;
            }
        })
        .unwrap();
    assert_eq!(world.get::<Position>(fast), Some(&Position { x: 1.0 }));
    assert_eq!(world.get::<Position>(frozen), Some(&Position { x: -1.0 }));
}

// ---- conflicts ----------------------------------------------------------------------------

// Never built: their systems panic first.
#[allow(dead_code)]
#[derive(SystemParam)]
struct Writer<'w, 's> {
    positions: Query<'w, 's, &'static mut Position>,
}

#[allow(dead_code)]
#[derive(SystemParam)]
struct SelfConflict<'w, 's> {
    write: Query<'w, 's, &'static mut Position>,
    read: Query<'w, 's, &'static Position>,
}

#[test]
fn a_derived_param_conflicting_with_another_param_panics_naming_the_system() {
    fn writer_beside_reader(_: Writer, _: Query<&Position>) {}
    let message = expect_panic(|| {
        World::new().run_system_once(writer_beside_reader).unwrap();
    });
    assert!(message.starts_with("error[B0001]: "), "{message}");
    assert!(message.contains("writer_beside_reader"), "{message}");
    assert!(message.contains("::Position`"), "{message}");

    fn reader_beside_writer(_: Res<Time>, _: Query<&Position>, _: Writer) {}
    let message = expect_panic(|| {
        let mut world = World::new();
        world.init_resource::<Time>();
        let mut schedule = Schedule::default();
        schedule.add_systems(reader_beside_writer);
        schedule.run(&mut world);
    });
    assert!(message.contains("reader_beside_writer"), "{message}");
    assert!(message.contains("::Position`"), "{message}");
}

#[test]
fn conflicting_fields_of_one_derived_param_panic_naming_the_system() {
    fn self_conflicting(_: SelfConflict) {}
    let message = expect_panic(|| {
        World::new().run_system_once(self_conflicting).unwrap();
    });
    assert!(message.contains("self_conflicting"), "{message}");
    assert!(message.contains("::Position`"), "{message}");

    // Two derived params that conflict with each other.
    fn two_writers(_: Writer, _: Writer) {}
    let message = expect_panic(|| {
        World::new().run_system_once(two_writers).unwrap();
    });
    assert!(message.contains("two_writers"), "{message}");
}

#[test]
fn a_missing_resource_in_a_derived_param_panics_naming_it_and_the_system() {
    fn needs_time(_: TimeOnly) {}
    let message = expect_panic(|| {
        World::new().run_system_once(needs_time).unwrap();
    });
    assert!(message.contains("Time"), "{message}");
    assert!(message.contains("needs_time"), "{message}");
}

// ---- observers -------------------------------------------------------------------------------

/// Commands in a derived param of an observer are queued and applied after
/// the operation that fired it.
#[derive(SystemParam)]
struct Spawner<'w, 's> {
    commands: Commands<'w, 's>,
    spawned: Local<'s, u32>,
}

#[derive(Component)]
struct Parent;

#[derive(Component, Debug, PartialEq)]
struct Child(Entity, u32);

#[test]
fn a_derived_param_in_an_observer_queues_its_commands() {
    let mut world = World::new();
    world.add_observer(|ev: On<Add<Parent>>, mut spawner: Spawner| {
        *spawner.spawned += 1;
        let count = *spawner.spawned;
        spawner.commands.spawn(Child(ev.entity, count));
    });
    let a = world.spawn(Parent).id();
    let b = world.spawn(Parent).id();
    let mut children = world.query::<&Child>();
    let mut children: Vec<(Entity, u32)> = children.iter(&world).map(|c| (c.0, c.1)).collect();
    children.sort_by_key(|&(_, count)| count);
    assert_eq!(children, [(a, 1), (b, 2)]);
}
