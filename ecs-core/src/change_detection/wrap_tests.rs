//! Change detection across full wraps of the `u32` clock: every holder of
//! a tick (stored values, resources, systems of every schedule, observers,
//! the world's own last change tick) is kept comparable by the world's
//! checks, whichever schedule drives them.

use crate::change_detection::{Tick, CHECK_TICK_THRESHOLD};
use crate::prelude::*;

#[derive(Component)]
struct Watched(u32);
#[derive(Component)]
#[component(storage = "SparseSet")]
struct Untouched;
#[derive(Resource)]
struct Score(u32);
#[derive(Event)]
struct Look;

/// What each reader saw changed: `Watched` values, `Untouched` values,
/// and whether `Score` changed.
#[derive(Resource, Default)]
struct Seen(Vec<(&'static str, usize, usize, bool)>);

/// Records what one reader's queries and resource saw changed.
fn record(
    reader: &'static str,
    watched: &Query<(), Changed<Watched>>,
    untouched: &Query<(), Changed<Untouched>>,
    score: &Res<Score>,
    seen: &mut Seen,
) {
    let changed = score.is_changed();
    seen.0.push((
        reader,
        watched.iter().count(),
        untouched.iter().count(),
        changed,
    ));
}

fn function_reader(
    watched: Query<(), Changed<Watched>>,
    untouched: Query<(), Changed<Untouched>>,
    score: Res<Score>,
    mut seen: ResMut<Seen>,
) {
    record("function", &watched, &untouched, &score, &mut seen);
}

fn exclusive_reader(world: &mut World) {
    let watched = world
        .query_filtered::<(), Changed<Watched>>()
        .iter(world)
        .count();
    let untouched = world
        .query_filtered::<(), Changed<Untouched>>()
        .iter(world)
        .count();
    let changed = world.resource_ref::<Score>().is_changed();
    world
        .resource_mut::<Seen>()
        .0
        .push(("exclusive", watched, untouched, changed));
}

fn observer_reader(
    _: On<Look>,
    watched: Query<(), Changed<Watched>>,
    untouched: Query<(), Changed<Untouched>>,
    score: Res<Score>,
    mut seen: ResMut<Seen>,
) {
    record("observer", &watched, &untouched, &score, &mut seen);
}

/// Moves the clock forward by `ticks` in jumps the world's checks can
/// follow (each below `2 * CHECK_TICK_THRESHOLD`), running `busy` after each
/// jump as a game's main schedule would; cheap enough for Miri.
fn advance(world: &mut World, busy: &mut Schedule, mut ticks: u64) {
    while ticks > 0 {
        let step = ticks.min(u64::from(CHECK_TICK_THRESHOLD) + 7);
        let tick = world.change_tick().get().wrapping_add(step as u32);
        world.set_change_tick_for_test(Tick::new(tick));
        busy.run(world);
        ticks -= step;
    }
}

fn take_seen(world: &mut World) -> Vec<(&'static str, usize, usize, bool)> {
    std::mem::take(&mut world.resource_mut::<Seen>().0)
}

/// A schedule left idle while another runs for a full wrap, and an
/// observer not triggered meanwhile, see a change made during the wrap,
/// and do not see the changes from before it as new. So does a
/// standalone query state (it compares against the world's last change
/// tick).
#[test]
fn an_idle_schedule_and_an_observer_see_changes_across_a_full_wrap() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.insert_resource(Score(0));
    let e = world.spawn((Watched(0), Untouched)).id();
    world.add_observer(observer_reader);
    let mut busy = Schedule::single_threaded();
    busy.add_systems(|mut q: Query<&mut Watched, Without<Untouched>>| {
        for mut w in &mut q {
            w.0 += 1;
        }
    });
    let mut idle = Schedule::single_threaded();
    idle.add_systems((function_reader, exclusive_reader).chain());
    let mut standalone = world.query_filtered::<(), Changed<Watched>>();
    let mut standalone_untouched = world.query_filtered::<(), Changed<Untouched>>();

    idle.run(&mut world);
    world.trigger(Look);
    let first = [
        ("function", 1, 1, true),
        ("exclusive", 1, 1, true),
        ("observer", 1, 1, true),
    ];
    assert_eq!(take_seen(&mut world), first);

    // Change `Watched` and `Score` just before the clock comes back round
    // to where the idle readers last ran, then go a little past it: the
    // wrapped distance to their last run is now shorter than to the change.
    advance(&mut world, &mut busy, u64::from(u32::MAX) - 2_000);
    world.get_mut::<Watched>(e).unwrap().0 = 1;
    world.resource_mut::<Score>().0 = 1;
    advance(&mut world, &mut busy, 4_000);

    idle.run(&mut world);
    world.trigger(Look);
    let after_wrap = [
        ("function", 1, 0, true),
        ("exclusive", 1, 0, true),
        ("observer", 1, 0, true),
    ];
    assert_eq!(take_seen(&mut world), after_wrap);
    assert_eq!(standalone.iter(&world).count(), 1);
    assert_eq!(standalone_untouched.iter(&world).count(), 0);

    idle.run(&mut world);
    world.trigger(Look);
    let nothing_new = [
        ("function", 0, 0, false),
        ("exclusive", 0, 0, false),
        ("observer", 0, 0, false),
    ];
    assert_eq!(take_seen(&mut world), nothing_new);
}

/// An exclusive system holds the world's last change tick aside while it
/// runs; when it runs a schedule across a full wrap, the value it puts back
/// is clamped like every other, so standalone queries still see the
/// change made during the wrap.
#[test]
fn the_last_change_tick_set_aside_by_an_exclusive_system_is_clamped() {
    let mut world = World::new();
    world.insert_resource(Score(0));
    let e = world.spawn((Watched(0), Untouched)).id();
    world.clear_trackers();
    world
        .run_system_once(move |world: &mut World| {
            let mut busy = Schedule::single_threaded();
            busy.add_systems(|| {});
            advance(world, &mut busy, u64::from(u32::MAX) - 2_000);
            world.get_mut::<Watched>(e).unwrap().0 = 1;
            advance(world, &mut busy, 4_000);
        })
        .unwrap();
    let mut watched = world.query_filtered::<(), Changed<Watched>>();
    let mut untouched = world.query_filtered::<(), Changed<Untouched>>();
    assert_eq!(watched.iter(&world).count(), 1);
    assert_eq!(untouched.iter(&world).count(), 0);
    world.clear_trackers();
    assert_eq!(watched.iter(&world).count(), 0);
}

/// A tick kept outside the world, clamped by an observer of
/// `CheckChangeTicks`, stays comparable across a full wrap: a change made
/// just before the clock returns is newer than it; unclamped, the same
/// tick would read as newer than the change. Each schedule run's check
/// triggers the event once.
#[test]
fn an_observer_of_the_check_keeps_its_own_tick_comparable() {
    use crate::change_detection::CheckChangeTicks;

    #[derive(Resource)]
    struct Kept {
        clamped: Tick,
        unclamped: Tick,
        checks: u32,
    }
    let mut world = World::new();
    let start = world.change_tick();
    world.insert_resource(Kept {
        clamped: start,
        unclamped: start,
        checks: 0,
    });
    world.add_observer(|check: On<CheckChangeTicks>, mut kept: ResMut<Kept>| {
        kept.clamped.check_tick(*check);
        kept.checks += 1;
    });
    let mut busy = Schedule::single_threaded();
    busy.add_systems(|| {});
    // Every full step of `advance` moves the clock past the threshold, so
    // its schedule run checks; the shorter last steps do not.
    let full_steps = (u64::from(u32::MAX) - 2_000) / (u64::from(CHECK_TICK_THRESHOLD) + 7);
    advance(&mut world, &mut busy, u64::from(u32::MAX) - 2_000);
    let changed = world.change_tick();
    advance(&mut world, &mut busy, 4_000);
    let now = world.change_tick();
    let kept = world.resource::<Kept>();
    assert!(changed.is_newer_than(kept.clamped, now));
    // The unclamped tick's age wrapped to about 2,000, less than the
    // change's.
    assert!(!changed.is_newer_than(kept.unclamped, now));
    assert_eq!(u64::from(kept.checks), full_steps);
}

/// Moves the clock past the check threshold without checking.
fn due(world: &mut World) {
    let tick = world
        .change_tick()
        .get()
        .wrapping_add(CHECK_TICK_THRESHOLD + 1);
    world.set_change_tick_for_test(Tick::new(tick));
}

/// A panicking `CheckChangeTicks` observer does not use up the check: the
/// next call checks again, and the observers left out get the event.
#[test]
fn a_check_whose_observer_panicked_is_made_again() {
    use crate::change_detection::CheckChangeTicks;

    #[derive(Resource, Default)]
    struct Calls {
        first: u32,
        second: u32,
    }
    let mut world = World::new();
    world.init_resource::<Calls>();
    world.add_observer(|_: On<CheckChangeTicks>, mut calls: ResMut<Calls>| {
        calls.first += 1;
        assert!(calls.first > 1, "the first check fails");
    });
    world.add_observer(|_: On<CheckChangeTicks>, mut calls: ResMut<Calls>| {
        calls.second += 1;
    });
    due(&mut world);
    let panicked =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.check_change_ticks()));
    assert!(panicked.is_err());
    assert_eq!(world.resource::<Calls>().second, 0);
    assert!(world.check_change_ticks().is_some());
    assert_eq!(world.resource::<Calls>().second, 1);
    assert!(world.check_change_ticks().is_none());
}

