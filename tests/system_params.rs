//! The system parameters beyond queries and resources: `Single`,
//! `Populated`, `ParamSet`, `Deferred`, `StaticSystemParam`,
//! `SystemChangeTick` and the world metadata parameters.

mod common;

use common::drop_log::{DropLog, Payload};
use common::integrity::check_invariants;
use common::panics::expect_panic;
use ecs::archetype::Archetypes;
use ecs::component::Components;
use ecs::entity::Entities;
use ecs::prelude::*;
use ecs::system::{
    assert_is_read_only_system, assert_is_system, RunSystemError, StaticSystemParam, SystemBuffer,
    SystemChangeTick, SystemMeta, SystemState,
};

#[derive(Component, Debug, PartialEq)]
struct A(u32);

#[derive(Component, Debug, PartialEq)]
struct B(u32);

#[derive(Component)]
struct Player;

#[derive(Resource, Default, Debug, PartialEq)]
struct Seen(usize);

fn skipped<T: std::fmt::Debug>(result: Result<T, RunSystemError>) -> bool {
    matches!(result, Err(RunSystemError::Skipped(_)))
}

// ---- Single ------------------------------------------------------------------

#[test]
fn single_runs_with_exactly_one_match_and_skips_otherwise() {
    fn bump(mut a: Single<&mut A, With<Player>>) {
        a.0 += 1;
    }
    let mut world = World::new();
    assert!(skipped(world.run_system_once(bump)));
    let player = world.spawn((A(1), Player)).id();
    world.spawn(A(10));
    world.run_system_once(bump).unwrap();
    assert_eq!(world.get::<A>(player), Some(&A(2)));
    let other = world.spawn((A(5), Player)).id();
    let error = world.run_system_once(bump).unwrap_err();
    assert!(skipped::<()>(Err(error)));
    assert_eq!(world.get::<A>(player), Some(&A(2)));
    assert_eq!(world.get::<A>(other), Some(&A(5)));
}

#[test]
fn single_skip_names_the_parameter_and_the_reason() {
    let mut world = World::new();
    let error = world.run_system_once(|_: Single<&A>| {}).unwrap_err();
    let RunSystemError::Skipped(error) = error else {
        panic!("expected a skip, got {error:?}");
    };
    assert!(error.skipped);
    assert!(error.param.contains("Single"), "{}", error.param);
    assert_eq!(error.message, "no matching entities");
    world.spawn(A(1));
    world.spawn(A(2));
    let Err(RunSystemError::Skipped(error)) = world.run_system_once(|_: Single<&A>| {}) else {
        panic!("expected a skip");
    };
    assert_eq!(error.message, "several matching entities");
}

