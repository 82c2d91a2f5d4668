//! Fetching one entity or several at once: [`World::entity`],
//! [`World::entity_mut`], [`World::get_entity`], [`World::get_entity_mut`]
//! take anything [`WorldEntityFetch`]: an [`Entity`], an array or slice of
//! them, or an [`EntityHashSet`].
//!
//! ```text
//! Entity          -> EntityRef            / EntityWorldMut (structural changes)
//! [Entity; N]     -> [EntityRef; N]       / [EntityMut; N]
//! &[Entity]       -> Vec<EntityRef>       / Vec<EntityMut>
//! &EntityHashSet  -> EntityHashMap<EntityRef> / EntityHashMap<EntityMut>
//! ```
//!
//! The mutable forms of several entities refuse a duplicate with
//! [`EntityMutableFetchError::AliasedMutability`] naming it: two handles to
//! one entity would alias its values.

use super::{
    error::EntityMutableFetchError, unsafe_world_cell::UnsafeWorldCell, DeferredWorld, EntityMut,
    EntityRef, EntityWorldMut, World,
};
use crate::entity::{Entity, EntityHashMap, EntityHashSet, EntityLocation, EntityNotSpawnedError};
use crate::system::Commands;

/// Something [`World::get_entity`] and [`World::get_entity_mut`] fetch
/// entities by: an [`Entity`], `[Entity; N]`, `&[Entity; N]`, `&[Entity]`
/// or `&EntityHashSet`.
///
/// [`EntityFetcher::get_mut`] (beside the `Commands` of
/// [`World::entities_and_commands`]) gives the `DeferredMut` form: an
/// [`EntityMut`] where [`World::entity_mut`] gives an [`EntityWorldMut`],
/// since structural changes wait for the commands.
///
/// # Safety
/// `fetch_mut` and `fetch_deferred_mut` return handles to distinct entities
/// only (or one [`EntityWorldMut`]): no two of them may reach the same
/// values.
pub unsafe trait WorldEntityFetch {
    /// The read-only handles.
    type Ref<'w>;
    /// The mutable handles.
    type Mut<'w>;
    /// The mutable handles that make no structural change.
    type DeferredMut<'w>;

