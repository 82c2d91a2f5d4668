//! [`EntityMut`]: mutable access to one entity's component values, with no
//! structural changes, so that several can be held at once.

use super::{unsafe_world_cell::UnsafeWorldCell, EntityRef};
use crate::{
    archetype::Archetype,
    change_detection::{Mut, MutUntyped, Ref},
    component::{Component, ComponentId, Mutable},
    entity::{Entity, EntityLocation},
    ptr::Ptr,
    world::error::EntityComponentError,
};

/// Reads and writes one entity's component values, but cannot insert,
/// remove or despawn: several `EntityMut`s of distinct entities may be
/// held at once ([`World::get_entity_mut`](super::World::get_entity_mut)
/// with an array, a slice or an
/// [`EntityHashSet`](crate::entity::EntityHashSet)).
///
/// As query data (`Query<EntityMut>`) it writes every component of each
/// entity, and records a write of everything, resources included, for the
/// reason given on [`EntityRef`].
///
/// It has the component access of [`EntityRef`] and [`EntityWorldMut`](super::EntityWorldMut)
/// (`get`, `get_ref`, `get_mut`, `into_mut`, `get_by_id`, `components`,
/// `get_components`, `get_components_mut`).
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let a = world.spawn(Health(3)).id();
/// let b = world.spawn(Health(5)).id();
/// let [mut a, mut b] = world.entity_mut([a, b]);
/// std::mem::swap(&mut a.get_mut::<Health>().unwrap().0, &mut b.get_mut::<Health>().unwrap().0);
/// assert_eq!(a.get::<Health>().unwrap().0, 5);
/// ```
pub struct EntityMut<'w> {
    cell: UnsafeWorldCell<'w>,
    entity: Entity,
    location: EntityLocation,
}

impl std::fmt::Debug for EntityMut<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntityMut")
            .field("entity", &self.entity)
            .finish()
    }
}

impl<'w> EntityMut<'w> {
    /// # Safety
    /// `location` is `entity`'s current location in the cell's world, no
    /// structural change happens for `'w`, and the handle has exclusive
    /// access to the entity's component values for `'w`.
    #[inline]
    pub(crate) unsafe fn new(
        cell: UnsafeWorldCell<'w>,
        entity: Entity,
        location: EntityLocation,
    ) -> Self {
        EntityMut {
            cell,
            entity,
            location,
        }
    }

    /// The entity's id.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// A [`FilteredEntityMut`](super::FilteredEntityMut) that may read and
    /// write every component of the entity.
    #[inline]
    pub fn into_filtered(self) -> super::FilteredEntityMut<'w, 'static> {
        self.into()
    }

