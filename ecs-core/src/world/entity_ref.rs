use super::{EntityMut, UnsafeWorldCell, World};
use crate::{
    archetype::Archetype,
    bundle::{
        insert_bundle, remove_bundle, take_bundle, Bundle, BundleFromComponents, ComponentSink,
        DynamicBundle, InsertMode,
    },
    change_detection::{ComponentTicks, Mut, MutUntyped, Ref},
    component::{Component, ComponentId, Mutable, StorageType},
    entity::{Entity, EntityLocation},
    ptr::{OwningPtr, Ptr},
    resource::Resource,
    world::error::EntityComponentError,
};

/// `Debug` for entity handles: the entity's id, not the whole world.
macro_rules! debug_as_entity {
    ($($handle:ident),*) => {$(
        impl std::fmt::Debug for $handle<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($handle))
                    .field("entity", &self.entity)
                    .finish()
            }
        }
    )*};
}

debug_as_entity!(EntityRef, EntityWorldMut);

/// Shared access to one entity's components.
///
/// As query data (`Query<EntityRef>`) it reads every component of each
/// entity. It records a read of everything, resources included, where
/// bevy's records components only, because this crate's access sets do not
/// tell component ids from resource ids: beside a `ResMut` in one system it
/// is refused.
#[derive(Clone, Copy)]
pub struct EntityRef<'w> {
    world: &'w World,
    entity: Entity,
    location: EntityLocation,
}

impl<'w> EntityRef<'w> {
    #[inline]
    pub(crate) fn new(world: &'w World, entity: Entity, location: EntityLocation) -> Self {
        EntityRef {
            world,
            entity,
            location,
        }
    }

    /// The entity's id.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// A [`FilteredEntityRef`](super::FilteredEntityRef) that may read
    /// every component of the entity.
    #[inline]
    pub fn into_filtered(self) -> super::FilteredEntityRef<'w, 'static> {
        self.into()
    }

    /// Where the entity's data lives.
    #[inline]
    pub fn location(&self) -> EntityLocation {
        self.location
    }