    /// Read-only handles to the entities.
    ///
    /// # Safety
    /// The cell may read every entity's components for `'w`.
    ///
    /// # Errors
    /// The first entity that is not spawned.
    unsafe fn fetch_ref(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Ref<'_>, EntityNotSpawnedError>;

    /// Mutable handles to the entities.
    ///
    /// # Safety
    /// The cell comes from [`UnsafeWorldCell::new_mutable`] and is the only
    /// access to the world for `'w`.
    ///
    /// # Errors
    /// The first entity that is not spawned, or the first one named twice.
    unsafe fn fetch_mut(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Mut<'_>, EntityMutableFetchError>;

    /// Mutable handles to the entities that make no structural change.
    ///
    /// # Safety
    /// The cell comes from [`UnsafeWorldCell::new_mutable`]; for `'w`
    /// nothing else reaches the world's component values and nothing
    /// changes its structure (the command queue may be in use).
    ///
    /// # Errors
    /// The first entity that is not spawned, or the first one named twice.
    unsafe fn fetch_deferred_mut(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::DeferredMut<'_>, EntityMutableFetchError>;
}

/// `fetch_deferred_mut` of the forms for several entities, whose
/// `fetch_mut` already makes `EntityMut`s only.
macro_rules! deferred_mut_is_mut {
    () => {
        #[inline]
        unsafe fn fetch_deferred_mut(
            self,
            cell: UnsafeWorldCell<'_>,
        ) -> Result<Self::DeferredMut<'_>, EntityMutableFetchError> {
            // SAFETY: this form's `fetch_mut` makes `EntityMut`s only,
            // which need no more than the caller guarantees here.
            unsafe { self.fetch_mut(cell) }
        }
    };
}

/// The location of a spawned entity, else why it is not.
#[inline]
fn locate(
    cell: UnsafeWorldCell<'_>,
    entity: Entity,
) -> Result<EntityLocation, EntityNotSpawnedError> {
    let entities = cell.entities();
    // The lookup without the error's `Result` keeps the hit path short.
    match entities.get(entity) {
        Some(location) => Ok(location),
        None => Err(entities.not_spawned_error(entity)),
    }
}

// SAFETY: one entity, one handle.
unsafe impl WorldEntityFetch for Entity {
    type Ref<'w> = EntityRef<'w>;
    type Mut<'w> = EntityWorldMut<'w>;
    type DeferredMut<'w> = EntityMut<'w>;

    #[inline]
    unsafe fn fetch_ref(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Ref<'_>, EntityNotSpawnedError> {
        let location = locate(cell, self)?;
        Ok(EntityRef::new(cell.meta(), self, location))
    }

    #[inline]
    unsafe fn fetch_mut(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Mut<'_>, EntityMutableFetchError> {
        let location = locate(cell, self)?;
        // SAFETY: the cell is the only access to the world (caller).
        let world = unsafe { cell.world_mut() };
        Ok(EntityWorldMut::new(world, self, location))
    }

    #[inline]
    unsafe fn fetch_deferred_mut(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::DeferredMut<'_>, EntityMutableFetchError> {
        let location = locate(cell, self)?;
        // SAFETY: spawned at `location`; the caller guarantees no
        // structural change and exclusive access to the values.
        Ok(unsafe { EntityMut::new(cell, self, location) })
    }
}

// SAFETY: as for `&[Entity; N]`, which checks for duplicates.
unsafe impl<const N: usize> WorldEntityFetch for [Entity; N] {
    type Ref<'w> = [EntityRef<'w>; N];
    type Mut<'w> = [EntityMut<'w>; N];
    type DeferredMut<'w> = [EntityMut<'w>; N];

    #[inline]
    unsafe fn fetch_ref(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Ref<'_>, EntityNotSpawnedError> {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { (&self).fetch_ref(cell) }
    }

    #[inline]
    unsafe fn fetch_mut(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Mut<'_>, EntityMutableFetchError> {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { (&self).fetch_mut(cell) }
    }

    deferred_mut_is_mut!();
}

// SAFETY: `fetch_mut` refuses duplicates before making any handle.
unsafe impl<const N: usize> WorldEntityFetch for &[Entity; N] {
    type Ref<'w> = [EntityRef<'w>; N];
    type Mut<'w> = [EntityMut<'w>; N];
    type DeferredMut<'w> = [EntityMut<'w>; N];

    #[inline]
    unsafe fn fetch_ref(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Ref<'_>, EntityNotSpawnedError> {
        let locations = locate_all(cell, self)?;
        Ok(std::array::from_fn(|i| {
            EntityRef::new(cell.meta(), self[i], locations[i])
        }))
    }

    #[inline]
    unsafe fn fetch_mut(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Mut<'_>, EntityMutableFetchError> {
        check_duplicates(self)?;
        let locations = locate_all(cell, self)?;
        // SAFETY: the entities are distinct (checked above) and spawned at
        // these locations, and the cell is the only access to the world
        // (caller), so each handle's access to its entity is exclusive.
        Ok(std::array::from_fn(|i| unsafe {
            EntityMut::new(cell, self[i], locations[i])
        }))
    }

    deferred_mut_is_mut!();
}

/// The locations of `entities`, in order, or the first not spawned.
#[inline]
fn locate_all<const N: usize>(
    cell: UnsafeWorldCell<'_>,
    entities: &[Entity; N],
) -> Result<[EntityLocation; N], EntityNotSpawnedError> {
    let mut locations = [EntityLocation::INVALID; N];
    for (location, &entity) in locations.iter_mut().zip(entities) {
        *location = locate(cell, entity)?;
    }
    Ok(locations)
}

