//! The world's command flush: commands queued while commands apply (by
//! hooks, observers and the triggers they run) apply from one loop, so a
//! chain of any depth costs heap, not stack; the order is the one
//! `World::flush_commands` documents; a panic keeps what is left for the
//! next flush.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::component::{ComponentHooks, HookContext};
use crate::prelude::*;
use crate::world::CommandQueue;
use crate::world::DeferredWorld;

/// Deep enough to overflow a test thread's stack if every level of the
/// chain took stack frames.
fn depth() -> u32 {
    if cfg!(miri) {
        200
    } else {
        10_000
    }
}

#[derive(Event)]
struct Depth(u32);

#[derive(Resource, Default)]
struct Runs(u32);

#[test]
fn an_observer_retriggering_itself_ten_thousand_deep_completes() {
    let mut world = World::new();
    world.init_resource::<Runs>();
    world.add_observer(
        |on: On<Depth>, mut runs: ResMut<Runs>, mut commands: Commands| {
            runs.0 += 1;
            if on.0 + 1 < depth() {
                commands.trigger(Depth(on.0 + 1));
            }
        },
    );
    world.trigger(Depth(0));
    assert_eq!(world.resource::<Runs>().0, depth());
    // The same from a command queue applied to the world.
    let mut queue = CommandQueue::default();
    Commands::new(&mut queue, &world).trigger(Depth(0));
    queue.apply(&mut world);
    assert_eq!(world.resource::<Runs>().0, 2 * depth());
    world.check_integrity().unwrap();
}

/// Its `on_add` hook queues the next trigger of the chain.
#[derive(Debug)]
struct Link(u32);

impl Component for Link {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = crate::component::Mutable;
    fn register_component_hooks(hooks: &mut ComponentHooks) {
        hooks.on_add(|mut world: DeferredWorld<'_>, context: HookContext| {
            let n = world.get::<Link>(context.entity).unwrap().0;
            if n + 1 < depth() {
                world.commands().trigger(Depth(n + 1));
            }
        });
    }
}

#[test]
fn a_chain_of_commands_queuing_commands_that_trigger_completes() {
    // observer -> command -> command -> spawn -> hook -> trigger command ->
    // observer -> ..., and a command applying its own queue on the way.
    let mut world = World::new();
    world.init_resource::<Runs>();
    world.add_observer(|on: On<Depth>, mut commands: Commands| {
        let n = on.0;
        commands.queue(move |world: &mut World| {
            world.resource_mut::<Runs>().0 += 1;
            let mut inner = CommandQueue::default();
            Commands::new(&mut inner, world).queue(move |world: &mut World| {
                world.spawn(Link(n));
            });
            inner.apply(world);
        });
    });
    world.trigger(Depth(0));
    assert_eq!(world.resource::<Runs>().0, depth());
    assert_eq!(
        world.query::<&Link>().iter(&world).count(),
        depth() as usize
    );
    world.check_integrity().unwrap();
}

#[derive(Event)]
struct Step(u32);

#[derive(Resource, Default)]
struct Log(Vec<String>);

fn write(world: &mut World, line: String) {
    world.resource_mut::<Log>().0.push(line);
}

#[test]
fn commands_queued_while_a_command_applies_run_right_after_it() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world.add_observer(
        |on: On<Step>, mut log: ResMut<Log>, mut commands: Commands| {
            let n = on.0;
            log.0.push(format!("observer {n}"));
            commands.queue(move |world: &mut World| {
                write(world, format!("command {n} a"));
                if n < 2 {
                    // The observers run at once; their commands once this
                    // command returns.
                    world.trigger(Step(n + 1));
                }
                write(world, format!("command {n} a returns"));
            });
            commands.queue(move |world: &mut World| write(world, format!("command {n} b")));
        },
    );
    world.trigger(Step(0));
    assert_eq!(
        world.resource::<Log>().0,
        [
            "observer 0",
            "command 0 a",
            "observer 1",
            "command 0 a returns",
            "command 1 a",
            "observer 2",
            "command 1 a returns",
            "command 2 a",
            "command 2 a returns",
            "command 2 b",
            "command 1 b",
            "command 0 b",
        ]
    );
}

/// Counts its drops.
struct Counted(Arc<AtomicUsize>);
impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[derive(Event)]
struct Side;

#[test]
fn a_panic_deep_in_a_chain_keeps_every_pending_command_for_the_next_flush() {
    const PANIC_AT: u32 = 5;
    let made = Arc::new(AtomicUsize::new(0));
    let dropped = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    world.init_resource::<Log>();
    let counted = {
        let (made, dropped) = (made.clone(), dropped.clone());
        move || {
            made.fetch_add(1, Ordering::SeqCst);
            Counted(dropped.clone())
        }
    };
    let side_value = counted.clone();
    world.add_observer(move |_: On<Side>, mut commands: Commands| {
        let held = side_value();
        commands.queue(move |world: &mut World| {
            let _held = &held;
            write(world, "side command".into());
        });
    });
    world.add_observer(move |on: On<Step>, mut commands: Commands| {
        let n = on.0;
        let held = counted();
        commands.queue(move |world: &mut World| {
            let _held = &held;
            write(world, format!("a {n}"));
            if n == PANIC_AT {
                // Queues a command, then panics before it can apply.
                world.trigger(Side);
                panic!("command {n} failed");
            }
            world.trigger(Step(n + 1));
        });
        let held = counted();
        commands.queue(move |world: &mut World| {
            let _held = &held;
            write(world, format!("b {n}"));
        });
    });
    let result = catch_unwind(AssertUnwindSafe(|| world.trigger(Step(0))));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert_eq!(message, format!("command {PANIC_AT} failed"));
    // Applied up to the panic; every command still pending then (the side
    // command queued before the panic, then the `b` of each level,
    // innermost first) is kept, unapplied and undropped.
    let applied: Vec<String> = (0..=PANIC_AT).map(|n| format!("a {n}")).collect();
    assert_eq!(world.resource::<Log>().0, applied);
    let made_then = made.load(Ordering::SeqCst);
    assert_eq!(made_then, 2 * (PANIC_AT as usize + 1) + 1);
    // The `a` commands that ran are dropped; the kept ones are not yet.
    assert_eq!(dropped.load(Ordering::SeqCst), PANIC_AT as usize + 1);
    world.check_integrity().unwrap();
    // The next flush applies them, in that order, each once.
    world.resource_mut::<Log>().0.clear();
    world.flush_commands();
    let mut kept = vec!["side command".to_string()];
    kept.extend((0..=PANIC_AT).rev().map(|n| format!("b {n}")));
    assert_eq!(world.resource::<Log>().0, kept);
    assert_eq!(dropped.load(Ordering::SeqCst), made_then);
    world.resource_mut::<Log>().0.clear();
    world.flush_commands();
    assert!(world.resource::<Log>().0.is_empty());
    world.trigger(Side);
    assert_eq!(world.resource::<Log>().0, ["side command"]);
    assert_eq!(dropped.load(Ordering::SeqCst), made.load(Ordering::SeqCst));
}
