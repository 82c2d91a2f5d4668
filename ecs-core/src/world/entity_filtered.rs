//! [`FilteredEntityRef`] and [`FilteredEntityMut`]: an entity handle that
//! may touch only the components its query's access lists, the items of
//! queries built at run time with a
//! [`QueryBuilder`](crate::query::QueryBuilder).

use std::{marker::PhantomData, sync::Arc};

use super::{EntityMut, EntityRef};
use crate::{
    archetype::Archetype,
    change_detection::{Mut, MutUntyped, Ref},
    component::{Component, ComponentId},
    entity::{Entity, EntityLocation},
    ptr::Ptr,
    query::Access,
};

/// Shared access to the components of one entity that an [`Access`]
/// allows to be read: the item of `Query<FilteredEntityRef>`.
///
/// Bevy's borrows the access from the query state for `'s`; this one
/// shares it (`Arc`), so items may outlive the state as `'w` items of
/// typed queries do.
#[derive(Clone)]
pub struct FilteredEntityRef<'w, 's> {
    entity: EntityRef<'w>,
    access: Arc<Access>,
    marker: PhantomData<&'s ()>,
}

impl std::fmt::Debug for FilteredEntityRef<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilteredEntityRef")
            .field("entity", &self.entity.id())
            .finish()
    }
}

impl<'w> FilteredEntityRef<'w, '_> {
    /// # Safety
    /// Nothing writes the components `access` reads for `'w`.
    #[inline]
    pub(crate) unsafe fn new(entity: EntityRef<'w>, access: Arc<Access>) -> Self {
        FilteredEntityRef {
            entity,
            access,
            marker: PhantomData,
        }
    }

    /// The entity's id.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity.id()
    }

    /// Where the entity's data lives.
    #[inline]
    pub fn location(&self) -> EntityLocation {
        self.entity.location()
    }

    /// The entity's archetype.
    #[inline]
    pub fn archetype(&self) -> &Archetype {
        self.entity.archetype()
    }

    /// What this handle may read.
    #[inline]
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// Whether the entity has component `T` (whether or not it may be read).
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.entity.contains::<T>()
    }

    /// Whether the entity has the component `id`.
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        self.entity.contains_id(id)
    }

    /// The entity's component `T`, if it has it and the access allows it.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&'w T> {
        let id = self.entity.world_components().component_id::<T>()?;
        self.access.has_read(id).then(|| self.entity.get::<T>())?
    }

    /// [`FilteredEntityRef::get`] with change ticks.
    #[inline]
    pub fn get_ref<T: Component>(&self) -> Option<Ref<'w, T>> {
        let id = self.entity.world_components().component_id::<T>()?;
        self.access
            .has_read(id)
            .then(|| self.entity.get_ref::<T>())?
    }

    /// A pointer to the entity's value of `id`, if it has it and the
    /// access allows reading it.
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Option<Ptr<'w>> {
        if !self.access.has_read(id) {
            return None;
        }
        self.entity.get_by_id(id).ok()
    }
}

impl<'w> From<EntityRef<'w>> for FilteredEntityRef<'w, '_> {
    /// A handle that may read every component.
    fn from(entity: EntityRef<'w>) -> Self {
        let mut access = Access::default();
        access.read_all();
        // SAFETY: an `EntityRef` may read every component of its entity.
        unsafe { FilteredEntityRef::new(entity, Arc::new(access)) }
    }
}

/// Mutable access to the components of one entity that an [`Access`]
/// allows: the item of `Query<FilteredEntityMut>`. Reads need read access,
/// writes write access.
///
/// Like [`FilteredEntityRef`], it shares its access instead of borrowing it.
pub struct FilteredEntityMut<'w, 's> {
    entity: EntityMut<'w>,
    access: Arc<Access>,
    marker: PhantomData<&'s ()>,
}

impl std::fmt::Debug for FilteredEntityMut<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilteredEntityMut")
            .field("entity", &self.entity.id())
            .finish()
    }
}

