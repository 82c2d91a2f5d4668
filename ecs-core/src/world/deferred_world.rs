use super::{EntityRef, World};
use crate::{
    change_detection::Mut,
    component::{Component, Mutable},
    entity::{Entity, EntityNotSpawnedError},
    resource::Resource,
};

/// The world as hooks and observers see it: values can be read and written
/// and commands queued, but no archetype can change (no spawn, insert,
/// remove or despawn). Commands queued here are applied right after the
/// operation that ran the hook.
///
/// [`DeferredWorld::commands`] is defined with [`Commands`](crate::system::Commands)
/// in `system`, so that the world knows nothing of the layer above it.
pub struct DeferredWorld<'w> {
    world: &'w mut World,
}

/// A deferred view of a whole world: commands queued through it wait in
/// the world's queue until the next structural change or
/// [`World::flush`].
impl<'w> From<&'w mut World> for DeferredWorld<'w> {
    fn from(world: &'w mut World) -> DeferredWorld<'w> {
        DeferredWorld::new(world)
    }
}

/// A shorter-lived handle to the same world, as
/// [`DeferredWorld::reborrow`].
impl<'w> From<&'w mut DeferredWorld<'_>> for DeferredWorld<'w> {
    fn from(world: &'w mut DeferredWorld<'_>) -> DeferredWorld<'w> {
        world.reborrow()
    }
}

impl<'w> DeferredWorld<'w> {
    #[inline]
    pub(crate) fn new(world: &'w mut World) -> Self {
        DeferredWorld { world }
    }

    /// The whole world, for crate-internal bookkeeping that changes no
    /// archetype.
    #[inline]
    pub(crate) fn world_mut_internal(&mut self) -> &mut World {
        self.world
    }

    /// The world, read-only.
    #[inline]
    pub fn world(&self) -> &World {
        self.world
    }

    /// A shorter-lived handle to the same world.
    #[inline]
    pub fn reborrow(&mut self) -> DeferredWorld<'_> {
        DeferredWorld { world: self.world }
    }

    /// The world's current change tick.
    #[inline]
    pub fn change_tick(&self) -> crate::change_detection::Tick {
        self.world.change_tick()
    }

    /// An entity's component.
    #[inline]
    pub fn get<T: Component>(&self, entity: Entity) -> Option<&T> {
        self.world.get::<T>(entity)
    }

    /// The non-send resource `R`, mutably.
    ///
    /// # Panics
    /// If it does not exist, or belongs to another thread; the message
    /// names `R`.
    #[inline]
    #[track_caller]
    pub fn non_send_mut<R: 'static>(&mut self) -> Mut<'_, R> {
        self.world.non_send_mut::<R>()
    }

    /// The non-send resource `R`, mutably, if it exists.
    ///
    /// # Panics
    /// If it exists and belongs to another thread.
    #[inline]
    #[track_caller]
    pub fn get_non_send_mut<R: 'static>(&mut self) -> Option<Mut<'_, R>> {
        self.world.get_non_send_mut::<R>()
    }

    /// The value of the non-send resource `component_id`, mutably.
    ///
    /// # Panics
    /// As [`DeferredWorld::get_non_send_mut`].
    #[inline]
    #[track_caller]
    pub fn get_non_send_mut_by_id(
        &mut self,
        component_id: crate::component::ComponentId,
    ) -> Option<crate::change_detection::MutUntyped<'_>> {
        self.world.get_non_send_mut_by_id(component_id)
    }

    /// The value of the resource `component_id`, mutably (marks it changed
    /// when written through), if it exists.
    #[inline]
    pub fn get_resource_mut_by_id(
        &mut self,
        component_id: crate::component::ComponentId,
    ) -> Option<crate::change_detection::MutUntyped<'_>> {
        self.world.get_resource_mut_by_id(component_id)
    }

    /// An entity's value of the component `id`, mutably (marks it changed
    /// when written through); `None` if the entity is gone, lacks it, or
    /// the component is [`Immutable`](crate::component::Immutable).
    #[inline]
    pub fn get_mut_by_id(
        &mut self,
        entity: Entity,
        id: crate::component::ComponentId,
    ) -> Option<crate::change_detection::MutUntyped<'_>> {
        self.world.get_mut_by_id(entity, id)
    }

    /// An entity's component, mutably (marks it changed when written).
    #[inline]
    pub fn get_mut<T: Component<Mutability = Mutable>>(
        &mut self,
        entity: Entity,
    ) -> Option<Mut<'_, T>> {
        self.world.get_mut::<T>(entity)
    }

    /// A read-only handle to an entity.
    ///
    /// # Errors
    /// [`EntityNotSpawnedError`] if the entity is not spawned, naming it
    /// and why.
    #[inline]
    pub fn get_entity(&self, entity: Entity) -> Result<EntityRef<'_>, EntityNotSpawnedError> {
        self.world.get_entity(entity)
    }

    /// A read-only handle to an entity.
    ///
    /// # Panics
    /// If the entity does not exist, naming it.
    #[inline]
    #[track_caller]
    pub fn entity(&self, entity: Entity) -> EntityRef<'_> {
        self.world.entity(entity)
    }

    /// A resource.
    ///
    /// # Panics
    /// If it does not exist, naming it.
    #[inline]
    #[track_caller]
    pub fn resource<R: Resource>(&self) -> &R {
        self.world.resource::<R>()
    }

    /// A resource, mutably.
    ///
    /// # Panics
    /// If it does not exist, naming it.
    #[inline]
    #[track_caller]
    pub fn resource_mut<R: Resource>(&mut self) -> Mut<'_, R> {
        self.world.resource_mut::<R>()
    }

    /// A resource, if it exists.
    #[inline]
    pub fn get_resource<R: Resource>(&self) -> Option<&R> {
        self.world.get_resource::<R>()
    }

    /// A resource, mutably, if it exists.
    #[inline]
    pub fn get_resource_mut<R: Resource>(&mut self) -> Option<Mut<'_, R>> {
        self.world.get_resource_mut::<R>()
    }
}
