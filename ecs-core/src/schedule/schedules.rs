//! [`Schedules`]: a world's schedules, by label.

use std::collections::BTreeSet;

use hashbrown::{HashMap, HashSet};

use crate::component::{Component, ComponentId};
use crate::schedule::{InternedSystemSet, IntoSystemSet, ScheduleBuildSettings};
use crate::world::World;

use crate::resource::Resource;
use crate::schedule::{InternedScheduleLabel, IntoScheduleConfigs, Schedule, ScheduleLabel};
use crate::system::ScheduleSystem;

/// The resource that holds a world's [`Schedule`]s, each under its
/// [label](Schedule::label).
///
/// [`World::run_schedule`](crate::world::World::run_schedule) takes a
/// schedule out of here while it runs and puts it back afterwards (also
/// when a system panics), so a running schedule is not in the map: `get`,
/// `contains` and `iter` do not see it.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::schedule::ScheduleLabel;
///
/// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
/// struct Update;
///
/// fn tick() {}
///
/// let mut schedules = Schedules::new();
/// schedules.add_systems(Update, tick); // creates the `Update` schedule
/// assert!(schedules.contains(Update));
/// assert_eq!(schedules.get(Update).unwrap().system_names().len(), 1);
///
/// let mut world = World::new();
/// world.insert_resource(schedules);
/// world.run_schedule(Update);
/// ```
#[derive(Default, Resource)]
pub struct Schedules {
    inner: HashMap<InternedScheduleLabel, Schedule>,
    /// The labels of the schedules taken out to run, outermost first; a
    /// label can be there twice if a new schedule was inserted under it
    /// while the first ran.
    running: Vec<InternedScheduleLabel>,
    /// Labels a scope asked for that had no schedule.
    empty_labels: HashSet<InternedScheduleLabel>,
    /// Components and resources whose conflicts ambiguity reports leave
    /// out, in every schedule of the world.
    pub ignored_scheduling_ambiguities: BTreeSet<ComponentId>,
}

impl std::fmt::Debug for Schedules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schedules")
            .field("schedules", &self.inner.keys().collect::<Vec<_>>())
            .field("running", &self.running)
            .finish()
    }
}

impl Schedules {
    /// No schedules.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// assert_eq!(Schedules::new().iter().count(), 0);
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `schedule` under its label, returning the schedule that was
    /// there before.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Render;
    ///
    /// let mut schedules = Schedules::new();
    /// assert!(schedules.insert(Schedule::new(Render)).is_none());
    /// assert!(schedules.insert(Schedule::new(Render)).is_some());
    /// ```
    pub fn insert(&mut self, schedule: Schedule) -> Option<Schedule> {
        self.inner.insert(schedule.label(), schedule)
    }

    /// Puts back a schedule taken out with
    /// [`remove_temporarily`](Self::remove_temporarily), returning the
    /// schedule that was stored under its label meanwhile.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Physics;
    ///
    /// let mut schedules = Schedules::new();
    /// schedules.insert(Schedule::new(Physics));
    /// let schedule = schedules.remove_temporarily(Physics).unwrap();
    /// assert!(schedules.get_temporarily_removed().contains(&Physics.intern()));
    /// assert!(schedules.reinsert(schedule).is_none());
    /// assert!(schedules.get_temporarily_removed().is_empty());
    /// assert!(schedules.contains(Physics));
    /// ```
    pub fn reinsert(&mut self, schedule: Schedule) -> Option<Schedule> {
        let label = schedule.label();
        if let Some(at) = self.running.iter().rposition(|running| *running == label) {
            self.running.remove(at);
        }
        self.inner.insert(label, schedule)
    }

    /// Takes the schedule stored under `label` out, if there is one.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Render;
    ///
    /// let mut schedules = Schedules::new();
    /// schedules.insert(Schedule::new(Render));
    /// assert!(schedules.remove(Render).is_some());
    /// assert!(schedules.remove(Render).is_none());
    /// ```
    pub fn remove(&mut self, label: impl ScheduleLabel) -> Option<Schedule> {
        self.inner.remove(&label.intern())
    }

