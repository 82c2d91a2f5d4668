use std::fmt;

use crate::entity::Entity;

/// Why a query could not return an entity's item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryEntityError {
    /// The entity does not exist (despawned, or never spawned).
    NoSuchEntity(Entity),
    /// The entity exists but does not match the query.
    QueryDoesNotMatch(Entity),
    /// The same entity was asked for twice in a mutable `get_many`.
    AliasedMutability(Entity),
}

impl fmt::Display for QueryEntityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryEntityError::NoSuchEntity(e) => write!(f, "entity {e:?} does not exist"),
            QueryEntityError::QueryDoesNotMatch(e) => {
                write!(f, "entity {e:?} does not match the query")
            }
            QueryEntityError::AliasedMutability(e) => {
                write!(
                    f,
                    "entity {e:?} was requested twice, which would alias mutable data"
                )
            }
        }
    }
}

impl std::error::Error for QueryEntityError {}

/// Why `single` / `single_mut` found no single item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuerySingleError {
    /// No entity matches the query (named by its type).
    NoEntities(&'static str),
    /// More than one entity matches the query (named by its type).
    MultipleEntities(&'static str),
}

impl fmt::Display for QuerySingleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuerySingleError::NoEntities(query) => {
                write!(f, "no entity matches the query `{query}`")
            }
            QuerySingleError::MultipleEntities(query) => {
                write!(
                    f,
                    "more than one entity matches the query `{query}`, which expects exactly one"
                )
            }
        }
    }
}

impl std::error::Error for QuerySingleError {}

/// Why an entity handle's `get_components` gave no item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryAccessError {
    /// A component the query names is not registered in the world.
    ComponentNotRegistered,
    /// The entity lacks a component the query needs.
    EntityDoesNotMatch,
}

impl fmt::Display for QueryAccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryAccessError::ComponentNotRegistered => write!(
                f,
                "a component of the query is not registered in the world \
                 (register it with `World::register_component`)"
            ),
            QueryAccessError::EntityDoesNotMatch => {
                write!(f, "the entity does not have the components the query needs")
            }
        }
    }
}

impl std::error::Error for QueryAccessError {}