#[test]
fn a_skipped_system_keeps_its_last_run() {
    fn changed(_: Single<&Player>, changed: Query<(), Changed<A>>, mut seen: ResMut<Seen>) {
        seen.0 = changed.iter().count();
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut system = IntoSystem::into_system(changed);
    system.initialize(&mut world);
    world.spawn(A(1));
    let before = system.last_run();
    assert!(skipped(system.run((), &mut world)));
    assert_eq!(system.last_run(), before);
    // The change made before the skipped run is still new to the system.
    world.spawn(Player);
    system.run((), &mut world).unwrap();
    assert_eq!(world.resource::<Seen>().0, 1);
    assert_ne!(system.last_run(), before);
    system.run((), &mut world).unwrap();
    assert_eq!(world.resource::<Seen>().0, 0);
}

#[test]
fn single_into_inner_takes_a_tuple_item_apart() {
    fn swap(pair: Single<(&mut A, &mut B)>) {
        let (mut a, mut b) = pair.into_inner();
        std::mem::swap(&mut a.0, &mut b.0);
    }
    let mut world = World::new();
    let e = world.spawn((A(1), B(2))).id();
    world.run_system_once(swap).unwrap();
    assert_eq!(world.get::<A>(e), Some(&A(2)));
    assert_eq!(world.get::<B>(e), Some(&B(1)));
}

#[test]
fn option_single_is_none_for_no_match_and_for_several() {
    fn read(a: Option<Single<&A>>) -> Option<u32> {
        a.map(|a| a.0)
    }
    let mut world = World::new();
    assert_eq!(world.run_system_once(read).unwrap(), None);
    world.spawn(A(7));
    assert_eq!(world.run_system_once(read).unwrap(), Some(7));
    world.spawn(A(8));
    assert_eq!(world.run_system_once(read).unwrap(), None);
}

#[test]
fn option_single_mutates_the_one_match() {
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    world
        .run_system_once(|a: Option<Single<&mut A>>| {
            if let Some(mut a) = a {
                a.0 = 9;
            }
        })
        .unwrap();
    assert_eq!(world.get::<A>(e), Some(&A(9)));
}

#[test]
fn single_of_mut_twice_panics_at_initialisation_naming_the_component() {
    fn twice(_: Single<&mut A>, _: Single<&mut A>) {}
    let message = expect_panic(|| assert_is_system(twice));
    assert!(message.contains("error[B0001]"), "{message}");
    assert!(message.contains("system_params::A`"), "{message}");
    assert!(message.contains("twice"), "{message}");
}

#[test]
fn disjoint_singles_of_mut_are_allowed() {
    fn both(mut a: Single<&mut A, With<Player>>, mut b: Single<&mut A, Without<Player>>) {
        std::mem::swap(&mut a.0, &mut b.0);
    }
    let mut world = World::new();
    let p = world.spawn((A(1), Player)).id();
    let q = world.spawn(A(2)).id();
    world.run_system_once(both).unwrap();
    assert_eq!(world.get::<A>(p), Some(&A(2)));
    assert_eq!(world.get::<A>(q), Some(&A(1)));
}

#[test]
fn single_in_system_state() {
    let mut world = World::new();
    world.spawn(A(3));
    let mut state: SystemState<(Single<&A>, Option<Single<&B>>)> = SystemState::new(&mut world);
    let (a, b) = state.get(&world);
    assert_eq!(a.0, 3);
    assert!(b.is_none());
    // A `SystemState` cannot skip: an unmet `Single` panics, naming it.
    let mut state: SystemState<Single<&B>> = SystemState::new(&mut world);
    let message = expect_panic(|| {
        state.get(&world);
    });
    assert!(message.contains("Single"), "{message}");
    assert!(message.contains("no matching entities"), "{message}");
}

#[test]
fn single_sees_changes_since_the_last_run() {
    fn changed(a: Option<Single<&A, Changed<A>>>) -> bool {
        a.is_some()
    }
    let mut world = World::new();
    let e = world.spawn(A(1)).id();
    let mut system = IntoSystem::into_system(changed);
    system.initialize(&mut world);
    assert!(system.run((), &mut world).unwrap());
    assert!(!system.run((), &mut world).unwrap());
    world.get_mut::<A>(e).unwrap().0 = 2;
    assert!(system.run((), &mut world).unwrap());
}

#[test]
fn a_schedule_skips_an_unmet_system_and_runs_the_others() {
    fn needs_player(_: Single<&Player>, mut seen: ResMut<Seen>) {
        seen.0 += 100;
    }
    fn always(mut seen: ResMut<Seen>) {
        seen.0 += 1;
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::default();
    schedule.add_systems((needs_player, always));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, 1);
    world.spawn(Player);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, 102);
}

#[derive(ecs::system::SystemParam)]
struct PlayerParam<'w, 's> {
    seen: ResMut<'w, Seen>,
    player: Single<'w, 's, &'static A, With<Player>>,
}

#[test]
fn a_derived_param_with_an_unmet_single_skips_naming_the_field() {
    fn sys(mut param: PlayerParam) {
        param.seen.0 = param.player.0 as usize;
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let Err(RunSystemError::Skipped(error)) = world.run_system_once(sys) else {
        panic!("expected a skip");
    };
    assert_eq!(error.field, "::player");
    assert!(error.to_string().contains("::player"), "{error}");
    world.spawn((A(4), Player));
    world.run_system_once(sys).unwrap();
    assert_eq!(world.resource::<Seen>().0, 4);
}

#[derive(Event)]
struct Ping;

#[test]
fn an_observer_with_an_unmet_single_is_skipped() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|_: On<Ping>, a: Single<&A>, mut seen: ResMut<Seen>| {
        seen.0 += a.0 as usize;
    });
    world.trigger(Ping);
    assert_eq!(world.resource::<Seen>().0, 0);
    world.spawn(A(5));
    world.trigger(Ping);
    assert_eq!(world.resource::<Seen>().0, 5);
}

// ---- Populated ----------------------------------------------------------------

