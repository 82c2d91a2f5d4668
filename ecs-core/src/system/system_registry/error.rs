//! The error of operations on registered systems.

use std::{any::type_name, fmt};

use super::{SystemId, SystemIdMarker};
use crate::{
    error::BevyError,
    system::{RunSystemError, SystemInput, SystemParamValidationError},
    world::WorldId,
};

/// Why an operation on a registered system failed. Each variant names the
/// system's id (its entity).
///
/// `IncorrectWorld` is ours, not bevy's, since our ids remember their
/// world.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::RegisteredSystemError;
///
/// let mut world = World::new();
/// let id = world.register_system(|| {});
/// world.unregister_system(id).unwrap();
/// let error = world.run_system(id).unwrap_err();
/// assert!(matches!(error, RegisteredSystemError::SystemIdNotRegistered(gone) if gone == id));
/// assert!(error.to_string().contains(&format!("{:?}", id.entity())));
/// ```
pub enum RegisteredSystemError<I: SystemInput = (), O = ()> {
    /// No system is registered under the id: it was never registered here,
    /// or it was unregistered (or its entity despawned).
    SystemIdNotRegistered(SystemId<I, O>),
    /// A cached system was unregistered by value, but none of its type is
    /// cached.
    SystemNotCached,
    /// The entity is a registered system whose [`RegisteredSystem`](super::RegisteredSystem)
    /// component was removed by hand.
    MissingRegisteredSystemComponent(SystemId<I, O>),
    /// The system did not run: a parameter failed validation and asked to
    /// skip it. Not an error.
    Skipped(SystemParamValidationError),
    /// The system returned an error (or a parameter failed validation).
    Failed(BevyError),
    /// A system unregistered itself while running: its entity is despawned
    /// and the system is dropped once its run ends, but it cannot be handed
    /// back.
    SelfRemove(SystemId<I, O>),
    /// The id's input or output type differs from the registered
    /// system's, which the marker names.
    IncorrectType(SystemId<I, O>, SystemIdMarker),
    /// The system is running: it was run again from inside its own run
    /// (through `World::run_system` in an exclusive system, or a command
    /// applied during its run). Unlike bevy, a panic in an earlier run
    /// never causes this: the system is put back as the panic unwinds.
    SystemMissing(SystemId<I, O>),
    /// The id was registered in another world than the one it was used
    /// with (the second field).
    IncorrectWorld(SystemId<I, O>, WorldId),
}

impl<I: SystemInput, O> From<RunSystemError> for RegisteredSystemError<I, O> {
    fn from(error: RunSystemError) -> Self {
        match error {
            RunSystemError::Skipped(error) => Self::Skipped(error),
            RunSystemError::Failed(error) => Self::Failed(error),
        }
    }
}

impl<I: SystemInput, O> fmt::Debug for RegisteredSystemError<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SystemIdNotRegistered(id) => {
                f.debug_tuple("SystemIdNotRegistered").field(id).finish()
            }
            Self::SystemNotCached => f.write_str("SystemNotCached"),
            Self::MissingRegisteredSystemComponent(id) => f
                .debug_tuple("MissingRegisteredSystemComponent")
                .field(id)
                .finish(),
            Self::SelfRemove(id) => f.debug_tuple("SelfRemove").field(id).finish(),
            Self::Skipped(error) => f.debug_tuple("Skipped").field(error).finish(),
            Self::Failed(error) => f.debug_tuple("Failed").field(error).finish(),
            Self::IncorrectType(id, marker) => f
                .debug_tuple("IncorrectType")
                .field(id)
                .field(marker)
                .finish(),
            Self::SystemMissing(id) => f.debug_tuple("SystemMissing").field(id).finish(),
            Self::IncorrectWorld(id, world) => f
                .debug_tuple("IncorrectWorld")
                .field(id)
                .field(world)
                .finish(),
        }
    }
}

impl<I: SystemInput, O> fmt::Display for RegisteredSystemError<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SystemIdNotRegistered(id) => write!(
                f,
                "system {id:?} is not registered: it was unregistered, its entity despawned, or it was never registered in this world"
            ),
            Self::SystemNotCached => f.write_str("no cached system of this type is registered"),
            Self::MissingRegisteredSystemComponent(id) => write!(
                f,
                "system {id:?} has no `RegisteredSystem` component: it was removed from the entity"
            ),
            Self::SelfRemove(id) => write!(
                f,
                "system {id:?} unregistered itself while running; it is dropped when its run ends"
            ),
            Self::Skipped(error) => write!(
                f,
                "System did not run due to failed parameter validation: {error}"
            ),
            Self::Failed(error) => write!(f, "System returned error: {error}"),
            Self::IncorrectType(id, marker) => write!(
                f,
                "system {id:?} (`{}`) is a `SystemId<{}, {}>`, not a `{}`",
                marker.system_name,
                marker.input.name,
                marker.output.name,
                type_name::<SystemId<I, O>>()
            ),
            Self::SystemMissing(id) => write!(
                f,
                "system {id:?} is already running: a system cannot run itself recursively"
            ),
            Self::IncorrectWorld(id, world) => match id.world {
                Some(home) => write!(
                    f,
                    "system {id:?} was registered in {home:?}, not in {world:?} where it was used"
                ),
                None => write!(f, "system {id:?} belongs to another world than {world:?}"),
            },
        }
    }
}

impl<I: SystemInput, O> std::error::Error for RegisteredSystemError<I, O> {}
