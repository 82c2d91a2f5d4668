//! The [`World`]: every entity, component, resource and the storage behind
//! them.
//!
//! Structural changes (spawn, insert, remove, despawn) go through the
//! [`World`] or an [`EntityWorldMut`]; each resolves the bundle to a cached
//! archetype edge and moves the entity's row once.
//!
//! The [`CommandQueue`] lives here: it is bound to one world and applied to
//! it. `Commands`, the system parameter that fills it, sits in `system`.

mod bulk;
mod command_queue;
mod deferred_world;
mod entity_clone;
mod entity_except;
mod entity_fetch;
mod entity_filtered;
mod entity_mut;
mod entity_ref;
mod entity_remove;
mod entry;
pub mod error;
mod from_world;
mod insert_batch;
mod inspect;
mod modify;
pub(crate) mod relocation;
mod resources;
#[cfg(feature = "serde")]
pub mod save;
mod snapshot;
mod spawn_batch;
/// [`UnsafeWorldCell`]: shared access to a [`World`] whose borrows the caller splits by hand.
pub mod unsafe_world_cell;

// Bevy's paths for items defined in other modules.
pub use crate::change_detection::{Mut, Ref, CHECK_TICK_THRESHOLD};
pub use crate::system::{
    FilteredResources, FilteredResourcesBuilder, FilteredResourcesMut, FilteredResourcesMutBuilder,
};

pub use crate::diagnostics::{
    ArchetypeSummary, ColumnSummary, ComponentSummary, FragmentationThresholds,
    FragmentationWarning, InspectionTotals, SparseSetSummary, TableSummary, WorldInspection,
};
pub use command_queue::{Command, CommandQueue};
pub(crate) use command_queue::{CommandCursor, CommandRun, RunEntries};
pub use deferred_world::DeferredWorld;
pub use entity_except::{EntityMutExcept, EntityRefExcept};
pub use entity_fetch::{EntityFetcher, WorldEntityFetch};
pub(crate) use entity_filtered::{intern_access, FilteredView};
pub use entity_filtered::{FilteredEntityMut, FilteredEntityRef, TryFromFilteredError};
pub use entity_mut::EntityMut;
pub use entity_ref::{EntityRef, EntityWorldMut};
pub use entry::{ComponentEntry, OccupiedComponentEntry, VacantComponentEntry};
#[allow(deprecated)]
pub use error::EntityDoesNotExistError;
pub use from_world::FromWorld;
pub(crate) use resources::taken_by_scope;
pub use snapshot::{RestoreError, WorldSnapshot};
pub use spawn_batch::SpawnBatchIter;
pub use unsafe_world_cell::UnsafeWorldCell;

#[cfg(test)]
mod command_flush_tests;
#[cfg(test)]
mod tests;

use std::{
    any::TypeId,
    cell::UnsafeCell,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
    sync::atomic::{AtomicU32, AtomicUsize, Ordering},
};

use self::error::EntityDespawnError;
use crate::{
    archetype::{ArchetypeEntities, ArchetypeFlags, ArchetypeId, Archetypes},
    bundle::{Bundle, BundleSpawner, Bundles, ValueScratch},
    change_detection::{CountedTick, Tick},
    component::{
        Component, ComponentDescriptor, ComponentHooks, ComponentId, Components, Mutable,
        RequiredComponentConstructor, RequiredComponentsError, StorageType,
    },
    entity::{Entities, Entity, EntityLocation},
    observer::{trigger_lifecycle, Lifecycle, Observers},
    query::{QueryData, QueryFilter},
    storage::{Storages, TableRow},
    utils::DropPanics,
};

/// A unique id of a [`World`], so that state built for one world (a query
/// state) can refuse to be used with another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorldId(usize);