#[test]
fn populated_skips_while_empty_and_derefs_to_the_query() {
    fn double(mut all: Populated<&mut A>, mut seen: ResMut<Seen>) {
        seen.0 = all.count();
        for mut a in &mut all {
            a.0 *= 2;
        }
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    assert!(skipped(world.run_system_once(double)));
    let e = world.spawn(A(2)).id();
    world.spawn(A(3));
    world.run_system_once(double).unwrap();
    assert_eq!(world.resource::<Seen>().0, 2);
    assert_eq!(world.get::<A>(e), Some(&A(4)));
}

#[test]
fn option_populated_is_none_while_empty() {
    let mut world = World::new();
    let count = |q: Option<Populated<&A>>| q.map(|q| q.into_inner().iter().count());
    assert_eq!(world.run_system_once(count).unwrap(), None);
    world.spawn(A(1));
    assert_eq!(world.run_system_once(count).unwrap(), Some(1));
}

// ---- ParamSet -----------------------------------------------------------------

#[test]
fn param_set_members_may_conflict_with_each_other() {
    fn raise_to_max(mut set: ParamSet<(Query<&mut A>, Query<&A>)>) {
        let max = set.p1().iter().map(|a| a.0).max().unwrap_or(0);
        for mut a in &mut set.p0() {
            a.0 = max;
        }
    }
    let mut world = World::new();
    let low = world.spawn(A(1)).id();
    world.spawn(A(6));
    world.run_system_once(raise_to_max).unwrap();
    assert_eq!(world.get::<A>(low), Some(&A(6)));
}

#[test]
fn param_set_of_resources_and_world() {
    #[derive(Resource)]
    struct Counter(u32);
    fn sys(mut set: ParamSet<(ResMut<Counter>, Res<Counter>, &World)>) {
        set.p0().0 += 1;
        let read = set.p1().0;
        let through_world = set.p2().resource::<Counter>().0;
        assert_eq!(read, through_world);
        set.p0().0 += read;
    }
    let mut world = World::new();
    world.insert_resource(Counter(1));
    world.run_system_once(sys).unwrap();
    assert_eq!(world.resource::<Counter>().0, 4);
}

#[test]
fn param_set_has_eight_members() {
    #[allow(clippy::type_complexity)]
    fn eight(
        mut set: ParamSet<(
            Query<&mut A>,
            Query<&A>,
            Query<&mut B>,
            Query<&B>,
            Query<(&mut A, &B)>,
            Query<Entity>,
            Res<Seen>,
            ResMut<Seen>,
        )>,
    ) {
        let entities = set.p5().iter().count();
        set.p7().0 = entities;
        let seen = set.p6().0;
        for (mut a, b) in &mut set.p4() {
            a.0 = b.0 + seen as u32;
        }
        assert_eq!(set.p0().iter().count(), set.p1().iter().count());
        assert_eq!(set.p2().iter().count(), set.p3().iter().count());
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    let e = world.spawn((A(0), B(10))).id();
    world.run_system_once(eight).unwrap();
    assert_eq!(world.get::<A>(e), Some(&A(11)));
}

#[test]
fn param_set_conflicting_with_another_parameter_panics() {
    fn sys(_: Query<&mut A>, _: ParamSet<(Query<&mut A>, Query<&B>)>) {}
    let message = expect_panic(|| assert_is_system(sys));
    assert!(message.contains("error[B0001]"), "{message}");
    assert!(message.contains("ParamSet"), "{message}");
    assert!(message.contains("system_params::A`"), "{message}");
}

#[test]
fn a_parameter_after_a_param_set_is_checked_against_its_members() {
    fn sys(_: ParamSet<(Query<&A>, Query<&mut B>)>, _: Query<&mut B>) {}
    let message = expect_panic(|| assert_is_system(sys));
    assert!(message.contains("system_params::B`"), "{message}");
}

#[test]
fn two_param_sets_conflicting_panic() {
    fn sys(_: ParamSet<(Query<&mut A>,)>, _: ParamSet<(Query<&mut A>, Query<&B>)>) {}
    let message = expect_panic(|| assert_is_system(sys));
    assert!(message.contains("system_params::A`"), "{message}");
}

#[test]
fn param_set_access_is_the_union_of_its_members() {
    let mut world = World::new();
    let mut system =
        IntoSystem::into_system(|_: ParamSet<(Query<&mut A>, Query<&A>, Res<Seen>)>| {});
    system.initialize(&mut world);
    let a = world.component_id::<A>().unwrap();
    let access = system.access().combined_access();
    assert!(access.has_write(a));
    let reader = IntoSystem::into_system(|_: Query<&A>| {});
    let mut reader = reader;
    reader.initialize(&mut world);
    assert!(!system.access().is_compatible(reader.access()));
}

#[test]
fn read_only_param_set_makes_a_read_only_system() {
    fn read(_: ParamSet<(Query<&A>, Query<&B>, &World)>) {}
    assert_is_read_only_system(read);
}

#[test]
fn param_set_applies_its_members_commands() {
    fn spawn(mut set: ParamSet<(Commands, Query<&A>)>) {
        set.p0().spawn(A(1));
        let _ = set.p1().iter().count();
    }
    let mut world = World::new();
    let mut system = IntoSystem::into_system(spawn);
    system.initialize(&mut world);
    assert!(system.has_deferred());
    system.run((), &mut world).unwrap();
    let mut query = world.query::<&A>();
    assert_eq!(query.iter(&world).count(), 1);
}

#[test]
fn param_set_with_an_unmet_single_skips_the_system() {
    fn sys(mut set: ParamSet<(Single<&mut A>, Query<&A>)>) {
        set.p0().0 += 1;
    }
    let mut world = World::new();
    assert!(skipped(world.run_system_once(sys)));
    let e = world.spawn(A(1)).id();
    world.run_system_once(sys).unwrap();
    assert_eq!(world.get::<A>(e), Some(&A(2)));
}

// The members name `'static` lifetimes: the derive fetches each field
// through its type with `'static` for `'w` and `'s`, and a `ParamSet` is
// invariant in its members.
#[derive(ecs::system::SystemParam)]
struct Both<'w, 's> {
    set: ParamSet<
        'w,
        's,
        (
            Query<'static, 'static, &'static mut A>,
            Query<'static, 'static, &'static A>,
        ),
    >,
}

#[test]
fn param_set_in_a_derived_param() {
    fn sys(mut both: Both) {
        let sum: u32 = both.set.p1().iter().map(|a| a.0).sum();
        for mut a in &mut both.set.p0() {
            a.0 = sum;
        }
    }
    let mut world = World::new();
    let e = world.spawn(A(2)).id();
    world.spawn(A(3));
    world.run_system_once(sys).unwrap();
    assert_eq!(world.get::<A>(e), Some(&A(5)));
}

#[test]
fn param_set_in_system_state() {
    let mut world = World::new();
    world.spawn(A(1));
    let mut state: SystemState<ParamSet<(Query<&mut A>, Query<&A>)>> = SystemState::new(&mut world);
    let mut set = state.get_mut(&mut world);
    for mut a in &mut set.p0() {
        a.0 = 8;
    }
    assert_eq!(set.p1().single().unwrap().0, 8);
}

// ---- Deferred ------------------------------------------------------------------

#[derive(Resource, Default)]
struct Log(Vec<u32>);

#[derive(Default)]
struct LogBuffer(Vec<u32>);

impl SystemBuffer for LogBuffer {
    fn apply(&mut self, meta: &SystemMeta, world: &mut World) {
        assert!(meta.name().contains("log_run"), "{}", meta.name());
        world.resource_mut::<Log>().0.append(&mut self.0);
    }
}

fn log_run(mut buffer: Deferred<LogBuffer>, mut runs: Local<u32>) {
    *runs += 1;
    buffer.0.push(*runs);
}

#[test]
fn deferred_applies_at_the_sync_point() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let mut system = IntoSystem::into_system(log_run);
    system.initialize(&mut world);
    assert!(system.has_deferred());
    system
        .run_without_applying_deferred((), &mut world)
        .unwrap();
    assert!(world.resource::<Log>().0.is_empty());
    system.apply_deferred(&mut world);
    assert_eq!(world.resource::<Log>().0, [1]);
    system.run((), &mut world).unwrap();
    assert_eq!(world.resource::<Log>().0, [1, 2]);
}

#[test]
fn deferred_in_a_schedule_applies_before_the_next_system_reads() {
    fn read(log: Res<Log>, mut seen: ResMut<Seen>) {
        seen.0 = log.0.len();
    }
    let mut world = World::new();
    world.init_resource::<Log>();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::default();
    schedule.add_systems((log_run, read).chain());
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, 1);
}

