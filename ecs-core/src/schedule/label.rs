//! [`ScheduleLabel`]: the names schedules are stored and run under.

use crate::define_label;
use crate::intern::Interned;

pub use crate::label::DynEq;
pub use ecs_macros::ScheduleLabel;

define_label!(
    /// A name of a [`Schedule`](crate::schedule::Schedule): each schedule
    /// in a world's [`Schedules`](crate::schedule::Schedules) has a
    /// different one, and [`World::run_schedule`](crate::world::World::run_schedule)
    /// runs a schedule by it.
    ///
    /// Derive it with `#[derive(ScheduleLabel)]` on a unit struct, a
    /// struct with fields or an enum that is also `Clone`, `PartialEq`,
    /// `Eq`, `Hash` and `Debug`. Labels compare by value: `Level(1)` and
    /// `Level(2)` name two schedules.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::schedule::ScheduleLabel;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash, Default)]
    /// struct Update;
    ///
    /// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
    /// enum Stage { Load, Play }
    ///
    /// #[derive(Resource, Default)]
    /// struct Frames(u32);
    ///
    /// fn count(mut frames: ResMut<Frames>) { frames.0 += 1; }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Frames>();
    /// world.init_resource::<Schedules>();
    /// // Adding systems under a label creates the schedule if it is not there yet.
    /// world.resource_mut::<Schedules>().add_systems(Update, count);
    /// world.add_schedule(Schedule::new(Stage::Load));
    ///
    /// world.run_schedule(Update);
    /// world.run_schedule(Stage::Load);
    /// assert_eq!(world.resource::<Frames>().0, 1);
    /// assert!(world.try_run_schedule(Stage::Play).is_err());
    /// assert_eq!(Stage::Load.intern(), Stage::Load.intern());
    /// assert_ne!(Stage::Load.intern(), Stage::Play.intern());
    /// ```
    #[diagnostic::on_unimplemented(
        note = "consider annotating `{Self}` with `#[derive(ScheduleLabel)]`"
    )]
    ScheduleLabel,
);

/// A [`ScheduleLabel`] interned: `Copy`, and compared and hashed by
/// address.
///
/// ```
/// use ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
///
/// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
/// struct Render;
///
/// let label: InternedScheduleLabel = Render.intern();
/// assert_eq!(label, Render.clone().intern());
/// assert_eq!(format!("{label:?}"), "Render");
/// ```
pub type InternedScheduleLabel = Interned<dyn ScheduleLabel>;

/// The label of a schedule made by [`Schedule::default`](crate::schedule::Schedule::default).
#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct DefaultSchedule;
