//! Run conditions as values: each common condition over a sequence of world
//! changes, each combinator's truth table and which halves it runs, `not`,
//! names, access, read-only-ness, and a condition that panics.

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use common::drop_log::{DropLog, Payload};
use common::panics::expect_panic;
use ecs::prelude::*;
use ecs::system::assert_is_read_only_system;

#[derive(Resource, Debug, PartialEq)]
struct Level(u32);

#[derive(Resource)]
struct Toggle(bool);

#[derive(Component)]
struct Enemy;

#[derive(Component)]
struct Boss;

/// Initialises `condition` in `world` and returns it, ready to run.
fn init<M>(
    world: &mut World,
    condition: impl SystemCondition<M>,
) -> impl ReadOnlySystem<In = (), Out = bool> {
    let mut system = IntoSystem::into_system(condition);
    system.initialize(world);
    system
}

/// The system of `condition`, not yet initialised.
fn sys<M, C: SystemCondition<M>>(condition: C) -> C::System {
    IntoSystem::into_system(condition)
}

/// Runs `condition` once per step, after `step` changed the world, and
/// returns its values.
fn values<S: ReadOnlySystem<In = (), Out = bool>>(
    world: &mut World,
    condition: &mut S,
    steps: &[&dyn Fn(&mut World)],
) -> Vec<bool> {
    steps
        .iter()
        .map(|step| {
            step(world);
            condition.run((), world).unwrap()
        })
        .collect()
}

fn nothing(_: &mut World) {}
fn insert_1(world: &mut World) {
    world.insert_resource(Level(1));
}
fn insert_2(world: &mut World) {
    world.insert_resource(Level(2));
}
fn mutate(world: &mut World) {
    world.resource_mut::<Level>().0 += 10;
}
fn remove(world: &mut World) {
    world.remove_resource::<Level>();
}

// ---- common conditions -----------------------------------------------------------------

#[test]
fn run_once_is_true_once_then_false() {
    let mut world = World::new();
    let mut condition = init(&mut world, run_once);
    let steps: [&dyn Fn(&mut World); 4] = [&nothing, &nothing, &insert_1, &nothing];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [true, false, false, false]
    );
}

#[test]
fn resource_exists_follows_insert_and_remove() {
    let mut world = World::new();
    let mut condition = init(&mut world, resource_exists::<Level>);
    let steps: [&dyn Fn(&mut World); 6] =
        [&nothing, &insert_1, &mutate, &remove, &nothing, &insert_2];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [false, true, true, false, false, true]
    );
}

#[test]
fn resource_equals_compares_and_panics_when_missing() {
    let mut world = World::new();
    let mut condition = init(&mut world, resource_equals(Level(1)));
    let steps: [&dyn Fn(&mut World); 4] = [&insert_1, &nothing, &insert_2, &insert_1];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [true, true, false, true]
    );
    world.remove_resource::<Level>();
    let message = expect_panic(|| condition.run((), &mut world).unwrap());
    assert!(message.contains("Level"), "{message}");
    assert!(message.contains("resource_equals"), "{message}");
    // The world and the condition stay usable.
    world.insert_resource(Level(1));
    assert!(condition.run((), &mut world).unwrap());
}

#[test]
fn resource_exists_and_equals_is_false_while_missing() {
    let mut world = World::new();
    let mut condition = init(&mut world, resource_exists_and_equals(Level(1)));
    let steps: [&dyn Fn(&mut World); 5] = [&nothing, &insert_1, &insert_2, &remove, &insert_1];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [false, true, false, false, true]
    );
}

#[test]
fn resource_exists_and_applies_the_predicate() {
    let mut world = World::new();
    let mut condition = init(&mut world, resource_exists_and(|l: &Level| l.0 > 1));
    let steps: [&dyn Fn(&mut World); 5] = [&nothing, &insert_1, &insert_2, &mutate, &remove];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [false, false, true, true, false]
    );
}

#[test]
fn resource_added_sees_each_insert_of_a_new_resource_once() {
    let mut world = World::new();
    let mut condition = init(&mut world, resource_added::<Level>);
    let steps: [&dyn Fn(&mut World); 7] = [
        &nothing, &insert_1, &nothing, &mutate, &remove, &nothing, &insert_2,
    ];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [false, true, false, false, false, false, true]
    );
}

