//! Why an [`Entity`] handle reaches no entity.
//!
//! ```text
//! handle 5v2, index 5 at generation 3  -> InvalidEntityError (despawned)
//! handle 5v4, index 5 at generation 3  -> InvalidEntityError (never spawned: ahead)
//! handle 5v3, index 5 at generation 3,
//!   no location                        -> EntityValidButNotSpawnedError
//! ```

use std::fmt;

use super::Entity;

/// The handle's generation is not its index's current one: the entity was
/// despawned (the handle is older), or the handle never named an entity of
/// this world (it is ahead).
///
/// `current_generation` is a `u32` because [`Entity::generation`] is one
/// here; the message also says which of the two cases it is, where bevy's
/// names only the current generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidEntityError {
    /// The entity asked for.
    pub entity: Entity,
    /// The generation its index has now.
    pub current_generation: u32,
}

impl InvalidEntityError {
    /// Whether the handle is older than its index's current generation:
    /// the entity it named was despawned.
    pub fn was_despawned(&self) -> bool {
        self.entity.generation() < self.current_generation
    }
}

impl fmt::Display for InvalidEntityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (entity, index, now) = (self.entity, self.entity.index(), self.current_generation);
        if self.was_despawned() {
            write!(
                f,
                "entity {entity} does not exist: it was despawned \
                 (its index {index} is now at generation {now})"
            )
        } else {
            write!(
                f,
                "entity {entity} does not exist: it was never spawned in this world \
                 (generation mismatch: its index {index} is at generation {now})"
            )
        }
    }
}

impl std::error::Error for InvalidEntityError {}

/// The handle's generation is current, but the entity has no location: it
/// was never spawned (a handle made from a raw index), or it was reserved
/// (by [`Commands`](crate::system::Commands)) and is not spawned yet.
///
/// Bevy's also carries the code location that last despawned the index;
/// this crate records no spawn or despawn locations, so it has no such
/// field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityValidButNotSpawnedError {
    /// The entity asked for.
    pub entity: Entity,
}

impl fmt::Display for EntityValidButNotSpawnedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "entity {} does not exist: it was never spawned in this world \
             (or is reserved by `Commands` and not spawned yet)",
            self.entity
        )
    }
}

impl std::error::Error for EntityValidButNotSpawnedError {}

/// An entity that was expected to be spawned is not: why, and which.
///
/// Displayed as the inner error, which names the entity (index and
/// generation) and the reason; bevy's adds a generic note instead of the
/// reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityNotSpawnedError {
    /// The handle's generation is not current (despawned, or never
    /// spawned).
    Invalid(InvalidEntityError),
    /// The handle is current but the entity is not spawned.
    ValidButNotSpawned(EntityValidButNotSpawnedError),
}

impl EntityNotSpawnedError {
    /// The entity that is not spawned.
    pub fn entity(&self) -> Entity {
        match self {
            EntityNotSpawnedError::Invalid(error) => error.entity,
            EntityNotSpawnedError::ValidButNotSpawned(error) => error.entity,
        }
    }
}

impl From<InvalidEntityError> for EntityNotSpawnedError {
    fn from(error: InvalidEntityError) -> Self {
        EntityNotSpawnedError::Invalid(error)
    }
}

impl From<EntityValidButNotSpawnedError> for EntityNotSpawnedError {
    fn from(error: EntityValidButNotSpawnedError) -> Self {
        EntityNotSpawnedError::ValidButNotSpawned(error)
    }
}

impl fmt::Display for EntityNotSpawnedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntityNotSpawnedError::Invalid(error) => error.fmt(f),
            EntityNotSpawnedError::ValidButNotSpawned(error) => error.fmt(f),
        }
    }
}

// No `source`: the message is the inner error's already.
impl std::error::Error for EntityNotSpawnedError {}
