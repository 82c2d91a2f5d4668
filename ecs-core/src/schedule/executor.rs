use std::{
    any::Any,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
    sync::{
        atomic::{AtomicU64, Ordering},
        mpsc, Arc, Mutex, PoisonError,
    },
    time::{Duration, Instant},
};

use super::condition::BoxedCondition;
use super::graph::{ExecutionGraph, Node};
use super::schedule_graph::{ScheduleGraph, SetConditions};
use crate::{
    error::{ErrorContext, ErrorHandler},
    system::{BoxedSystem, RunSystemError},
    world::{UnsafeWorldCell, World},
};

type Panic = Box<dyn Any + Send + 'static>;

/// What a job sends back: the node's position, its result, and how long
/// the node ran.
type Report = (usize, Result<(), Panic>, Duration);

/// What the executor measures per system when timing is on.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TimingSlot {
    pub(crate) runs: u64,
    pub(crate) total: Duration,
    pub(crate) max: Duration,
    pub(crate) apply_total: Duration,
}

/// The schedule's systems, their run conditions and, when timing is on,
/// one slot per system.
#[derive(Clone, Copy)]
pub(crate) struct Nodes {
    systems: SyncPtr<BoxedSystem>,
    /// Per system: its own run conditions.
    conditions: SyncPtr<Vec<BoxedCondition>>,
    /// Per system: the sets with conditions it is in.
    conditioned_sets: SyncPtr<Vec<usize>>,
    /// Per set: its conditions and this run's result.
    set_conditions: SyncPtr<SetConditions>,
    /// Null when timing is off; otherwise as long as `systems`.
    timings: SyncPtr<TimingSlot>,
    /// This schedule run's number, for the set conditions' results.
    run: u64,
    /// Where a system's error goes; read from the world as the run
    /// starts, since systems running then may hold its resource.
    error_handler: ErrorHandler,
}

impl Nodes {
    pub(crate) fn new(
        graph: &mut ScheduleGraph,
        conditioned_sets: &[Vec<usize>],
        timings: Option<&mut [TimingSlot]>,
        run: u64,
    ) -> Self {
        let system_count = graph.systems.len();
        assert_eq!(
            conditioned_sets.len(),
            system_count,
            "built for these systems"
        );
        let timings = match timings {
            Some(slots) => {
                assert_eq!(slots.len(), system_count, "one timing slot per system");
                SyncPtr(slots.as_mut_ptr())
            }
            None => SyncPtr(std::ptr::null_mut()),
        };
        Nodes {
            systems: SyncPtr(graph.systems.as_mut_ptr()),
            conditions: SyncPtr(graph.system_conditions.as_mut_ptr()),
            conditioned_sets: SyncPtr(conditioned_sets.as_ptr().cast_mut()),
            set_conditions: SyncPtr(graph.set_conditions.as_mut_ptr()),
            timings,
            run,
            error_handler: crate::error::match_severity,
        }
    }

    /// The nodes, with the error handler of `world`.
    fn with_error_handler_of(self, world: &World) -> Self {
        Nodes {
            error_handler: world.fallback_error_handler(),
            ..self
        }
    }

    /// Whether `node` may run on a worker thread: not a system that uses
    /// a non-send resource.
    fn is_send(self, node: Node) -> bool {
        match node {
            // SAFETY: only the flag of a system no job is running is read.
            Node::System(i) => unsafe { &*self.systems.0.add(i) }.is_send(),
            Node::Apply(_) => true,
        }
    }

