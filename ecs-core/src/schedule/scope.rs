//! Running a world's schedules by label: the [`World`] methods over
//! [`Schedules`].
//!
//! ```text
//! world.run_schedule(FixedUpdate)
//!   Schedules: take FixedUpdate out, mark it running
//!   run it on the world (its systems may run other schedules, not itself)
//!   Schedules: put it back, unmark it            (also when a system panics)
//! ```

use crate::schedule::{InternedScheduleLabel, Schedule, ScheduleLabel, Schedules};
use crate::world::error::TryRunScheduleError;
use crate::world::World;

impl World {
    /// Stores `schedule` in the [`Schedules`] resource (created if
    /// missing) under its label, replacing the schedule stored there.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Startup;
    ///
    /// let mut world = World::new();
    /// world.add_schedule(Schedule::new(Startup));
    /// assert!(world.resource::<Schedules>().contains(Startup));
    /// ```
    pub fn add_schedule(&mut self, schedule: Schedule) {
        self.schedules_mut().insert(schedule);
    }

    /// Takes the schedule stored under `label` out of [`Schedules`], calls
    /// `f` with the world and the schedule, and puts the schedule back;
    /// returns what `f` returns.
    ///
    /// The schedule is put back also when `f` panics. A schedule stored
    /// under the same label while `f` ran is replaced by this one, with a
    /// warning.
    ///
    /// # Errors
    ///
    /// If no schedule is stored under `label`, or it is running (`f` would
    /// run inside it); the error says which, naming the labels. Unlike
    /// bevy, which reports a running schedule as not found.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Update;
    ///
    /// let mut world = World::new();
    /// assert!(world.try_schedule_scope(Update, |_, _| ()).is_err());
    /// world.add_schedule(Schedule::new(Update));
    /// let label = world.try_schedule_scope(Update, |_, schedule| schedule.label());
    /// assert_eq!(label, Ok(Update.intern()));
    /// ```
    pub fn try_schedule_scope<R>(
        &mut self,
        label: impl ScheduleLabel,
        f: impl FnOnce(&mut World, &mut Schedule) -> R,
    ) -> Result<R, TryRunScheduleError> {
        let label = label.intern();
        let schedule = self.take_schedule(label)?;
        let mut scope = PutBackOnDrop {
            world: self,
            schedule: Some(schedule),
        };
        let PutBackOnDrop { world, schedule } = &mut scope;
        let schedule = schedule.as_mut().expect("set above, taken only on drop");
        Ok(f(world, schedule))
    }

    /// [`try_schedule_scope`](Self::try_schedule_scope), panicking where it
    /// returns an error.
    ///
    /// # Panics
    ///
    /// If no schedule is stored under `label`, or it is running; the
    /// message names the labels.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Update;
    ///
    /// #[derive(Resource, Default)]
    /// struct Counter(u32);
    ///
    /// fn tick(mut counter: ResMut<Counter>) { counter.0 += 1; }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Counter>();
    /// let mut schedule = Schedule::new(Update);
    /// schedule.add_systems(tick);
    /// world.add_schedule(schedule);
    ///
    /// // Run the schedule five times, taking it out once.
    /// world.schedule_scope(Update, |world, schedule| {
    ///     for _ in 0..5 {
    ///         schedule.run(world);
    ///     }
    /// });
    /// assert_eq!(world.resource::<Counter>().0, 5);
    /// ```
    #[track_caller]
    pub fn schedule_scope<R>(
        &mut self,
        label: impl ScheduleLabel,
        f: impl FnOnce(&mut World, &mut Schedule) -> R,
    ) -> R {
        self.try_schedule_scope(label, f)
            .unwrap_or_else(|error| panic!("{error}"))
    }

    /// Runs the schedule stored under `label` once.
    ///
    /// # Errors
    ///
    /// As [`try_schedule_scope`](Self::try_schedule_scope): no schedule
    /// under `label`, or it is running.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Update;
    ///
    /// let mut world = World::new();
    /// let error = world.try_run_schedule(Update).unwrap_err();
    /// assert!(error.to_string().contains("Update"));
    /// world.add_schedule(Schedule::new(Update));
    /// assert!(world.try_run_schedule(Update).is_ok());
    /// ```
    pub fn try_run_schedule(
        &mut self,
        label: impl ScheduleLabel,
    ) -> Result<(), TryRunScheduleError> {
        self.try_schedule_scope(label, |world, schedule| schedule.run(world))
    }

