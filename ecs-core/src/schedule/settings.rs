//! [`ScheduleBuildSettings`]: what a schedule checks when it is built.

use super::error::ScheduleBuildError;
use super::schedule_graph::{ConflictingSystems, ScheduleGraph};

/// What to do when a build check finds something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    /// Nothing.
    Ignore,
    /// Log a warning (through the `log` crate) and go on.
    Warn,
    /// Fail the build with a [`ScheduleBuildError`].
    Error,
}

/// What a schedule checks when it is built, and whether it applies
/// commands between ordered systems
/// ([`Schedule::set_build_settings`](super::Schedule::set_build_settings)).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::schedule::{LogLevel, ScheduleBuildError, ScheduleBuildSettings};
///
/// #[derive(Resource, Default)]
/// struct Score(u32);
///
/// fn add_one(mut s: ResMut<Score>) { s.0 += 1; }
/// fn double(mut s: ResMut<Score>) { s.0 *= 2; }
///
/// let mut world = World::new();
/// world.init_resource::<Score>();
/// let mut schedule = Schedule::default();
/// schedule.add_systems((add_one, double));
/// schedule.set_build_settings(ScheduleBuildSettings {
///     ambiguity_detection: LogLevel::Error,
///     ..Default::default()
/// });
/// let error = schedule.initialize(&mut world).unwrap_err();
/// assert!(matches!(error, ScheduleBuildError::Ambiguity(_)));
/// assert_eq!(schedule.graph().conflicting_systems().len(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct ScheduleBuildSettings {
    /// Systems with conflicting access and no ordering between them
    /// (listed by [`ScheduleGraph::conflicting_systems`]). This crate's
    /// executor runs such systems in the order they were added, every
    /// time, so they are never a source of nondeterminism here; the check
    /// helps keep the order intended. Default: [`LogLevel::Ignore`].
    pub ambiguity_detection: LogLevel,
    /// A node put in a set directly and also through another of its sets.
    /// Default: [`LogLevel::Warn`].
    pub hierarchy_detection: LogLevel,
    /// Whether a system's commands are applied before the systems ordered
    /// after it run (otherwise only before an
    /// [`ApplyDeferred`](super::ApplyDeferred) ordered after it, and at the
    /// end of the run). Default: `true`.
    pub auto_insert_apply_deferred: bool,
}

impl Default for ScheduleBuildSettings {
    fn default() -> Self {
        ScheduleBuildSettings::new()
    }
}

impl ScheduleBuildSettings {
    /// The default settings.
    pub const fn new() -> Self {
        ScheduleBuildSettings {
            ambiguity_detection: LogLevel::Ignore,
            hierarchy_detection: LogLevel::Warn,
            auto_insert_apply_deferred: true,
        }
    }

    /// Reports what the graph's checks found, as the settings say.
    pub(crate) fn report(
        &self,
        graph: &ScheduleGraph,
        conflicts: &ConflictingSystems,
        redundant: &[String],
        components: &crate::component::Components,
    ) -> Result<(), ScheduleBuildError> {
        let pairs = || -> Vec<String> {
            conflicts
                .iter()
                .map(|(a, b, on)| graph.describe_conflict(*a, *b, on, components))
                .collect()
        };
        match self.ambiguity_detection {
            LogLevel::Ignore => {}
            _ if conflicts.is_empty() => {}
            LogLevel::Warn => log::warn!("{}", ScheduleBuildError::Ambiguity(pairs())),
            LogLevel::Error => return Err(ScheduleBuildError::Ambiguity(pairs())),
        }
        match self.hierarchy_detection {
            LogLevel::Ignore => {}
            _ if redundant.is_empty() => {}
            LogLevel::Warn => log::warn!(
                "{}",
                ScheduleBuildError::HierarchyRedundancy(redundant.to_vec())
            ),
            LogLevel::Error => {
                return Err(ScheduleBuildError::HierarchyRedundancy(redundant.to_vec()))
            }
        }
        Ok(())
    }
}
