//! Schedules: run systems in a fixed, data-safe order, in parallel where
//! their access allows.
//!
//! Building a schedule (at its first run, and again after systems are
//! added) does all the thinking:
//!
//! ```text
//! 1. explicit edges   .before / .after / .chain()        (a cycle panics)
//! 2. apply nodes      a system with Commands gets an "apply" node, ordered
//!                     after it and before every system ordered after it
//! 3. total order      topological, ties broken by the order systems were
//!                     added (apply nodes as late as allowed)
//! 4. conflict edges   any two nodes whose access conflicts are ordered as
//!                     in the total order; exclusive and apply nodes
//!                     conflict with everything
//! ```
//!
//! Every edge points forward in the total order, so there is no deadlock,
//! and every pair of conflicting systems always runs in the same order: a
//! run's result never depends on thread timing. The multi-threaded
//! executor then starts each node once its dependencies are done, on rayon.
//!
//! A run first lets the world clamp old change ticks when a check is due
//! ([`World::check_change_ticks`]). A schedule keeps no tick of its own, and
//! the world does not know it: each system clamps its own last run when it
//! next runs, so a schedule left idle across full wraps of the clock is
//! still right (see the [`change_detection`](crate::change_detection)
//! module docs).
//!
//! # Many schedules
//!
//! A world keeps its schedules in the [`Schedules`] resource, each under a
//! [`ScheduleLabel`]; [`World::run_schedule`] runs one by label. The
//! schedule is taken out of [`Schedules`] while it runs, so one of its
//! systems can run other schedules (a fixed-timestep loop runs
//! `FixedUpdate` from an exclusive system of the frame's schedule), and
//! running it from inside itself is an error naming the running labels.
//!
//! ```text
//! Schedules { Main, FixedUpdate, Render }
//!   run_schedule(Main)           Main out  ─▶ systems run ─▶ Main back
//!     └ exclusive system:
//!       run_schedule(FixedUpdate)  FixedUpdate out ─▶ run ─▶ back (0..n times)
//! ```

mod apply_deferred;
mod condition;
mod config;
mod error;
mod executor;
mod executors;
mod graph;
mod label;
mod schedule_graph;
mod schedules;
mod scope;
mod set;
mod settings;

pub use apply_deferred::ApplyDeferred;
pub use condition::{
    common_conditions, AndEager, AndEagerMarker, AndThen, AndThenMarker, BoxedCondition, NandEager,
    NandEagerMarker, NandThen, NandThenMarker, NorEager, NorEagerMarker, NorElse, NorElseMarker,
    NotMarker, NotSystem, OrEager, OrEagerMarker, OrElse, OrElseMarker, SystemCondition, Xnor,
    XnorMarker, Xor, XorMarker,
};
pub use config::{
    Ambiguity, Chain, Dependency, DependencyKind, GraphInfo, IntoScheduleConfigs, Schedulable,
    ScheduleConfig, ScheduleConfigTupleMarker, ScheduleConfigs,
};
pub use error::{ScheduleBuildError, ScheduleError};
pub use executors::{MultiThreadedExecutor, SingleThreadedExecutor, SystemExecutor};
pub use label::{DynEq, InternedScheduleLabel, ScheduleLabel};
pub use schedule_graph::{
    NodeId, ProcessScheduleConfig, ScheduleCleanupPolicy, ScheduleGraph, SystemKey, SystemSetKey,
};
pub use schedules::Schedules;
pub use set::{
    AnonymousSet, InternedSystemSet, IntoSystemSet, IsSystemTypeSet, SystemSet, SystemTypeSet,
};
pub use settings::{LogLevel, ScheduleBuildSettings};

use crate::{system::ScheduleSystem, world::World};

use executor::{MultiThreadedState, Nodes, TimingSlot};
use graph::ExecutionGraph;
use schedule_graph::Flattened;

/// How long one system of a [`Schedule`] has taken, summed over the runs
/// since timing was turned on ([`Schedule::set_timing`]).
///
/// `total` and `max` cover the system's own runs; the time spent applying
/// its commands (the "apply" step after it) is `apply_total`, kept apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemTiming {
    /// The system's name (its function's path).
    pub name: String,
    /// How many times the system ran.
    pub runs: u64,
    /// The time of all those runs together.
    pub total: std::time::Duration,
    /// The longest single run.
    pub max: std::time::Duration,
    /// The time spent applying the system's commands, all runs together.
    pub apply_total: std::time::Duration,
}

