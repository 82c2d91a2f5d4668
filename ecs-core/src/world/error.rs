use std::fmt;

use crate::entity::Entity;

/// The entity asked for is not alive: it was despawned (the handle is
/// stale) or never spawned in this world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityDoesNotExistError {
    /// The entity asked for.
    pub entity: Entity,
}

impl fmt::Display for EntityDoesNotExistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "entity {:?} does not exist: it was despawned, or never spawned in this world",
            self.entity
        )
    }
}

impl std::error::Error for EntityDoesNotExistError {}
