//! Errors of world operations on entities and schedules.

use std::fmt;

use crate::component::ComponentId;
use crate::entity::{Entity, EntityNotSpawnedError};
use crate::schedule::InternedScheduleLabel;

// Bevy's path for an error defined beside the parameters that return it.
pub use crate::system::ResourceFetchError;

/// An entity could not be fetched mutably.
///
/// Displayed as the inner error for [`NotSpawned`](Self::NotSpawned), which
/// names the entity and why; bevy's appends a hint about command error
/// handlers, which this crate's commands do not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityMutableFetchError {
    /// The entity is not spawned.
    NotSpawned(EntityNotSpawnedError),
    /// The entity was asked for mutably more than once in one fetch of
    /// several entities (an array or slice with a duplicate).
    AliasedMutability(Entity),
}

impl EntityMutableFetchError {
    /// The entity the fetch failed on.
    pub fn entity(&self) -> Entity {
        match self {
            EntityMutableFetchError::NotSpawned(error) => error.entity(),
            EntityMutableFetchError::AliasedMutability(entity) => *entity,
        }
    }
}

impl From<EntityNotSpawnedError> for EntityMutableFetchError {
    fn from(error: EntityNotSpawnedError) -> Self {
        EntityMutableFetchError::NotSpawned(error)
    }
}

impl fmt::Display for EntityMutableFetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntityMutableFetchError::NotSpawned(error) => error.fmt(f),
            EntityMutableFetchError::AliasedMutability(entity) => {
                write!(f, "entity {entity} was requested mutably more than once")
            }
        }
    }
}

// No `source`: the message is the inner error's already.
impl std::error::Error for EntityMutableFetchError {}

/// An entity could not be despawned because it is not spawned
/// ([`World::try_despawn`](crate::world::World::try_despawn)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityDespawnError(pub EntityNotSpawnedError);

impl From<EntityNotSpawnedError> for EntityDespawnError {
    fn from(error: EntityNotSpawnedError) -> Self {
        EntityDespawnError(error)
    }
}

impl fmt::Display for EntityDespawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "could not despawn entity: {}", self.0)
    }
}

impl std::error::Error for EntityDespawnError {}

/// The error [`World::get_entity`](crate::world::World::get_entity) returns.
#[deprecated(note = "use `ecs::entity::EntityNotSpawnedError`, the error bevy returns here")]
pub type EntityDoesNotExistError = EntityNotSpawnedError;

/// A schedule could not be run by label
/// ([`World::try_run_schedule`](crate::world::World::try_run_schedule),
/// [`World::try_schedule_scope`](crate::world::World::try_schedule_scope)):
/// no schedule has the label, or the one that has it is running.
///
/// The label is the public field, as in bevy. The error also says whether
/// the schedule is running, so that running a schedule from inside itself
/// is reported as that (naming every running schedule) where bevy reports
/// "not found".
///
/// ```
/// use ecs::prelude::*;
/// use ecs::schedule::ScheduleLabel;
///
/// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
/// struct Missing;
///
/// let mut world = World::new();
/// let error = world.try_run_schedule(Missing).unwrap_err();
/// assert_eq!(error.0, Missing.intern());
/// assert!(!error.is_already_running());
/// assert!(error.to_string().starts_with("the schedule with the label Missing was not found"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TryRunScheduleError(pub InternedScheduleLabel, ScheduleUnavailable);

/// Why a [`TryRunScheduleError`] happened.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ScheduleUnavailable {
    NotFound,
    /// The labels of the running schedules, outermost first.
    AlreadyRunning(Vec<InternedScheduleLabel>),
}

impl TryRunScheduleError {
    /// No schedule is stored under `label`.
    pub(crate) fn not_found(label: InternedScheduleLabel) -> Self {
        TryRunScheduleError(label, ScheduleUnavailable::NotFound)
    }

    /// The schedule under `label` is out running; `running` lists every
    /// running schedule, outermost first.
    pub(crate) fn already_running(
        label: InternedScheduleLabel,
        running: Vec<InternedScheduleLabel>,
    ) -> Self {
        TryRunScheduleError(label, ScheduleUnavailable::AlreadyRunning(running))
    }

    /// The label that was asked for.
    pub fn label(&self) -> InternedScheduleLabel {
        self.0
    }

    /// Whether the schedule exists but is running (the caller is inside it).
    pub fn is_already_running(&self) -> bool {
        matches!(self.1, ScheduleUnavailable::AlreadyRunning(_))
    }
}

impl fmt::Display for TryRunScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = self.0;
        match &self.1 {
            ScheduleUnavailable::NotFound => write!(
                f,
                "the schedule with the label {label:?} was not found: add it with \
                 `World::add_schedule` or `Schedules::add_systems`"
            ),
            ScheduleUnavailable::AlreadyRunning(running) => {
                let running: Vec<String> = running.iter().map(|l| format!("{l:?}")).collect();
                write!(
                    f,
                    "the schedule with the label {label:?} is already running, and a schedule \
                     cannot run inside itself (running now, outermost first: {})",
                    running.join(" > ")
                )
            }
        }
    }
}

impl std::error::Error for TryRunScheduleError {}

/// Some entities of a batch insert were not spawned
/// ([`World::try_insert_batch`](crate::world::World::try_insert_batch)); the
/// bundles of the others were inserted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TryInsertBatchError {
    /// The bundle's type name (a `String`, where bevy's is a `DebugName`,
    /// a type this crate does not have).
    pub bundle_type: String,
    /// The entities that were not spawned, in batch order.
    pub entities: Vec<Entity>,
}

impl fmt::Display for TryInsertBatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "could not insert bundles of type `{}` into entities that do not exist: {:?}",
            self.bundle_type, self.entities
        )
    }
}

impl std::error::Error for TryInsertBatchError {}

/// A component could not be fetched from an entity by id
/// ([`EntityRef::get_by_id`](crate::world::EntityRef::get_by_id),
/// [`EntityWorldMut::get_mut_by_id`](crate::world::EntityWorldMut::get_mut_by_id)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityComponentError {
    /// The entity has no component with this id (or the id is not one of
    /// this world's components).
    MissingComponent(ComponentId),
    /// The component was asked for mutably more than once in one fetch.
    AliasedMutability(ComponentId),
}

impl fmt::Display for EntityComponentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntityComponentError::MissingComponent(id) => {
                write!(f, "the entity has no component {id:?}")
            }
            EntityComponentError::AliasedMutability(id) => {
                write!(f, "component {id:?} was requested mutably more than once")
            }
        }
    }
}

impl std::error::Error for EntityComponentError {}