// SAFETY: `fetch_mut` refuses duplicates before making any handle.
unsafe impl WorldEntityFetch for &[Entity] {
    type Ref<'w> = Vec<EntityRef<'w>>;
    type Mut<'w> = Vec<EntityMut<'w>>;
    type DeferredMut<'w> = Vec<EntityMut<'w>>;

    #[inline]
    unsafe fn fetch_ref(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Ref<'_>, EntityNotSpawnedError> {
        self.iter()
            .map(|&entity| Ok(EntityRef::new(cell.meta(), entity, locate(cell, entity)?)))
            .collect()
    }

    #[inline]
    unsafe fn fetch_mut(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Mut<'_>, EntityMutableFetchError> {
        check_duplicates(self)?;
        self.iter()
            .map(|&entity| {
                let location = locate(cell, entity)?;
                // SAFETY: as for arrays: distinct, spawned, exclusive.
                Ok(unsafe { EntityMut::new(cell, entity, location) })
            })
            .collect()
    }

    deferred_mut_is_mut!();
}

// SAFETY: a set holds each entity once.
unsafe impl WorldEntityFetch for &EntityHashSet {
    type Ref<'w> = EntityHashMap<EntityRef<'w>>;
    type Mut<'w> = EntityHashMap<EntityMut<'w>>;
    type DeferredMut<'w> = EntityHashMap<EntityMut<'w>>;

    #[inline]
    unsafe fn fetch_ref(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Ref<'_>, EntityNotSpawnedError> {
        self.iter()
            .map(|&entity| {
                let location = locate(cell, entity)?;
                Ok((entity, EntityRef::new(cell.meta(), entity, location)))
            })
            .collect()
    }

    #[inline]
    unsafe fn fetch_mut(
        self,
        cell: UnsafeWorldCell<'_>,
    ) -> Result<Self::Mut<'_>, EntityMutableFetchError> {
        self.iter()
            .map(|&entity| {
                let location = locate(cell, entity)?;
                // SAFETY: a set's entities are distinct; spawned, and the
                // cell is the only access to the world (caller).
                Ok((entity, unsafe { EntityMut::new(cell, entity, location) }))
            })
            .collect()
    }

    deferred_mut_is_mut!();
}

/// Refuses an entity named twice, naming it.
#[inline]
fn check_duplicates(entities: &[Entity]) -> Result<(), EntityMutableFetchError> {
    // Pairwise comparison beats hashing for the short lists usual here.
    const PAIRWISE_UP_TO: usize = 32;
    if entities.len() <= PAIRWISE_UP_TO {
        for (i, &entity) in entities.iter().enumerate() {
            if entities[..i].contains(&entity) {
                return Err(EntityMutableFetchError::AliasedMutability(entity));
            }
        }
    } else {
        let mut seen = EntityHashSet::with_capacity(entities.len());
        for &entity in entities {
            if !seen.insert(entity) {
                return Err(EntityMutableFetchError::AliasedMutability(entity));
            }
        }
    }
    Ok(())
}