#[test]
fn resource_changed_sees_adds_and_writes_and_panics_when_missing() {
    let mut world = World::new();
    world.insert_resource(Level(1));
    let mut condition = init(&mut world, resource_changed::<Level>);
    let steps: [&dyn Fn(&mut World); 5] = [&nothing, &nothing, &mutate, &nothing, &insert_2];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [true, false, true, false, true]
    );
    world.remove_resource::<Level>();
    let message = expect_panic(|| condition.run((), &mut world).unwrap());
    assert!(message.contains("Level"), "{message}");
    assert!(message.contains("resource_changed"), "{message}");
}

#[test]
fn resource_exists_and_changed_is_false_while_missing() {
    let mut world = World::new();
    let mut condition = init(&mut world, resource_exists_and_changed::<Level>);
    let steps: [&dyn Fn(&mut World); 7] = [
        &nothing, &insert_1, &nothing, &mutate, &remove, &nothing, &insert_2,
    ];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [false, true, false, true, false, false, true]
    );
}

#[test]
fn resource_changed_or_removed_sees_adds_writes_and_removals() {
    let mut world = World::new();
    let mut condition = init(&mut world, resource_changed_or_removed::<Level>);
    let steps: [&dyn Fn(&mut World); 8] = [
        &nothing, &insert_1, &nothing, &mutate, &nothing, &remove, &nothing, &insert_2,
    ];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [false, true, false, true, false, true, false, true]
    );
}

#[test]
fn resource_removed_sees_each_removal_once() {
    let mut world = World::new();
    let mut condition = init(&mut world, resource_removed::<Level>);
    let steps: [&dyn Fn(&mut World); 8] = [
        &nothing, &remove, &insert_1, &mutate, &remove, &nothing, &insert_2, &remove,
    ];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [false, false, false, false, true, false, false, true]
    );
    // Removed and inserted again between two runs: it exists, so not removed.
    world.insert_resource(Level(3));
    assert!(!condition.run((), &mut world).unwrap());
    world.remove_resource::<Level>();
    world.insert_resource(Level(4));
    assert!(!condition.run((), &mut world).unwrap());
}

#[test]
fn any_with_component_and_any_match_filter_follow_entities() {
    let mut world = World::new();
    let mut enemies = init(&mut world, any_with_component::<Enemy>);
    let mut bosses = init(&mut world, any_match_filter::<(With<Enemy>, With<Boss>)>);
    let mut others = init(&mut world, any_match_filter::<Without<Enemy>>);
    let mut check = |world: &mut World| {
        [
            enemies.run((), world).unwrap(),
            bosses.run((), world).unwrap(),
            others.run((), world).unwrap(),
        ]
    };
    assert_eq!(check(&mut world), [false, false, false]);
    let grunt = world.spawn(Enemy).id();
    assert_eq!(check(&mut world), [true, false, false]);
    let boss = world.spawn((Enemy, Boss)).id();
    assert_eq!(check(&mut world), [true, true, false]);
    world.entity_mut(boss).remove::<Enemy>();
    assert_eq!(check(&mut world), [true, false, true]);
    world.despawn(grunt);
    assert_eq!(check(&mut world), [false, false, true]);
    world.entity_mut(boss).insert(Enemy);
    assert_eq!(check(&mut world), [true, true, false]);
}

fn toggled(toggle: Res<Toggle>) -> bool {
    toggle.0
}

/// The toggle's values, one per run; a condition on it runs after each.
const TOGGLES: [bool; 7] = [false, false, true, true, false, true, false];

fn over_toggles<M>(condition: impl SystemCondition<M>) -> Vec<bool> {
    let mut world = World::new();
    world.insert_resource(Toggle(false));
    let mut condition = init(&mut world, condition);
    TOGGLES
        .iter()
        .map(|&on| {
            world.resource_mut::<Toggle>().0 = on;
            condition.run((), &mut world).unwrap()
        })
        .collect()
}