    /// The entity's archetype.
    #[inline]
    pub fn archetype(&self) -> &'w Archetype {
        &self.world.archetypes[self.location.archetype_id]
    }

    /// The world the entity lives in.
    #[inline]
    pub(crate) fn world(&self) -> &'w World {
        self.world
    }

    /// Whether the entity has component `T`.
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.world
            .components
            .component_id::<T>()
            .is_some_and(|id| self.contains_id(id))
    }

    /// Whether the entity has the component `id`.
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        self.archetype().contains(id)
    }

    /// The world tick the entity was spawned at (see
    /// [`SpawnDetails`](crate::query::SpawnDetails)).
    #[inline]
    pub fn spawn_tick(&self) -> crate::change_detection::Tick {
        // SAFETY: the handle's entity is live.
        unsafe {
            self.world
                .entities
                .spawn_tick_unchecked(self.entity.index())
        }
    }

    /// Whether the entity has the component of Rust type `type_id`.
    #[inline]
    pub fn contains_type_id(&self, type_id: std::any::TypeId) -> bool {
        self.world
            .components
            .get_id(type_id)
            .is_some_and(|id| self.contains_id(id))
    }

    /// The entity's component `T`.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&'w T> {
        let id = self.world.components.component_id::<T>()?;
        let (ptr, _, _) =
            self.world
                .component_ptr(id, T::STORAGE_TYPE, self.entity, self.location)?;
        // SAFETY: the pointer is a valid `T` of this entity, and the shared
        // world borrow keeps it from being written for `'w`.
        Some(unsafe { &*ptr.cast::<T>() })
    }

    /// The entity's component `T` with its change ticks.
    ///
    /// # Panics
    /// If `T` is `#[component(no_change_ticks)]` (it keeps no change ticks).
    #[inline]
    #[track_caller]
    pub fn get_ref<T: Component>(&self) -> Option<Ref<'w, T>> {
        crate::component::assert_change_ticks::<T>("`get_ref`");
        let id = self.world.components.component_id::<T>()?;
        let (ptr, added, changed) =
            self.world
                .component_ptr(id, T::STORAGE_TYPE, self.entity, self.location)?;
        // SAFETY: as in `get`; tick cells are only written through
        // exclusive world access.
        unsafe {
            Some(Ref::new(
                &*ptr.cast::<T>(),
                &*added.get(),
                &*changed.get(),
                self.world.last_change_tick,
                self.world.change_tick(),
            ))
        }
    }

    /// When the entity's `T` was added and last changed.
    ///
    /// # Panics
    /// If `T` keeps no change ticks (`#[component(no_change_ticks)]`),
    /// naming it.
    #[inline]
    #[track_caller]
    pub fn get_change_ticks<T: Component>(&self) -> Option<ComponentTicks> {
        crate::component::assert_change_ticks::<T>("`get_change_ticks`");
        self.get_change_ticks_by_id(self.world.components.component_id::<T>()?)
    }

    /// When the entity's value of the component `id` was added and last
    /// changed (unspecified for a component that keeps no change ticks).
    #[inline]
    pub fn get_change_ticks_by_id(&self, id: ComponentId) -> Option<ComponentTicks> {
        let (_, added, changed) = self.component_cells(id)?;
        // SAFETY: tick cells are only written through exclusive world
        // access or a query's write access to the component, neither of
        // which lives beside this shared handle.
        unsafe {
            Some(ComponentTicks {
                added: *added.get(),
                changed: *changed.get(),
            })
        }
    }

    /// A pointer to the entity's value of the component `id` (for
    /// components with no Rust type, or whose type the caller knows only at
    /// run time).
    ///
    /// Bevy's also takes arrays and sets of ids; this one takes a single id,
    /// the form scripting layers use, as several reads need no alias check.
    ///
    /// # Errors
    /// [`EntityComponentError::MissingComponent`] if the entity has no
    /// component `id` (including an id this world never handed out).
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Result<Ptr<'w>, EntityComponentError> {
        let (ptr, _, _) = self
            .component_cells(id)
            .ok_or(EntityComponentError::MissingComponent(id))?;
        // SAFETY: the value is the entity's, valid while the world is
        // borrowed for `'w`, which also keeps it from being written.
        Ok(unsafe { Ptr::new(ptr) })
    }

    /// The value of `id` and its tick cells, if the entity has it.
    #[inline]
    pub(crate) fn component_cells(
        &self,
        id: ComponentId,
    ) -> Option<(
        std::ptr::NonNull<u8>,
        &'w std::cell::UnsafeCell<crate::change_detection::Tick>,
        &'w std::cell::UnsafeCell<crate::change_detection::Tick>,
    )> {
        let storage_type = self.archetype().get_storage_type(id)?;
        let (ptr, added, changed) =
            self.world
                .component_ptr(id, storage_type, self.entity, self.location)?;
        // Storage hands out dangling, aligned (never null) pointers for
        // zero-sized values.
        Some((std::ptr::NonNull::new(ptr)?, added, changed))
    }

    /// [`EntityRef::get_by_id`] as a mutable, change-detected access; an
    /// immutable component is refused as missing, as bevy does.
    ///
    /// # Safety
    /// The caller has exclusive access to the entity's value of `id` for
    /// `'w` (no other reference to it lives meanwhile).
    #[inline]
    pub(crate) unsafe fn get_mut_by_id_unchecked(
        &self,
        id: ComponentId,
    ) -> Result<MutUntyped<'w>, EntityComponentError> {
        if !self
            .world
            .components
            .get_info(id)
            .is_some_and(|info| info.mutable())
        {
            return Err(EntityComponentError::MissingComponent(id));
        }
        // SAFETY: forwarded; the component is mutable.
        unsafe { self.get_mut_assume_mutable_by_id_unchecked(id) }
    }

    /// [`EntityRef::get_mut_by_id_unchecked`] without the mutability check.
    ///
    /// # Safety
    /// As for [`EntityRef::get_mut_by_id_unchecked`], and the value is only
    /// changed in ways its component allows (an immutable one's hooks run
    /// around the change).
    #[inline]
    pub(crate) unsafe fn get_mut_assume_mutable_by_id_unchecked(
        &self,
        id: ComponentId,
    ) -> Result<MutUntyped<'w>, EntityComponentError> {
        let (ptr, added, changed) = self
            .component_cells(id)
            .ok_or(EntityComponentError::MissingComponent(id))?;
        // SAFETY: the value and its ticks are the entity's, exclusively
        // borrowed for `'w` (caller).
        unsafe {
            Ok(MutUntyped::new(
                crate::ptr::PtrMut::new(ptr),
                &mut *added.get(),
                &mut *changed.get(),
                self.world.last_change_tick,
                self.world.change_tick(),
            ))
        }
    }
}

#[cold]
#[track_caller]
fn despawned_meanwhile(world: &World, entity: Entity) -> ! {
    if world.entities.get(entity).is_some() {
        panic!("entity {entity:?}: a change through this handle panicked (in a hook, an observer or a command they queued), so the handle no longer knows where the entity is; get a new one with `World::entity_mut`")
    }
    panic!("entity {entity:?} was despawned (by a command a hook or observer queued); this handle can no longer change it")
}