impl SystemTiming {
    /// The mean time of a run (zero before the first).
    pub fn mean(&self) -> std::time::Duration {
        if self.runs == 0 {
            std::time::Duration::ZERO
        } else {
            self.total.div_f64(self.runs as f64)
        }
    }
}

/// How a schedule runs its systems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExecutorKind {
    /// Non-conflicting systems run at once on rayon's thread pool. The
    /// calling thread runs systems too. When it has to wait for one running
    /// on the pool, it polls briefly (tens of microseconds, only while a
    /// CPU is free for it) before it sleeps, since being woken can take as
    /// long as a short system runs; on a rayon worker it runs other rayon
    /// work instead.
    #[default]
    MultiThreaded,
    /// Every system runs on the calling thread, in the total order.
    SingleThreaded,
}

/// A set of systems and the order they run in.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource, Default)]
/// struct Log(Vec<&'static str>);
///
/// fn input(mut log: ResMut<Log>) { log.0.push("input"); }
/// fn physics(mut log: ResMut<Log>) { log.0.push("physics"); }
/// fn render(mut log: ResMut<Log>) { log.0.push("render"); }
///
/// let mut world = World::new();
/// world.init_resource::<Log>();
/// let mut schedule = Schedule::default();
/// schedule.add_systems((render.after(physics), physics.after(input), input));
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().0, ["input", "physics", "render"]);
/// ```
pub struct Schedule {
    label: InternedScheduleLabel,
    executor: ExecutorKind,
    graph: ScheduleGraph,
    settings: ScheduleBuildSettings,
    /// Whether a run ends by applying the commands no sync point applied.
    apply_final_deferred: bool,
    /// The compiled graph and, per system, the sets with conditions it is
    /// in; `None` until built, and again after a change.
    executable: Option<(ExecutionGraph, Vec<Vec<usize>>)>,
    /// Runs so far: set conditions remember which run they were
    /// evaluated in.
    runs: u64,
    world_id: Option<crate::world::WorldId>,
    /// One slot per system while timing is on.
    timings: Option<Vec<TimingSlot>>,
    /// The multi-threaded executor's buffers, kept between runs.
    executor_state: MultiThreadedState,
}

impl Default for Schedule {
    /// An empty schedule under a private default label: for a schedule run
    /// directly with [`Schedule::run`]. Two of them added to one world
    /// replace each other, so give a stored schedule a label of its own
    /// ([`Schedule::new`]).
    fn default() -> Self {
        Schedule::new(label::DefaultSchedule)
    }
}

impl std::fmt::Debug for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schedule")
            .field("label", &self.label)
            .field("executor", &self.executor)
            .field("systems", &self.system_names())
            .finish()
    }
}

impl Schedule {
    /// An empty schedule named `label`, with the multi-threaded executor.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Startup;
    ///
    /// let schedule = Schedule::new(Startup);
    /// assert_eq!(schedule.label(), Startup.intern());
    /// ```
    pub fn new(label: impl ScheduleLabel) -> Self {
        Schedule {
            label: label.intern(),
            executor: ExecutorKind::default(),
            graph: ScheduleGraph::default(),
            settings: ScheduleBuildSettings::default(),
            apply_final_deferred: true,
            executable: None,
            runs: 0,
            world_id: None,
            timings: None,
            executor_state: MultiThreadedState::default(),
        }
    }

    /// The label this schedule was made with, which
    /// [`Schedules`] stores it under.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Level(u32);
    ///
    /// assert_eq!(Schedule::new(Level(2)).label(), Level(2).intern());
    /// assert_ne!(Schedule::new(Level(2)).label(), Level(3).intern());
    /// ```
    pub fn label(&self) -> InternedScheduleLabel {
        self.label
    }

    /// Chooses how the systems run: one of the two built-in executors,
    /// named by [`ExecutorKind`] ([`Schedule::set_executor`] takes bevy's
    /// executor values instead).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ExecutorKind;
    ///
    /// let mut schedule = Schedule::default();
    /// schedule.set_executor_kind(ExecutorKind::SingleThreaded);
    /// assert_eq!(schedule.executor(), ExecutorKind::SingleThreaded);
    /// ```
    pub fn set_executor_kind(&mut self, executor: ExecutorKind) -> &mut Self {
        self.executor = executor;
        self
    }

    /// An empty schedule that runs every system on the calling thread.
    pub fn single_threaded() -> Self {
        let mut schedule = Schedule::default();
        schedule.set_executor_kind(ExecutorKind::SingleThreaded);
        schedule
    }

    /// The executor.
    pub fn executor(&self) -> ExecutorKind {
        self.executor
    }