    /// Runs the schedule stored under `label` once. It may be called from
    /// an exclusive system (`fn(&mut World)`) of another schedule, which is
    /// how a fixed-timestep loop runs its schedule.
    ///
    /// # Panics
    ///
    /// If no schedule is stored under `label`, or it is running (called
    /// from inside itself); the message names the labels. A panic of one of
    /// the schedule's systems propagates, and the schedule is put back.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct Main;
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// struct FixedUpdate;
    ///
    /// /// Seconds not yet simulated, and the length of one fixed step.
    /// #[derive(Resource)]
    /// struct Clock { pending: f32, step: f32 }
    /// #[derive(Resource, Default)]
    /// struct Steps(u32);
    ///
    /// fn physics(mut steps: ResMut<Steps>) { steps.0 += 1; }
    ///
    /// /// Runs `FixedUpdate` once per whole step the clock has accumulated.
    /// fn run_fixed_steps(world: &mut World) {
    ///     while world.resource::<Clock>().pending >= world.resource::<Clock>().step {
    ///         let mut clock = world.resource_mut::<Clock>();
    ///         clock.pending -= clock.step;
    ///         world.run_schedule(FixedUpdate);
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Clock { pending: 0.0, step: 0.25 });
    /// world.init_resource::<Steps>();
    /// world.init_resource::<Schedules>();
    /// let mut schedules = world.resource_mut::<Schedules>();
    /// schedules.add_systems(FixedUpdate, physics);
    /// schedules.add_systems(Main, run_fixed_steps);
    ///
    /// world.resource_mut::<Clock>().pending += 0.6; // a long frame: two steps
    /// world.run_schedule(Main);
    /// assert_eq!(world.resource::<Steps>().0, 2);
    /// ```
    #[track_caller]
    pub fn run_schedule(&mut self, label: impl ScheduleLabel) {
        self.schedule_scope(label, |world, schedule| schedule.run(world));
    }

    /// The [`Schedules`] resource, inserted empty if missing.
    fn schedules_mut(&mut self) -> crate::change_detection::Mut<'_, Schedules> {
        if !self.contains_resource::<Schedules>() {
            self.insert_resource(Schedules::new());
        }
        self.resource_mut::<Schedules>()
    }

    /// Takes the schedule stored under `label` out of [`Schedules`],
    /// marking it running; or the error saying why it is not there.
    fn take_schedule(
        &mut self,
        label: InternedScheduleLabel,
    ) -> Result<Schedule, TryRunScheduleError> {
        let Some(mut schedules) = self.get_resource_mut::<Schedules>() else {
            return Err(TryRunScheduleError::not_found(label));
        };
        if let Some(schedule) = schedules.remove_temporarily(label) {
            return Ok(schedule);
        }
        if schedules.running().contains(&label) {
            Err(TryRunScheduleError::already_running(
                label,
                schedules.running().to_vec(),
            ))
        } else {
            Err(TryRunScheduleError::not_found(label))
        }
    }
}

/// A schedule taken out of the world's [`Schedules`], put back when this
/// is dropped: at the end of a scope, or while a panic unwinds through it.
struct PutBackOnDrop<'w> {
    world: &'w mut World,
    /// Always `Some` until the drop.
    schedule: Option<Schedule>,
}

impl Drop for PutBackOnDrop<'_> {
    fn drop(&mut self) {
        let Some(schedule) = self.schedule.take() else {
            return;
        };
        let label = schedule.label();
        // The scope may have removed the resource; the schedule is not lost with it.
        if let Some(replaced) = self.world.schedules_mut().reinsert(schedule) {
            log::warn!(
                "schedule {label:?} was inserted while it ran in `World::schedule_scope`: \
                 the running schedule replaces it"
            );
            drop(replaced);
        }
    }
}

impl crate::system::Commands<'_, '_> {
    /// Queues running the schedule `label` (see [`World::run_schedule`]);
    /// if there is none by then, a warning names the label.
    pub fn run_schedule(&mut self, label: impl ScheduleLabel) {
        self.queue(move |world: &mut World| {
            if let Err(error) = world.try_run_schedule(label) {
                log::warn!("queued `run_schedule`: {error}");
            }
        });
    }
}