/// What a `CheckChangeTicks` observer does during `clear_trackers`
/// belongs to the new frame, and the entities it spawned are live.
#[test]
fn a_check_during_clear_trackers_belongs_to_the_new_frame() {
    use crate::change_detection::CheckChangeTicks;

    #[derive(Component)]
    struct Marker;
    #[derive(Resource, Default)]
    struct Reserved(Vec<Entity>);
    let mut world = World::new();
    world.init_resource::<Reserved>();
    world.add_observer(
        |_: On<CheckChangeTicks>, mut commands: Commands, mut reserved: ResMut<Reserved>| {
            commands.spawn(Marker);
            reserved.0.push(commands.spawn_empty().id());
        },
    );
    due(&mut world);
    world.clear_trackers();
    let added = world
        .query_filtered::<Entity, Added<Marker>>()
        .iter(&world)
        .count();
    assert_eq!(added, 1);
    let reserved = world.resource::<Reserved>().0[0];
    assert!(world.get_entity(reserved).is_ok(), "live after the check");
}

/// With nothing observing `CheckChangeTicks`, a check triggers nothing, so
/// the commands queued on the world stay queued.
#[test]
fn an_unobserved_check_applies_no_command() {
    #[derive(Resource)]
    struct Queued;
    let mut world = World::new();
    world.commands().insert_resource(Queued);
    due(&mut world);
    assert!(world.check_change_ticks().is_some());
    assert!(!world.contains_resource::<Queued>());
    world.flush();
    assert!(world.contains_resource::<Queued>());
}