    /// Whether system `i` runs in this schedule run: evaluates the
    /// conditions of its sets not evaluated yet in this run, then its own
    /// (every one, without short-circuit, so each keeps its state). A
    /// panic in a condition is returned, named.
    ///
    /// Only the thread driving the run calls this, right before it starts
    /// the system (conditions that use rayon themselves cannot wait on a
    /// worker that waits on them).
    ///
    /// # Safety
    /// System `i` is ready to start: the nodes running now do not conflict
    /// with its access, which covers its conditions' and its sets'
    /// conditions'. No other thread touches conditions during the run.
    unsafe fn should_run(self, i: usize, world: UnsafeWorldCell<'_>) -> Result<bool, Panic> {
        // SAFETY: only the system's name is read; no job is running it yet.
        let system = unsafe { &*self.systems.0.add(i) };
        let mut run = true;
        // SAFETY: the lists are not changed while the schedule runs.
        let sets = unsafe { &*self.conditioned_sets.0.add(i) };
        for &set in sets {
            // SAFETY: `set` indexes the schedule's sets; only this thread
            // touches them during the run.
            let state = unsafe { &mut *self.set_conditions.0.add(set) };
            if state.run != self.run {
                // Once per run, even if a condition panics.
                state.run = self.run;
                state.result = false;
                // SAFETY: the caller holds the set's conditions' access.
                state.result = unsafe {
                    evaluate_all(
                        &mut state.conditions,
                        world,
                        self.error_handler,
                        system,
                        true,
                    )?
                };
            }
            run &= state.result;
        }
        // SAFETY: system `i`'s own conditions are touched only here.
        let own = unsafe { &mut *self.conditions.0.add(i) };
        // SAFETY: the caller holds their access.
        let own = unsafe { evaluate_all(own, world, self.error_handler, system, false)? };
        Ok(run & own)
    }
}

/// Evaluates every condition (no short-circuit) and folds their results
/// with `and`. A condition that is skipped counts as `false`, and one that
/// fails also goes to the error handler; a panic names the condition.
///
/// # Safety
/// The conditions were initialised with this world, and the caller holds
/// their access.
unsafe fn evaluate_all(
    conditions: &mut [BoxedCondition],
    world: UnsafeWorldCell<'_>,
    error_handler: ErrorHandler,
    system: &BoxedSystem,
    on_set: bool,
) -> Result<bool, Panic> {
    let mut all = true;
    for condition in conditions {
        let result = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: guaranteed by the caller.
            unsafe { condition.run_unsafe((), world) }
        }));
        match result {
            Ok(Ok(value)) => all &= value,
            Ok(Err(RunSystemError::Skipped(_))) => all = false,
            Ok(Err(RunSystemError::Failed(error))) => {
                all = false;
                error_handler(
                    error,
                    ErrorContext::RunCondition {
                        name: condition.name(),
                        last_run: condition.last_run(),
                        system: system.name(),
                        on_set,
                    },
                );
            }
            Err(payload) => {
                let payload = crate::utils::name_panic("run condition", &condition.name(), payload);
                return Err(crate::utils::name_panic("system", &system.name(), payload));
            }
        }
    }
    Ok(all)
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
                Node::System(i) => run_system(&mut *nodes.systems.0.add(i), nodes, world),
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
    result.map_err(|payload| {
        let (kind, i) = match node {
            Node::System(i) => ("system", i),
            Node::Apply(i) => ("the commands of system", i),
        };
        // SAFETY: the node's system is ours alone (caller); only its name
        // is read.
        let name = unsafe { (*nodes.systems.0.add(i)).name() };
        crate::utils::name_panic(kind, &name, payload)
    })
}

/// Runs a system node; an error it returns goes to the error handler (a
/// skipped system did not run, which is no error).
///
/// # Safety
/// As [`run_node`], for this system.
unsafe fn run_system(system: &mut BoxedSystem, nodes: Nodes, world: UnsafeWorldCell<'_>) {
    // SAFETY: guaranteed by the caller.
    if let Err(RunSystemError::Failed(error)) = unsafe { system.run_unsafe((), world) } {
        (nodes.error_handler)(
            error,
            ErrorContext::System {
                name: system.name(),
                last_run: system.last_run(),
            },
        );
    }
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
    let systems = systems.with_error_handler_of(world);
    let cell = UnsafeWorldCell::new_mutable(world);
    for &node in &graph.order {
        if let Node::System(i) = node {
            // SAFETY: one node at a time, on this thread, with `&mut World`.
            match unsafe { systems.should_run(i, cell) } {
                Ok(true) => {}
                Ok(false) => continue,
                Err(payload) => resume_unwind(payload),
            }
        }
        // SAFETY: one node at a time, on this thread, with `&mut World`.
        if let Err(payload) = unsafe { run_node(node, systems, cell) } {
            resume_unwind(payload);
        }
    }
}