#[test]
fn condition_changed_is_true_when_the_value_flips() {
    assert_eq!(
        over_toggles(condition_changed(toggled)),
        [false, false, true, false, true, true, true]
    );
    // The first run counts as a change when the condition starts true.
    let mut world = World::new();
    world.insert_resource(Toggle(true));
    let mut condition = init(&mut world, condition_changed(toggled));
    assert!(condition.run((), &mut world).unwrap());
    assert!(!condition.run((), &mut world).unwrap());
}

#[test]
fn condition_changed_to_is_true_when_the_value_becomes_the_target() {
    assert_eq!(
        over_toggles(condition_changed_to(true, toggled)),
        [false, false, true, false, false, true, false]
    );
    assert_eq!(
        over_toggles(condition_changed_to(false, toggled)),
        [false, false, false, false, true, false, true]
    );
}

#[test]
fn not_inverts_and_names() {
    let mut world = World::new();
    let mut condition = init(&mut world, not(resource_exists::<Level>));
    let steps: [&dyn Fn(&mut World); 3] = [&nothing, &insert_1, &remove];
    assert_eq!(
        values(&mut world, &mut condition, &steps),
        [true, false, true]
    );
    let inner = IntoSystem::into_system(toggled).name();
    assert_eq!(
        IntoSystem::into_system(not(toggled)).name(),
        format!("!{inner}")
    );
    // `not` takes any system whose output has `Not`, as bevy's does.
    assert_eq!(world.run_system_once(not(|| 0b1010u8)).unwrap(), !0b1010u8);
}

// ---- combinators -----------------------------------------------------------------------

/// How often each half of a combination ran.
#[derive(Resource, Default)]
struct Runs([AtomicU32; 2]);

impl Runs {
    fn take(&self) -> [u32; 2] {
        [0, 1].map(|i| self.0[i].swap(0, Ordering::Relaxed))
    }
}

/// A condition that counts its runs in slot `half` of [`Runs`] and
/// returns `value`.
fn half(half: usize, value: bool) -> impl FnMut(Res<Runs>) -> bool {
    move |runs: Res<Runs>| {
        runs.0[half].fetch_add(1, Ordering::Relaxed);
        value
    }
}

/// When the second half runs.
#[derive(Clone, Copy, Debug)]
enum SecondRuns {
    Always,
    /// Only when the first half returned this.
    When(bool),
}

/// Checks `combine` over the four inputs against `expected` and
/// `second_runs`, and that it is read-only.
#[track_caller]
fn check_combinator<S: ReadOnlySystem<In = (), Out = bool>>(
    combine: impl Fn(bool, bool) -> S,
    expected: fn(bool, bool) -> bool,
    second_runs: SecondRuns,
) {
    let mut world = World::new();
    world.init_resource::<Runs>();
    for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut system = combine(a, b);
        system.initialize(&mut world);
        let out = system.run_readonly((), &world).unwrap();
        let runs = world.resource::<Runs>().take();
        let name = system.name();
        assert_eq!(out, expected(a, b), "`{name}` with a = {a}, b = {b}");
        let b_runs = match second_runs {
            SecondRuns::Always => 1,
            SecondRuns::When(when) => u32::from(a == when),
        };
        assert_eq!(runs, [1, b_runs], "runs of `{name}` with a = {a}, b = {b}");
    }
}

#[test]
fn short_circuiting_combinators() {
    use SecondRuns::When;
    check_combinator(
        |a, b| sys(half(0, a).and_then(half(1, b))),
        |a, b| a && b,
        When(true),
    );
    check_combinator(
        |a, b| sys(half(0, a).nand_then(half(1, b))),
        |a, b| !(a && b),
        When(true),
    );
    check_combinator(
        |a, b| sys(half(0, a).or_else(half(1, b))),
        |a, b| a || b,
        When(false),
    );
    check_combinator(
        |a, b| sys(half(0, a).nor_else(half(1, b))),
        |a, b| !(a || b),
        When(false),
    );
}

