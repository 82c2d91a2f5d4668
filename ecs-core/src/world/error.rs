//! Errors of world operations on entities.

use std::fmt;

use crate::entity::{Entity, EntityNotSpawnedError};

/// An entity could not be fetched mutably.
///
/// Displayed as the inner error for [`NotSpawned`](Self::NotSpawned), which
/// names the entity and why; bevy's appends a hint about command error
/// handlers, which this crate's commands do not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityMutableFetchError {
    /// The entity is not spawned.
    NotSpawned(EntityNotSpawnedError),
    /// The entity was asked for mutably more than once in one fetch.
    ///
    /// Only fetches of several entities at once can alias, and this crate
    /// fetches one entity at a time, so it never returns this variant; it
    /// exists so that a `match` written for bevy compiles.
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