struct Bombs {
    log: DropLog,
    held: Vec<Payload>,
}

impl FromWorld for Bombs {
    fn from_world(world: &mut World) -> Self {
        Bombs {
            log: world.resource::<BombLog>().0.clone(),
            held: Vec::new(),
        }
    }
}

#[derive(Resource)]
struct BombLog(DropLog);

impl SystemBuffer for Bombs {
    fn apply(&mut self, _: &SystemMeta, world: &mut World) {
        if self.held.len() > 1 {
            panic!("buffer apply failed");
        }
        world.spawn(A(self.held.len() as u32));
    }
}

#[test]
fn a_panicking_buffer_leaves_the_world_consistent_and_drops_once() {
    let log = DropLog::default();
    let mut world = World::new();
    world.insert_resource(BombLog(log.clone()));
    let mut system = IntoSystem::into_system(|mut bombs: Deferred<Bombs>| {
        let id = bombs.held.len() as u32;
        let payload = Payload::new(id, &bombs.log);
        bombs.held.push(payload);
    });
    system.initialize(&mut world);
    system.run((), &mut world).unwrap();
    let message = expect_panic(|| system.run((), &mut world));
    assert_eq!(message, "buffer apply failed");
    check_invariants(&world);
    world.spawn(A(0));
    log.assert_dropped(&[]);
    drop(system);
    log.assert_dropped_once(&[0, 1]);
}