/// A bundle of components given by id and pointer, in the bundle's order.
struct DynamicComponents {
    storage_types: Vec<StorageType>,
    values: Vec<*mut u8>,
}

impl DynamicBundle for DynamicComponents {
    #[inline]
    fn get_components(self, sink: &mut impl ComponentSink) {
        for (storage_type, value) in self.storage_types.into_iter().zip(self.values) {
            // SAFETY: whoever builds a `DynamicComponents` (`insert_by_ids`,
            // whose caller guarantees it) gives owned, valid values of the
            // bundle's components in order, of those storage types; each is
            // handed out once.
            unsafe { sink.put_ptr(storage_type, value) }
        }
    }
}

/// Exclusive access to one entity: read, write, insert, remove, despawn.
pub struct EntityWorldMut<'w> {
    pub(super) world: &'w mut World,
    entity: Entity,
    location: EntityLocation,
}

impl<'w> EntityWorldMut<'w> {
    #[inline]
    pub(crate) fn new(world: &'w mut World, entity: Entity, location: EntityLocation) -> Self {
        EntityWorldMut {
            world,
            entity,
            location,
        }
    }

    #[inline]
    #[track_caller]
    fn as_ref(&self) -> EntityRef<'_> {
        self.assert_not_despawned();
        EntityRef::new(self.world, self.entity, self.location)
    }

    /// A read-only handle to the entity, for this borrow.
    ///
    /// # Panics
    /// If the entity was despawned (by a command a hook or observer
    /// queued).
    #[inline]
    #[track_caller]
    pub fn as_readonly(&self) -> EntityRef<'_> {
        self.as_ref()
    }

    /// A read-only handle to the entity, for the handle's whole lifetime.
    ///
    /// # Panics
    /// As for [`EntityWorldMut::as_readonly`].
    #[inline]
    #[track_caller]
    pub fn into_readonly(self) -> EntityRef<'w> {
        self.assert_not_despawned();
        EntityRef::new(self.world, self.entity, self.location)
    }

    /// The entity's `T`, with the handle's full lifetime.
    ///
    /// # Panics
    /// If the entity was despawned.
    #[inline]
    #[track_caller]
    pub fn into_borrow<T: Component>(self) -> Option<&'w T> {
        self.into_readonly().get::<T>()
    }

    /// The entity's `T` with its change ticks, with the handle's full
    /// lifetime.
    ///
    /// # Panics
    /// If the entity was despawned, or `T` keeps no change ticks.
    #[inline]
    #[track_caller]
    pub fn into_ref<T: Component>(self) -> Option<Ref<'w, T>> {
        self.into_readonly().get_ref::<T>()
    }

    /// A handle that reads and writes the entity's values but changes no
    /// archetype, for this borrow.
    ///
    /// # Panics
    /// As for [`EntityWorldMut::as_readonly`].
    #[inline]
    #[track_caller]
    pub fn as_mutable(&mut self) -> EntityMut<'_> {
        EntityWorldMut::new(&mut *self.world, self.entity, self.location).into_mutable()
    }

    /// [`EntityWorldMut::as_mutable`] for the handle's whole lifetime.
    ///
    /// # Panics
    /// As for [`EntityWorldMut::as_readonly`].
    #[inline]
    #[track_caller]
    pub fn into_mutable(self) -> EntityMut<'w> {
        self.assert_not_despawned();
        // SAFETY: the location is current (checked), and the consumed
        // handle borrowed the world exclusively for `'w`, so nothing else
        // moves the entity or reaches its values while the new one lives.
        unsafe {
            EntityMut::new(
                UnsafeWorldCell::new_mutable(self.world),
                self.entity,
                self.location,
            )
        }
    }

    /// The entity's id.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Where the entity's data lives.
    ///
    /// # Panics
    /// If the entity was despawned (by this handle, or by a hook, observer
    /// or command an operation through it ran).
    #[inline]
    #[track_caller]
    pub fn location(&self) -> EntityLocation {
        self.assert_not_despawned();
        self.location
    }

    /// The entity's archetype.
    #[inline]
    #[track_caller]
    pub fn archetype(&self) -> &Archetype {
        self.assert_not_despawned();
        &self.world.archetypes[self.location.archetype_id]
    }

    /// The world, read-only.
    #[inline]
    pub fn world(&self) -> &World {
        self.world
    }

    /// The world, mutably, with the handle kept.
    ///
    /// # Safety
    /// Whatever `&mut World` does that moves or despawns this entity, call
    /// [`EntityWorldMut::update_location`] before using the handle again.
    #[inline]
    pub unsafe fn world_mut(&mut self) -> &mut World {
        self.world
    }

    /// Reads the entity's location from the world again (after
    /// [`EntityWorldMut::world_mut`]); a despawned entity leaves the handle
    /// reporting [`EntityWorldMut::is_despawned`].
    #[inline]
    pub fn update_location(&mut self) {
        self.location = self
            .world
            .entities
            .get(self.entity)
            .unwrap_or(EntityLocation::INVALID);
    }

    /// The resource `R`.
    ///
    /// # Panics
    /// If it does not exist, naming it.
    #[inline]
    #[track_caller]
    pub fn resource<R: Resource>(&self) -> &R {
        self.world.resource::<R>()
    }

    /// The resource `R`, mutably.
    ///
    /// # Panics
    /// If it does not exist, naming it.
    #[inline]
    #[track_caller]
    pub fn resource_mut<R: Resource>(&mut self) -> Mut<'_, R> {
        self.world.resource_mut::<R>()
    }

    /// Takes the resource `R` out of the world, runs `f` with this handle
    /// and the resource, and puts it back (see [`World::resource_scope`]).
    ///
    /// # Panics
    /// If `R` does not exist, naming it; and if `f` despawned the entity.
    #[track_caller]
    pub fn resource_scope<R: Resource, U>(
        &mut self,
        f: impl FnOnce(&mut EntityWorldMut, Mut<R>) -> U,
    ) -> U {
        let entity = self.entity;
        self.world_scope(|world| {
            world.resource_scope(|world, resource: Mut<R>| {
                let mut this = world.entity_mut(entity);
                f(&mut this, resource)
            })
        })
    }

    /// [`EntityWorldMut::resource_scope`] if `R` exists; `None` (and no
    /// call) otherwise.
    pub fn try_resource_scope<R: Resource, U>(
        &mut self,
        f: impl FnOnce(&mut EntityWorldMut, Mut<R>) -> U,
    ) -> Option<U> {
        if self.world.contains_resource::<R>() {
            Some(self.resource_scope(f))
        } else {
            None
        }
    }

    /// Runs `f` with a second handle to the entity, borrowing this one;
    /// this handle follows the entity wherever `f` moved it.
    ///
    /// # Panics
    /// If the entity was despawned (before the call, or by `f`).
    pub fn reborrow_scope<U>(&mut self, f: impl FnOnce(EntityWorldMut) -> U) -> U {
        let entity = self.entity;
        self.world_scope(|world| f(world.entity_mut(entity)))
    }

    /// Commands for the entity, queued on the world's queue: they apply at
    /// the next structural change or [`World::flush`].
    pub fn entity_commands(&mut self) -> crate::system::EntityCommands<'_> {
        let entity = self.entity;
        crate::system::EntityCommands::from_parts(entity, self.world.commands())
    }

    /// The resource `R`, if it exists.
    #[inline]
    pub fn get_resource<R: Resource>(&self) -> Option<&R> {
        self.world.get_resource::<R>()
    }

    /// The resource `R`, mutably, if it exists.
    #[inline]
    pub fn get_resource_mut<R: Resource>(&mut self) -> Option<Mut<'_, R>> {
        self.world.get_resource_mut::<R>()
    }

    /// Whether the entity has component `T`.
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        self.as_ref().contains::<T>()
    }

    /// Whether the entity has the component `id`.
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        self.as_ref().contains_id(id)
    }

    /// Whether the entity has the component of Rust type `type_id`.
    #[inline]
    pub fn contains_type_id(&self, type_id: std::any::TypeId) -> bool {
        self.as_ref().contains_type_id(type_id)
    }

    /// The world tick the entity was spawned at.
    ///
    /// # Panics
    /// If the entity was despawned.
    #[inline]
    #[track_caller]
    pub fn spawn_tick(&self) -> crate::change_detection::Tick {
        self.as_ref().spawn_tick()
    }

    /// When the entity's `T` was added and last changed.
    ///
    /// # Panics
    /// As for [`EntityRef::get_change_ticks`], and if the entity was
    /// despawned.
    #[inline]
    #[track_caller]
    pub fn get_change_ticks<T: Component>(&self) -> Option<ComponentTicks> {
        self.as_ref().get_change_ticks::<T>()
    }

    /// When the entity's value of the component `id` was added and last
    /// changed.
    #[inline]
    #[track_caller]
    pub fn get_change_ticks_by_id(&self, id: ComponentId) -> Option<ComponentTicks> {
        self.as_ref().get_change_ticks_by_id(id)
    }

    /// The entity's component `T`.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&T> {
        self.as_ref().get::<T>()
    }

    /// The entity's component `T` with its change ticks.
    ///
    /// # Panics
    /// If `T` is `#[component(no_change_ticks)]` (it keeps no change ticks).
    #[inline]
    #[track_caller]
    pub fn get_ref<T: Component>(&self) -> Option<Ref<'_, T>> {
        self.as_ref().get_ref::<T>()
    }

    /// A pointer to the entity's value of the component `id`; see
    /// [`EntityRef::get_by_id`].
    ///
    /// # Errors
    /// If the entity has no component `id`.
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Result<Ptr<'_>, EntityComponentError> {
        self.as_ref().get_by_id(id)
    }

    /// The entity's value of the component `id`, mutably; writing through
    /// it marks it changed.
    ///
    /// # Errors
    /// If the entity has no component `id`, or it is
    /// [`Immutable`](crate::component::Immutable) (as bevy does, reported
    /// as missing; change it with [`EntityWorldMut::modify_component_by_id`]).
    #[inline]
    #[track_caller]
    pub fn get_mut_by_id(
        &mut self,
        id: ComponentId,
    ) -> Result<MutUntyped<'_>, EntityComponentError> {
        // SAFETY: `&mut self` borrows the whole world exclusively.
        unsafe { self.as_ref().get_mut_by_id_unchecked(id) }
    }

    /// Like [`EntityWorldMut::get_mut_by_id`], borrowing for the handle's
    /// whole lifetime.
    ///
    /// # Errors
    /// If the entity has no component `id`, or it is immutable.
    #[inline]
    #[track_caller]
    pub fn into_mut_by_id(self, id: ComponentId) -> Result<MutUntyped<'w>, EntityComponentError> {
        self.assert_not_despawned();
        let entity = EntityRef::new(self.world, self.entity, self.location);
        // SAFETY: the handle, consumed here, borrowed the world exclusively
        // for `'w`.
        unsafe { entity.get_mut_by_id_unchecked(id) }
    }

    /// The entity's component `T`, mutably; writing marks it changed.
    #[inline]
    #[track_caller]
    pub fn get_mut<T: Component<Mutability = Mutable>>(&mut self) -> Option<Mut<'_, T>> {
        self.assert_not_despawned();
        // SAFETY: `self.location` is kept current by every method here.
        unsafe { self.world.get_mut_at::<T>(self.entity, self.location) }
    }

    /// Like [`EntityWorldMut::get_mut`], borrowing for the handle's whole
    /// lifetime.
    #[inline]
    #[track_caller]
    pub fn into_mut<T: Component<Mutability = Mutable>>(self) -> Option<Mut<'w, T>> {
        self.assert_not_despawned();
        // SAFETY: as in `get_mut`.
        unsafe { self.world.get_mut_at::<T>(self.entity, self.location) }
    }

    /// [`EntityWorldMut::get_mut`] for a component `T` that may be
    /// [`Immutable`](crate::component::Immutable).
    ///
    /// # Safety
    /// If `T` is immutable, the value is not changed through the result,
    /// or changed only as replacing it would (its `on_discard` and
    /// `on_insert` hooks and observers run around the change, as
    /// [`EntityWorldMut::modify_component`] does).
    #[inline]
    #[track_caller]
    pub unsafe fn get_mut_assume_mutable<T: Component>(&mut self) -> Option<Mut<'_, T>> {
        self.assert_not_despawned();
        // SAFETY: as in `get_mut`; a change to an immutable value is the
        // caller's to make right.
        unsafe { self.world.get_mut_at::<T>(self.entity, self.location) }
    }

    /// [`EntityWorldMut::get_mut_assume_mutable`], borrowing for the
    /// handle's whole lifetime.
    ///
    /// # Safety
    /// As for [`EntityWorldMut::get_mut_assume_mutable`].
    #[inline]
    #[track_caller]
    pub unsafe fn into_mut_assume_mutable<T: Component>(self) -> Option<Mut<'w, T>> {
        self.assert_not_despawned();
        // SAFETY: as in `get_mut_assume_mutable`.
        unsafe { self.world.get_mut_at::<T>(self.entity, self.location) }
    }

    /// [`EntityWorldMut::get_mut_by_id`] for a component that may be
    /// immutable.
    ///
    /// # Errors
    /// If the entity has no component `id`.
    ///
    /// # Safety
    /// As for [`EntityWorldMut::get_mut_assume_mutable`].
    #[inline]
    #[track_caller]
    pub unsafe fn get_mut_assume_mutable_by_id(
        &mut self,
        id: ComponentId,
    ) -> Result<MutUntyped<'_>, EntityComponentError> {
        // SAFETY: `&mut self` borrows the whole world exclusively; a
        // change to an immutable value is the caller's to make right.
        unsafe { self.as_ref().get_mut_assume_mutable_by_id_unchecked(id) }
    }

    /// [`EntityWorldMut::get_mut_assume_mutable_by_id`], borrowing for the
    /// handle's whole lifetime.
    ///
    /// # Errors
    /// If the entity has no component `id`.
    ///
    /// # Safety
    /// As for [`EntityWorldMut::get_mut_assume_mutable`].
    #[inline]
    #[track_caller]
    pub unsafe fn into_mut_assume_mutable_by_id(
        self,
        id: ComponentId,
    ) -> Result<MutUntyped<'w>, EntityComponentError> {
        self.assert_not_despawned();
        let entity = EntityRef::new(self.world, self.entity, self.location);
        // SAFETY: the handle, consumed here, borrowed the world exclusively
        // for `'w`; a change to an immutable value is the caller's to make
        // right.
        unsafe { entity.get_mut_assume_mutable_by_id_unchecked(id) }
    }

    /// Before a structural change: entities reserved through `&World`
    /// meanwhile are flushed (which never moves live entities), and a
    /// despawned entity is refused.
    #[inline]
    #[track_caller]
    pub(super) fn refresh_location(&mut self) {
        self.world.flush_entities();
        self.assert_not_despawned();
        debug_assert_eq!(self.world.entities.get(self.entity), Some(self.location));
    }

    #[inline]
    #[track_caller]
    fn assert_not_despawned(&self) {
        if self.location.archetype_id == crate::archetype::ArchetypeId::INVALID {
            despawned_meanwhile(self.world, self.entity);
        }
    }

    /// After a structural change: applies the commands hooks and observers
    /// queued, then re-reads the location (those commands may have moved,
    /// or despawned, the entity).
    #[inline]
    fn after_change(&mut self) {
        if !self.world.command_queue.get_mut().is_empty() {
            // No location while the commands run: if one panics, the
            // handle must not keep a row another command moved it from.
            self.location = EntityLocation::INVALID;
            self.world.flush_commands();
            self.location = self
                .world
                .entities
                .get(self.entity)
                .unwrap_or(EntityLocation::INVALID);
        }
    }

    /// Runs the structural change `change`, which returns what it yields
    /// and the entity's new location, then [`Self::after_change`].
    ///
    /// The handle holds no location while the change runs. If anything in
    /// it panics (a hook, an observer, a command they queued) and the panic
    /// is caught, the handle is left without one, so every later use
    /// panics naming the entity instead of reaching a row the entity may
    /// have left. (A guard re-reading the location while unwinding costs
    /// every structural change its landing pad.)
    #[inline(always)]
    pub(super) fn relocate<R>(
        &mut self,
        change: impl FnOnce(&mut World, Entity, EntityLocation) -> (R, EntityLocation),
    ) -> R {
        let at = std::mem::replace(&mut self.location, EntityLocation::INVALID);
        let (out, location) = change(self.world, self.entity, at);
        self.location = location;
        self.after_change();
        out
    }

    /// Whether the entity was despawned (by a command a hook or observer
    /// queued during this handle's last operation).
    /// (After a caught panic in a change through this handle, the handle
    /// has no location, but the entity may live on: this asks the world.)
    #[inline]
    pub fn is_despawned(&self) -> bool {
        self.location.archetype_id == crate::archetype::ArchetypeId::INVALID
            && self.world.entities.get(self.entity).is_none()
    }

    /// Where the entity's data lives, or `None` if it was despawned (by a
    /// command a hook or observer queued).
    #[inline]
    pub fn try_location(&self) -> Option<EntityLocation> {
        (self.location.archetype_id != crate::archetype::ArchetypeId::INVALID)
            .then_some(self.location)
    }

    /// The entity's archetype, or `None` if it was despawned.
    #[inline]
    pub fn try_archetype(&self) -> Option<&Archetype> {
        self.try_location()
            .map(|location| &self.world.archetypes[location.archetype_id])
    }

    /// Whether the handle still reaches a spawned entity (bevy's
    /// `try_location().is_some()`): false after the entity was despawned,
    /// and after a caught panic in a change through this handle, which
    /// leaves it without a location (see [`EntityWorldMut::is_despawned`]).
    #[inline]
    pub fn is_spawned(&self) -> bool {
        self.try_location().is_some()
    }

    /// Inserts the components of `bundle`, replacing (and dropping) values
    /// the entity already has.
    #[track_caller]
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.insert_with_mode(bundle, InsertMode::Replace)
    }

    /// Inserts the components of `bundle` the entity does not have yet; the
    /// others keep their values (the new ones are dropped).
    #[track_caller]
    pub fn insert_if_new<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.insert_with_mode(bundle, InsertMode::Keep)
    }

    #[inline]
    #[track_caller]
    fn insert_with_mode<B: Bundle>(&mut self, bundle: B, mode: InsertMode) -> &mut Self {
        self.refresh_location();
        let bundle_id = self
            .world
            .bundles
            .register_info::<B>(&mut self.world.components);
        self.relocate(|world, entity, at| {
            // SAFETY: the location is current and the world flushed.
            let to = unsafe { insert_bundle(world, entity, at, bundle_id, bundle, mode) };
            ((), to)
        });
        self
    }

    /// Inserts one value of the component `id` (a component registered from
    /// a descriptor, possibly with no Rust type), replacing (and dropping)
    /// the value the entity already has.
    ///
    /// # Safety
    /// `id` is one of this world's components and `component` points to a
    /// valid value of it, whose ownership moves into the world.
    ///
    /// # Panics
    /// If `id` is not a registered component.
    #[track_caller]
    pub unsafe fn insert_by_id(&mut self, id: ComponentId, component: OwningPtr<'_>) -> &mut Self {
        // SAFETY: forwarded.
        unsafe { self.insert_by_ids(&[id], std::iter::once(component)) }
    }

    /// Inserts one value for each component of `ids`, taken in order from
    /// `components`, as one bundle (one archetype move).
    ///
    /// # Safety
    /// Every id is one of this world's components, and `components` yields,
    /// in the order of `ids`, a valid value of each, whose ownership moves
    /// into the world.
    ///
    /// # Panics
    /// If an id is not a registered component, appears twice, or
    /// `components` yields a different number of values than `ids` has
    /// (then no value is taken: the caller still owns them).
    #[track_caller]
    pub unsafe fn insert_by_ids<'a, I: Iterator<Item = OwningPtr<'a>>>(
        &mut self,
        ids: &[ComponentId],
        components: I,
    ) -> &mut Self {
        self.refresh_location();
        let storage_types: Vec<StorageType> = ids
            .iter()
            .map(|&id| match self.world.components.get_info(id) {
                Some(info) => info.storage_type(),
                None => panic!("component {id:?} is not registered in this world"),
            })
            .collect();
        let values: Vec<*mut u8> = components.map(|ptr| ptr.as_ptr()).collect();
        assert_eq!(
            values.len(),
            ids.len(),
            "insert_by_ids: {} component ids but {} values",
            ids.len(),
            values.len()
        );
        let bundle_id = self
            .world
            .bundles
            .register_dynamic(ids, &self.world.components);
        let bundle = DynamicComponents {
            storage_types,
            values,
        };
        self.relocate(|world, entity, location| {
            // SAFETY: the location is current; the caller guarantees each
            // value is an owned value of its id, in the bundle's order.
            let location = unsafe {
                insert_bundle(
                    world,
                    entity,
                    location,
                    bundle_id,
                    bundle,
                    InsertMode::Replace,
                )
            };
            ((), location)
        });
        self
    }

    /// Removes the components of `B` that the entity has (dropping them);
    /// the rest of `B` is ignored.
    #[track_caller]
    pub fn remove<B: Bundle>(&mut self) -> &mut Self {
        self.refresh_location();
        let bundle_id = self
            .world
            .bundles
            .register_info::<B>(&mut self.world.components);
        self.relocate(|world, entity, location| {
            // SAFETY: the location is current and the world flushed.
            ((), unsafe {
                remove_bundle(world, entity, location, bundle_id)
            })
        });
        self
    }

    /// Removes the component `id` if the entity has it (dropping it).
    ///
    /// # Panics
    /// If `id` is not a registered component.
    #[track_caller]
    pub fn remove_by_id(&mut self, id: ComponentId) -> &mut Self {
        self.refresh_location();
        assert!(
            self.world.components.get_info(id).is_some(),
            "component {id:?} is not registered in this world"
        );
        let bundle_id = self
            .world
            .bundles
            .register_dynamic(&[id], &self.world.components);
        self.relocate(|world, entity, location| {
            // SAFETY: the location is current and the world flushed.
            ((), unsafe {
                remove_bundle(world, entity, location, bundle_id)
            })
        });
        self
    }

    /// Removes the components `ids` the entity has (hooks and observers
    /// run as for [`EntityWorldMut::remove`]), in one move.
    ///
    /// # Panics
    /// If an id is not a registered component, or is named twice.
    #[track_caller]
    pub fn remove_by_ids(&mut self, ids: &[ComponentId]) -> &mut Self {
        self.refresh_location();
        if let Some(id) = ids
            .iter()
            .find(|&&id| self.world.components.get_info(id).is_none())
        {
            panic!("component {id:?} is not registered in this world");
        }
        let bundle_id = self
            .world
            .bundles
            .register_dynamic(ids, &self.world.components);
        self.relocate(|world, entity, location| {
            // SAFETY: the location is current and the world flushed.
            ((), unsafe {
                remove_bundle(world, entity, location, bundle_id)
            })
        });
        self
    }

    /// Removes every component of the entity, which stays spawned and
    /// empty (hooks and observers run as for [`EntityWorldMut::remove`]).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Speed(f32);
    ///
    /// let mut world = World::new();
    /// let mut e = world.spawn((Speed(1.0), Name::new("runner")));
    /// e.clear();
    /// assert!(!e.contains::<Speed>() && !e.contains::<Name>());
    /// assert!(e.is_spawned());
    /// ```
    #[track_caller]
    pub fn clear(&mut self) -> &mut Self {
        self.refresh_location();
        let ids: Vec<ComponentId> = self.world.archetypes[self.location.archetype_id]
            .components()
            .collect();
        if ids.is_empty() {
            return self;
        }
        self.remove_by_ids(&ids)
    }

    /// Moves the components of `B` out of the entity, if it has all of
    /// them; otherwise returns `None` and changes nothing.
    #[track_caller]
    pub fn take<B: Bundle + BundleFromComponents>(&mut self) -> Option<B> {
        self.refresh_location();
        let bundle_id = self
            .world
            .bundles
            .register_info::<B>(&mut self.world.components);
        self.relocate(|world, entity, location| {
            // SAFETY: the location is current, the world flushed, and
            // `bundle_id` is `B`'s.
            match unsafe { take_bundle::<B>(world, entity, location, bundle_id) } {
                Some((bundle, location)) => (Some(bundle), location),
                // Nothing taken, nothing moved.
                None => (None, location),
            }
        })
    }

    /// Despawns the entity, dropping its components (nothing happens if a
    /// hook's command despawned it already).
    pub fn despawn(self) {
        if !self.is_despawned() {
            self.world.despawn(self.entity);
        }
    }

    /// The world, mutably. The handle's location stays valid only if the
    /// entity is not moved or despawned meanwhile; it is re-read after the
    /// closure.
    ///
    /// # Panics
    /// If the closure despawned the entity; the message names it.
    #[track_caller]
    pub fn world_scope<U>(&mut self, f: impl FnOnce(&mut World) -> U) -> U {
        // `relocate` applies the commands the closure queued, as after any
        // structural change.
        let result = self.relocate(|world, entity, _| {
            let result = f(world);
            world.flush_entities();
            let location = world
                .entities
                .get(entity)
                .unwrap_or(EntityLocation::INVALID);
            (result, location)
        });
        if self.is_despawned() {
            panic!(
                "entity {:?} was despawned inside `EntityWorldMut::world_scope`",
                self.entity
            );
        }
        result
    }

    /// [`EntityWorldMut::world_scope`] that lets `f` (or the commands it
    /// queued) despawn the entity: the handle then reports
    /// [`EntityWorldMut::is_despawned`].
    pub(crate) fn world_scope_despawnable<U>(&mut self, f: impl FnOnce(&mut World) -> U) -> U {
        self.relocate(|world, entity, _| {
            let result = f(world);
            world.flush_entities();
            let location = world
                .entities
                .get(entity)
                .unwrap_or(EntityLocation::INVALID);
            (result, location)
        })
    }

    /// Flushes the world ([`World::flush`]: reserved entities become live
    /// and the world's queued commands apply), giving up the handle, and
    /// returns the entity's id: those commands may move or despawn it.
    ///
    /// # Panics
    /// If a queued command panics; see [`World::flush_commands`].
    pub fn flush(self) -> Entity {
        self.world.flush();
        self.entity
    }

    /// Gives up the entity handle, returning the world borrow.
    #[inline]
    pub fn into_world_mut(self) -> &'w mut World {
        self.world
    }
}