    /// The names of the systems, in the order they were added.
    pub fn system_names(&self) -> Vec<String> {
        self.graph
            .systems
            .iter()
            .map(|s| s.name().into_owned())
            .collect()
    }

    /// Turns per-system timing on (clearing what was measured) or off.
    ///
    /// While on, every run reads the clock twice per system and once more
    /// per command application; [`Schedule::system_timings`] reports the
    /// sums.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// fn tick() {}
    ///
    /// let mut world = World::new();
    /// let mut schedule = Schedule::default();
    /// schedule.add_systems(tick);
    /// schedule.set_timing(true);
    /// schedule.run(&mut world);
    /// schedule.run(&mut world);
    /// let timings = schedule.system_timings();
    /// assert_eq!(timings.len(), 1);
    /// assert!(timings[0].name.ends_with("tick"));
    /// assert_eq!(timings[0].runs, 2);
    /// assert!(timings[0].max <= timings[0].total);
    /// ```
    pub fn set_timing(&mut self, on: bool) {
        self.timings = on.then(|| vec![TimingSlot::default(); self.graph.systems.len()]);
    }

    /// Whether per-system timing is on.
    pub fn timing(&self) -> bool {
        self.timings.is_some()
    }

    /// What timing has measured, one entry per system in the order they
    /// were added; empty while timing is off.
    pub fn system_timings(&self) -> Vec<SystemTiming> {
        let Some(slots) = &self.timings else {
            return Vec::new();
        };
        self.graph
            .systems
            .iter()
            .zip(slots)
            .map(|(system, slot)| SystemTiming {
                name: system.name().into_owned(),
                runs: slot.runs,
                total: slot.total,
                max: slot.max,
                apply_total: slot.apply_total,
            })
            .collect()
    }

    /// Adds systems: one, or a tuple, with `.in_set`, `.before`, `.after`,
    /// `.chain()` and `.run_if`. A schedule runs systems that take no input
    /// and return `()`.
    ///
    /// # Panics
    /// If a system is put in a system function's set
    /// ([`SystemTypeSet`]).
    #[track_caller]
    pub fn add_systems<M>(
        &mut self,
        systems: impl IntoScheduleConfigs<ScheduleSystem, M>,
    ) -> &mut Self {
        self.graph.process_configs(systems.into_configs());
        if let Some(slots) = &mut self.timings {
            slots.resize(self.graph.systems.len(), TimingSlot::default());
        }
        self.executable = None;
        self
    }