    /// Takes the schedule stored under `label` out and marks it as running
    /// until [`reinsert`](Self::reinsert) puts it back; a label with no
    /// schedule is remembered in [`get_empty_labels`](Self::get_empty_labels).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Missing;
    ///
    /// let mut schedules = Schedules::new();
    /// assert!(schedules.remove_temporarily(Missing).is_none());
    /// assert!(schedules.get_empty_labels().contains(&Missing.intern()));
    /// ```
    pub fn remove_temporarily(&mut self, label: impl ScheduleLabel) -> Option<Schedule> {
        let label = label.intern();
        let schedule = self.inner.remove(&label);
        if schedule.is_some() {
            self.running.push(label);
            self.empty_labels.remove(&label);
        } else {
            self.empty_labels.insert(label);
        }
        schedule
    }

    /// Takes the schedule stored under `label` out, with its label.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Render;
    ///
    /// let mut schedules = Schedules::new();
    /// schedules.insert(Schedule::new(Render));
    /// let (label, _schedule) = schedules.remove_entry(Render).unwrap();
    /// assert_eq!(label, Render.intern());
    /// ```
    pub fn remove_entry(
        &mut self,
        label: impl ScheduleLabel,
    ) -> Option<(InternedScheduleLabel, Schedule)> {
        self.inner.remove_entry(&label.intern())
    }

    /// The labels of the schedules taken out to run and not yet put back.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// assert!(Schedules::new().get_temporarily_removed().is_empty());
    /// ```
    pub fn get_temporarily_removed(&self) -> HashSet<InternedScheduleLabel> {
        self.running.iter().copied().collect()
    }

    /// The labels [`remove_temporarily`](Self::remove_temporarily) (and so
    /// a failed [`World::try_run_schedule`](crate::world::World::try_run_schedule))
    /// found no schedule for, since one was last taken out under them.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// assert!(Schedules::new().get_empty_labels().is_empty());
    /// ```
    pub fn get_empty_labels(&self) -> HashSet<InternedScheduleLabel> {
        self.empty_labels.clone()
    }

    /// The labels of the running schedules, outermost first.
    pub(super) fn running(&self) -> &[InternedScheduleLabel] {
        &self.running
    }

    /// Whether a schedule is stored under `label` (a running one is not).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Render;
    ///
    /// let mut schedules = Schedules::new();
    /// assert!(!schedules.contains(Render));
    /// schedules.insert(Schedule::new(Render));
    /// assert!(schedules.contains(Render));
    /// ```
    pub fn contains(&self, label: impl ScheduleLabel) -> bool {
        self.inner.contains_key(&label.intern())
    }

    /// The schedule stored under `label`.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Render;
    ///
    /// let mut schedules = Schedules::new();
    /// schedules.insert(Schedule::new(Render));
    /// assert_eq!(schedules.get(Render).unwrap().label(), Render.intern());
    /// ```
    pub fn get(&self, label: impl ScheduleLabel) -> Option<&Schedule> {
        self.inner.get(&label.intern())
    }

    /// The schedule stored under `label`, mutably.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Render;
    ///
    /// fn draw() {}
    ///
    /// let mut schedules = Schedules::new();
    /// schedules.insert(Schedule::new(Render));
    /// schedules.get_mut(Render).unwrap().add_systems(draw);
    /// assert_eq!(schedules.get(Render).unwrap().system_names().len(), 1);
    /// ```
    pub fn get_mut(&mut self, label: impl ScheduleLabel) -> Option<&mut Schedule> {
        self.inner.get_mut(&label.intern())
    }

    /// The schedule stored under `label`, created empty if there is none.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Render;
    ///
    /// let mut schedules = Schedules::new();
    /// assert_eq!(schedules.entry(Render).label(), Render.intern());
    /// assert!(schedules.contains(Render));
    /// ```
    pub fn entry(&mut self, label: impl ScheduleLabel) -> &mut Schedule {
        self.inner
            .entry(label.intern())
            .or_insert_with(|| Schedule::new(label))
    }