// ---- StaticSystemParam, SystemChangeTick, metadata --------------------------

fn count_generic<P: ecs::system::SystemParam + 'static>(
    param: StaticSystemParam<P>,
    mut seen: ResMut<Seen>,
) where
    for<'w, 's> ecs::system::SystemParamItem<'w, 's, P>: std::ops::Deref<Target = Log>,
{
    seen.0 = param.0.len();
}

#[test]
fn static_system_param_reaches_a_generic_parameter() {
    let mut world = World::new();
    world.insert_resource(Log(vec![1, 2, 3]));
    world.init_resource::<Seen>();
    world.run_system_once(count_generic::<Res<Log>>).unwrap();
    assert_eq!(world.resource::<Seen>().0, 3);
    world.run_system_once(count_generic::<ResMut<Log>>).unwrap();
    assert_eq!(world.resource::<Seen>().0, 3);
}

#[test]
fn system_change_tick_reports_the_run_ticks() {
    let mut world = World::new();
    let mut system = IntoSystem::into_system(|ticks: SystemChangeTick| ticks);
    system.initialize(&mut world);
    let first = system.run((), &mut world).unwrap();
    assert!(first
        .this_run()
        .is_newer_than(first.last_run(), first.this_run()));
    let second = system.run((), &mut world).unwrap();
    assert_eq!(second.last_run(), first.this_run());
    assert_eq!(system.last_run(), second.this_run());
}

#[test]
fn world_metadata_params_read_without_access() {
    fn meta(
        _: Query<&mut A>,
        archetypes: &Archetypes,
        components: &Components,
        entities: &Entities,
    ) -> (usize, bool, u32) {
        (
            archetypes.len(),
            components.get_id(std::any::TypeId::of::<A>()).is_some(),
            entities.len(),
        )
    }
    let mut world = World::new();
    world.spawn(A(1));
    world.spawn(B(1));
    let (archetypes, has_a, entities) = world.run_system_once(meta).unwrap();
    assert_eq!(archetypes, world.archetypes().len());
    assert!(has_a);
    assert_eq!(entities, 2);
    assert_is_read_only_system(|_: &Archetypes, _: &Components, _: &Entities| {});
    let mut system = IntoSystem::into_system(|_: &Archetypes, _: &Components, _: &Entities| {});
    system.initialize(&mut world);
    assert!(system
        .access()
        .combined_access()
        .is_compatible(&ecs::query::Access::default()));
}

/// Records the last-run tick of the system meta it is applied with.
#[derive(Default)]
struct LastRuns(Vec<ecs::change_detection::Tick>);

impl SystemBuffer for LastRuns {
    fn apply(&mut self, system_meta: &ecs::system::SystemMeta, world: &mut World) {
        self.0.push(system_meta.last_run());
        world.resource_mut::<SeenLastRuns>().0 = self.0.clone();
    }
}

#[derive(Resource, Default)]
struct SeenLastRuns(Vec<ecs::change_detection::Tick>);