impl World {
    /// Read-only handles to an entity, or to several: see
    /// [`WorldEntityFetch`] for what `entities` may be and what comes back.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Health(1)).id();
    /// let b = world.spawn(Health(2)).id();
    /// let [a, b] = world.entity([a, b]);
    /// assert_eq!(a.get::<Health>().unwrap().0 + b.get::<Health>().unwrap().0, 3);
    /// ```
    ///
    /// # Panics
    /// If an entity is not spawned, with the [`EntityNotSpawnedError`]
    /// message: the entity (index and generation) and why.
    #[inline]
    #[track_caller]
    pub fn entity<F: WorldEntityFetch>(&self, entities: F) -> F::Ref<'_> {
        match self.get_entity(entities) {
            Ok(fetched) => fetched,
            Err(error) => super::panic_on_fetch_error(error),
        }
    }

    /// Mutable handles to an entity ([`EntityWorldMut`], which can make
    /// structural changes) or to several ([`EntityMut`]s, which cannot):
    /// see [`WorldEntityFetch`].
    ///
    /// # Panics
    /// If an entity is not spawned, or is named twice, with the
    /// [`EntityMutableFetchError`] message naming it.
    #[inline]
    #[track_caller]
    pub fn entity_mut<F: WorldEntityFetch>(&mut self, entities: F) -> F::Mut<'_> {
        match self.get_entity_mut(entities) {
            Ok(fetched) => fetched,
            Err(error) => super::panic_on_fetch_error(error),
        }
    }

    /// Read-only handles to an entity, or to several: see
    /// [`WorldEntityFetch`].
    ///
    /// An entity reserved by [`Commands`] is not
    /// spawned until [`World::flush`] (which this `&self` method cannot
    /// run).
    ///
    /// # Errors
    /// [`EntityNotSpawnedError`] for the first entity that is not spawned:
    /// it names the entity and why (despawned, never spawned, or reserved
    /// and not flushed).
    ///
    /// ```
    /// use ecs::entity::EntityNotSpawnedError;
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let e = world.spawn_empty().id();
    /// world.despawn(e);
    /// match world.get_entity(e) {
    ///     Err(EntityNotSpawnedError::Invalid(error)) => {
    ///         assert_eq!(error.entity, e);
    ///         assert!(error.to_string().contains("was despawned"));
    ///     }
    ///     _ => unreachable!("the entity was despawned"),
    /// }
    /// ```
    #[inline]
    pub fn get_entity<F: WorldEntityFetch>(
        &self,
        entities: F,
    ) -> Result<F::Ref<'_>, EntityNotSpawnedError> {
        // SAFETY: `&self` lets the handles read every entity.
        unsafe { entities.fetch_ref(UnsafeWorldCell::new_readonly(self)) }
    }

    /// Mutable handles to an entity, or to several: see
    /// [`WorldEntityFetch`]. Entities reserved by
    /// [`Commands`] are spawned first, so a
    /// reserved entity is found.
    ///
    /// # Errors
    /// [`EntityMutableFetchError::NotSpawned`] for the first entity that is
    /// not spawned, naming it and why;
    /// [`EntityMutableFetchError::AliasedMutability`] for the first entity
    /// named twice.
    #[inline]
    pub fn get_entity_mut<F: WorldEntityFetch>(
        &mut self,
        entities: F,
    ) -> Result<F::Mut<'_>, EntityMutableFetchError> {
        self.flush_entities();
        // SAFETY: the cell is made from `&mut self`, the only access.
        unsafe { entities.fetch_mut(UnsafeWorldCell::new_mutable(self)) }
    }
}

/// Entity handles beside a [`Commands`]: from
/// [`World::entities_and_commands`] or
/// [`DeferredWorld::entities_and_commands`](super::DeferredWorld::entities_and_commands).
/// It reads and writes component values; structural changes go through the
/// commands and happen when the world applies them.
pub struct EntityFetcher<'w> {
    cell: UnsafeWorldCell<'w>,
}

impl<'w> EntityFetcher<'w> {
    /// Read-only handles to an entity, or to several: see
    /// [`WorldEntityFetch`] for what `entities` may be.
    ///
    /// # Errors
    /// [`EntityNotSpawnedError`] for the first entity that is not spawned.
    #[inline]
    pub fn get<F: WorldEntityFetch>(
        &self,
        entities: F,
    ) -> Result<F::Ref<'_>, EntityNotSpawnedError> {
        // SAFETY: the fetcher may read every entity's values (its maker
        // held `&mut World`), and `&self` rules out the mutable handles of
        // `get_mut` while these live.
        unsafe { entities.fetch_ref(self.cell) }
    }

    /// Mutable handles to an entity ([`EntityMut`]) or to several, which
    /// make no structural change: see [`WorldEntityFetch`].
    ///
    /// # Errors
    /// [`EntityMutableFetchError::NotSpawned`] for the first entity that is
    /// not spawned; [`EntityMutableFetchError::AliasedMutability`] for the
    /// first entity named twice.
    #[inline]
    pub fn get_mut<F: WorldEntityFetch>(
        &mut self,
        entities: F,
    ) -> Result<F::DeferredMut<'_>, EntityMutableFetchError> {
        // SAFETY: the cell comes from `&mut World`; `&mut self` makes these
        // handles the only ones to component values, and the commands
        // beside the fetcher touch only the command queue and reserve ids
        // (no structural change) until the world applies them.
        unsafe { entities.fetch_deferred_mut(self.cell) }
    }
}

