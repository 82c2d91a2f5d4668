//! Many-to-many relations: a source entity may point at many targets, and
//! every target knows all of its sources.
//!
//! ```text
//!  source a                      target x
//!  ┌────────────────────┐        ┌────────────────────┐
//!  │ Targets<Likes>     │──────▶ │ Sources<Likes>     │
//!  │   [x, y]           │   ┌──▶ │   [a, b]           │
//!  └────────────────────┘   │    └────────────────────┘
//!  source b                 │    target y
//!  ┌────────────────────┐   │    ┌────────────────────┐
//!  │ Targets<Likes> [x] │───┘    │ Sources<Likes> [a] │
//!  └────────────────────┘        └────────────────────┘
//! ```
//!
//! A relation kind is a type implementing [`Relation`] (derive it with
//! `#[derive(Relation)]`). An entity relating to anything by `R` has a
//! [`Targets<R>`] component (its targets, in the order they were related);
//! an entity anything relates to has a [`Sources<R>`] (its sources, in the
//! order they related). Both deref to `&[Entity]`, and both exist only
//! while non-empty, so "has any relation of kind `R`" is the filter
//! `With<Targets<R>>` (or `With<Sources<R>>`), answered by archetype
//! matching, not by a scan.
//!
//! Change relations with [`EntityWorldMut::relate`],
//! [`unrelate`](crate::world::EntityWorldMut::unrelate) and
//! [`unrelate_all`](crate::world::EntityWorldMut::unrelate_all) (the same on
//! [`EntityCommands`](crate::system::EntityCommands)); read them with
//! [`World::targets_of`] / [`World::sources_of`], or in a system with the
//! [`Related`] parameter. Both sides stay in step whatever happens to
//! either entity: despawning a source or a target, removing or taking
//! either component, replacing it.
//!
//! [`EntityWorldMut::relate`]: crate::world::EntityWorldMut::relate
//! [`World::targets_of`]: crate::world::World::targets_of
//! [`World::sources_of`]: crate::world::World::sources_of
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Relation)]
//! struct Likes;
//!
//! let mut world = World::new();
//! let alice = world.spawn_empty().id();
//! let bob = world.spawn_empty().id();
//! let carol = world.spawn_empty().id();
//! world.entity_mut(alice).relate::<Likes>(bob)?.relate::<Likes>(carol)?;
//! world.entity_mut(carol).relate::<Likes>(bob)?;
//! assert_eq!(world.targets_of::<Likes>(alice), &[bob, carol]);
//! assert_eq!(world.sources_of::<Likes>(bob), &[alice, carol]);
//! world.despawn(carol);
//! assert_eq!(world.targets_of::<Likes>(alice), &[bob]);
//! assert_eq!(world.sources_of::<Likes>(bob), &[alice]);
//! # Ok::<(), ecs::relation::RelationError>(())
//! ```
//!
//! # Flavours
//!
//! As flecs names them: `#[relation(exclusive)]` allows one target per
//! source (relating again moves the source, as `ChildOf` does);
//! `#[relation(symmetric)]` makes `a` relate to `b` exactly when `b`
//! relates to `a` (relating or unrelating one direction does both).
//! `#[relation(allow_self)]` lets an entity relate to itself; otherwise
//! that is refused.
//!
//! # Bad input
//!
//! Relating to an entity that does not exist, or to itself when the kind
//! does not allow it, is refused with a [`RelationError`] naming the
//! relation and both entities; no dangling id is ever stored.
//!
//! A `Targets<R>` or `Sources<R>` value cannot be built outside this
//! module. Removing one (by `remove`, `take`, despawn or an insert over
//! it) empties it before any observer runs, so `Discard` and `Remove`
//! observers, and `take`, see an empty list, never entities that no
//! longer list it back. An empty list inserted by hand is removed again.

mod hooks;
mod integrity;
mod ops;
mod query;

pub(crate) use integrity::run_registered_checks;
pub use query::Related;

/// Derives [`Relation`] for a (usually empty) marker type naming a kind of
/// relation; `#[relation(exclusive, symmetric, allow_self)]` picks its
/// flavour.
pub use ecs_macros::Relation;

use std::any::type_name;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use crate::{
    component::{Component, ComponentHooks, StorageType},
    entity::Entity,
};

/// A kind of many-to-many relation between entities.
///
/// Derive it with `#[derive(Relation)]`; the type is only a name (it is
/// never stored), so a unit struct is the usual choice.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Relation)]
/// #[relation(symmetric)]
/// struct FriendOf;
///
/// let mut world = World::new();
/// let a = world.spawn_empty().id();
/// let b = world.spawn_empty().id();
/// world.entity_mut(a).relate::<FriendOf>(b).unwrap();
/// assert_eq!(world.targets_of::<FriendOf>(b), &[a]);
/// ```
pub trait Relation: Send + Sync + 'static {
    /// A source has at most one target: relating it to another moves it.
    const EXCLUSIVE: bool = false;
    /// `a` relates to `b` exactly when `b` relates to `a`.
    const SYMMETRIC: bool = false;
    /// An entity may relate to itself.
    const ALLOW_SELF: bool = false;
}