#[test]
fn a_buffer_is_applied_with_the_last_run_of_the_run_that_filled_it() {
    let mut world = World::new();
    world.init_resource::<SeenLastRuns>();
    let mut schedule = Schedule::default();
    schedule.add_systems(|_: Deferred<LastRuns>| {});
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.run(&mut world);
    let seen = &world.resource::<SeenLastRuns>().0;
    assert_eq!(seen.len(), 3);
    assert!(seen[0] != seen[1] && seen[1] != seen[2], "{seen:?}");
}

// ---- small parameters: SystemName, NonSendMarker, PhantomData, WorldId,
// PopulatedMessageReader -------------------------------------------------------

#[test]
fn system_name_world_id_and_phantom_data_parameters() {
    use ecs::system::SystemName;
    use ecs::world::WorldId;
    use std::marker::PhantomData;

    fn report(name: SystemName, id: WorldId, _: PhantomData<u8>) -> (String, WorldId) {
        (name.as_str().to_owned(), id)
    }
    let mut world = World::new();
    let (name, id) = world.run_system_once(report).unwrap();
    assert!(name.ends_with("::report"), "{name}");
    assert_eq!(id, world.id());
    // A closure system's name is its type's.
    let name = world
        .run_system_once(|name: SystemName| name.to_string())
        .unwrap();
    assert!(name.contains("{{closure}}"), "{name}");
}

#[test]
fn non_send_marker_keeps_a_system_on_the_schedules_thread() {
    use ecs::system::NonSendMarker;
    use std::sync::Mutex;

    #[derive(Resource, Default)]
    struct Threads(Mutex<Vec<std::thread::ThreadId>>);

    fn on_main(_: NonSendMarker, threads: Res<Threads>) {
        threads.0.lock().unwrap().push(std::thread::current().id());
    }
    fn busy(_: Res<Threads>) {}

    let mut world = World::new();
    world.init_resource::<Threads>();
    let mut schedule = Schedule::default();
    schedule.add_systems((busy, on_main, busy, busy));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    for _ in 0..if cfg!(miri) { 10 } else { 200 } {
        // `install` runs the schedule on one of the pool's threads.
        let driver = pool.install(|| {
            schedule.run(&mut world);
            std::thread::current().id()
        });
        let ran_on = world.resource::<Threads>().0.lock().unwrap().pop();
        assert_eq!(ran_on, Some(driver));
    }
}

#[test]
fn populated_message_reader_skips_its_system_while_nothing_is_unread() {
    #[derive(Message)]
    struct Hit(u32);
    #[derive(Resource, Default)]
    struct Log(Vec<u32>);

    fn on_hits(mut hits: PopulatedMessageReader<Hit>, mut log: ResMut<Log>) {
        log.0.extend(hits.read().map(|h| h.0));
    }
    let mut world = World::new();
    world.add_message::<Hit>();
    world.init_resource::<Log>();
    let mut schedule = Schedule::default();
    schedule.add_systems(on_hits);
    schedule.run(&mut world);
    world.write_message(Hit(1));
    schedule.run(&mut world);
    // Read already: skipped, however many times.
    schedule.run(&mut world);
    world.write_message(Hit(2));
    world.write_message(Hit(3));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().0, [1, 2, 3]);
}

#[derive(Resource, Default)]
struct Counter(u32);

#[derive(Message)]
struct Pinged;

#[test]
fn whole_entity_queries_leave_resources_to_resource_parameters() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.init_resource::<Messages<Pinged>>();
    world.insert_non_send(Vec::<u8>::new());
    world.spawn(A(1));
    // Each of these built and ran as one system; none conflicts.
    let mut schedule = Schedule::default();
    schedule.add_systems((
        |mut q: Query<EntityMut>, mut counter: ResMut<Counter>| {
            for mut entity in &mut q {
                if let Some(mut a) = entity.get_mut::<A>() {
                    a.0 += 1;
                    counter.0 += 1;
                }
            }
        },
        |q: Query<EntityRef>, mut bytes: NonSendMut<Vec<u8>>, mut pings: MessageWriter<Pinged>| {
            bytes.push(q.iter().count() as u8);
            pings.write(Pinged);
        },
        |q: Query<EntityMut>, counter: Res<Counter>| {
            assert!(counter.0 <= q.iter().count() as u32 * 10);
        },
    ));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Counter>().0, 1);
    assert_eq!(*world.non_send::<Vec<u8>>(), [1]);
    let mut state = SystemState::<(Query<EntityMut>, ResMut<Counter>)>::new(&mut world);
    let (mut q, mut counter) = state.get_mut(&mut world);
    counter.0 += q.iter_mut().count() as u32;
    assert_eq!(world.resource::<Counter>().0, 2);
}

