use std::{
    any::Any,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
    sync::mpsc,
    time::{Duration, Instant},
};

use super::graph::{ExecutionGraph, Node};
use crate::{
    system::BoxedSystem,
    world::{UnsafeWorldCell, World},
};

type Panic = Box<dyn Any + Send + 'static>;

/// What the executor measures per system when timing is on.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TimingSlot {
    pub(crate) runs: u64,
    pub(crate) total: Duration,
    pub(crate) max: Duration,
    pub(crate) apply_total: Duration,
}

/// The schedule's systems and, when timing is on, one slot per system.
#[derive(Clone, Copy)]
pub(crate) struct Nodes {
    systems: SyncPtr<BoxedSystem>,
    /// Null when timing is off; otherwise as long as `systems`.
    timings: SyncPtr<TimingSlot>,
}

impl Nodes {
    pub(crate) fn new(systems: &mut [BoxedSystem], timings: Option<&mut [TimingSlot]>) -> Self {
        let timings = match timings {
            Some(slots) => {
                assert_eq!(slots.len(), systems.len(), "one timing slot per system");
                SyncPtr(slots.as_mut_ptr())
            }
            None => SyncPtr(std::ptr::null_mut()),
        };
        Nodes {
            systems: SyncPtr(systems.as_mut_ptr()),
            timings,
        }
    }
}

/// Runs one node.
///
/// # Safety
/// `nodes` points to the schedule's systems (and timing slots), and the
/// node's system (and slot) is not in use by another thread; the caller
/// holds the node's access (for exclusive and apply nodes: no other node
/// is running).
unsafe fn run_node(node: Node, nodes: Nodes, world: UnsafeWorldCell<'_>) -> Result<(), Panic> {
    let start = (!nodes.timings.0.is_null()).then(Instant::now);
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: guaranteed by the caller.
        unsafe {
            match node {
                Node::System(i) => (*nodes.systems.0.add(i)).run_unsafe(world),
                Node::Apply(i) => (*nodes.systems.0.add(i)).apply_deferred(world.world_mut()),
            }
        }
    }));
    if let Some(start) = start {
        let elapsed = start.elapsed();
        let (Node::System(i) | Node::Apply(i)) = node;
        // SAFETY: timing is on, so `timings` has a slot per system, and the
        // caller guarantees this node's slot is used by this thread alone.
        let slot = unsafe { &mut *nodes.timings.0.add(i) };
        match node {
            Node::System(_) => {
                slot.runs += 1;
                slot.total += elapsed;
                slot.max = slot.max.max(elapsed);
            }
            Node::Apply(_) => slot.apply_total += elapsed,
        }
    }
    result
}

/// A raw pointer that may cross threads: the executor guarantees each
/// system is used by one thread at a time.
struct SyncPtr<T>(*mut T);

impl<T> Clone for SyncPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SyncPtr<T> {}
// SAFETY: systems are `Send + Sync`; the executor hands each to one thread
// at a time.
unsafe impl<T> Send for SyncPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SyncPtr<T> {}

pub(crate) fn run_single_threaded(graph: &ExecutionGraph, systems: Nodes, world: &mut World) {
    let cell = UnsafeWorldCell::new_mutable(world);
    for &node in &graph.order {
        // SAFETY: one node at a time, on this thread, with `&mut World`.
        if let Err(payload) = unsafe { run_node(node, systems, cell) } {
            resume_unwind(payload);
        }
    }
}

pub(crate) fn run_multi_threaded(graph: &ExecutionGraph, systems: Nodes, world: &mut World) {
    let count = graph.order.len();
    if count == 0 {
        return;
    }
    let cell = UnsafeWorldCell::new_mutable(world);
    let mut remaining = graph.dependency_counts.clone();
    // Ready positions, kept sorted so launches follow the total order.
    let mut ready: Vec<usize> = (0..count).filter(|&p| remaining[p] == 0).collect();
    let (sender, receiver) = mpsc::channel::<(usize, Result<(), Panic>)>();
    let mut running = 0usize;
    let mut panic: Option<Panic> = None;

    let mut complete =
        |p: usize, result: Result<(), Panic>, ready: &mut Vec<usize>, panic: &mut Option<Panic>| {
            match result {
                Ok(()) => {
                    for &q in &graph.dependents[p] {
                        remaining[q] -= 1;
                        if remaining[q] == 0 {
                            let at = ready.partition_point(|&r| r < q);
                            ready.insert(at, q);
                        }
                    }
                }
                Err(payload) => {
                    panic.get_or_insert(payload);
                }
            }
        };

    rayon::in_place_scope(|scope| {
        loop {
            if panic.is_some() {
                ready.clear();
            }
            // Launch what is ready. The last one (or an exclusive one, when
            // nothing runs) runs inline on this thread.
            while let Some(&p) = ready.first() {
                let node = graph.order[p];
                if graph.exclusive[p] {
                    if running > 0 {
                        break;
                    }
                    ready.remove(0);
                    // SAFETY: nothing else runs (checked), and exclusive
                    // nodes are ordered after everything before them.
                    let result = unsafe { run_node(node, systems, cell) };
                    complete(p, result, &mut ready, &mut panic);
                    continue;
                }
                ready.remove(0);
                let last = ready.is_empty() || graph.exclusive[ready[0]];
                if last {
                    // No partner to start: run it here.
                    // SAFETY: the node's dependencies are done; nodes running
                    // now do not conflict with it (they would be ordered).
                    let result = unsafe { run_node(node, systems, cell) };
                    complete(p, result, &mut ready, &mut panic);
                    if panic.is_some() {
                        break;
                    }
                } else {
                    let sender = sender.clone();
                    running += 1;
                    scope.spawn(move |_| {
                        // SAFETY: as above; each system is run by one task.
                        let result = unsafe { run_node(node, systems, cell) };
                        let _ = sender.send((p, result));
                    });
                }
            }
            if running == 0 && (ready.is_empty() || panic.is_some()) {
                break;
            }
            let (p, result) = wait(&receiver);
            running -= 1;
            complete(p, result, &mut ready, &mut panic);
        }
    });
    if let Some(payload) = panic {
        resume_unwind(payload);
    }
}

/// Waits for a finished node. On a rayon worker thread, keeps doing other
/// rayon work meanwhile so a small pool cannot deadlock.
fn wait<T>(receiver: &mpsc::Receiver<T>) -> T {
    if rayon::current_thread_index().is_none() {
        return receiver.recv().expect("a task always reports back");
    }
    loop {
        match receiver.try_recv() {
            Ok(message) => return message,
            Err(mpsc::TryRecvError::Empty) => {
                if rayon::yield_now() != Some(rayon::Yield::Executed) {
                    std::thread::yield_now();
                }
            }
            Err(mpsc::TryRecvError::Disconnected) => {
                unreachable!("the sender lives in this function")
            }
        }
    }
}