/// What the multi-threaded executor keeps between runs, so a run allocates
/// nothing of its own (rayon still boxes each job it is offered).
#[derive(Default)]
pub(crate) struct MultiThreadedState {
    /// Per position: dependencies not finished yet in this run.
    remaining: Vec<usize>,
    /// Positions ready to start, sorted (launches follow the total order).
    ready: Vec<usize>,
    /// Positions offered to rayon whose claim the executor has not settled,
    /// with when they were offered.
    offered: Vec<(usize, Instant)>,
    /// Offered positions the executor found claimed by a job in this run
    /// (moved here from `offered` when it settles them) that have not
    /// reported yet, with when they were offered. Every wait starts with
    /// `offered` settled, so every report is of a node in here.
    running: Vec<(usize, Instant)>,
    /// Per position: how long the node ran the last time a job ran it
    /// (`None`: never yet). A wait polls until the earliest report these
    /// predict ([`poll_deadline`]).
    last_run: Vec<Option<Duration>>,
    /// The run counter and the claim slots, shared with offered jobs.
    shared: Option<Arc<Shared>>,
    /// In a `Mutex` only so that a `Schedule` is `Sync` (it is stored in a
    /// resource); reached through `get_mut`, which takes no lock.
    receiver: Option<Mutex<mpsc::Receiver<Report>>>,
    run: u64,
    /// [`cpus_to_poll_with`], asked once.
    cpus: Option<usize>,
}

/// Shared with every job offered to rayon; outlives the run (a job nobody
/// needed may still sit in rayon's queue after the run returns).
struct Shared {
    /// Per position: the last run in which the node was claimed. A node is
    /// run by whoever raises it to the current run first: the job offered
    /// to rayon or the executor thread, when it would otherwise wait.
    claims: Vec<AtomicU64>,
    sender: mpsc::Sender<Report>,
}

impl Shared {
    /// Claims position `p` for run `run`; true for exactly one caller per
    /// run, false for any caller of an older run.
    #[inline]
    fn claim(&self, p: usize, run: u64) -> bool {
        self.claims[p].fetch_max(run, Ordering::AcqRel) < run
    }
}

/// Runs the graph on rayon: a node starts once its dependencies are done;
/// independent ready nodes are offered to rayon's workers, and the calling
/// thread runs one itself and then, instead of waiting, runs any offered
/// node no worker has started yet. So short systems on a busy machine run
/// on the calling thread without waiting for a worker to wake up, and long
/// ones still spread over the pool.
pub(crate) fn run_multi_threaded(
    graph: &ExecutionGraph,
    systems: Nodes,
    world: &mut World,
    state: &mut MultiThreadedState,
) {
    let count = graph.order.len();
    if count == 0 {
        return;
    }
    let systems = systems.with_error_handler_of(world);
    let cell = UnsafeWorldCell::new_mutable(world);
    if state
        .shared
        .as_ref()
        .is_none_or(|s| s.claims.len() != count)
    {
        // Jobs of earlier runs may still hold the old slots; they only ever
        // find their claims taken.
        let (sender, receiver) = mpsc::channel();
        state.shared = Some(Arc::new(Shared {
            claims: (0..count).map(|_| AtomicU64::new(0)).collect(),
            sender,
        }));
        state.receiver = Some(Mutex::new(receiver));
        state.run = 0;
        state.last_run.clear();
        state.last_run.resize(count, None);
    }
    state.run += 1;
    let run = state.run;
    let cpus = *state.cpus.get_or_insert_with(cpus_to_poll_with);
    let shared = state.shared.as_ref().expect("set above");
    let receiver = state
        .receiver
        .as_mut()
        .expect("set with `shared`")
        .get_mut()
        .unwrap_or_else(PoisonError::into_inner);
    state.remaining.clear();
    state.remaining.extend_from_slice(&graph.dependency_counts);
    state.ready.clear();
    state
        .ready
        .extend((0..count).filter(|&p| graph.dependency_counts[p] == 0));
    state.offered.clear();
    state.running.clear();

    let mut run_state = RunState {
        graph,
        remaining: &mut state.remaining,
        ready: &mut state.ready,
        offered: &mut state.offered,
        running: &mut state.running,
        last_run: &mut state.last_run,
        shared,
        receiver,
        run,
        cpus,
        panic: None,
    };
    // Whatever happens below (even a panic in this function), nothing may
    // still touch the world when the run returns.
    let guard = WaitOnDrop(&mut run_state);
    let run_state = &mut *guard.0;
    run_state.drive(systems, cell);
    let panic = run_state.panic.take();
    drop(guard);
    if let Some(payload) = panic {
        resume_unwind(payload);
    }
}