#[test]
fn eager_combinators() {
    use SecondRuns::Always;
    check_combinator(
        |a, b| sys(half(0, a).and_eager(half(1, b))),
        |a, b| a & b,
        Always,
    );
    check_combinator(
        |a, b| sys(half(0, a).nand_eager(half(1, b))),
        |a, b| !(a & b),
        Always,
    );
    check_combinator(
        |a, b| sys(half(0, a).or_eager(half(1, b))),
        |a, b| a | b,
        Always,
    );
    check_combinator(
        |a, b| sys(half(0, a).nor_eager(half(1, b))),
        |a, b| !(a | b),
        Always,
    );
    check_combinator(|a, b| sys(half(0, a).xor(half(1, b))), |a, b| a ^ b, Always);
    check_combinator(
        |a, b| sys(half(0, a).xnor(half(1, b))),
        |a, b| !(a ^ b),
        Always,
    );
}

/// True from its second run on: its `Local` shows whether it ran before.
fn ran_before(mut runs: Local<u32>) -> bool {
    *runs += 1;
    *runs > 1
}

#[test]
fn a_short_circuited_condition_keeps_its_state() {
    let mut world = World::new();
    world.insert_resource(Toggle(false));
    let mut lazy = init(&mut world, toggled.and_then(ran_before));
    let mut eager = init(&mut world, toggled.or_eager(ran_before));
    for _ in 0..3 {
        assert!(!lazy.run((), &mut world).unwrap());
        eager.run((), &mut world).unwrap();
    }
    world.resource_mut::<Toggle>().0 = true;
    // `ran_before` never ran in `lazy`: this is its first run.
    assert!(!lazy.run((), &mut world).unwrap());
    assert!(lazy.run((), &mut world).unwrap());
    world.resource_mut::<Toggle>().0 = false;
    // In `eager` it ran every time, so it is true on its own.
    assert!(eager.run((), &mut world).unwrap());
}

fn yes() -> bool {
    true
}
fn no() -> bool {
    false
}

#[test]
fn combined_conditions_are_named_as_bevy_names_them() {
    let a = IntoSystem::into_system(yes).name();
    let b = IntoSystem::into_system(no).name();
    let name = |system: &dyn System<In = (), Out = bool>| system.name().into_owned();
    assert_eq!(name(&sys(yes.and_then(no))), format!("{a} && {b}"));
    assert_eq!(name(&sys(yes.and_eager(no))), format!("{a} & {b}"));
    assert_eq!(name(&sys(yes.nand_then(no))), format!("!({a} && {b})"));
    assert_eq!(name(&sys(yes.nand_eager(no))), format!("!({a} & {b})"));
    assert_eq!(name(&sys(yes.or_else(no))), format!("{a} || {b}"));
    assert_eq!(name(&sys(yes.or_eager(no))), format!("{a} | {b}"));
    assert_eq!(name(&sys(yes.nor_else(no))), format!("!({a} || {b})"));
    assert_eq!(name(&sys(yes.nor_eager(no))), format!("!({a} | {b})"));
    assert_eq!(name(&sys(yes.xor(no))), format!("({a} ^ {b})"));
    assert_eq!(name(&sys(yes.xnor(no))), format!("!({a} ^ {b})"));
    assert_eq!(
        name(&sys(not(yes.and_then(no)))),
        format!("!{a} && {b}"),
        "`not` prefixes the combined name as it is"
    );
}

#[test]
fn combinations_nest_and_take_input() {
    let mut world = World::new();
    world.insert_resource(Level(3));
    let mut condition = init(
        &mut world,
        resource_exists::<Level>
            .and_then(not(resource_equals(Level(2))))
            .and_then(run_once.or_else(resource_changed::<Level>)),
    );
    assert!(condition.run((), &mut world).unwrap()); // run_once
                                                     // `resource_changed` first runs now, so it sees `Level` as added.
    assert!(condition.run((), &mut world).unwrap());
    assert!(!condition.run((), &mut world).unwrap()); // unchanged
    world.resource_mut::<Level>().0 = 4;
    assert!(condition.run((), &mut world).unwrap()); // changed
    world.insert_resource(Level(2));
    assert!(!condition.run((), &mut world).unwrap()); // equals 2

    fn above(In(n): In<u32>) -> bool {
        n > 10
    }
    fn even(In(n): In<u32>) -> bool {
        n % 2 == 0
    }
    let mut with_input = IntoSystem::into_system(above.xor(even));
    with_input.initialize(&mut world);
    let outs = [3, 4, 11, 12].map(|n| with_input.run(n, &mut world).unwrap());
    assert_eq!(outs, [false, true, true, false]);
}

