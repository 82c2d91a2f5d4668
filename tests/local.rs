//! `Local<T>` needs `T: Send` only: values that are not `Sync` (`Cell`,
//! `RefCell`) live in systems that a multi-threaded schedule runs on any
//! thread.

use std::cell::{Cell, RefCell};

use ecs::prelude::*;
use ecs::system::SystemParam;

#[derive(Resource, Default, Debug, PartialEq)]
struct Seen(Vec<(&'static str, u32)>);

#[derive(Resource, Default)]
struct Other(u32);

#[derive(Component)]
struct Marker;

fn count_in_a_cell(counter: Local<Cell<u32>>, mut seen: ResMut<Seen>) {
    counter.set(counter.get() + 1);
    seen.0.push(("cell", counter.get()));
}

fn log_in_a_ref_cell(log: Local<RefCell<Vec<u32>>>, mut other: ResMut<Other>) {
    log.borrow_mut().push(other.0);
    other.0 += 1;
    assert_eq!(log.borrow().len() as u32, other.0);
}

/// A parameter struct whose `Local` is not `Sync`.
#[derive(SystemParam)]
struct Tally<'w, 's> {
    runs: Local<'s, Cell<u32>>,
    markers: Query<'w, 's, &'static Marker>,
}

fn tally(tally: Tally, mut seen: ResMut<Seen>) {
    tally
        .runs
        .set(tally.runs.get() + tally.markers.iter().count() as u32);
    seen.0.push(("tally", tally.runs.get()));
}

#[test]
fn cell_locals_keep_their_value_across_runs_of_a_parallel_schedule() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.init_resource::<Other>();
    world.spawn(Marker);
    world.spawn(Marker);
    let mut schedule = Schedule::default();
    // `log_in_a_ref_cell` shares no data with the others, so it may run
    // on another thread alongside them.
    schedule.add_systems((
        count_in_a_cell,
        tally.after(count_in_a_cell),
        log_in_a_ref_cell,
    ));
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(
        world.resource::<Seen>().0,
        [
            ("cell", 1),
            ("tally", 2),
            ("cell", 2),
            ("tally", 4),
            ("cell", 3),
            ("tally", 6)
        ]
    );
    assert_eq!(world.resource::<Other>().0, 3);
}

#[test]
fn each_system_has_its_own_cell_local() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    let mut schedule = Schedule::default();
    // The same function twice: two systems, two locals.
    schedule.add_systems((count_in_a_cell, count_in_a_cell.after(count_in_a_cell)));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<Seen>().0,
        [("cell", 1), ("cell", 1), ("cell", 2), ("cell", 2)]
    );
}

/// A generic parameter struct: its `Local` needs the type parameter to be
/// `Send` only.
#[derive(SystemParam)]
struct Kept<'s, T: FromWorld + Send + 'static> {
    value: Local<'s, T>,
}

fn bump(kept: Kept<Cell<u32>>, mut other: ResMut<Other>) {
    kept.value.set(kept.value.get() + 10);
    other.0 = kept.value.get();
}

#[test]
fn a_generic_system_param_holds_a_cell_local() {
    let mut world = World::new();
    world.init_resource::<Other>();
    let mut schedule = Schedule::default();
    schedule.add_systems(bump);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Other>().0, 20);
}