/// The executor's view of one run.
struct RunState<'a> {
    graph: &'a ExecutionGraph,
    remaining: &'a mut Vec<usize>,
    ready: &'a mut Vec<usize>,
    offered: &'a mut Vec<(usize, Instant)>,
    running: &'a mut Vec<(usize, Instant)>,
    last_run: &'a mut [Option<Duration>],
    shared: &'a Arc<Shared>,
    receiver: &'a mpsc::Receiver<Report>,
    run: u64,
    /// The CPUs a wait may poll with (0: never poll).
    cpus: usize,
    panic: Option<Panic>,
}

impl RunState<'_> {
    fn drive(&mut self, systems: Nodes, cell: UnsafeWorldCell<'_>) {
        let graph = self.graph;
        loop {
            // Launch what is ready, until a node panics. The last one (or
            // an exclusive one, when nothing else runs) runs here.
            while self.panic.is_none() {
                let Some(&p) = self.ready.first() else {
                    break;
                };
                let node = graph.order[p];
                if graph.exclusive[p] {
                    if self.outstanding() > 0 {
                        break;
                    }
                    self.ready.remove(0);
                    // SAFETY: as for running it, below.
                    if let Some(skipped) = unsafe { self.skipped(node, systems, cell) } {
                        self.complete(p, skipped);
                        continue;
                    }
                    // SAFETY: nothing else runs (checked), and exclusive
                    // nodes are ordered after everything before them.
                    let result = unsafe { run_node(node, systems, cell) };
                    self.complete(p, result);
                    continue;
                }
                self.ready.remove(0);
                // SAFETY: the node's dependencies are done and nodes running
                // now do not conflict with it (they would be ordered), nor
                // with its conditions, whose access is part of its own.
                if let Some(skipped) = unsafe { self.skipped(node, systems, cell) } {
                    self.complete(p, skipped);
                    continue;
                }
                let last = self.ready.is_empty() || graph.exclusive[self.ready[0]];
                // A non-send system stays on this thread, which owns the
                // world's non-send values.
                if last || !systems.is_send(node) {
                    // SAFETY: the node's dependencies are done; nodes running
                    // now do not conflict with it (they would be ordered).
                    let result = unsafe { run_node(node, systems, cell) };
                    self.complete(p, result);
                } else {
                    self.offer(p, node, systems, cell);
                }
            }
            if self.panic.is_some() {
                // Stop: nothing new starts, and the offers are settled
                // before any wait (those no worker has started are
                // dropped), so that every report taken is of a node in
                // `running`.
                self.ready.clear();
                self.cancel_offered();
            }
            if self.outstanding() == 0 && (self.ready.is_empty() || self.panic.is_some()) {
                break;
            }
            // Rather than wait, run an offered node no worker has started
            // (the latest offered: workers take the oldest first; after a
            // panic, none is left).
            if let Some(p) = self.claim_offered() {
                // SAFETY: as for launching it: its dependencies are done
                // and nothing running conflicts; the claim makes this
                // thread its only runner.
                let result = unsafe { run_node(graph.order[p], systems, cell) };
                self.complete(p, result);
                continue;
            }
            self.wait_one();
        }
    }

    /// `None` if the node is to run; otherwise how it ended without running
    /// (its run conditions were false, or one panicked).
    ///
    /// # Safety
    /// As [`Nodes::should_run`]: the node is ready to start.
    unsafe fn skipped(
        &self,
        node: Node,
        systems: Nodes,
        cell: UnsafeWorldCell<'_>,
    ) -> Option<Result<(), Panic>> {
        match node {
            // SAFETY: guaranteed by the caller.
            Node::System(i) => match unsafe { systems.should_run(i, cell) } {
                Ok(true) => None,
                Ok(false) => Some(Ok(())),
                Err(payload) => Some(Err(payload)),
            },
            Node::Apply(_) => None,
        }
    }

    /// Offers node `p` to rayon's workers.
    fn offer(&mut self, p: usize, node: Node, systems: Nodes, cell: UnsafeWorldCell<'_>) {
        self.offered.push((p, Instant::now()));
        let shared = Arc::clone(self.shared);
        let run = self.run;
        // SAFETY: the job only touches the world (and the systems) after
        // winning the claim for this run; the executor does not return from
        // `run_multi_threaded` before every node claimed by a job of this
        // run has reported back (`running`, `WaitOnDrop`), so the world
        // borrow outlives every use. A job that loses the claim (or runs
        // after the run ended, when all its claims are settled) touches
        // nothing but `shared`, which it owns a count of.
        let cell: UnsafeWorldCell<'static> = unsafe { std::mem::transmute(cell) };
        rayon::spawn(move || {
            if shared.claim(p, run) {
                let start = Instant::now();
                // SAFETY: this job won the node's claim (see above); the
                // executor launched it with its dependencies done and no
                // conflicting node running.
                let result = unsafe { run_node(node, systems, cell) };
                let _ = shared.sender.send((p, result, start.elapsed()));
            }
        });
    }

    /// Takes an offered node no job has claimed, claiming it; moves to
    /// `running` the nodes jobs have claimed (they will report).
    fn claim_offered(&mut self) -> Option<usize> {
        while let Some((p, offered_at)) = self.offered.pop() {
            if self.shared.claim(p, self.run) {
                return Some(p);
            }
            self.running.push((p, offered_at));
        }
        None
    }

    /// Settles every offered node: those no job has claimed will not run.
    fn cancel_offered(&mut self) {
        while let Some((p, offered_at)) = self.offered.pop() {
            if !self.shared.claim(p, self.run) {
                self.running.push((p, offered_at));
            }
        }
    }

    /// Whether a wait now may poll first: a CPU is free for it.
    fn polls(&self) -> bool {
        self.outstanding() < self.cpus
    }

    /// Nodes offered or running elsewhere and not yet reported.
    fn outstanding(&self) -> usize {
        self.offered.len() + self.running.len()
    }

    /// The next report of a node running elsewhere, polling first (until
    /// [`poll_deadline`]) when a CPU is free for it.
    fn next_report(&mut self) -> (usize, Result<(), Panic>) {
        // A report already there needs no clock.
        let (p, result, ran) = match try_take(self.receiver) {
            Some(report) => report,
            None => {
                let poll_until = self.polls().then(|| {
                    poll_deadline(Instant::now(), expected_report(self.running, self.last_run))
                });
                wait(self.receiver, poll_until)
            }
        };
        self.last_run[p] = Some(ran);
        // Every wait starts with `offered` settled, so the node is here.
        let at = self.running.iter().position(|&(q, _)| q == p);
        debug_assert!(at.is_some(), "a report of a node not in `running`");
        if let Some(at) = at {
            self.running.swap_remove(at);
        }
        (p, result)
    }

    /// Waits for a node running on a worker to report.
    fn wait_one(&mut self) {
        let (p, result) = self.next_report();
        self.complete(p, result);
    }

    fn complete(&mut self, p: usize, result: Result<(), Panic>) {
        match result {
            Ok(()) => {
                for &q in &self.graph.dependents[p] {
                    self.remaining[q] -= 1;
                    if self.remaining[q] == 0 {
                        let at = self.ready.partition_point(|&r| r < q);
                        self.ready.insert(at, q);
                    }
                }
            }
            Err(payload) => {
                self.panic.get_or_insert(payload);
            }
        }
    }
}