#[test]
fn the_whole_world_still_conflicts_with_resources_and_resources_with_each_other() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let message = expect_panic(|| {
        SystemState::<(&World, ResMut<Counter>)>::new(&mut world);
    });
    assert!(message.contains("B0002"), "{message}");
    let message = expect_panic(|| {
        SystemState::<(Res<Counter>, Query<EntityMut>, ResMut<Counter>)>::new(&mut world);
    });
    assert!(message.contains("Counter"), "{message}");
    let message = expect_panic(|| {
        SystemState::<(Query<EntityRef>, Query<&mut A>)>::new(&mut world);
    });
    assert!(message.contains("B0001"), "{message}");
}

#[test]
fn a_whole_entity_query_and_a_resource_writer_run_side_by_side() {
    let mut world = World::new();
    world.init_resource::<Counter>();
    let mut schedule = Schedule::default();
    schedule.add_systems((
        |mut q: Query<EntityMut>| {
            for mut e in &mut q {
                e.get_mut::<A>().unwrap().0 += 1;
            }
        },
        |mut counter: ResMut<Counter>| counter.0 += 1,
        |world: &World| {
            let _ = world.entities().len();
        },
    ));
    schedule.initialize(&mut world).unwrap();
    let conflicts = schedule.graph().conflicting_systems();
    // The entity writer and the resource writer do not conflict; each
    // conflicts with the whole-world reader.
    let pairs: Vec<(String, String)> = conflicts
        .iter()
        .map(|(a, b, _)| {
            (
                schedule.graph().system_name(*a).into_owned(),
                schedule.graph().system_name(*b).into_owned(),
            )
        })
        .collect();
    assert_eq!(pairs.len(), 2, "{pairs:?}");
}

#[test]
fn resources_chosen_at_run_time_leave_entity_queries_alone() {
    use ecs::system::{FilteredResourcesMut, FilteredResourcesMutParamBuilder, ParamBuilder};
    let mut world = World::new();
    world.init_resource::<Counter>();
    world.spawn(A(1));
    let mut system = (
        FilteredResourcesMutParamBuilder::new(|b| {
            b.add_write_all();
        }),
        ParamBuilder::query::<&mut A>(),
    )
        .build_state(&mut world)
        .build_system(
            |mut resources: FilteredResourcesMut, mut q: Query<&mut A>| {
                resources.get_mut::<Counter>().unwrap().0 += 1;
                q.single_mut().unwrap().0 += 1;
            },
        );
    system.initialize(&mut world);
    system.run((), &mut world).unwrap();
    assert_eq!(world.resource::<Counter>().0, 1);
    let message = expect_panic(|| {
        (
            FilteredResourcesMutParamBuilder::new(|b| {
                b.add_write_all();
            }),
            ParamBuilder::resource::<Counter>(),
        )
            .build_state(&mut world)
    });
    assert!(message.contains("B0002"), "{message}");
}

#[test]
fn renamed_systems_go_by_their_new_name() {
    let mut world = World::new();
    let mut schedule = Schedule::default();
    schedule.add_systems((
        IntoSystem::into_system(|| {}).with_name("quiet"),
        IntoSystem::into_system(|_: &mut World| {}).with_name("exclusive"),
    ));
    schedule.initialize(&mut world).unwrap();
    assert_eq!(schedule.system_names(), ["quiet", "exclusive"]);
    let mut schedule = Schedule::default();
    schedule.add_systems(IntoSystem::into_system(|| panic!("boom")).with_name("loud"));
    let message = expect_panic(|| schedule.run(&mut world));
    assert!(message.contains("`loud`"), "{message}");
}

#[test]
fn component_id_for_names_the_component_the_world_registered() {
    #[derive(Component)]
    struct Unseen;
    let mut world = World::new();
    let mut system = IntoSystem::into_system(
        |id: ecs::component::ComponentIdFor<Unseen>, world: &World| {
            let id: ecs::component::ComponentId = id.into();
            (id, world.components().get_name(id).map(str::to_owned))
        },
    );
    // Building the system registers the component.
    system.initialize(&mut world);
    let (id, name) = system.run((), &mut world).unwrap();
    assert_eq!(world.component_id::<Unseen>(), Some(id));
    assert!(name.unwrap().ends_with("Unseen"));
}