impl WorldId {
    fn next() -> WorldId {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        WorldId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// Every entity, component, resource and the storage behind them.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component, Debug, PartialEq)]
/// struct Health(u32);
/// #[derive(Resource)]
/// struct Round(u32);
///
/// let mut world = World::new();
/// let e = world.spawn(Health(10)).id();
/// world.get_mut::<Health>(e).unwrap().0 -= 3;
/// assert_eq!(world.get::<Health>(e), Some(&Health(7)));
/// world.insert_resource(Round(1));
/// assert_eq!(world.resource::<Round>().0, 1);
/// assert!(world.despawn(e));
/// assert!(!world.contains_entity(e));
/// ```
pub struct World {
    id: WorldId,
    pub(crate) entities: Entities,
    pub(crate) components: Components,
    pub(crate) archetypes: Archetypes,
    pub(crate) storages: Storages,
    pub(crate) bundles: Bundles,
    /// Commands queued by hooks and observers, applied right after the
    /// operation that ran them.
    pub(crate) command_queue: QueueCell,
    pub(crate) observers: Observers,
    /// The removal messages of the components whose removals are tracked.
    pub(crate) removed_components: crate::lifecycle::RemovedComponentMessages,
    pub(crate) value_scratch: ValueScratch,
    /// The resources that a running `resource_scope` holds, innermost
    /// last: while taken out they are absent, and asking for one panics
    /// saying so.
    pub(crate) scoped_resources: Vec<TypeId>,
    /// The stack of queues of `flush_commands`, empty between flushes
    /// (kept for its memory).
    command_stack: Vec<CommandCursor>,
    change_tick: AtomicU32,
    last_change_tick: Tick,
    /// How each component and resource opted into snapshots is cloned
    /// and hashed.
    pub(crate) snapshot_fns: snapshot::SnapshotRegistry,
    /// The tick of the last [`World::check_change_ticks_now`], counted on
    /// the clock that does not wrap.
    last_check: CountedTick,
    /// Relationships refused by their `on_insert` hook and not yet removed
    /// by the command it queued; a cycle check walks past none of them.
    pub(crate) refused_links: crate::relationship::RefusedLinks,
}

impl Default for World {
    fn default() -> Self {
        let mut world = World {
            id: WorldId::next(),
            entities: Entities::new(),
            components: Components::default(),
            archetypes: Archetypes::default(),
            storages: Storages::default(),
            bundles: Bundles::default(),
            command_queue: QueueCell::default(),
            observers: Observers::default(),
            removed_components: Default::default(),
            value_scratch: ValueScratch::default(),
            scoped_resources: Vec::new(),
            command_stack: Vec::new(),
            // Start at 1 so that values added now are newer than the
            // initial `last_change_tick` of 0.
            change_tick: AtomicU32::new(1),
            last_change_tick: Tick::new(0),
            snapshot_fns: Default::default(),
            // Counted from one full cycle in, so that a count
            // `MAX_CHANGE_AGE` before the first tick is still positive.
            last_check: CountedTick {
                tick: Tick::new(0),
                count: 1 << 32,
            },
            refused_links: Default::default(),
        };
        world.init_resource::<crate::entity_disabling::DefaultQueryFilters>();
        world
    }
}

/// The world's command queue in a cell: a shared borrow of the world does
/// not cover what a cell holds, so [`World::entities_and_commands`] can hand
/// out `Commands` on the queue beside entity handles holding `&World`.
#[derive(Default)]
pub(crate) struct QueueCell(UnsafeCell<CommandQueue>);

// SAFETY: the queue is reached only through `&mut QueueCell` (`get_mut`) or
// through `World::entities_and_commands`, which holds `&mut World` for as
// long as its `Commands` live: no two threads reach it through `&World`.
unsafe impl Sync for QueueCell {}

impl QueueCell {
    #[inline]
    pub(crate) fn get_mut(&mut self) -> &mut CommandQueue {
        self.0.get_mut()
    }

    /// The queue, for the one `Commands` of `entities_and_commands`.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut CommandQueue {
        self.0.get()
    }
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("id", &self.id)
            .field("entity_count", &self.entities.len())
            .field("archetype_count", &self.archetypes.len())
            .field("component_count", &self.components.len())
            .field("resource_count", &self.storages.resources.len())
            .finish()
    }
}

impl World {
    /// An empty world.
    pub fn new() -> World {
        World::default()
    }

    /// This world's unique id.
    #[inline]
    pub fn id(&self) -> WorldId {
        self.id
    }

    // ---- introspection ----------------------------------------------------

    /// The entity allocator.
    #[inline]
    pub fn entities(&self) -> &Entities {
        &self.entities
    }

    /// The archetypes.
    #[inline]
    pub fn archetypes(&self) -> &Archetypes {
        &self.archetypes
    }