    /// Every stored schedule with its label, in no particular order.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// enum Phase { Early, Late }
    ///
    /// let mut schedules = Schedules::new();
    /// schedules.insert(Schedule::new(Phase::Early));
    /// schedules.insert(Schedule::new(Phase::Late));
    /// let mut names: Vec<String> = schedules.iter().map(|(label, _)| format!("{label:?}")).collect();
    /// names.sort();
    /// assert_eq!(names, ["Early", "Late"]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&dyn ScheduleLabel, &Schedule)> {
        self.inner
            .iter()
            .map(|(label, schedule)| (&**label, schedule))
    }

    /// Every stored schedule with its label, mutably, in no particular
    /// order.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::{ExecutorKind, ScheduleLabel};
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Render;
    ///
    /// let mut schedules = Schedules::new();
    /// schedules.insert(Schedule::new(Render));
    /// for (_, schedule) in schedules.iter_mut() {
    ///     schedule.set_executor_kind(ExecutorKind::SingleThreaded);
    /// }
    /// assert_eq!(schedules.get(Render).unwrap().executor(), ExecutorKind::SingleThreaded);
    /// ```
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&dyn ScheduleLabel, &mut Schedule)> {
        self.inner
            .iter_mut()
            .map(|(label, schedule)| (&**label, schedule))
    }

    /// Adds systems to the schedule stored under `schedule`, created empty
    /// if there is none.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Update;
    ///
    /// #[derive(Resource, Default)]
    /// struct Log(Vec<&'static str>);
    ///
    /// fn first(mut log: ResMut<Log>) { log.0.push("first"); }
    /// fn second(mut log: ResMut<Log>) { log.0.push("second"); }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Log>();
    /// world.init_resource::<Schedules>();
    /// world
    ///     .resource_mut::<Schedules>()
    ///     .add_systems(Update, second)
    ///     .add_systems(Update, first.before(second));
    /// world.run_schedule(Update);
    /// assert_eq!(world.resource::<Log>().0, ["first", "second"]);
    /// ```
    pub fn add_systems<M>(
        &mut self,
        schedule: impl ScheduleLabel,
        systems: impl IntoScheduleConfigs<ScheduleSystem, M>,
    ) -> &mut Self {
        self.entry(schedule).add_systems(systems);
        self
    }

    /// Configures system sets of the schedule under `schedule` (creating
    /// it if needed), as [`Schedule::configure_sets`].
    #[track_caller]
    pub fn configure_sets<M>(
        &mut self,
        schedule: impl ScheduleLabel,
        sets: impl IntoScheduleConfigs<InternedSystemSet, M>,
    ) -> &mut Self {
        self.entry(schedule).configure_sets(sets);
        self
    }

    /// Removes the systems of `set` from the schedule under `schedule`, as
    /// [`Schedule::remove_systems_in_set`] does; returns how many.
    ///
    /// # Errors
    /// [`ScheduleError::ScheduleNotFound`](super::ScheduleError::ScheduleNotFound)
    /// if no schedule has that label, and as
    /// [`Schedule::remove_systems_in_set`].
    pub fn remove_systems_in_set<M>(
        &mut self,
        schedule: impl ScheduleLabel,
        set: impl IntoSystemSet<M>,
        world: &mut World,
        policy: super::ScheduleCleanupPolicy,
    ) -> Result<usize, super::ScheduleError> {
        self.get_mut(schedule)
            .ok_or(super::ScheduleError::ScheduleNotFound)?
            .remove_systems_in_set(set, world, policy)
    }

    /// Accepts conflicts between the systems of `a` and `b` in the
    /// schedule under `schedule` (creating it if needed), as
    /// [`Schedule::ignore_ambiguity`].
    pub fn ignore_ambiguity<M1, M2>(
        &mut self,
        schedule: impl ScheduleLabel,
        a: impl IntoSystemSet<M1>,
        b: impl IntoSystemSet<M2>,
    ) -> &mut Self {
        self.entry(schedule).ignore_ambiguity(a, b);
        self
    }

    /// Gives every schedule here these build settings.
    pub fn configure_schedules(&mut self, settings: ScheduleBuildSettings) {
        for schedule in self.inner.values_mut() {
            schedule.set_build_settings(settings.clone());
        }
    }

    /// Leaves conflicts on component `T` out of every schedule's ambiguity
    /// report (registering `T` in `world`).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let mut schedules = Schedules::new();
    /// schedules.allow_ambiguous_component::<Health>(&mut world);
    /// let id = world.component_id::<Health>().unwrap();
    /// assert_eq!(schedules.iter_ignored_ambiguities().collect::<Vec<_>>(), [&id]);
    /// ```
    pub fn allow_ambiguous_component<T: Component>(&mut self, world: &mut World) {
        let id = world.register_component::<T>();
        self.ignored_scheduling_ambiguities.insert(id);
    }

    /// Leaves conflicts on resource `R` out of every schedule's ambiguity
    /// report (registering `R` in `world`).
    pub fn allow_ambiguous_resource<R: Resource>(&mut self, world: &mut World) {
        let id = world.components.register_resource::<R>();
        self.ignored_scheduling_ambiguities.insert(id);
    }

    /// The components and resources left out of ambiguity reports.
    pub fn iter_ignored_ambiguities(&self) -> impl Iterator<Item = &ComponentId> + '_ {
        self.ignored_scheduling_ambiguities.iter()
    }
}
/// Snapshot support: the last runs of every stored schedule's systems and
/// run conditions, recorded and put back.
impl Schedules {
    /// Records each stored schedule's last-run ticks into `out` (systems
    /// first, then system conditions, then set conditions), reusing the
    /// lists it holds.
    pub(crate) fn last_runs_into(
        &self,
        out: &mut Vec<(InternedScheduleLabel, Vec<crate::change_detection::Tick>)>,
    ) {
        out.truncate(self.inner.len());
        for (index, (label, schedule)) in self.inner.iter().enumerate() {
            let (saved_label, ticks) = crate::utils::slot_at(out, index, || (*label, Vec::new()));
            *saved_label = *label;
            ticks.clear();
            let graph = &schedule.graph;
            ticks.extend(graph.systems.iter().map(|system| system.last_run()));
            ticks.extend(
                graph
                    .system_conditions
                    .iter()
                    .flatten()
                    .map(|c| c.last_run()),
            );
            ticks.extend(
                graph
                    .set_conditions
                    .iter()
                    .flat_map(|set| set.conditions.iter())
                    .map(|c| c.last_run()),
            );
        }
    }

