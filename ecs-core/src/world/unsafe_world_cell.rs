use std::{cell::UnsafeCell, marker::PhantomData};

use super::{World, WorldId};
use crate::{
    archetype::Archetypes,
    bundle::Bundles,
    change_detection::{CountedTick, Tick},
    component::Components,
    entity::Entities,
    storage::Storages,
};

/// A world pointer that several borrowers (query fetches, systems running
/// in parallel) may hold at once, each touching only what its checked
/// access allows.
///
/// Reading the world's metadata (entities, archetypes, the storage
/// structure) through it is always fine while it is alive: those only
/// change through `&mut World`, which the cell's lifetime rules out. Values
/// and ticks inside columns are read and written through raw pointers and
/// `UnsafeCell`s; the caller of each `unsafe` method guarantees that no two
/// borrowers write, or read and write, the same component data at once.
#[derive(Clone, Copy)]
pub struct UnsafeWorldCell<'w>(*mut World, PhantomData<(&'w World, &'w UnsafeCell<World>)>);

// SAFETY: the cell hands out shared access to `World` data (which is
// `Sync`) and raw-pointer access whose exclusivity its unsafe callers
// guarantee.
unsafe impl Send for UnsafeWorldCell<'_> {}
// SAFETY: as above.
unsafe impl Sync for UnsafeWorldCell<'_> {}

impl<'w> UnsafeWorldCell<'w> {
    /// A cell that may only read.
    #[inline]
    pub fn new_readonly(world: &'w World) -> Self {
        UnsafeWorldCell(world as *const World as *mut World, PhantomData)
    }

    /// A cell that may read and write.
    #[inline]
    pub fn new_mutable(world: &'w mut World) -> Self {
        UnsafeWorldCell(world as *mut World, PhantomData)
    }

    /// The whole world, shared.
    ///
    /// # Safety
    /// No one may write any world data through this or another cell while
    /// the returned reference is used.
    #[inline]
    pub unsafe fn world(self) -> &'w World {
        // SAFETY: guaranteed by the caller.
        unsafe { &*self.0 }
    }

    /// The whole world, exclusively.
    ///
    /// # Safety
    /// The cell must come from [`UnsafeWorldCell::new_mutable`] and no other
    /// access to the world may exist while the reference is used.
    #[inline]
    pub unsafe fn world_mut(self) -> &'w mut World {
        // SAFETY: guaranteed by the caller.
        unsafe { &mut *self.0 }
    }

    /// The world, to read its metadata and to find the pointers to values
    /// (which are read or written only as the caller's access allows).
    #[inline]
    pub(crate) fn meta(self) -> &'w World {
        // SAFETY: the metadata reached through this (ids, entities,
        // archetypes, storage structure) only changes through `&mut World`,
        // which cannot exist while the cell's `'w` borrow is alive; shared
        // reads of it may overlap.
        unsafe { &*self.0 }
    }

    /// The world's command queue, exclusively.
    ///
    /// # Safety
    /// The cell comes from [`UnsafeWorldCell::new_mutable`] and nothing else
    /// reaches the world's command queue while the reference is used.
    #[inline]
    pub(crate) unsafe fn command_queue(self) -> &'w mut super::CommandQueue {
        // SAFETY: the queue sits in an `UnsafeCell`, which the shared borrow
        // of the one field taken here does not freeze; the cell's pointer
        // may write (`new_mutable`), and exclusivity is the caller's.
        unsafe { &mut *(*self.0).command_queue.as_ptr() }
    }

    /// The world's id.
    #[inline]
    pub fn id(self) -> WorldId {
        self.meta().id()
    }

    /// Whether a running `resource_scope` holds the resource of this type.
    pub(crate) fn resource_is_scoped(self, type_id: std::any::TypeId) -> bool {
        self.meta().scoped_resources.contains(&type_id)
    }

    /// The entity allocator.
    #[inline]
    pub fn entities(self) -> &'w Entities {
        &self.meta().entities
    }

    /// The archetypes.
    #[inline]
    pub fn archetypes(self) -> &'w Archetypes {
        &self.meta().archetypes
    }

    /// The component registry.
    #[inline]
    pub fn components(self) -> &'w Components {
        &self.meta().components
    }

    /// The removal messages of the tracked components.
    #[inline]
    pub fn removed_components(self) -> &'w crate::lifecycle::RemovedComponentMessages {
        &self.meta().removed_components
    }

    /// The bundle registry.
    #[inline]
    pub fn bundles(self) -> &'w Bundles {
        &self.meta().bundles
    }

    /// The storages.
    ///
    /// # Safety
    /// Through them the caller reads or writes only the values, ticks and
    /// resources it has access to (another system may be writing the
    /// rest at the same time); the layout (tables, columns, entity lists)
    /// may be read freely.
    #[inline]
    pub unsafe fn storages(self) -> &'w Storages {
        &self.meta().storages
    }

    /// The world's error handler (see
    /// [`World::fallback_error_handler`]).
    ///
    /// # Safety
    /// The caller holds read access to the
    /// [`FallbackErrorHandler`](crate::error::FallbackErrorHandler)
    /// resource.
    #[inline]
    pub unsafe fn fallback_error_handler(self) -> crate::error::ErrorHandler {
        use crate::error::FallbackErrorHandler;
        let id = self.components().resource_id::<FallbackErrorHandler>();
        // SAFETY: only that resource is read, which the caller may read.
        let ptr = id.and_then(|id| unsafe { self.storages() }.resources.get(id)?.get_data());
        // SAFETY: the storage of its id holds a `FallbackErrorHandler`,
        // which is `Copy`; nobody writes it meanwhile (caller).
        let handler = ptr.map(|ptr| unsafe { *ptr.cast::<FallbackErrorHandler>() });
        handler.unwrap_or_default().0
    }

    /// The current change tick.
    #[inline]
    pub fn change_tick(self) -> Tick {
        self.meta().change_tick()
    }

    /// The world's last change tick (the last `clear_trackers`).
    #[inline]
    pub fn last_change_tick(self) -> Tick {
        self.meta().last_change_tick()
    }

    /// Advances the change tick and returns the previous one.
    #[inline]
    pub fn increment_change_tick(self) -> Tick {
        self.meta().increment_change_tick()
    }

    /// `tick` (one taken since the world's last check) with its count on
    /// the clock that does not wrap.
    #[inline]
    pub(crate) fn counted_tick(self, tick: Tick) -> CountedTick {
        self.meta().counted_tick(tick)
    }
}