#[test]
fn a_combined_condition_has_both_halves_access_and_is_read_only() {
    #[derive(Resource)]
    struct Other;

    let mut world = World::new();
    world.insert_resource(Level(1));
    world.insert_resource(Other);
    let condition = init(
        &mut world,
        resource_exists::<Level>
            .and_then(resource_exists::<Other>.or_else(|q: Query<&Enemy>| !q.is_empty())),
    );
    let level = world.components().resource_id::<Level>().unwrap();
    let other = world.components().resource_id::<Other>().unwrap();
    let enemy = world.component_id::<Enemy>().unwrap();
    let access = condition.access().combined_access();
    for id in [level, other, enemy] {
        assert!(access.has_read(id), "{id:?} read");
        assert!(!access.has_write(id), "{id:?} not written");
    }
    assert!(access.is_read_only());
    assert!(!condition.is_exclusive());

    assert_is_read_only_system(resource_exists::<Level>.and_then(run_once));
    assert_is_read_only_system(not(any_with_component::<Enemy>));
    assert_is_read_only_system(condition_changed(run_once));
}

#[test]
fn a_boxed_condition_runs_through_shared_access() {
    let mut world = World::new();
    world.insert_resource(Level(1));
    let mut boxed: ecs::schedule::BoxedCondition = Box::new(IntoSystem::into_system(
        resource_equals(Level(1)).nor_eager(run_once),
    ));
    boxed.initialize(&mut world);
    assert!(!boxed.run_readonly((), &world).unwrap());
    world.insert_resource(Level(2));
    assert!(boxed.run_readonly((), &world).unwrap());
}

// ---- panics ----------------------------------------------------------------------------

#[derive(Resource)]
struct Armed(bool);

fn explodes(armed: Res<Armed>) -> bool {
    assert!(!armed.0, "condition exploded");
    true
}

#[test]
fn a_panicking_condition_propagates_and_the_world_stays_usable() {
    let log = DropLog::default();
    let mut world = World::new();
    world.insert_resource(Armed(true));
    {
        let payload = Payload::new(7, &log);
        let mut condition = init(
            &mut world,
            resource_exists_and(move |_: &Armed| payload.id == 7).and_eager(explodes),
        );
        let message = expect_panic(|| condition.run((), &mut world).unwrap());
        assert!(message.contains("condition exploded"), "{message}");
        log.assert_not_dropped(&[7]);

        // A missing resource names the resource and the condition system.
        let mut missing = init(
            &mut world,
            resource_exists::<Armed>.and_then(resource_changed::<Level>),
        );
        let message = expect_panic(|| missing.run((), &mut world).unwrap());
        assert!(message.contains("Level"), "{message}");
        assert!(message.contains("resource_changed"), "{message}");

        // The world and the condition still work.
        world.resource_mut::<Armed>().0 = false;
        assert!(condition.run((), &mut world).unwrap());
        let e = world.spawn(Enemy).id();
        assert!(world.get::<Enemy>(e).is_some());
        world.insert_resource(Level(1));
        assert!(missing.run((), &mut world).unwrap());
    }
    // The value the condition owned is dropped once, with the condition.
    log.assert_dropped_once(&[7]);
}

/// A function system is `Clone` (a clone is uninitialised, as in bevy),
/// so a stateful condition distributes: each system gets a `run_once` of
/// its own.
#[test]
fn a_stateful_condition_distributes_one_copy_per_system() {
    #[derive(Resource, Default)]
    struct Ran(Vec<&'static str>);
    let mut world = World::new();
    world.init_resource::<Ran>();
    let mut schedule = Schedule::default();
    schedule.add_systems(
        (
            |mut ran: ResMut<Ran>| ran.0.push("a"),
            |mut ran: ResMut<Ran>| ran.0.push("b"),
        )
            .chain()
            .distributive_run_if(run_once),
    );
    schedule
        .add_systems((|mut ran: ResMut<Ran>| ran.0.push("c")).distributive_run_if(not(run_once)));
    schedule.run(&mut world);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Ran>().0, ["a", "b", "c", "c"]);
}