    /// Puts back ticks recorded by [`Schedules::last_runs_into`], each moved on
    /// by `delta`; a schedule whose systems and conditions changed in
    /// number since is left alone.
    pub(crate) fn set_last_runs(
        &mut self,
        recorded: &[(InternedScheduleLabel, Vec<crate::change_detection::Tick>)],
        delta: u32,
    ) {
        for (label, ticks) in recorded {
            let Some(schedule) = self.inner.get_mut(label) else {
                continue;
            };
            let graph = &mut schedule.graph;
            let count = graph.systems.len()
                + graph.system_conditions.iter().map(Vec::len).sum::<usize>()
                + graph
                    .set_conditions
                    .iter()
                    .map(|s| s.conditions.len())
                    .sum::<usize>();
            if count != ticks.len() {
                continue;
            }
            let shifted = |tick: &crate::change_detection::Tick| {
                crate::change_detection::Tick::new(tick.get().wrapping_add(delta))
            };
            let mut ticks = ticks.iter().map(shifted);
            for system in &mut graph.systems {
                system.set_last_run(ticks.next().expect("counted"));
            }
            for condition in graph.system_conditions.iter_mut().flatten() {
                condition.set_last_run(ticks.next().expect("counted"));
            }
            for set in &mut graph.set_conditions {
                for condition in &mut set.conditions {
                    condition.set_last_run(ticks.next().expect("counted"));
                }
            }
        }
    }
}