    /// The entities of an archetype, by archetype row, each with its row
    /// in the archetype's table; `None` if the world has no archetype
    /// `id`.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Position(f32);
    ///
    /// let mut world = World::new();
    /// let a = world.spawn(Position(0.0)).id();
    /// let b = world.spawn(Position(1.0)).id();
    /// let archetype = world.entity(a).archetype().id();
    /// let rows: Vec<_> = world
    ///     .archetype_entities(archetype)
    ///     .unwrap()
    ///     .map(|e| (e.id(), e.table_row().index()))
    ///     .collect();
    /// assert_eq!(rows, [(a, 0), (b, 1)]);
    /// ```
    pub fn archetype_entities(&self, id: ArchetypeId) -> Option<ArchetypeEntities<'_>> {
        let archetype = self.archetypes.get(id)?;
        Some(archetype.entities_in(&self.storages.tables[archetype.table_id()]))
    }

    /// The component registry.
    #[inline]
    pub fn components(&self) -> &Components {
        &self.components
    }

    /// The tables, sparse sets and resources.
    #[inline]
    pub fn storages(&self) -> &Storages {
        &self.storages
    }

    /// The bundle registry.
    #[inline]
    pub fn bundles(&self) -> &Bundles {
        &self.bundles
    }

    /// Registers the component type `T` (once) and returns its id.
    pub fn register_component<T: Component>(&mut self) -> ComponentId {
        self.components.register_component::<T>()
    }

    /// Registers the components of the bundle type `B` and the bundle
    /// itself; returns its registration (its id and component ids).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct A;
    /// #[derive(Component)]
    /// struct B;
    ///
    /// let mut world = World::new();
    /// let ids = world.register_bundle::<(A, B)>().components().to_vec();
    /// assert_eq!(ids, [world.register_component::<A>(), world.register_component::<B>()]);
    /// ```
    pub fn register_bundle<B: Bundle>(&mut self) -> &crate::bundle::BundleInfo {
        let id = self.bundles.register_info::<B>(&mut self.components);
        self.bundles
            .get(id)
            .expect("the bundle was just registered")
    }

    /// The components `C` requires, transitively, with their constructors;
    /// `None` if `C` is not registered.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Default)]
    /// struct Mass(f32);
    /// #[derive(Component)]
    /// #[require(Mass)]
    /// struct Body;
    ///
    /// let mut world = World::new();
    /// assert!(world.get_required_components::<Body>().is_none());
    /// world.register_component::<Body>();
    /// let mass = world.register_component::<Mass>();
    /// let required = world.get_required_components::<Body>().unwrap();
    /// assert_eq!(required[0].id, mass);
    /// ```
    pub fn get_required_components<C: Component>(
        &self,
    ) -> Option<&[crate::component::RequiredComponent]> {
        let id = self.components.component_id::<C>()?;
        self.get_required_components_by_id(id)
    }

    /// The components the component `id` requires, transitively; `None`
    /// if `id` is not registered.
    pub fn get_required_components_by_id(
        &self,
        id: ComponentId,
    ) -> Option<&[crate::component::RequiredComponent]> {
        Some(self.components.get_info(id)?.required_components())
    }

    /// Registers a component from a descriptor, possibly with no Rust type
    /// behind it. Such components are inserted with
    /// [`EntityWorldMut::insert_by_id`]. A descriptor of a Rust component
    /// type registers it as [`World::register_component`] does.
    ///
    /// # Panics
    /// If the descriptor describes a resource
    /// (`ComponentDescriptor::new_resource`), naming it.
    #[track_caller]
    pub fn register_component_with_descriptor(
        &mut self,
        descriptor: ComponentDescriptor,
    ) -> ComponentId {
        self.components
            .register_component_with_descriptor(descriptor)
    }

    /// The hooks of component `T`, to register hooks at run time:
    /// `world.register_component_hooks::<T>().on_add(f)`. Setting a kind
    /// that is already set panics, naming the component.
    pub fn register_component_hooks<T: Component>(&mut self) -> &mut ComponentHooks {
        let id = self.register_component::<T>();
        self.register_component_hooks_by_id(id)
            .expect("the component was just registered")
    }

    /// [`World::register_component_hooks`] for the component `id`: `None`
    /// if `id` is not a registered component.
    pub fn register_component_hooks_by_id(
        &mut self,
        id: ComponentId,
    ) -> Option<&mut ComponentHooks> {
        self.components.get_info(id)?;
        self.archetypes.add_flags_for_component(
            id,
            ArchetypeFlags::ON_ADD_HOOK
                | ArchetypeFlags::ON_INSERT_HOOK
                | ArchetypeFlags::ON_DISCARD_HOOK
                | ArchetypeFlags::ON_REMOVE_HOOK
                | ArchetypeFlags::ON_DESPAWN_HOOK,
        );
        Some(self.components.hooks_mut(id))
    }

    /// Makes `R` a [required component] of `T`, made with
    /// `R::default()`: adding `T` to an entity then adds `R` (and what `R`
    /// requires) if the entity lacks it. A direct requirement's
    /// constructor replaces one `T` inherits through another component.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct A;
    /// #[derive(Component, Default, PartialEq, Debug)]
    /// struct B(usize);
    /// #[derive(Component, PartialEq, Debug)]
    /// struct C(u32);
    ///
    /// let mut world = World::new();
    /// world.register_required_components::<A, B>();
    /// world.register_required_components_with::<B, C>(|| C(2));
    /// let e = world.spawn(A).id();
    /// assert_eq!(world.get::<B>(e), Some(&B(0)));
    /// assert_eq!(world.get::<C>(e), Some(&C(2)));
    /// ```
    ///
    /// [required component]: crate::component::Component::register_required_components
    ///
    /// # Panics
    /// As [`World::try_register_required_components`] errs, naming the
    /// components.
    #[track_caller]
    pub fn register_required_components<T: Component, R: Component + Default>(&mut self) {
        self.register_required_components_with::<T, R>(R::default);
    }

    /// Makes `R` a required component of `T`, made by `constructor`; see
    /// [`World::register_required_components`]. The constructor must be
    /// `Send + Sync`, unlike bevy's, because the world holding it is.
    ///
    /// # Panics
    /// As [`World::try_register_required_components_with`] errs, naming
    /// the components.
    #[track_caller]
    pub fn register_required_components_with<T: Component, R: Component>(
        &mut self,
        constructor: impl Fn() -> R + Send + Sync + 'static,
    ) {
        if let Err(error) = self.try_register_required_components_with::<T, R>(constructor) {
            panic!("{}", error.describe(&self.components));
        }
    }

    /// Makes `R` a required component of `T`, made with `R::default()`, or
    /// says why not; see [`World::try_register_required_components_with`].
    pub fn try_register_required_components<T: Component, R: Component + Default>(
        &mut self,
    ) -> Result<(), RequiredComponentsError> {
        self.try_register_required_components_with::<T, R>(R::default)
    }

    /// Makes `R` a required component of `T`, made by `constructor`, or
    /// says why not.
    ///
    /// # Errors
    /// - [`RequiredComponentsError::DuplicateRegistration`] if `T` already
    ///   requires `R` directly (requiring it indirectly is fine: the direct
    ///   requirement's constructor wins);
    /// - [`RequiredComponentsError::CyclicRequirement`] if `R` requires
    ///   `T`, directly or not, or `R` is `T`;
    /// - [`RequiredComponentsError::ArchetypeExists`] if an archetype holds
    ///   `T` (an entity has or had it).
    pub fn try_register_required_components_with<T: Component, R: Component>(
        &mut self,
        constructor: impl Fn() -> R + Send + Sync + 'static,
    ) -> Result<(), RequiredComponentsError> {
        let requiree = self.register_component::<T>();
        // Every entity with a component requiring `T` has `T`, so an
        // archetype of `T` is the only one whose cached moves would miss `R`.
        if self.archetypes.iter().any(|a| a.contains(requiree)) {
            return Err(RequiredComponentsError::ArchetypeExists(requiree));
        }
        let required = self.register_component::<R>();
        self.components.register_required_components(
            requiree,
            required,
            RequiredComponentConstructor::new(constructor),
        )
    }

    /// The id of the component type `T`, if registered.
    #[inline]
    pub fn component_id<T: Component>(&self) -> Option<ComponentId> {
        self.components.component_id::<T>()
    }

    // ---- entities ----------------------------------------------------------

    /// The number of live entities.
    #[inline]
    pub fn entity_count(&self) -> usize {
        self.entities.len() as usize
    }

    /// Whether `entity` is alive in this world.
    #[inline]
    pub fn contains_entity(&self, entity: Entity) -> bool {
        self.entities.contains(entity)
    }

    /// Makes the entities reserved through `&World` (by
    /// [`Commands`](crate::system::Commands)) live, then applies the
    /// commands queued in the world's own queue (by hooks and observers,
    /// and by the commands those applied), as
    /// [`World::flush_commands`] does.
    ///
    /// Structural changes flush on their own; call this after queueing
    /// through a [`DeferredWorld`] or reserving entities outside a change.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::world::DeferredWorld;
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let reserved = world.entities().reserve_entity();
    /// let queued = DeferredWorld::from(&mut world).commands().spawn(Health(3)).id();
    /// assert!(world.get_entity(reserved).is_err());
    /// world.flush();
    /// assert!(world.get_entity(reserved).is_ok());
    /// assert_eq!(world.get::<Health>(queued), Some(&Health(3)));
    /// ```
    ///
    /// # Panics
    /// If a command panics; see [`World::flush_commands`].
    #[inline]
    pub fn flush(&mut self) {
        self.flush_entities();
        self.flush_commands();
    }

    /// Makes the entities reserved through `&World` (by
    /// [`Commands`](crate::system::Commands)) live, with no components,
    /// and applies no command. A reserved entity is reachable through
    /// [`World::get_entity`] only after this.
    #[inline]
    pub fn flush_entities(&mut self) {
        if self.entities.needs_flush() {
            self.flush_reserved();
        }
    }

    #[cold]
    fn flush_reserved(&mut self) {
        let tick = self.change_tick();
        let empty_archetype = &mut self.archetypes[ArchetypeId::EMPTY];
        let empty_table = &mut self.storages.tables[crate::storage::TableId::EMPTY];
        self.entities.flush(tick, |entity, location| {
            let table_row = empty_table.push_entity(entity);
            let archetype_row = empty_archetype.allocate(entity, table_row);
            *location = EntityLocation {
                archetype_id: ArchetypeId::EMPTY,
                archetype_row,
                table_id: crate::storage::TableId::EMPTY,
                table_row: TableRow::new(table_row.index()),
            };
        });
    }

    /// Applies the commands queued by hooks and observers (and by commands
    /// those applied), until none is left.
    ///
    /// One loop applies them all, however deep the chain (an observer
    /// triggering an event whose observer triggers another, ...): a call
    /// made while that loop runs, from inside a command it applies (as
    /// [`World::trigger`] and every structural change make), returns at
    /// once, and the loop applies what was queued. The order:
    /// - the commands of one queue apply in the order queued;
    /// - the commands queued while a command applies (by the hooks and
    ///   observers it set off, or by the commands of the observers of an
    ///   event it triggered) apply right after that command returns, before
    ///   the commands queued after it. So inside a command, `trigger` runs
    ///   the observers at once and their commands once the command returns.
    ///
    /// # Panics
    /// If a command panics: the panic goes on, and every command still
    /// pending in this flush (those it queued before it panicked, then the
    /// rest of its queue and of the queues it nested in) stays queued, in
    /// that order, for the next flush. A command queued by a hook may
    /// complete what an operation already did (the other end of a
    /// relationship, a linked despawn), so none is dropped. (bevy drops
    /// them.)
    #[inline]
    pub fn flush_commands(&mut self) {
        if !self.command_queue.get_mut().is_empty() {
            self.flush_commands_slow();
        }
    }

    #[cold]
    fn flush_commands_slow(&mut self) {
        let id = self.id;
        if FLUSHING.with(|flushing| flushing.borrow().contains(&id)) {
            return; // the running flush applies them next
        }
        FLUSHING.with(|flushing| flushing.borrow_mut().push(id));
        let mut pending = std::mem::take(&mut self.command_stack);
        let result = catch_unwind(AssertUnwindSafe(|| self.apply_pending(&mut pending)));
        FLUSHING.with(|flushing| {
            let mut flushing = flushing.borrow_mut();
            if let Some(at) = flushing.iter().rposition(|&world| world == id) {
                flushing.remove(at);
            }
        });
        // A command may have swapped this world's contents for another's:
        // then the queue and the stack here are the other world's.
        let same_world = self.id == id;
        if let Err(payload) = result {
            if same_world {
                // Kept for the next flush, in the order they would have
                // applied: what the panicking command queued, then the rest
                // of each queue it nested in, innermost first. They may be
                // what completes work already done (a relationship's other
                // end, a linked despawn).
                let queue = self.command_queue.get_mut();
                for cursor in pending.drain(..).rev() {
                    queue.append(&mut cursor.into_rest());
                }
                self.command_stack = pending;
            } else {
                for mut cursor in pending.drain(..) {
                    // The other world's commands: dropped; drop panics are
                    // second to the command's.
                    let _ = cursor.drop_rest();
                }
            }
            resume_unwind(payload);
        }
        self.command_stack = pending;
    }

    /// Applies the world's queued commands one at a time: `pending` is a
    /// stack of queues, innermost last, so nesting costs heap, not stack.
    fn apply_pending(&mut self, pending: &mut Vec<CommandCursor>) {
        // The pending commands name entities of this world.
        let id = self.id;
        loop {
            if !self.command_queue.get_mut().is_empty() {
                // Entities their `Commands` reserved become live first.
                self.flush_entities();
                pending.push(self.command_queue.get_mut().take_cursor());
            }
            let Some(cursor) = pending.last_mut() else {
                return;
            };
            cursor.apply_next(self);
            // A batch or handle holding this world's ids relies on it too.
            if self.id != id {
                replaced_while_flushing(id, self.id);
            }
            if cursor.is_empty() {
                let done = pending.pop().expect("a cursor was on top");
                // Keep the buffer (its capacity) unless commands queued more.
                if self.command_queue.get_mut().is_empty() {
                    *self.command_queue.get_mut() = done.into_queue();
                }
            }
        }
    }

    /// Spawns an entity with the components of `bundle`.
    #[track_caller]
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityWorldMut<'_> {
        let (entity, mut location) = self.spawn_unflushed(bundle);
        if !self.command_queue.get_mut().is_empty() {
            // Hooks or observers queued commands: they may move (or
            // despawn) the entity.
            self.flush_commands();
            location = self.entities.get(entity).unwrap_or(EntityLocation::INVALID);
        }
        EntityWorldMut::new(self, entity, location)
    }

    /// Spawns an entity with no components. Unlike [`World::spawn`], it
    /// applies no queued command (as in bevy): with no component, no hook
    /// or observer runs, so the commands already queued wait for the next
    /// flush.
    #[track_caller]
    pub fn spawn_empty(&mut self) -> EntityWorldMut<'_> {
        let (entity, location) = self.spawn_unflushed(());
        EntityWorldMut::new(self, entity, location)
    }

    /// Spawns an entity with `bundle`, leaving the commands its hooks and
    /// observers queued (and any queued before) in the queue.
    #[track_caller]
    fn spawn_unflushed<B: Bundle>(&mut self, bundle: B) -> (Entity, EntityLocation) {
        self.flush_entities();
        let change_tick = self.change_tick();
        let bundle_id = self.bundles.register_info::<B>(&mut self.components);
        BundleSpawner::new(self, bundle_id, change_tick).spawn_located(bundle)
    }

    /// Spawns an entity for each bundle of `iter`, returning their ids.
    ///
    /// The archetype and table are resolved once and reserved for the
    /// iterator's lower size bound. Every bundle is spawned even if the
    /// returned iterator is dropped unread.
    #[track_caller]
    pub fn spawn_batch<I>(&mut self, iter: I) -> SpawnBatchIter<'_, I::IntoIter>
    where
        I: IntoIterator,
        I::Item: Bundle,
    {
        self.flush_entities();
        let change_tick = self.change_tick();
        let bundle_id = self.bundles.register_info::<I::Item>(&mut self.components);
        let iter = iter.into_iter();
        let mut spawner = BundleSpawner::new(self, bundle_id, change_tick);
        spawner.reserve(iter.size_hint().0);
        SpawnBatchIter::new(iter, spawner)
    }

    /// The entity's component `T`, if the entity exists and has one.
    #[inline]
    pub fn get<T: Component>(&self, entity: Entity) -> Option<&T> {
        let location = self.entities.get(entity)?;
        EntityRef::new(self, entity, location).get::<T>()
    }

    /// The entity's component `T` with its change ticks.
    ///
    /// # Panics
    /// If `T` is `#[component(no_change_ticks)]` (it keeps no change ticks).
    #[inline]
    #[track_caller]
    pub fn get_ref<T: Component>(&self, entity: Entity) -> Option<Ref<'_, T>> {
        let location = self.entities.get(entity)?;
        EntityRef::new(self, entity, location).get_ref::<T>()
    }

    /// The entity's component `T`, mutably; writing through it marks the
    /// value changed.
    #[inline]
    pub fn get_mut<T: Component<Mutability = Mutable>>(
        &mut self,
        entity: Entity,
    ) -> Option<Mut<'_, T>> {
        let location = self.entities.get(entity)?;
        // SAFETY: `location` is the entity's current location, and `&mut
        // self` rules out any other access.
        unsafe { self.get_mut_at::<T>(entity, location) }
    }

    /// The entity's value of the component `id`; `None` if the entity is
    /// gone or lacks it.
    #[inline]
    pub fn get_by_id(&self, entity: Entity, id: ComponentId) -> Option<crate::ptr::Ptr<'_>> {
        self.get_entity(entity).ok()?.get_by_id(id).ok()
    }

    /// The entity's value of the component `id`, mutably (marks it changed
    /// when written through); `None` if the entity is gone, lacks it, or
    /// the component is [`Immutable`](crate::component::Immutable) (change
    /// that with [`World::modify_component_by_id`]).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Speed(u32);
    ///
    /// let mut world = World::new();
    /// let speed = world.register_component::<Speed>();
    /// let e = world.spawn(Speed(1)).id();
    /// let mut value = world.get_mut_by_id(e, speed).unwrap();
    /// // SAFETY: `speed` is `Speed`'s id.
    /// unsafe { value.as_mut().deref_mut::<Speed>().0 = 2 };
    /// assert_eq!(world.get::<Speed>(e), Some(&Speed(2)));
    /// ```
    #[inline]
    pub fn get_mut_by_id(
        &mut self,
        entity: Entity,
        id: ComponentId,
    ) -> Option<crate::change_detection::MutUntyped<'_>> {
        self.get_entity_mut(entity).ok()?.into_mut_by_id(id).ok()
    }

    /// # Safety
    /// `location` is `entity`'s current location and the caller has
    /// exclusive access to the world.
    #[inline]
    pub(crate) unsafe fn get_mut_at<T: Component>(
        &mut self,
        entity: Entity,
        location: EntityLocation,
    ) -> Option<Mut<'_, T>> {
        let id = self.components.component_id::<T>()?;
        let (last_run, this_run) = (self.last_change_tick, self.change_tick());
        let (value, added, changed) = self.component_ptr(id, T::STORAGE_TYPE, entity, location)?;
        // SAFETY: the pointer is a valid `T` of this entity; `&mut self`
        // makes the borrow exclusive for its lifetime.
        unsafe {
            Some(Mut::new(
                &mut *value.cast::<T>(),
                &mut *added.get(),
                &mut *changed.get(),
                last_run,
                this_run,
            ))
        }
    }

    /// A pointer to the entity's value of component `id`, and its tick
    /// cells.
    #[inline]
    pub(crate) fn component_ptr(
        &self,
        id: ComponentId,
        storage_type: StorageType,
        entity: Entity,
        location: EntityLocation,
    ) -> Option<(*mut u8, &UnsafeCell<Tick>, &UnsafeCell<Tick>)> {
        match storage_type {
            StorageType::Table => {
                let table = &self.storages.tables[location.table_id];
                let column = table.get_column(id)?;
                let row = location.table_row.index();
                // SAFETY: the entity's row is valid in every column of its
                // table.
                unsafe {
                    let (added, changed) = column.get_tick_cells_unchecked(row);
                    Some((column.get_data_unchecked(row), added, changed))
                }
            }
            StorageType::SparseSet => self
                .storages
                .sparse_sets
                .get(id)?
                .get_with_tick_cells(entity),
        }
    }

    /// Despawns an entity, dropping its components. Returns `false` (and
    /// logs a warning naming the entity and why) if it is not spawned.
    ///
    /// `on_despawn`, then `on_discard` and `on_remove` hooks and observers
    /// of its components run first, while its values are still in place.
    #[track_caller]
    pub fn despawn(&mut self, entity: Entity) -> bool {
        match self.try_despawn(entity) {
            Ok(()) => true,
            Err(error) => {
                log::warn!("{error}");
                false
            }
        }
    }

    /// Despawns an entity, dropping its components, as
    /// [`World::despawn`] does.
    ///
    /// # Errors
    /// [`EntityDespawnError`] if the entity is not spawned, naming it and
    /// why; nothing is logged.
    pub fn try_despawn(&mut self, entity: Entity) -> Result<(), EntityDespawnError> {
        let result = if self.despawn_no_flush(entity) {
            Ok(())
        } else {
            Err(EntityDespawnError(self.entities.not_spawned_error(entity)))
        };
        self.flush_commands();
        result
    }

    pub(crate) fn despawn_no_flush(&mut self, entity: Entity) -> bool {
        self.flush_entities();
        let Some(location) = self.entities.get(entity) else {
            return false;
        };
        let flags = self.archetypes[location.archetype_id].flags();
        // A hook's or observer's panic goes on once the entity is gone.
        let mut panics = DropPanics::default();
        let location = if flags.intersects(
            Lifecycle::Despawn.any_flags()
                | Lifecycle::Discard.any_flags()
                | Lifecycle::Remove.any_flags()
                | ArchetypeFlags::REMOVAL_TRACKED,
        ) {
            let components: Vec<ComponentId> = self.archetypes[location.archetype_id]
                .components()
                .collect();
            for kind in [Lifecycle::Despawn, Lifecycle::Discard, Lifecycle::Remove] {
                if flags.intersects(kind.any_flags()) {
                    trigger_lifecycle(self, kind, entity, &components, &mut panics);
                }
            }
            if flags.contains(ArchetypeFlags::REMOVAL_TRACKED) {
                self.removed_components
                    .record(entity, components.iter().copied());
            }
            // The hooks and observers may have reserved entities (a
            // `commands().spawn(..)`): they become live before the free,
            // which would otherwise reuse their ids.
            self.flush_entities();
            // The hooks and observers had the world: check the handle again.
            self.entities.free(entity).expect("hooks cannot despawn")
        } else {
            // SAFETY: `get` found the entity live, and nothing ran since.
            unsafe { self.entities.free_live(entity.index()) }
        };
        // SAFETY: `location` is the entity's location as it was freed, and
        // nothing has moved since.
        unsafe { relocation::remove_entity(self, entity, location, &mut panics) };
        panics.finish();
        true
    }

    /// Despawns every entity, keeping resources, archetypes and tables
    /// (their memory is reused). Stale handles to the despawned entities
    /// stay refused.
    pub fn clear_entities(&mut self) {
        let mut panics = DropPanics::default();
        self.clear_entities_into(&mut panics);
        panics.finish();
    }

    /// [`World::clear_entities`], collecting `Drop` panics in `panics`.
    fn clear_entities_into(&mut self, panics: &mut DropPanics) {
        self.flush_entities();
        for archetype in self.archetypes.iter() {
            let table = &self.storages.tables[archetype.table_id()];
            for archetype_entity in archetype.entities_in(table) {
                self.entities.free(archetype_entity.id());
            }
        }
        self.archetypes.clear_entities();
        self.refused_links.clear();
        self.storages.tables.clear_all(panics);
        self.storages.sparse_sets.clear_all(panics);
        // The observers went with their entities (no hook ran).
        self.observers.clear(panics);
    }

    /// Drops every resource (the world's own, such as
    /// [`DefaultQueryFilters`](crate::entity_disabling::DefaultQueryFilters),
    /// included), keeping their registrations. Systems that read a
    /// resource fail until it is inserted again.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Score(3));
    /// world.clear_resources();
    /// assert!(!world.contains_resource::<Score>());
    /// assert_eq!(world.iter_resources().count(), 0);
    /// ```
    ///
    /// # Panics
    /// A panic in a value's `Drop` is raised once every other value has
    /// been dropped.
    pub fn clear_resources(&mut self) {
        let mut panics = DropPanics::default();
        self.storages.resources.clear_all(&mut panics);
        panics.finish();
    }

    /// Drops every non-send resource, keeping their registrations.
    ///
    /// # Panics
    /// Before dropping anything, if a value belongs to another thread,
    /// naming its type and both threads. A panic in a value's `Drop` is
    /// raised once every other value has been dropped.
    #[track_caller]
    pub fn clear_non_send(&mut self) {
        self.storages.non_sends.assert_all_local();
        let mut panics = DropPanics::default();
        self.storages.non_sends.clear_all(&mut panics);
        panics.finish();
    }

    /// Despawns every entity and drops every resource and non-send
    /// resource: [`clear_entities`](World::clear_entities),
    /// [`clear_resources`](World::clear_resources),
    /// [`clear_non_send`](World::clear_non_send). Registrations
    /// (components, systems, schedules) stay.
    ///
    /// # Panics
    /// As those three: a value of another thread is refused before
    /// anything is dropped, and a panic in a value's `Drop` is raised once
    /// every other value of all three has been dropped.
    #[track_caller]
    pub fn clear_all(&mut self) {
        self.storages.non_sends.assert_all_local();
        let mut panics = DropPanics::default();
        self.clear_entities_into(&mut panics);
        self.storages.resources.clear_all(&mut panics);
        self.storages.non_sends.clear_all(&mut panics);
        panics.finish();
    }

    /// Despawns every entity that matches the filter `F`, as
    /// [`World::despawn`] each (hooks and observers run).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Bullet;
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((0..5).map(|_| Bullet));
    /// let player = world.spawn_empty().id();
    /// world.despawn_all::<With<Bullet>>();
    /// assert_eq!(world.entities().len(), 1);
    /// assert!(world.get_entity(player).is_ok());
    /// ```
    #[track_caller]
    pub fn despawn_all<F: QueryFilter>(&mut self) {
        self.despawn_all_where::<(), F>(|()| true);
    }

    /// Despawns every entity that matches `F` and for whose item of `D`
    /// `cond` answers true. The entities are picked first, then despawned
    /// in reverse order of the walk; one that a hook already despawned is
    /// skipped. A panic in `cond` despawns nothing.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(f32);
    ///
    /// let mut world = World::new();
    /// world.spawn(Health(0.0));
    /// let alive = world.spawn(Health(5.0)).id();
    /// world.despawn_all_where::<&Health, ()>(|health| health.0 <= 0.0);
    /// assert_eq!(world.entities().len(), 1);
    /// assert!(world.get_entity(alive).is_ok());
    /// ```
    #[track_caller]
    pub fn despawn_all_where<D: QueryData, F: QueryFilter>(
        &mut self,
        mut cond: impl FnMut(D::Item<'_>) -> bool,
    ) {
        let mut state = self.query_filtered::<(Entity, D), F>();
        let mut picked = Vec::new();
        for (entity, item) in state.iter_mut(self) {
            if cond(item) {
                picked.push(entity);
            }
        }
        for entity in picked.into_iter().rev() {
            let _ = self.try_despawn(entity);
        }
    }

    // ---- change ticks --------------------------------------------------------

    /// The current change tick: values written now carry it.
    #[inline]
    pub fn change_tick(&self) -> Tick {
        Tick::new(self.change_tick.load(Ordering::Acquire))
    }

    /// The current change tick, as [`World::change_tick`] (bevy's name for
    /// reading it through `&World`).
    #[inline]
    pub fn read_change_tick(&self) -> Tick {
        self.change_tick()
    }

    /// A cell for unsafe shared and exclusive access to parts of the world
    /// at once (see [`UnsafeWorldCell`]).
    #[inline]
    pub fn as_unsafe_world_cell(&mut self) -> UnsafeWorldCell<'_> {
        UnsafeWorldCell::new_mutable(self)
    }

    /// A cell for reading the world through shared access only.
    #[inline]
    pub fn as_unsafe_world_cell_readonly(&self) -> UnsafeWorldCell<'_> {
        UnsafeWorldCell::new_readonly(self)
    }

    /// Advances the change tick and returns the previous one.
    #[inline]
    pub fn increment_change_tick(&self) -> Tick {
        Tick::new(self.change_tick.fetch_add(1, Ordering::AcqRel))
    }

    /// The tick that `Added`/`Changed` outside systems compare against: the
    /// tick of the last [`World::clear_trackers`].
    #[inline]
    pub fn last_change_tick(&self) -> Tick {
        self.last_change_tick
    }

    /// `tick` (the current tick, or one taken since the last check) with
    /// its count on the clock that does not wrap.
    #[inline]
    pub(crate) fn counted_tick(&self, tick: Tick) -> CountedTick {
        CountedTick {
            tick,
            count: self.last_check.count + u64::from(tick.relative_to(self.last_check.tick).get()),
        }
    }

    /// Runs `f` with [`World::last_change_tick`] set to `last_run`, then
    /// puts the old value back (also when `f` panics). An exclusive system
    /// runs in this scope, so that the `Added`/`Changed` filters, `Ref`
    /// and `Mut` it gets from the world compare against its own last run.
    ///
    /// ```
    /// use ecs::change_detection::Tick;
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Speed(f32);
    ///
    /// let mut world = World::new();
    /// world.spawn(Speed(1.0));
    /// world.clear_trackers();
    /// let mut added = world.query_filtered::<Entity, Added<Speed>>();
    /// assert_eq!(added.iter(&world).count(), 0);
    /// // Seen from before the spawn, the entity is new.
    /// let seen = world.last_change_tick_scope(Tick::new(0), |world| added.iter(world).count());
    /// assert_eq!(seen, 1);
    /// assert_eq!(added.iter(&world).count(), 0);
    /// ```
    pub fn last_change_tick_scope<T>(
        &mut self,
        last_run: Tick,
        f: impl FnOnce(&mut World) -> T,
    ) -> T {
        struct Restore<'a> {
            world: &'a mut World,
            last_change_tick: CountedTick,
        }
        impl Drop for Restore<'_> {
            fn drop(&mut self) {
                // The checks `f` made clamped only the scoped value.
                let now = self.world.counted_tick(self.world.change_tick());
                self.last_change_tick.clamp(now);
                self.world.last_change_tick = self.last_change_tick.tick;
            }
        }
        let now = self.counted_tick(self.change_tick());
        let outer = std::mem::replace(&mut self.last_change_tick, last_run);
        let last_change_tick = CountedTick {
            tick: outer,
            // The world's checks keep it less than a wrap old.
            count: now.count - u64::from(now.tick.relative_to(outer).get()),
        };
        let scope = Restore {
            world: self,
            last_change_tick,
        };
        f(scope.world)
    }

    /// Starts a new change-detection frame for code outside systems: values
    /// written before this call no longer count as added or changed.
    /// It also updates the removal messages
    /// ([`RemovedComponents`](crate::lifecycle::RemovedComponents)): call it
    /// once per frame.
    pub fn clear_trackers(&mut self) {
        self.removed_components.update();
        self.last_change_tick = self.increment_change_tick();
        // After the new frame starts: what `CheckChangeTicks` observers
        // write belongs to it.
        self.check_change_ticks();
    }

    /// Clamps ticks that are too old to compare safely, once the clock has
    /// moved [`CHECK_TICK_THRESHOLD`] ticks since the last check; it returns
    /// at once if called sooner. [`Schedule::run`](crate::schedule::Schedule::run),
    /// [`System::run`](crate::system::System::run) (so `run_system_once`),
    /// [`World::trigger`] and [`World::clear_trackers`] call it; code that
    /// moves the clock by other means only (lifecycle observers) calls it
    /// itself at least every [`CHECK_TICK_THRESHOLD`] ticks. See the
    /// [module docs](crate::change_detection) for what it clamps.
    ///
    /// A check then triggers [`CheckChangeTicks`](crate::change_detection::CheckChangeTicks),
    /// for observers that keep ticks of their own, and returns it; `None`
    /// when it returned at once.
    pub fn check_change_ticks(&mut self) -> Option<crate::change_detection::CheckChangeTicks> {
        let change_tick = self.change_tick();
        if change_tick.relative_to(self.last_check.tick).get() < CHECK_TICK_THRESHOLD {
            return None;
        }
        Some(self.check_change_ticks_now())
    }

    /// Clamps every tick the world stores against the current one, records
    /// the check, then triggers [`CheckChangeTicks`](crate::change_detection::CheckChangeTicks)
    /// (see [`World::check_change_ticks`]).
    pub fn check_change_ticks_now(&mut self) -> crate::change_detection::CheckChangeTicks {
        let now = self.counted_tick(self.change_tick());
        self.storages.tables.check_change_ticks(now.tick);
        self.storages.sparse_sets.check_change_ticks(now.tick);
        self.storages.resources.check_change_ticks(now.tick);
        self.storages.non_sends.check_change_ticks(now.tick);
        self.entities.check_change_ticks(now.tick);
        self.last_change_tick.check_tick(now.tick);
        // Recorded first, so the trigger's own check returns at once; put
        // back if an observer panics, so the next call checks again and the
        // observers after it are not left a whole threshold behind.
        let previous = std::mem::replace(&mut self.last_check, now);
        let check = crate::change_detection::CheckChangeTicks(now.tick);
        // With nothing observing it, no trigger and so no command flush: a
        // check then changes nothing but ticks.
        if !self
            .observers
            .watches_globally::<crate::change_detection::CheckChangeTicks>()
        {
            return check;
        }
        let triggered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.trigger(check);
            // Entities the observers reserved are live afterwards.
            self.flush();
        }));
        if let Err(payload) = triggered {
            self.last_check = previous;
            std::panic::resume_unwind(payload);
        }
        check
    }

    /// Sets the change tick (for tests of tick wrap-around).
    #[doc(hidden)]
    pub fn set_change_tick_for_test(&mut self, tick: Tick) {
        *self.change_tick.get_mut() = tick.get();
    }

    /// Sets the last change tick (for tests of tick wrap-around).
    #[doc(hidden)]
    pub fn set_last_change_tick_for_test(&mut self, tick: Tick) {
        self.last_change_tick = tick;
    }
}

impl Drop for World {
    fn drop(&mut self) {
        // Drop every value here, with one panic collector, so a panicking
        // `Drop` cannot stop the rest from being dropped.
        let mut panics = DropPanics::default();
        self.storages.tables.clear_all(&mut panics);
        self.storages.sparse_sets.clear_all(&mut panics);
        self.storages.resources.clear_all(&mut panics);
        self.storages.non_sends.clear_all(&mut panics);
        self.observers.clear(&mut panics);
        panics.finish();
    }
}

thread_local! {
    /// The worlds whose `flush_commands` runs on this thread. Kept outside
    /// the world: a command may swap a world's contents for another's, and
    /// a flag inside would leave with them.
    static FLUSHING: std::cell::RefCell<Vec<WorldId>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[cold]
#[inline(never)]
#[track_caller]
fn panic_on_fetch_error(error: impl std::fmt::Display) -> ! {
    panic!("{error}")
}

#[cold]
#[inline(never)]
fn replaced_while_flushing(was: WorldId, now: WorldId) -> ! {
    panic!(
        "a command replaced the world ({was:?}) with another ({now:?}) while the world's commands \
         applied; the commands still pending belong to the first and are dropped unapplied"
    )
}