/// Settles every offered node and waits for every claimed one before the
/// run's borrow of the world ends, also when unwinding.
struct WaitOnDrop<'a, 'b>(&'a mut RunState<'b>);

impl Drop for WaitOnDrop<'_, '_> {
    fn drop(&mut self) {
        let state = &mut *self.0;
        // Offered nodes nobody started never will: a job that finds its
        // claim taken does nothing.
        state.cancel_offered();
        while state.outstanding() > 0 {
            let (_, result) = state.next_report();
            if let Err(payload) = result {
                state.panic.get_or_insert(payload);
            }
        }
    }
}

/// The shortest time a wait of the executor thread polls for a report
/// before it blocks, and all it polls when it cannot tell when the report
/// is due.
///
/// Blocking hands the thread to the OS, and the worker's report must then
/// wake it, which costs more than polling through a short wait
/// (docs/PERFORMANCE.md).
const POLL_AT_LEAST: Duration = Duration::from_micros(50);

/// How far past the report it expects a wait keeps polling: room for a
/// worker that wakes late to claim the node.
const POLL_MARGIN: Duration = Duration::from_micros(50);

/// The longest a wait polls (give or take one batch of 64 polls): when the
/// expected report plus [`POLL_MARGIN`] lies further off, the wait polls
/// only [`POLL_AT_LEAST`] and then blocks, as the wake-up is then a small
/// part of the wait and polling would burn a CPU for the whole of it.
const POLL_AT_MOST: Duration = Duration::from_micros(500);

