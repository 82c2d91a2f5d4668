//! [`ScheduleBuildError`]: what makes a schedule impossible to build.

/// Why a schedule cannot be built ([`Schedule::initialize`](super::Schedule::initialize)).
/// Each variant names the systems and sets involved, as they print.
///
/// bevy's variants hold node ids that need the schedule graph to print;
/// ours hold the names, so the error prints on its own.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::schedule::ScheduleBuildError;
///
/// #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
/// struct Physics;
///
/// let mut world = World::new();
/// let mut schedule = Schedule::default();
/// schedule.configure_sets(Physics.before(Physics));
/// let error = schedule.initialize(&mut world).unwrap_err();
/// assert!(matches!(error, ScheduleBuildError::DependencyLoop(_)));
/// assert_eq!(error.to_string(), "set `Physics` is ordered before or after itself");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScheduleBuildError {
    /// A set is in itself.
    HierarchyLoop(String),
    /// Sets are in each other, around this cycle.
    HierarchyCycle(Vec<String>),
    /// A system or set is ordered against itself.
    DependencyLoop(String),
    /// Systems and sets are ordered around this cycle.
    DependencyCycle(Vec<String>),
    /// The orderings, once sets are expanded to their systems, go around
    /// this cycle of systems.
    FlatDependencyCycle(Vec<String>),
    /// A system or set is ordered against a set it is in (or that is in
    /// it).
    CrossDependency(String, String),
    /// Two sets are ordered against each other but share a system.
    SetsHaveOrderButIntersect(String, String),
    /// A node is ordered against a system function none of whose systems
    /// is in the schedule. bevy accepts this and orders nothing; a missing
    /// system is most often a mistake, so ours reports it.
    UnknownSystem {
        /// The system function.
        system: String,
        /// The node ordered against it.
        ordered: String,
        /// Whether the node runs before it (else after).
        before: bool,
    },
    /// Systems whose access conflicts have no ordering between them, and
    /// [`ScheduleBuildSettings::ambiguity_detection`](super::ScheduleBuildSettings::ambiguity_detection)
    /// is [`LogLevel::Error`](super::LogLevel::Error): each pair with the
    /// components or resources they conflict on.
    Ambiguity(Vec<String>),
    /// Nodes put in a set both directly and through another of their sets,
    /// and [`ScheduleBuildSettings::hierarchy_detection`](super::ScheduleBuildSettings::hierarchy_detection)
    /// is [`LogLevel::Error`](super::LogLevel::Error).
    HierarchyRedundancy(Vec<String>),
}

impl std::fmt::Display for ScheduleBuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScheduleBuildError::HierarchyLoop(set) => write!(f, "{set} is in itself"),
            ScheduleBuildError::HierarchyCycle(sets) => {
                write!(f, "sets are in each other in a cycle: {}", cycle(sets))
            }
            ScheduleBuildError::DependencyLoop(node) => {
                write!(f, "{node} is ordered before or after itself")
            }
            ScheduleBuildError::DependencyCycle(nodes) => {
                write!(f, "the schedule's ordering has a cycle: {}", cycle(nodes))
            }
            ScheduleBuildError::FlatDependencyCycle(systems) => write!(
                f,
                "the schedule's ordering, with sets expanded to their systems, has a cycle: {}",
                cycle(systems)
            ),
            ScheduleBuildError::CrossDependency(a, b) => write!(
                f,
                "{a} and {b} are ordered against each other, but one is in the other: a system cannot run before or after a set it is in"
            ),
            ScheduleBuildError::SetsHaveOrderButIntersect(a, b) => write!(
                f,
                "{a} and {b} are ordered against each other, but share systems"
            ),
            ScheduleBuildError::UnknownSystem {
                system,
                ordered,
                before,
            } => write!(
                f,
                "{ordered} is ordered {} `{system}`, which is not in this schedule",
                if *before { "before" } else { "after" }
            ),
            ScheduleBuildError::Ambiguity(pairs) => write!(
                f,
                "{} pairs of systems with conflicting access have no ordering:\n{}",
                pairs.len(),
                pairs.join("\n")
            ),
            ScheduleBuildError::HierarchyRedundancy(lines) => write!(
                f,
                "the hierarchy of sets has redundant memberships:\n{}",
                lines.join("\n")
            ),
        }
    }
}

impl std::error::Error for ScheduleBuildError {}

/// `a -> b -> c -> a`.
fn cycle(nodes: &[String]) -> String {
    let mut text = nodes.join(" -> ");
    if let Some(first) = nodes.first() {
        text.push_str(" -> ");
        text.push_str(first);
    }
    text
}

/// Why [`Schedule::remove_systems_in_set`](super::Schedule::remove_systems_in_set)
/// (or the method of that name on [`Schedules`](super::Schedules) and
/// [`ScheduleGraph`](super::ScheduleGraph)) removed nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScheduleError {
    /// No set of that name is in the schedule (nor, for a system
    /// function, any of its systems).
    SetNotFound,
    /// No schedule has that label.
    ScheduleNotFound,
    /// The schedule cannot be built as it stands.
    ScheduleBuildError(ScheduleBuildError),
}

impl From<ScheduleBuildError> for ScheduleError {
    fn from(error: ScheduleBuildError) -> Self {
        ScheduleError::ScheduleBuildError(error)
    }
}

impl std::fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScheduleError::SetNotFound => write!(f, "Set not found"),
            ScheduleError::ScheduleNotFound => write!(f, "Schedule not found."),
            ScheduleError::ScheduleBuildError(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ScheduleError {}