impl<'w, 's> FilteredEntityMut<'w, 's> {
    /// # Safety
    /// For `'w`, nothing else reads the components `access` writes, nor
    /// writes those it reads. (The handle touches nothing else; `entity`'s
    /// own, wider, permission is not used beyond `access`.)
    #[inline]
    pub(crate) unsafe fn new(entity: EntityMut<'w>, access: Arc<Access>) -> Self {
        FilteredEntityMut {
            entity,
            access,
            marker: PhantomData,
        }
    }

    /// The entity's id.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity.id()
    }

    /// Where the entity's data lives.
    #[inline]
    pub fn location(&self) -> EntityLocation {
        self.entity.location()
    }

    /// The entity's archetype.
    #[inline]
    pub fn archetype(&self) -> &Archetype {
        self.entity.archetype()
    }

    /// What this handle may read and write.
    #[inline]
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// A shorter-lived handle to the same entity.
    #[inline]
    pub fn reborrow(&mut self) -> FilteredEntityMut<'_, 's> {
        FilteredEntityMut {
            entity: self.entity.reborrow(),
            access: self.access.clone(),
            marker: PhantomData,
        }
    }

    /// A read-only handle borrowing this one.
    #[inline]
    pub fn as_readonly(&self) -> FilteredEntityRef<'_, 's> {
        // SAFETY: `&self` keeps this handle from writing meanwhile.
        unsafe { FilteredEntityRef::new(self.entity.as_readonly(), self.access.clone()) }
    }

    /// A read-only handle for the whole lifetime.
    #[inline]
    pub fn into_readonly(self) -> FilteredEntityRef<'w, 's> {
        // SAFETY: the handle is consumed, so nothing of it writes.
        unsafe { FilteredEntityRef::new(self.entity.into_readonly(), self.access) }
    }

    /// Whether the entity has component `T`.
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.entity.contains::<T>()
    }

    /// Whether the entity has the component `id`.
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        self.entity.contains_id(id)
    }

    /// The entity's component `T`, if it has it and the access allows
    /// reading it.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&T> {
        self.as_readonly().get::<T>()
    }

    /// [`FilteredEntityMut::get`] with change ticks.
    #[inline]
    pub fn get_ref<T: Component>(&self) -> Option<Ref<'_, T>> {
        self.as_readonly().get_ref::<T>()
    }

    /// A pointer to the entity's value of `id`, if it has it and the
    /// access allows reading it.
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Option<Ptr<'_>> {
        self.as_readonly().get_by_id(id)
    }

    /// The entity's component `T`, mutably, if it has it and the access
    /// allows writing it.
    #[inline]
    pub fn get_mut<T: Component>(&mut self) -> Option<Mut<'_, T>> {
        self.reborrow().into_mut::<T>()
    }

    /// Like [`FilteredEntityMut::get_mut`], for the handle's whole lifetime.
    #[inline]
    pub fn into_mut<T: Component>(self) -> Option<Mut<'w, T>> {
        let id = self.entity.world_components().component_id::<T>()?;
        if !self.access.has_write(id) {
            return None;
        }
        self.entity.into_mut::<T>()
    }

    /// The entity's value of `id`, mutably, if it has it and the access
    /// allows writing it.
    #[inline]
    pub fn get_mut_by_id(&mut self, id: ComponentId) -> Option<MutUntyped<'_>> {
        self.reborrow().into_mut_by_id(id)
    }

    /// Like [`FilteredEntityMut::get_mut_by_id`], for the handle's whole
    /// lifetime.
    #[inline]
    pub fn into_mut_by_id(self, id: ComponentId) -> Option<MutUntyped<'w>> {
        if !self.access.has_write(id) {
            return None;
        }
        self.entity.into_mut_by_id(id).ok()
    }
}

impl<'w, 's> From<FilteredEntityMut<'w, 's>> for FilteredEntityRef<'w, 's> {
    fn from(entity: FilteredEntityMut<'w, 's>) -> Self {
        entity.into_readonly()
    }
}