/// The targets an entity relates to by `R`, in the order they were
/// related; derefs to `&[Entity]`.
///
/// Present exactly while the entity relates to at least one target, so
/// `With<Targets<R>>` selects every source of `R`. Change it through
/// [`relate`](crate::world::EntityWorldMut::relate) and
/// [`unrelate`](crate::world::EntityWorldMut::unrelate); removing it
/// unrelates the entity from every target.
pub struct Targets<R: Relation> {
    list: EntityList<R>,
}

/// The sources relating to an entity by `R`, in the order they related;
/// derefs to `&[Entity]`.
///
/// Present exactly while at least one source relates to the entity, so
/// `With<Sources<R>>` selects every target of `R`. Maintained by the
/// relation methods; removing it unrelates every source from this entity.
pub struct Sources<R: Relation> {
    list: EntityList<R>,
}

// Derived, these would need `R: Clone`; snapshots clone relation lists.
impl<R: Relation> Clone for Targets<R> {
    fn clone(&self) -> Self {
        Targets {
            list: self.list.clone(),
        }
    }
}

impl<R: Relation> Clone for Sources<R> {
    fn clone(&self) -> Self {
        Sources {
            list: self.list.clone(),
        }
    }
}

impl<R> Clone for EntityList<R> {
    fn clone(&self) -> Self {
        EntityList {
            entities: self.entities.clone(),
            linked: self.linked,
            marker: PhantomData,
        }
    }
}

/// The entities of one side of a relation.
struct EntityList<R> {
    entities: Vec<Entity>,
    /// Set by the relation methods when they insert a list whose other
    /// side they already wrote; the `on_insert` hook clears it, so any
    /// other insert (an emptied list, taken by hand) is recognised.
    linked: bool,
    marker: PhantomData<fn() -> R>,
}

impl<R> EntityList<R> {
    fn linked(entity: Entity) -> Self {
        Self {
            entities: vec![entity],
            linked: true,
            marker: PhantomData,
        }
    }

    /// Removes `entity` (from the tail, where recent entries sit); returns
    /// whether it was there.
    fn remove(&mut self, entity: Entity) -> bool {
        match self.entities.iter().rposition(|&e| e == entity) {
            Some(index) => {
                self.entities.remove(index);
                true
            }
            None => false,
        }
    }
}

macro_rules! relation_side {
    ($side:ident, $hooks:path, $other:ident) => {
        impl<R: Relation> $side<R> {
            pub(crate) fn linked(entity: Entity) -> Self {
                Self {
                    list: EntityList::linked(entity),
                }
            }
        }

        impl<R: Relation> Deref for $side<R> {
            type Target = [Entity];

            #[inline]
            fn deref(&self) -> &[Entity] {
                &self.list.entities
            }
        }

        impl<'a, R: Relation> IntoIterator for &'a $side<R> {
            type Item = &'a Entity;
            type IntoIter = std::slice::Iter<'a, Entity>;

            #[inline]
            fn into_iter(self) -> Self::IntoIter {
                self.list.entities.iter()
            }
        }

        impl<R: Relation> fmt::Debug for $side<R> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}<{}>", stringify!($side), type_name::<R>())?;
                f.debug_list().entries(&self.list.entities).finish()
            }
        }

        impl<R: Relation> Component for $side<R> {
            const STORAGE_TYPE: StorageType = StorageType::Table;
            type Mutability = crate::component::Mutable;

            fn register_component_hooks(hooks: &mut ComponentHooks) {
                use $hooks as side_hooks;
                hooks
                    .on_insert(side_hooks::on_insert::<R>)
                    .on_discard(side_hooks::on_discard::<R>);
                integrity::register::<R>();
            }

            fn snapshot_partner() -> Option<std::any::TypeId> {
                Some(std::any::TypeId::of::<$other<R>>())
            }
        }
    };
}

relation_side!(Targets, hooks::targets, Sources);
relation_side!(Sources, hooks::sources, Targets);

/// Why a relation was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelationError {
    /// The target does not exist (it was never spawned or is despawned).
    MissingTarget {
        /// The relation kind's type name.
        relation: &'static str,
        /// The entity that was to relate.
        source: Entity,
        /// The missing target.
        target: Entity,
    },
    /// The source does not exist (a queued relation whose source was
    /// despawned first).
    MissingSource {
        /// The relation kind's type name.
        relation: &'static str,
        /// The missing source.
        source: Entity,
        /// The target it was to relate to.
        target: Entity,
    },
    /// The entity was to relate to itself, and the kind does not allow it.
    SelfRelation {
        /// The relation kind's type name.
        relation: &'static str,
        /// The entity.
        entity: Entity,
    },
}

impl fmt::Display for RelationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingTarget {
                relation,
                source,
                target,
            } => write!(
                f,
                "cannot relate entity {source:?} to {target:?} by `{relation}`: the target does not exist"
            ),
            Self::MissingSource {
                relation,
                source,
                target,
            } => write!(
                f,
                "cannot relate entity {source:?} to {target:?} by `{relation}`: the source does not exist"
            ),
            Self::SelfRelation { relation, entity } => write!(
                f,
                "cannot relate entity {entity:?} to itself by `{relation}` (allow it with #[relation(allow_self)])"
            ),
        }
    }
}

impl std::error::Error for RelationError {}