    /// The world cell the handle reaches its values through.
    #[inline]
    pub(crate) fn cell(&self) -> UnsafeWorldCell<'w> {
        self.cell
    }

    /// Where the entity's data lives.
    #[inline]
    pub fn location(&self) -> EntityLocation {
        self.location
    }

    /// The entity's archetype.
    #[inline]
    pub fn archetype(&self) -> &Archetype {
        &self.cell.meta().archetypes[self.location.archetype_id]
    }

    /// A read-only handle borrowing this one.
    #[inline]
    pub fn as_readonly(&self) -> EntityRef<'_> {
        EntityRef::new(self.cell.meta(), self.entity, self.location)
    }

    /// A read-only handle for the whole lifetime.
    #[inline]
    pub fn into_readonly(self) -> EntityRef<'w> {
        EntityRef::new(self.cell.meta(), self.entity, self.location)
    }

    /// The entity's `T`, with the handle's full lifetime.
    #[inline]
    pub fn into_borrow<T: Component>(self) -> Option<&'w T> {
        self.into_readonly().get::<T>()
    }

    /// The entity's `T` with its change ticks, with the handle's full
    /// lifetime.
    ///
    /// # Panics
    /// If `T` keeps no change ticks.
    #[inline]
    #[track_caller]
    pub fn into_ref<T: Component>(self) -> Option<Ref<'w, T>> {
        self.into_readonly().get_ref::<T>()
    }

    /// A shorter-lived handle to the same entity.
    #[inline]
    pub fn reborrow(&mut self) -> EntityMut<'_> {
        EntityMut {
            cell: self.cell,
            entity: self.entity,
            location: self.location,
        }
    }

    /// Whether the entity has component `T`.
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.as_readonly().contains::<T>()
    }

    /// Whether the entity has the component `id`.
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        self.as_readonly().contains_id(id)
    }

    /// The world tick the entity was spawned at.
    #[inline]
    pub fn spawn_tick(&self) -> crate::change_detection::Tick {
        self.as_readonly().spawn_tick()
    }

    /// Whether the entity has the component of Rust type `type_id`.
    #[inline]
    pub fn contains_type_id(&self, type_id: std::any::TypeId) -> bool {
        self.as_readonly().contains_type_id(type_id)
    }

    /// When the entity's `T` was added and last changed.
    ///
    /// # Panics
    /// As for [`EntityRef::get_change_ticks`].
    #[inline]
    #[track_caller]
    pub fn get_change_ticks<T: Component>(
        &self,
    ) -> Option<crate::change_detection::ComponentTicks> {
        self.as_readonly().get_change_ticks::<T>()
    }

    /// When the entity's value of the component `id` was added and last
    /// changed.
    #[inline]
    pub fn get_change_ticks_by_id(
        &self,
        id: ComponentId,
    ) -> Option<crate::change_detection::ComponentTicks> {
        self.as_readonly().get_change_ticks_by_id(id)
    }

    /// The entity's component `T`.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&T> {
        self.as_readonly().get::<T>()
    }

    /// The entity's component `T` with its change ticks.
    ///
    /// # Panics
    /// If `T` is `#[component(no_change_ticks)]` (it keeps no change ticks).
    #[inline]
    #[track_caller]
    pub fn get_ref<T: Component>(&self) -> Option<Ref<'_, T>> {
        self.as_readonly().get_ref::<T>()
    }

    /// A pointer to the entity's value of the component `id`; see
    /// [`EntityRef::get_by_id`].
    ///
    /// # Errors
    /// If the entity has no component `id`.
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Result<Ptr<'_>, EntityComponentError> {
        self.as_readonly().get_by_id(id)
    }

    /// The entity's value of the component `id`, mutably; writing through
    /// it marks it changed.
    ///
    /// # Errors
    /// If the entity has no component `id`, or it is
    /// [`Immutable`](crate::component::Immutable) (as bevy does, reported
    /// as missing).
    #[inline]
    pub fn get_mut_by_id(
        &mut self,
        id: ComponentId,
    ) -> Result<MutUntyped<'_>, EntityComponentError> {
        self.reborrow().into_mut_by_id(id)
    }

    /// [`EntityMut::get_mut_by_id`] through a shared borrow of the handle,
    /// so that values of several components can be held mutably at once.
    ///
    /// # Errors
    /// If the entity has no component `id`, or it is immutable.
    ///
    /// # Safety
    /// No other reference to the entity's value of `id` (from this handle
    /// or another) may be live while the result is.
    #[inline]
    pub unsafe fn get_mut_by_id_unchecked(
        &self,
        id: ComponentId,
    ) -> Result<MutUntyped<'_>, EntityComponentError> {
        let entity = EntityRef::new(self.cell.meta(), self.entity, self.location);
        // SAFETY: the handle has exclusive access to the entity's values
        // while it lives (`new`'s contract), and the caller guarantees no
        // other reference to this value meanwhile.
        unsafe { entity.get_mut_by_id_unchecked(id) }
    }

    /// Like [`EntityMut::get_mut_by_id`], borrowing for the handle's whole
    /// lifetime.
    ///
    /// # Errors
    /// If the entity has no component `id`, or it is immutable.
    #[inline]
    pub fn into_mut_by_id(self, id: ComponentId) -> Result<MutUntyped<'w>, EntityComponentError> {
        let entity = EntityRef::new(self.cell.meta(), self.entity, self.location);
        // SAFETY: the handle, consumed here, had exclusive access to the
        // entity's values for `'w` (`new`'s contract).
        unsafe { entity.get_mut_by_id_unchecked(id) }
    }

    /// [`EntityMut::get_mut_by_id`] for a component that may be
    /// [`Immutable`](crate::component::Immutable).
    ///
    /// # Errors
    /// If the entity has no component `id`.
    ///
    /// # Safety
    /// As for [`EntityMut::get_mut_assume_mutable`].
    #[inline]
    pub unsafe fn get_mut_assume_mutable_by_id(
        &mut self,
        id: ComponentId,
    ) -> Result<MutUntyped<'_>, EntityComponentError> {
        // SAFETY: forwarded.
        unsafe { self.reborrow().into_mut_assume_mutable_by_id(id) }
    }

    /// [`EntityMut::get_mut_assume_mutable_by_id`], borrowing for the
    /// handle's whole lifetime.
    ///
    /// # Errors
    /// If the entity has no component `id`.
    ///
    /// # Safety
    /// As for [`EntityMut::get_mut_assume_mutable`].
    #[inline]
    pub unsafe fn into_mut_assume_mutable_by_id(
        self,
        id: ComponentId,
    ) -> Result<MutUntyped<'w>, EntityComponentError> {
        let entity = EntityRef::new(self.cell.meta(), self.entity, self.location);
        // SAFETY: the handle, consumed here, had exclusive access to the
        // entity's values for `'w` (`new`'s contract); a change to an
        // immutable value is the caller's to make right.
        unsafe { entity.get_mut_assume_mutable_by_id_unchecked(id) }
    }

    /// The entity's component `T`, mutably; writing marks it changed.
    #[inline]
    pub fn get_mut<T: Component<Mutability = Mutable>>(&mut self) -> Option<Mut<'_, T>> {
        self.reborrow().into_mut::<T>()
    }

    /// Like [`EntityMut::get_mut`], borrowing for the handle's whole
    /// lifetime.
    #[inline]
    pub fn into_mut<T: Component<Mutability = Mutable>>(self) -> Option<Mut<'w, T>> {
        // SAFETY: `T` is mutable.
        unsafe { self.into_mut_assume_mutable() }
    }

    /// [`EntityMut::get_mut`] for a component `T` that may be
    /// [`Immutable`](crate::component::Immutable).
    ///
    /// # Safety
    /// If `T` is immutable, the value is not changed through the result,
    /// or changed only as replacing it would (its `on_discard` and
    /// `on_insert` hooks and observers run around the change, as
    /// [`World::modify_component`](crate::world::World::modify_component)
    /// does).
    #[inline]
    pub unsafe fn get_mut_assume_mutable<T: Component>(&mut self) -> Option<Mut<'_, T>> {
        // SAFETY: forwarded.
        unsafe { self.reborrow().into_mut_assume_mutable::<T>() }
    }

    /// [`EntityMut::get_mut_assume_mutable`], borrowing for the handle's
    /// whole lifetime.
    ///
    /// # Safety
    /// As for [`EntityMut::get_mut_assume_mutable`].
    #[inline]
    pub unsafe fn into_mut_assume_mutable<T: Component>(self) -> Option<Mut<'w, T>> {
        let world = self.cell.meta();
        let id = world.components.component_id::<T>()?;
        let (ptr, added, changed) =
            world.component_ptr(id, T::STORAGE_TYPE, self.entity, self.location)?;
        // SAFETY: the pointer is a valid `T` of this entity (its location
        // is current, `new`'s contract), and the handle, consumed here, had
        // exclusive access to the entity's values for `'w`.
        unsafe {
            Some(Mut::new(
                &mut *ptr.cast::<T>(),
                &mut *added.get(),
                &mut *changed.get(),
                world.last_change_tick(),
                world.change_tick(),
            ))
        }
    }
}

impl<'w> From<EntityMut<'w>> for EntityRef<'w> {
    #[inline]
    fn from(entity: EntityMut<'w>) -> Self {
        entity.into_readonly()
    }
}
