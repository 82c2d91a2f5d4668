//! [`ApplyDeferred`]: a system that applies the commands of the systems
//! before it.

use std::{any::TypeId, borrow::Cow};

use crate::{
    change_detection::Tick,
    query::FilteredAccessSet,
    system::{RunSystemError, System, SystemIn},
    world::{UnsafeWorldCell, World},
};

/// A sync point: every system ordered before it has its commands applied
/// before it runs, and every system ordered after it sees them. A schedule
/// puts a sync point between ordered systems by itself (unless
/// [`ScheduleBuildSettings::auto_insert_apply_deferred`](super::ScheduleBuildSettings::auto_insert_apply_deferred)
/// is off, or the ordering is `*_ignore_deferred`); add this one where it
/// turns those off.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Enemy;
/// #[derive(Resource, Default)]
/// struct Seen(usize);
///
/// fn spawn(mut commands: Commands) { commands.spawn(Enemy); }
/// fn count(enemies: Query<&Enemy>, mut seen: ResMut<Seen>) { seen.0 = enemies.iter().count(); }
///
/// let mut world = World::new();
/// world.init_resource::<Seen>();
/// let mut schedule = Schedule::default();
/// schedule.add_systems((spawn, ApplyDeferred, count).chain_ignore_deferred());
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Seen>().0, 1);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct ApplyDeferred;

impl System for ApplyDeferred {
    type In = ();
    type Out = ();

    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed("ecs::schedule::ApplyDeferred")
    }

    fn type_id(&self) -> TypeId {
        TypeId::of::<ApplyDeferred>()
    }

    fn initialize(&mut self, _world: &mut World) {}

    fn access(&self) -> &FilteredAccessSet {
        static NONE: std::sync::OnceLock<FilteredAccessSet> = std::sync::OnceLock::new();
        NONE.get_or_init(FilteredAccessSet::default)
    }

    fn is_exclusive(&self) -> bool {
        // It runs alone, so every pending command is applied when it runs.
        true
    }

    fn has_deferred(&self) -> bool {
        false
    }

    unsafe fn run_unsafe(
        &mut self,
        _input: SystemIn<'_, Self>,
        _world: UnsafeWorldCell<'_>,
    ) -> Result<(), RunSystemError> {
        Ok(())
    }

    fn apply_deferred(&mut self, _world: &mut World) {}

    fn last_run(&self) -> Tick {
        Tick::new(0)
    }

    fn set_last_run(&mut self, _last_run: Tick) {}
}
