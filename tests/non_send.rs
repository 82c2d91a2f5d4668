//! Non-send resources: `World::{insert,init,remove,contains,get}_non_send`,
//! the `NonSend`/`NonSendMut` parameters, the thread rule and drops.

use std::cell::Cell;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread::{self, ThreadId};

use ecs::prelude::*;

/// A `!Send` counter.
#[derive(Default)]
struct Counter(Cell<u32>, PhantomData<*const ()>);

/// A `!Send` value that counts its drops in a static of its own test.
struct Tracked(&'static AtomicUsize, PhantomData<*const ()>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn world_methods() {
    let mut world = World::new();
    assert!(!world.contains_non_send::<Rc<u32>>());
    assert!(world.get_non_send::<Rc<u32>>().is_none());
    world.insert_non_send(Rc::new(3u32));
    assert!(world.contains_non_send::<Rc<u32>>());
    assert_eq!(**world.non_send::<Rc<u32>>(), 3);
    *world.non_send_mut::<Rc<u32>>() = Rc::new(4);
    assert_eq!(**world.get_non_send::<Rc<u32>>().unwrap(), 4);
    world.get_non_send_mut::<Rc<u32>>().unwrap().set_changed();
    assert_eq!(world.remove_non_send::<Rc<u32>>().map(|rc| *rc), Some(4));
    assert!(world.remove_non_send::<Rc<u32>>().is_none());

    let id = world.init_non_send::<Counter>();
    world.non_send::<Counter>().0.set(7);
    assert_eq!(world.init_non_send::<Counter>(), id);
    assert_eq!(
        world.non_send::<Counter>().0.get(),
        7,
        "init keeps an existing value"
    );
}

#[test]
fn a_missing_value_names_its_type() {
    // The std path of `Rc` differs between toolchains: compare with its own name.
    let message = std::panic::catch_unwind(|| {
        World::new().non_send::<Rc<u8>>();
    })
    .expect_err("a missing value panics")
    .downcast::<String>()
    .expect("a formatted message");
    let expected = format!(
        "non-send resource `{}` does not exist",
        std::any::type_name::<Rc<u8>>()
    );
    assert!(message.contains(&expected), "{message}");
}

#[test]
fn another_thread_is_refused_naming_the_type_and_both_threads() {
    let mut world = World::new();
    world.insert_non_send(Counter::default());
    let owner = thread::current().id();
    let (message, other) = thread::scope(|scope| {
        let handle = thread::Builder::new()
            .name("intruder".into())
            .spawn_scoped(scope, || {
                let other = thread::current().id();
                let result = catch_unwind(AssertUnwindSafe(|| world.non_send::<Counter>().0.get()));
                (
                    panic_message(result.expect_err("another thread must be refused")),
                    other,
                )
            })
            .unwrap();
        handle.join().unwrap()
    });
    assert!(message.contains("non_send::Counter"), "{message}");
    assert!(message.contains(&format!("{owner:?}")), "{message}");
    assert!(message.contains(&format!("{other:?}")), "{message}");
    assert!(message.contains("intruder"), "{message}");
    // The owner still has it.
    assert_eq!(world.non_send::<Counter>().0.get(), 0);
}

#[test]
fn removing_or_replacing_from_another_thread_is_refused() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    let mut world = World::new();
    world.insert_non_send(Tracked(&DROPS, PhantomData));
    let world = thread::scope(|scope| {
        scope
            .spawn(move || {
                let mut world = world;
                let removed = catch_unwind(AssertUnwindSafe(|| {
                    world.remove_non_send::<Tracked>().is_some()
                }));
                assert!(removed.is_err());
                let replaced = catch_unwind(AssertUnwindSafe(|| {
                    world.insert_non_send(Tracked(&DROPS, PhantomData));
                }));
                assert!(replaced.is_err());
                // The rejected new value was dropped on its own thread; the
                // old one is untouched.
                assert_eq!(DROPS.load(Ordering::SeqCst), 1);
                world
            })
            .join()
            .unwrap()
    });
    let mut world = world;
    assert!(world.remove_non_send::<Tracked>().is_some());
    assert_eq!(DROPS.load(Ordering::SeqCst), 2);
}

#[test]
fn a_world_dropped_on_another_thread_forgets_the_value() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    let mut world = World::new();
    world.insert_non_send(Tracked(&DROPS, PhantomData));
    thread::spawn(move || drop(world)).join().unwrap();
    assert_eq!(
        DROPS.load(Ordering::SeqCst),
        0,
        "never dropped on the wrong thread"
    );

    let mut world = World::new();
    world.insert_non_send(Tracked(&DROPS, PhantomData));
    drop(world);
    assert_eq!(
        DROPS.load(Ordering::SeqCst),
        1,
        "dropped once on its own thread"
    );
}