impl std::fmt::Debug for EntityFetcher<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntityFetcher")
            .field("world", &self.cell.id())
            .finish()
    }
}

/// The fetcher and the commands of `entities_and_commands`, for a world
/// held exclusively.
fn split_entities_and_commands(world: &mut World) -> (EntityFetcher<'_>, Commands<'_, '_>) {
    let cell = UnsafeWorldCell::new_mutable(world);
    // SAFETY: the cell comes from `&mut World`; the fetcher's handles read
    // the world through shared borrows, which do not cover the queue's
    // cell, and never reach the queue, so these `Commands` are its only
    // user.
    let queue = unsafe { cell.command_queue() };
    let commands = Commands::new_from_entities(queue, cell.entities(), cell.id());
    (EntityFetcher { cell }, commands)
}

impl World {
    /// Handles to entities and [`Commands`] at once: read entities, write
    /// their values, and queue structural changes, which apply at the next
    /// [`World::flush`] (or structural change).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Targets(Vec<Entity>);
    /// #[derive(Component)]
    /// struct TargetedBy(Entity);
    ///
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    /// let hunter = world.spawn(Targets(vec![a, b])).id();
    ///
    /// let (entities, mut commands) = world.entities_and_commands();
    /// for &target in &entities.get(hunter).unwrap().get::<Targets>().unwrap().0 {
    ///     commands.entity(target).insert(TargetedBy(hunter));
    /// }
    /// world.flush();
    /// assert_eq!(world.get::<TargetedBy>(b).unwrap().0, hunter);
    /// ```
    pub fn entities_and_commands(&mut self) -> (EntityFetcher<'_>, Commands<'_, '_>) {
        // Entities reserved earlier become live, so the fetcher finds them.
        self.flush_entities();
        split_entities_and_commands(self)
    }
}

impl DeferredWorld<'_> {
    /// Handles that read and write the values of an entity, or of
    /// several (see [`WorldEntityFetch`]), and change no archetype.
    ///
    /// # Errors
    /// [`EntityMutableFetchError`] naming the first entity not spawned, or
    /// one asked for twice.
    #[inline]
    pub fn get_entity_mut<F: WorldEntityFetch>(
        &mut self,
        entities: F,
    ) -> Result<F::DeferredMut<'_>, EntityMutableFetchError> {
        let cell = UnsafeWorldCell::new_mutable(self.world_mut_internal());
        // SAFETY: the cell comes from the deferred world's exclusive
        // borrow; `&mut self` makes these handles the only ones to
        // component values while they live, and they make no structural
        // change.
        unsafe { entities.fetch_deferred_mut(cell) }
    }

    /// [`DeferredWorld::get_entity_mut`], panicking where it errs.
    ///
    /// # Panics
    /// If an entity is not spawned or is asked for twice; the message
    /// names it.
    #[inline]
    #[track_caller]
    pub fn entity_mut<F: WorldEntityFetch>(&mut self, entities: F) -> F::DeferredMut<'_> {
        match self.get_entity_mut(entities) {
            Ok(fetched) => fetched,
            Err(error) => super::panic_on_fetch_error(error),
        }
    }

    /// Handles to entities and [`Commands`] at once, as
    /// [`World::entities_and_commands`]; the commands apply after the
    /// current operation.
    pub fn entities_and_commands(&mut self) -> (EntityFetcher<'_>, Commands<'_, '_>) {
        split_entities_and_commands(self.world_mut_internal())
    }
}