/// By when the first report of the nodes `running` elsewhere (positions,
/// with when they were offered) is due, going by how long each ran last
/// time (`last_run`, by position) and allowing a run twice as slow. `None`
/// if none of them has run on a worker before.
fn expected_report(running: &[(usize, Instant)], last_run: &[Option<Duration>]) -> Option<Instant> {
    running
        .iter()
        .filter_map(|&(p, offered_at)| Some(offered_at + 2 * last_run[p]?))
        .min()
}

/// When a wait of the executor thread that starts at `now` stops polling
/// and blocks, given when the first report is `expected` (see
/// [`expected_report`]): [`POLL_MARGIN`] after the expected report if
/// that point is within [`POLL_AT_MOST`] of `now`, but never before
/// [`POLL_AT_LEAST`]; [`POLL_AT_LEAST`] if nothing is expected or the
/// point lies further off.
fn poll_deadline(now: Instant, expected: Option<Instant>) -> Instant {
    let at_least = now + POLL_AT_LEAST;
    match expected.map(|at| at + POLL_MARGIN) {
        Some(until) if until <= now + POLL_AT_MOST => until.max(at_least),
        _ => at_least,
    }
}

/// The CPUs the executor thread may poll with: it polls only while fewer
/// nodes run elsewhere than there are CPUs, so that its polling does not
/// take a CPU from the nodes it waits for (work a system spreads over
/// rayon itself may still want every CPU; it then loses at most
/// [`POLL_AT_MOST`] per wait, the executor yielding its CPU every 64
/// polls). 0 under Miri, where the executor never polls: Miri's
/// clock is virtual, and polling there only makes the tests slow.
fn cpus_to_poll_with() -> usize {
    if cfg!(miri) {
        return 0;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Waits for a finished node. On a rayon worker thread, keeps doing other
/// rayon work meanwhile so a small pool cannot deadlock; on another thread
/// (the executor's), polls until `poll_until` if given, then blocks.
fn wait<T>(receiver: &mpsc::Receiver<T>, poll_until: Option<Instant>) -> T {
    if rayon::current_thread_index().is_some() {
        loop {
            if let Some(message) = try_take(receiver) {
                return message;
            }
            if rayon::yield_now() != Some(rayon::Yield::Executed) {
                std::thread::yield_now();
            }
        }
    }
    if let Some(deadline) = poll_until {
        while Instant::now() < deadline {
            for _ in 0..64 {
                if let Some(message) = try_take(receiver) {
                    return message;
                }
                std::hint::spin_loop();
            }
            // Now and then: should the node's worker share this CPU after
            // all, it gets to run.
            std::thread::yield_now();
        }
    }
    receiver
        .recv()
        .expect("the sender lives in the executor state")
}

/// A report if one is waiting.
#[inline]
fn try_take<T>(receiver: &mpsc::Receiver<T>) -> Option<T> {
    match receiver.try_recv() {
        Ok(message) => Some(message),
        Err(mpsc::TryRecvError::Empty) => None,
        Err(mpsc::TryRecvError::Disconnected) => {
            unreachable!("the sender lives in the executor state")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `wait` returns each report, with polling on and off: one already
    /// there, one sent at once from another thread (usually while `wait`
    /// polls) and one sent late (after the polling window, so `wait`
    /// blocks). A lost report makes the test hang, which the test runner
    /// reports; which path took a report is not observable here.
    #[test]
    fn wait_receives_reports_early_and_late() {
        for poll in [true, false] {
            let poll_until = || poll.then(|| Instant::now() + POLL_AT_LEAST);
            let (sender, receiver) = mpsc::channel();
            sender.send(1).unwrap();
            assert_eq!(wait(&receiver, poll_until()), 1);
            // Sent from another thread while the executor is waiting: soon
            // (within the polling window) and late (after it; not under
            // Miri, whose clock only moves as the interpreter runs).
            let late = if cfg!(miri) {
                Duration::ZERO
            } else {
                POLL_AT_LEAST * 20
            };
            for (value, delay) in [(2, Duration::ZERO), (3, late)] {
                let sender = sender.clone();
                let thread = std::thread::spawn(move || {
                    std::thread::sleep(delay);
                    sender.send(value).unwrap();
                });
                assert_eq!(wait(&receiver, poll_until()), value);
                thread.join().unwrap();
            }
        }
    }

    /// A wait polls until just past the report it expects when that is
    /// near, and for the shortest window when the report is unknown, due
    /// now or long ago, or far off.
    #[test]
    fn polling_follows_the_expected_report() {
        let now = Instant::now();
        let us = Duration::from_micros;
        let deadline = |expected: Option<Instant>| poll_deadline(now, expected) - now;
        assert_eq!(deadline(None), POLL_AT_LEAST);
        // Due in 66 µs.
        assert_eq!(deadline(Some(now + us(66))), us(66) + POLL_MARGIN);
        // Overdue, or due so soon that the margin ends first.
        let long_ago = now.checked_sub(us(400)).unwrap_or(now);
        assert_eq!(deadline(Some(long_ago)), POLL_AT_LEAST);
        assert_eq!(deadline(Some(now)), POLL_AT_LEAST.max(POLL_MARGIN));
        // Right at the longest poll, and just past it.
        let at_most = POLL_AT_MOST - POLL_MARGIN;
        assert_eq!(deadline(Some(now + at_most)), POLL_AT_MOST);
        assert_eq!(deadline(Some(now + at_most + us(1))), POLL_AT_LEAST);
    }

    /// The expected report is the earliest among the nodes with a past
    /// run, allowing each twice its last run; nodes never run are left out.
    #[test]
    fn the_expected_report_is_the_earliest_known() {
        let now = Instant::now();
        let us = Duration::from_micros;
        let last_run = [Some(us(100)), None, Some(us(30)), Some(us(10))];
        assert_eq!(expected_report(&[], &last_run), None);
        assert_eq!(expected_report(&[(1, now)], &last_run), None);
        assert_eq!(
            expected_report(&[(1, now), (0, now)], &last_run),
            Some(now + us(200))
        );
        // Node 2 was offered later than node 0 but is due first; node 3,
        // offered last, is due last.
        let running = [(0, now), (2, now + us(20)), (3, now + us(90))];
        assert_eq!(expected_report(&running, &last_run), Some(now + us(80)));
    }
}