#[derive(Resource, Default)]
struct Threads(Mutex<Vec<(&'static str, ThreadId)>>);

fn note(threads: &Threads, name: &'static str) {
    threads
        .0
        .lock()
        .unwrap()
        .push((name, thread::current().id()));
}

fn reader(counter: NonSend<Counter>, threads: Res<Threads>) {
    counter.0.set(counter.0.get() + 1);
    note(&threads, "reader");
}

fn writer(mut counter: NonSendMut<Counter>, threads: Res<Threads>) {
    *counter.0.get_mut() += 10;
    note(&threads, "writer");
}

fn optional(counter: Option<NonSend<Rc<u8>>>, threads: Res<Threads>) {
    assert!(counter.is_none());
    note(&threads, "optional");
}

fn busy(threads: Res<Threads>) {
    // Long enough that the driver offers the other systems to workers.
    std::thread::sleep(std::time::Duration::from_millis(1));
    note(&threads, "busy");
}

#[test]
fn non_send_systems_run_on_the_thread_that_runs_the_schedule() {
    let mut world = World::new();
    world.init_resource::<Threads>();
    world.init_non_send::<Counter>();
    let mut schedule = Schedule::default();
    schedule.add_systems((
        busy,
        reader,
        busy.after(reader),
        writer,
        optional,
        busy.before(writer),
    ));
    let main = thread::current().id();
    for _ in 0..20 {
        schedule.run(&mut world);
    }
    assert_eq!(world.non_send::<Counter>().0.get(), 20 * 11);
    let threads = world.resource::<Threads>().0.lock().unwrap();
    for &(name, id) in threads.iter().filter(|(name, _)| *name != "busy") {
        assert_eq!(id, main, "system `{name}` ran off the schedule's thread");
    }
    assert_eq!(
        threads.iter().filter(|(name, _)| *name != "busy").count(),
        60
    );
}

#[test]
fn a_missing_value_panics_naming_the_system() {
    let mut world = World::new();
    // As bevy's: the run fails with a validation error, which `unwrap` shows.
    let result = catch_unwind(AssertUnwindSafe(|| world.run_system_once(writer).unwrap()));
    let message = panic_message(result.expect_err("a missing non-send value fails the run"));
    assert!(
        message.contains("non_send::Counter") && message.contains("writer"),
        "{message}"
    );
}

#[test]
fn non_send_mut_marks_changes() {
    #[derive(Resource, Default)]
    struct Seen(Vec<bool>);
    fn watch(counter: NonSend<Counter>, mut seen: ResMut<Seen>) {
        seen.0.push(counter.is_changed());
    }
    fn bump(mut counter: NonSendMut<Counter>) {
        *counter.0.get_mut() = 1;
    }
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.init_non_send::<Counter>();
    let mut watch_schedule = Schedule::default();
    watch_schedule.add_systems(watch);
    watch_schedule.run(&mut world); // first run: everything is new
    watch_schedule.run(&mut world);
    world.run_system_once(bump).unwrap();
    watch_schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [true, false, true]);
}

#[test]
fn a_panicking_system_leaves_the_value_in_place_and_drops_it_once() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    fn boom(_value: NonSendMut<Tracked>) {
        panic!("boom");
    }
    let mut world = World::new();
    world.insert_non_send(Tracked(&DROPS, PhantomData));
    let mut schedule = Schedule::default();
    schedule.add_systems(boom);
    assert!(catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world))).is_err());
    assert!(world.contains_non_send::<Tracked>());
    assert_eq!(DROPS.load(Ordering::SeqCst), 0);
    drop(world);
    assert_eq!(DROPS.load(Ordering::SeqCst), 1);
}

#[test]
fn a_panicking_drop_on_replace_keeps_the_world_consistent() {
    struct Explodes(PhantomData<*const ()>);
    impl Drop for Explodes {
        fn drop(&mut self) {
            panic!("explodes");
        }
    }
    let mut world = World::new();
    world.insert_non_send(Explodes(PhantomData));
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.insert_non_send(Explodes(PhantomData))
    }));
    assert!(result.is_err());
    assert!(world.contains_non_send::<Explodes>());
    let taken = world.remove_non_send::<Explodes>().unwrap();
    std::mem::forget(taken);
}