    /// Configures system sets: their parent sets (`.in_set`), orderings
    /// (`.before`, `.after`, `.chain()` on a tuple) and run conditions
    /// (`.run_if`), which apply to every system in them. Configuring a set
    /// again adds to what it had.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
    /// enum Game { Input, Logic, Render }
    /// #[derive(Resource, Default)]
    /// struct Log(Vec<&'static str>);
    /// #[derive(Resource)]
    /// struct Headless;
    ///
    /// fn keys(mut log: ResMut<Log>) { log.0.push("keys"); }
    /// fn logic(mut log: ResMut<Log>) { log.0.push("logic"); }
    /// fn draw(mut log: ResMut<Log>) { log.0.push("draw"); }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Log>();
    /// world.insert_resource(Headless);
    /// let mut schedule = Schedule::default();
    /// schedule.configure_sets((Game::Input, Game::Logic, Game::Render).chain());
    /// fn has_screen(headless: Option<Res<Headless>>) -> bool { headless.is_none() }
    /// schedule.configure_sets(Game::Render.run_if(has_screen));
    /// schedule.add_systems((draw.in_set(Game::Render), logic.in_set(Game::Logic), keys.in_set(Game::Input)));
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().0, ["keys", "logic"]);
    /// ```
    #[track_caller]
    pub fn configure_sets<M>(
        &mut self,
        sets: impl IntoScheduleConfigs<InternedSystemSet, M>,
    ) -> &mut Self {
        self.graph.process_configs(sets.into_configs());
        self.executable = None;
        self
    }

    /// Accepts conflicts between the systems of `a` and those of `b`
    /// (systems or sets) in ambiguity reports.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, Default)]
    /// struct Score(u32);
    /// fn add_one(mut s: ResMut<Score>) { s.0 += 1; }
    /// fn add_two(mut s: ResMut<Score>) { s.0 += 2; }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Score>();
    /// let mut schedule = Schedule::default();
    /// schedule.add_systems((add_one, add_two));
    /// schedule.ignore_ambiguity(add_one, add_two);
    /// schedule.initialize(&mut world).unwrap();
    /// assert!(schedule.graph().conflicting_systems().is_empty());
    /// ```
    pub fn ignore_ambiguity<M1, M2>(
        &mut self,
        a: impl IntoSystemSet<M1>,
        b: impl IntoSystemSet<M2>,
    ) -> &mut Self {
        self.graph
            .ignore_ambiguity(a.into_system_set().intern(), b.into_system_set().intern());
        self.executable = None;
        self
    }

    /// How many systems the schedule has.
    pub fn systems_len(&self) -> usize {
        self.graph.systems.len()
    }

    /// The systems with their keys, once the schedule is built (`None`
    /// before, or after a change).
    pub fn systems(&self) -> Option<impl Iterator<Item = (SystemKey, &ScheduleSystem)>> {
        self.executable.is_some().then(|| self.graph.systems())
    }

    /// Whether systems, sets or settings changed since the schedule was
    /// last built (or it was never built).
    pub fn is_changed(&self) -> bool {
        self.executable.is_none()
    }

    /// The systems and sets as added.
    pub fn graph(&self) -> &ScheduleGraph {
        &self.graph
    }

    /// How the schedule is checked when built.
    pub fn get_build_settings(&self) -> ScheduleBuildSettings {
        self.settings.clone()
    }

    /// Changes how the schedule is checked when built (it is built again).
    pub fn set_build_settings(&mut self, settings: ScheduleBuildSettings) -> &mut Self {
        self.settings = settings;
        self.executable = None;
        self
    }

    /// Removes every system in `set` (directly or through its sets; for a
    /// system function, its systems), dropping them with any commands they
    /// still hold, and, as `policy`
    /// says, the set itself; returns how many systems it removed. The
    /// default policy keeps what was ordered before them ordered before
    /// what was ordered after them. The schedule is built again on its
    /// next run; the keys of later systems and sets move down.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleCleanupPolicy;
    ///
    /// #[derive(Resource, Default)]
    /// struct Log(Vec<&'static str>);
    /// #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Debug;
    ///
    /// fn input(mut log: ResMut<Log>) { log.0.push("input"); }
    /// fn overlay(mut log: ResMut<Log>) { log.0.push("overlay"); }
    /// fn render(mut log: ResMut<Log>) { log.0.push("render"); }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Log>();
    /// let mut schedule = Schedule::default();
    /// schedule.add_systems((input, overlay.in_set(Debug), render).chain());
    /// let removed = schedule
    ///     .remove_systems_in_set(Debug, &mut world, ScheduleCleanupPolicy::RemoveSetAndSystems)
    ///     .unwrap();
    /// assert_eq!(removed, 1);
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Log>().0, ["input", "render"]);
    /// ```
    ///
    /// # Errors
    /// [`ScheduleError::SetNotFound`] if the schedule has no such set (nor
    /// system of that function), and [`ScheduleError::ScheduleBuildError`]
    /// if the schedule, with new systems initialised, cannot be built as
    /// it stands. Either way nothing is removed.
    ///
    /// # Panics
    /// As [`Schedule::initialize`] does, and if dropping a removed system
    /// or run condition panics (the schedule is left without them).
    #[track_caller]
    pub fn remove_systems_in_set<M>(
        &mut self,
        set: impl IntoSystemSet<M>,
        world: &mut World,
        policy: ScheduleCleanupPolicy,
    ) -> Result<usize, ScheduleError> {
        self.initialize(world)?;
        let (kept, removed) = self
            .graph
            .remove_in_set(set.into_system_set().intern(), policy)?;
        if let Some(timings) = &mut self.timings {
            let mut index = 0;
            timings.retain(|_| {
                index += 1;
                kept[index - 1]
            });
        }
        self.executable = None;
        // Dropped last: a panicking `Drop` finds the schedule in step.
        drop(removed);
        Ok(kept.iter().filter(|&&keep| !keep).count())
    }

    /// Whether a run ends by applying the commands (and other deferred
    /// work) of systems no sync point after them applies; on by default.
    /// Off, those commands stay in their systems, recorded runs after run,
    /// until [`Schedule::apply_deferred`] applies them, or the next run
    /// with it on. Commands a later system is ordered after (with
    /// automatic sync points) or an [`ApplyDeferred`] runs after (whether
    /// or not its run conditions hold) are still applied during the run.
    /// The schedule is built again.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Spawned;
    ///
    /// let mut world = World::new();
    /// let mut schedule = Schedule::default();
    /// schedule.set_apply_final_deferred(false);
    /// schedule.add_systems(|mut commands: Commands| {
    ///     commands.spawn(Spawned);
    /// });
    /// schedule.run(&mut world);
    /// assert_eq!(world.query::<&Spawned>().iter(&world).count(), 0);
    /// schedule.apply_deferred(&mut world);
    /// assert_eq!(world.query::<&Spawned>().iter(&world).count(), 1);
    /// ```
    pub fn set_apply_final_deferred(&mut self, apply_final_deferred: bool) -> &mut Self {
        if self.apply_final_deferred != apply_final_deferred {
            self.apply_final_deferred = apply_final_deferred;
            self.executable = None;
        }
        self
    }

    /// Applies every system's pending commands (and other deferred work)
    /// to `world` now, in the order the systems run in (one that keeps
    /// every ordering, ties by the order added), for a schedule run with
    /// [`Schedule::set_apply_final_deferred`] off.
    ///
    /// # Panics
    /// If a command panics, named with its system: the commands queued
    /// before it are applied, the system's commands after it are dropped,
    /// and the later systems' commands stay queued.
    pub fn apply_deferred(&mut self, world: &mut World) {
        let order: Vec<usize> = match &self.executable {
            Some((graph, _)) => graph.systems_in_order().collect(),
            None => self.graph.run_order(),
        };
        for i in order {
            let system = &mut self.graph.systems[i];
            if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                system.apply_deferred(world)
            })) {
                let name = system.name();
                std::panic::resume_unwind(crate::utils::name_panic(
                    "the commands of system",
                    &name,
                    payload,
                ));
            }
        }
    }

    /// Initialises new systems and run conditions and builds the execution
    /// graph if needed. On an error, nothing is built and the schedule
    /// stays as it was: fix it (or not) and initialise again.
    ///
    /// # Panics
    /// If a system's own parameters conflict, or if the schedule was
    /// initialised with another world.
    #[track_caller]
    pub fn initialize(&mut self, world: &mut World) -> Result<(), ScheduleBuildError> {
        match self.world_id {
            Some(id) if id != world.id() => panic!(
                "schedule {:?}, initialised for world {id:?}, was run on another world: its systems ({}) belong to the first",
                self.label,
                self.system_names().join(", ")
            ),
            _ => self.world_id = Some(world.id()),
        }
        if self.executable.is_some() {
            return Ok(());
        }
        self.graph.initialize(world);
        let Flattened {
            edges,
            conditioned_sets,
            members,
        } = self.graph.flatten()?;
        let access = self.graph.access_with_conditions(&conditioned_sets);
        let graph = ExecutionGraph::build(
            &self.graph.systems,
            &edges,
            &access,
            self.settings.auto_insert_apply_deferred,
            self.apply_final_deferred,
        );
        let position = graph.system_positions(self.graph.systems.len());
        let ignored = world
            .get_resource::<Schedules>()
            .map(|schedules| schedules.ignored_scheduling_ambiguities.clone())
            .unwrap_or_default();
        self.graph
            .find_conflicts(&edges, &members, &position, &ignored);
        let redundant = self.graph.redundant_memberships();
        self.settings.report(
            &self.graph,
            self.graph.conflicting_systems(),
            &redundant,
            world.components(),
        )?;
        self.executable = Some((graph, conditioned_sets));
        Ok(())
    }

    /// Runs every system once (those whose run conditions hold), then
    /// applies all their commands (see
    /// [`Schedule::set_apply_final_deferred`]).
    ///
    /// A panic in a system stops the run (systems already running finish)
    /// and propagates; the world stays consistent and usable.
    ///
    /// # Panics
    /// If the schedule cannot be built ([`ScheduleBuildError`], named with
    /// the schedule's label), and as [`Schedule::initialize`] does.
    #[track_caller]
    pub fn run(&mut self, world: &mut World) {
        world.flush_entities();
        if let Err(error) = self.initialize(world) {
            panic!("schedule {:?} cannot be built: {error}", self.label);
        }
        world.check_change_ticks();
        self.runs += 1;
        let (graph, conditioned_sets) = self.executable.as_ref().expect("built above");
        let nodes = Nodes::new(
            &mut self.graph,
            conditioned_sets,
            self.timings.as_deref_mut(),
            self.runs,
        );
        match self.executor {
            ExecutorKind::SingleThreaded => executor::run_single_threaded(graph, nodes, world),
            ExecutorKind::MultiThreaded => {
                executor::run_multi_threaded(graph, nodes, world, &mut self.executor_state)
            }
        }
    }

    /// The order the systems (and command applications) run in when run on
    /// one thread, by name: for tests and debugging.
    pub fn execution_order(&self) -> Option<Vec<String>> {
        self.executable
            .as_ref()
            .map(|(g, _)| g.describe_order(&self.graph.systems))
    }
}
