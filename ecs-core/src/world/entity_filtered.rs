//! [`FilteredEntityRef`] and [`FilteredEntityMut`]: an entity handle that
//! may touch only the components its query's access lists, the items of
//! queries built at run time with a
//! [`QueryBuilder`](crate::query::QueryBuilder).
//!
//! Each item carries a copy of its query's view: the access (interned for
//! the life of the process, so the item holds a plain reference whatever
//! it outlives), the table its row is in, and the query run's ticks.
//!
//! ```text
//! item { entity, table row, view { access, table, ticks } }
//! get_by_id(id): access check ──▶ table's column of `id` ──▶ base + row
//!                no column    ──▶ the entity's location (sparse-set
//!                                 components, handles made from an
//!                                 `EntityRef`)
//! ```

use std::{
    cell::UnsafeCell,
    marker::PhantomData,
    ptr::NonNull,
    sync::{Mutex, PoisonError},
};

use super::{EntityMut, EntityRef, UnsafeWorldCell, World};
use crate::{
    archetype::Archetype,
    change_detection::{ComponentTicks, Mut, MutUntyped, Ref, Tick},
    component::{Component, ComponentId, Mutable},
    entity::{Entity, EntityLocation},
    ptr::{Ptr, PtrMut},
    query::Access,
    storage::{Table, TableRow},
};

/// What the filtered handles of one table share: their access, the table
/// (to find a column by id), and the ticks of the query run. Copied into
/// every item: the access is interned ([`intern_access`]) and the table
/// borrowed for `'w`, so an item holds no reference count.
#[derive(Clone, Copy)]
pub struct FilteredView<'w> {
    access: &'static Access,
    /// The table the items' rows are in; `None` until the fetch is pointed
    /// at one (or for a handle made from an entity), when values are found
    /// through the entity's location.
    table: Option<&'w Table>,
    last_run: Tick,
    this_run: Tick,
}

impl<'w> FilteredView<'w> {
    /// A view with no table: every access takes the entity's location.
    pub(crate) fn new(access: &'static Access, last_run: Tick, this_run: Tick) -> Self {
        FilteredView {
            access,
            table: None,
            last_run,
            this_run,
        }
    }

    /// The view for the items of `table`.
    #[inline]
    pub(crate) fn point_at(&mut self, table: &'w Table) {
        self.table = Some(table);
    }
}

/// Access sets of filtered handles, each distinct one kept once for the
/// life of the process, so that handles hold a plain reference to theirs
/// whatever they outlive. Called when a query state is made, never per
/// item.
pub(crate) fn intern_access(access: Access) -> &'static Access {
    static INTERNED: Mutex<Option<hashbrown::HashSet<&'static Access>>> = Mutex::new(None);
    let mut interned = INTERNED.lock().unwrap_or_else(PoisonError::into_inner);
    let interned = interned.get_or_insert_with(Default::default);
    if let Some(&kept) = interned.get(&access) {
        return kept;
    }
    let kept: &'static Access = Box::leak(Box::new(access));
    interned.insert(kept);
    kept
}

/// How [`cells`] is asked for a value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CellAccess {
    /// To read it: the view's access must let it read the component.
    Read,
    /// To write it: the access must let it write, and the component must
    /// be mutable.
    Write,
    /// To write it whether the component is mutable or not (the caller
    /// keeps an immutable one's hooks in step).
    WriteAssumeMutable,
}

/// The value of `id` at `row` and its tick cells, from the view's table or
/// else from the entity's location, if `access` allows it.
///
/// # Safety
/// `row` is `entity`'s table row in `world`, in the view's table if it has
/// one.
#[inline(always)]
unsafe fn cells<'w>(
    world: &'w World,
    view: &FilteredView<'w>,
    entity: Entity,
    row: TableRow,
    id: ComponentId,
    access: CellAccess,
) -> Option<(NonNull<u8>, &'w UnsafeCell<Tick>, &'w UnsafeCell<Tick>)> {
    let allowed = match access {
        CellAccess::Read => view.access.has_read(id),
        CellAccess::Write | CellAccess::WriteAssumeMutable => view.access.has_write(id),
    };
    if !allowed {
        return None;
    }
    if let Some(column) = view.table.and_then(|table| table.get_column(id)) {
        if access == CellAccess::Write && !column.is_mutable() {
            return None;
        }
        let row = row.index();
        // SAFETY: the column is one of the entity's table (caller), valid
        // for `'w`, and `row` is one of its rows.
        return unsafe {
            Some((
                // The column steps rows by its stride, which a dynamic
                // layout's padding makes larger than its size.
                NonNull::new_unchecked(column.get_data_unchecked(row)),
                column.added_ticks().get_unchecked(row),
                column.changed_ticks().get_unchecked(row),
            ))
        };
    }
    if access == CellAccess::Write && !world.components.get_info(id)?.mutable() {
        return None;
    }
    cells_slow(world, entity, id)
}

/// [`cells`] of a component outside the view's table: a sparse-set one,
/// one the entity lacks, or any for a view with no table.
#[cold]
fn cells_slow(
    world: &World,
    entity: Entity,
    id: ComponentId,
) -> Option<(NonNull<u8>, &UnsafeCell<Tick>, &UnsafeCell<Tick>)> {
    entity_ref(world, entity).component_cells(id)
}

/// A handle to a live entity of `world`.
#[inline]
fn entity_ref(world: &World, entity: Entity) -> EntityRef<'_> {
    let location = world
        .entities
        .get(entity)
        .unwrap_or_else(|| panic!("entity {entity:?} of a filtered handle is not spawned"));
    EntityRef::new(world, entity, location)
}

/// Shared access to the components of one entity that an [`Access`]
/// allows to be read: the item of `Query<FilteredEntityRef>`.
///
/// Bevy's borrows the access from the query state for `'s`; this one holds
/// an interned copy, so items may outlive the state as `'w` items of typed
/// queries do.
#[derive(Clone, Copy)]
pub struct FilteredEntityRef<'w, 's> {
    world: &'w World,
    entity: Entity,
    row: TableRow,
    view: FilteredView<'w>,
    marker: PhantomData<&'s ()>,
}

impl std::fmt::Debug for FilteredEntityRef<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilteredEntityRef")
            .field("entity", &self.entity)
            .finish()
    }
}

impl<'w> FilteredEntityRef<'w, '_> {
    /// # Safety
    /// `entity` is live in `world` at table row `row`, in the view's table
    /// if it has one; for `'w`, no structural
    /// change happens and nothing writes the components the view's access
    /// reads.
    #[inline(always)]
    pub(crate) unsafe fn new(
        world: &'w World,
        entity: Entity,
        row: TableRow,
        view: FilteredView<'w>,
    ) -> Self {
        FilteredEntityRef {
            world,
            entity,
            row,
            view,
            marker: PhantomData,
        }
    }

    /// The entity's id.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Where the entity's data lives.
    #[inline]
    pub fn location(&self) -> EntityLocation {
        entity_ref(self.world, self.entity).location()
    }

    /// The entity's archetype.
    #[inline]
    pub fn archetype(&self) -> &Archetype {
        entity_ref(self.world, self.entity).archetype()
    }

    /// What this handle may read.
    #[inline]
    pub fn access(&self) -> &Access {
        self.view.access
    }

    /// The world's component registry.
    #[inline]
    pub(crate) fn components(&self) -> &'w crate::component::Components {
        self.world.components()
    }

    /// Whether the entity has component `T` (whether or not it may be read).
    #[inline]
    pub fn contains<T: Component>(&self) -> bool {
        entity_ref(self.world, self.entity).contains::<T>()
    }

    /// Whether the entity has the component `id`.
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        self.view.table.is_some_and(|table| table.has_column(id))
            || entity_ref(self.world, self.entity).contains_id(id)
    }

    /// The value of `id` and its tick cells, if readable.
    #[inline(always)]
    fn cells(
        &self,
        id: ComponentId,
    ) -> Option<(NonNull<u8>, &'w UnsafeCell<Tick>, &'w UnsafeCell<Tick>)> {
        // SAFETY: `row` is the entity's row in the view's table (`new`).
        unsafe {
            cells(
                self.world,
                &self.view,
                self.entity,
                self.row,
                id,
                CellAccess::Read,
            )
        }
    }

    /// The entity's component `T`, if it has it and the access allows it.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&'w T> {
        let id = self.world.components.component_id::<T>()?;
        let (ptr, _, _) = self.cells(id)?;
        // SAFETY: the value of `T`'s id is a `T`, readable for `'w` (`new`).
        Some(unsafe { ptr.cast::<T>().as_ref() })
    }

    /// [`FilteredEntityRef::get`] with change ticks.
    ///
    /// # Panics
    /// If `T` is `#[component(no_change_ticks)]` (it keeps no change ticks).
    #[inline]
    #[track_caller]
    pub fn get_ref<T: Component>(&self) -> Option<Ref<'w, T>> {
        crate::component::assert_change_ticks::<T>("`get_ref`");
        let id = self.world.components.component_id::<T>()?;
        let (ptr, added, changed) = self.cells(id)?;
        // SAFETY: as in `get`; tick cells are written only where the value
        // may be, which nothing does for `'w`.
        unsafe {
            Some(Ref::new(
                ptr.cast::<T>().as_ref(),
                &*added.get(),
                &*changed.get(),
                self.view.last_run,
                self.view.this_run,
            ))
        }
    }

    /// A pointer to the entity's value of `id`, if it has it and the
    /// access allows reading it.
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Option<Ptr<'w>> {
        let (ptr, _, _) = self.cells(id)?;
        // SAFETY: the value is the entity's, readable for `'w` (`new`).
        Some(unsafe { Ptr::new(ptr) })
    }

    /// Whether the entity has the component of Rust type `type_id`.
    #[inline]
    pub fn contains_type_id(&self, type_id: std::any::TypeId) -> bool {
        entity_ref(self.world, self.entity).contains_type_id(type_id)
    }

    /// The world tick the entity was spawned at.
    #[inline]
    pub fn spawn_tick(&self) -> Tick {
        entity_ref(self.world, self.entity).spawn_tick()
    }

    /// When the entity's `T` was added and last changed, if it has it and
    /// the access allows reading it.
    ///
    /// # Panics
    /// If `T` is `#[component(no_change_ticks)]` (it keeps no change ticks).
    #[inline]
    #[track_caller]
    pub fn get_change_ticks<T: Component>(&self) -> Option<ComponentTicks> {
        crate::component::assert_change_ticks::<T>("`get_change_ticks`");
        self.get_change_ticks_by_id(self.world.components.component_id::<T>()?)
    }

    /// When the entity's value of `id` was added and last changed, if it
    /// has it and the access allows reading it (unspecified for a
    /// component that keeps no change ticks).
    #[inline]
    pub fn get_change_ticks_by_id(&self, id: ComponentId) -> Option<ComponentTicks> {
        let (_, added, changed) = self.cells(id)?;
        // SAFETY: nothing writes what the access reads for `'w` (`new`),
        // tick cells included.
        unsafe {
            Some(ComponentTicks {
                added: *added.get(),
                changed: *changed.get(),
            })
        }
    }

    /// An [`EntityRef`] of the same entity, if the access reads every
    /// component.
    ///
    /// # Errors
    /// [`TryFromFilteredError::MissingReadAllAccess`] otherwise.
    pub fn try_into_all(self) -> Result<EntityRef<'w>, TryFromFilteredError> {
        if self.view.access.has_read_all() {
            Ok(entity_ref(self.world, self.entity))
        } else {
            Err(TryFromFilteredError::MissingReadAllAccess)
        }
    }
}

/// Why a filtered handle cannot become a whole-entity one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryFromFilteredError {
    /// The access does not read every component.
    MissingReadAllAccess,
    /// The access does not write every component.
    MissingWriteAllAccess,
}

impl std::fmt::Display for TryFromFilteredError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TryFromFilteredError::MissingReadAllAccess => {
                "the filtered handle may not read every component of its entity"
            }
            TryFromFilteredError::MissingWriteAllAccess => {
                "the filtered handle may not write every component of its entity"
            }
        })
    }
}

impl std::error::Error for TryFromFilteredError {}

impl<'w> From<EntityRef<'w>> for FilteredEntityRef<'w, '_> {
    /// A handle that may read every component.
    fn from(entity: EntityRef<'w>) -> Self {
        let mut access = Access::default();
        access.read_all();
        let world = entity.world();
        let view = FilteredView::new(
            intern_access(access),
            world.last_change_tick(),
            world.change_tick(),
        );
        // SAFETY: an `EntityRef` may read every component of its live
        // entity for `'w`; a view with no table finds values through the
        // entity's location.
        unsafe { FilteredEntityRef::new(world, entity.id(), entity.location().table_row, view) }
    }
}

/// Mutable access to the components of one entity that an [`Access`]
/// allows: the item of `Query<FilteredEntityMut>`. Reads need read access,
/// writes write access.
///
/// Like [`FilteredEntityRef`], it holds an interned copy of its access.
pub struct FilteredEntityMut<'w, 's> {
    cell: UnsafeWorldCell<'w>,
    entity: Entity,
    row: TableRow,
    view: FilteredView<'w>,
    marker: PhantomData<&'s ()>,
}

impl std::fmt::Debug for FilteredEntityMut<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FilteredEntityMut")
            .field("entity", &self.entity)
            .finish()
    }
}

impl<'w, 's> FilteredEntityMut<'w, 's> {
    /// # Safety
    /// `entity` is live in the cell's world at table row `row`, in the
    /// view's table if it has one; for `'w`, no
    /// structural change happens, nothing else reads the components the
    /// view's access writes, nor writes those it reads.
    #[inline(always)]
    pub(crate) unsafe fn new(
        cell: UnsafeWorldCell<'w>,
        entity: Entity,
        row: TableRow,
        view: FilteredView<'w>,
    ) -> Self {
        FilteredEntityMut {
            cell,
            entity,
            row,
            view,
            marker: PhantomData,
        }
    }

    /// The entity's id.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Where the entity's data lives.
    #[inline]
    pub fn location(&self) -> EntityLocation {
        entity_ref(self.cell.meta(), self.entity).location()
    }

    /// The entity's archetype.
    #[inline]
    pub fn archetype(&self) -> &Archetype {
        entity_ref(self.cell.meta(), self.entity).archetype()
    }

    /// What this handle may read and write.
    #[inline]
    pub fn access(&self) -> &Access {
        self.view.access
    }

    /// The world's component registry.
    #[inline]
    pub(crate) fn components(&self) -> &'w crate::component::Components {
        self.cell.components()
    }

    /// A shorter-lived handle to the same entity.
    #[inline]
    pub fn reborrow(&mut self) -> FilteredEntityMut<'_, 's> {
        FilteredEntityMut {
            cell: self.cell,
            entity: self.entity,
            row: self.row,
            view: self.view,
            marker: PhantomData,
        }
    }

    /// A read-only handle borrowing this one.
    #[inline]
    pub fn as_readonly(&self) -> FilteredEntityRef<'_, 's> {
        // SAFETY: `&self` keeps this handle from writing meanwhile; the
        // rest is `new`'s contract.
        unsafe { FilteredEntityRef::new(self.cell.meta(), self.entity, self.row, self.view) }
    }

    /// A read-only handle for the whole lifetime.
    #[inline]
    pub fn into_readonly(self) -> FilteredEntityRef<'w, 's> {
        // SAFETY: the handle is consumed, so nothing of it writes.
        unsafe { FilteredEntityRef::new(self.cell.meta(), self.entity, self.row, self.view) }
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

    /// The entity's component `T`, if it has it and the access allows
    /// reading it.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&T> {
        self.as_readonly().get::<T>()
    }

    /// [`FilteredEntityMut::get`] with change ticks.
    ///
    /// # Panics
    /// If `T` is `#[component(no_change_ticks)]` (it keeps no change ticks).
    #[inline]
    #[track_caller]
    pub fn get_ref<T: Component>(&self) -> Option<Ref<'_, T>> {
        self.as_readonly().get_ref::<T>()
    }

    /// A pointer to the entity's value of `id`, if it has it and the
    /// access allows reading it.
    #[inline]
    pub fn get_by_id(&self, id: ComponentId) -> Option<Ptr<'_>> {
        // SAFETY: `row` is the entity's row in the view's table (`new`).
        let (ptr, _, _) = unsafe {
            cells(
                self.cell.meta(),
                &self.view,
                self.entity,
                self.row,
                id,
                CellAccess::Read,
            )
        }?;
        // SAFETY: the value is the entity's, readable while `self` is
        // borrowed (`new`).
        Some(unsafe { Ptr::new(ptr) })
    }

    /// The entity's component `T`, mutably, if it has it and the access
    /// allows writing it.
    #[inline]
    pub fn get_mut<T: Component<Mutability = Mutable>>(&mut self) -> Option<Mut<'_, T>> {
        self.reborrow().into_mut::<T>()
    }

    /// Like [`FilteredEntityMut::get_mut`], for the handle's whole lifetime.
    #[inline]
    pub fn into_mut<T: Component<Mutability = Mutable>>(self) -> Option<Mut<'w, T>> {
        // SAFETY: `T` is mutable.
        unsafe { self.into_mut_assume_mutable() }
    }

    /// Like [`FilteredEntityMut::into_mut`], for a component `T` that may
    /// be immutable.
    ///
    /// # Safety
    /// If `T` is [`Immutable`](crate::component::Immutable), the value is
    /// not changed, or changed only as replacing it would (its
    /// `on_discard` and `on_insert` hooks and observers run around the
    /// change, as [`World::modify_component`] does).
    #[inline]
    pub unsafe fn into_mut_assume_mutable<T: Component>(mut self) -> Option<Mut<'w, T>> {
        let id = self.cell.meta().components.component_id::<T>()?;
        let (ptr, added, changed) = self.cells_assume_mutable(id)?;
        // SAFETY: the value of `T`'s id is a `T`, which the consumed
        // handle could write alone for `'w` (`new`), ticks with it.
        unsafe {
            Some(Mut::new(
                ptr.cast::<T>().as_mut(),
                &mut *added.get(),
                &mut *changed.get(),
                self.view.last_run,
                self.view.this_run,
            ))
        }
    }

    /// The entity's value of `id`, mutably, if it has it, the access
    /// allows writing it, and it is not
    /// [`Immutable`](crate::component::Immutable).
    #[inline]
    pub fn get_mut_by_id(&mut self, id: ComponentId) -> Option<MutUntyped<'_>> {
        self.reborrow().into_mut_by_id(id)
    }

    /// Like [`FilteredEntityMut::get_mut_by_id`], for the handle's whole
    /// lifetime.
    #[inline]
    pub fn into_mut_by_id(mut self, id: ComponentId) -> Option<MutUntyped<'w>> {
        let (ptr, added, changed) = self.cells_mut(id)?;
        // SAFETY: the handle is consumed, so this is the only borrow of
        // the value, which it may write (`new`), ticks with it.
        unsafe {
            Some(MutUntyped::new(
                PtrMut::new(ptr),
                &mut *added.get(),
                &mut *changed.get(),
                self.view.last_run,
                self.view.this_run,
            ))
        }
    }

    /// The value of `id` and its tick cells, if writable (the access
    /// allows it and the component is mutable).
    #[inline(always)]
    fn cells_mut(
        &mut self,
        id: ComponentId,
    ) -> Option<(NonNull<u8>, &'w UnsafeCell<Tick>, &'w UnsafeCell<Tick>)> {
        self.cells_as(id, CellAccess::Write)
    }

    /// [`FilteredEntityMut::cells_mut`] without the mutability check.
    #[inline(always)]
    fn cells_assume_mutable(
        &mut self,
        id: ComponentId,
    ) -> Option<(NonNull<u8>, &'w UnsafeCell<Tick>, &'w UnsafeCell<Tick>)> {
        self.cells_as(id, CellAccess::WriteAssumeMutable)
    }

    #[inline(always)]
    fn cells_as(
        &mut self,
        id: ComponentId,
        access: CellAccess,
    ) -> Option<(NonNull<u8>, &'w UnsafeCell<Tick>, &'w UnsafeCell<Tick>)> {
        // SAFETY: `row` is the entity's row in the view's table (`new`).
        unsafe {
            cells(
                self.cell.meta(),
                &self.view,
                self.entity,
                self.row,
                id,
                access,
            )
        }
    }
}

impl<'w, 's> FilteredEntityMut<'w, 's> {
    /// Whether the entity has the component of Rust type `type_id`.
    #[inline]
    pub fn contains_type_id(&self, type_id: std::any::TypeId) -> bool {
        self.as_readonly().contains_type_id(type_id)
    }

    /// The world tick the entity was spawned at.
    #[inline]
    pub fn spawn_tick(&self) -> Tick {
        self.as_readonly().spawn_tick()
    }

    /// When the entity's `T` was added and last changed, if it has it and
    /// the access allows reading it.
    ///
    /// # Panics
    /// If `T` is `#[component(no_change_ticks)]`.
    #[inline]
    #[track_caller]
    pub fn get_change_ticks<T: Component>(&self) -> Option<ComponentTicks> {
        self.as_readonly().get_change_ticks::<T>()
    }

    /// When the entity's value of `id` was added and last changed, if it
    /// has it and the access allows reading it.
    #[inline]
    pub fn get_change_ticks_by_id(&self, id: ComponentId) -> Option<ComponentTicks> {
        self.as_readonly().get_change_ticks_by_id(id)
    }

    /// An [`EntityMut`] of the same entity, if the access reads and writes
    /// every component.
    ///
    /// # Errors
    /// [`TryFromFilteredError`] naming the access that is missing.
    pub fn try_into_all(self) -> Result<EntityMut<'w>, TryFromFilteredError> {
        if !self.view.access.has_read_all() {
            return Err(TryFromFilteredError::MissingReadAllAccess);
        }
        if !self.view.access.has_write_all() {
            return Err(TryFromFilteredError::MissingWriteAllAccess);
        }
        let location = entity_ref(self.cell.meta(), self.entity).location();
        // SAFETY: the handle may read and write every component of its
        // live entity for `'w` (`new`), and is consumed: the `EntityMut`
        // takes over that access alone.
        Ok(unsafe { EntityMut::new(self.cell, self.entity, location) })
    }
}

impl<'w> From<EntityMut<'w>> for FilteredEntityMut<'w, '_> {
    /// A handle that may read and write every component.
    fn from(entity: EntityMut<'w>) -> Self {
        let mut access = Access::default();
        access.read_all();
        access.write_all();
        let (cell, id, location) = (entity.cell(), entity.id(), entity.location());
        let world = cell.meta();
        let view = FilteredView::new(
            intern_access(access),
            world.last_change_tick(),
            world.change_tick(),
        );
        // SAFETY: an `EntityMut` may read and write every component of its
        // live entity for `'w`, and is consumed; a view with no table finds
        // values through the entity's location.
        unsafe { FilteredEntityMut::new(cell, id, location.table_row, view) }
    }
}

impl<'w> TryFrom<FilteredEntityRef<'w, '_>> for EntityRef<'w> {
    type Error = TryFromFilteredError;

    fn try_from(entity: FilteredEntityRef<'w, '_>) -> Result<Self, TryFromFilteredError> {
        entity.try_into_all()
    }
}

impl<'w> TryFrom<&FilteredEntityRef<'w, '_>> for EntityRef<'w> {
    type Error = TryFromFilteredError;

    fn try_from(entity: &FilteredEntityRef<'w, '_>) -> Result<Self, TryFromFilteredError> {
        (*entity).try_into_all()
    }
}

impl<'w> TryFrom<FilteredEntityMut<'w, '_>> for EntityRef<'w> {
    type Error = TryFromFilteredError;

    fn try_from(entity: FilteredEntityMut<'w, '_>) -> Result<Self, TryFromFilteredError> {
        entity.into_readonly().try_into_all()
    }
}

impl<'a> TryFrom<&'a FilteredEntityMut<'_, '_>> for EntityRef<'a> {
    type Error = TryFromFilteredError;

    fn try_from(entity: &'a FilteredEntityMut<'_, '_>) -> Result<Self, TryFromFilteredError> {
        entity.as_readonly().try_into_all()
    }
}

impl<'w> TryFrom<FilteredEntityMut<'w, '_>> for EntityMut<'w> {
    type Error = TryFromFilteredError;

    fn try_from(entity: FilteredEntityMut<'w, '_>) -> Result<Self, TryFromFilteredError> {
        entity.try_into_all()
    }
}

impl<'a> TryFrom<&'a mut FilteredEntityMut<'_, '_>> for EntityMut<'a> {
    type Error = TryFromFilteredError;

    fn try_from(entity: &'a mut FilteredEntityMut<'_, '_>) -> Result<Self, TryFromFilteredError> {
        entity.reborrow().try_into_all()
    }
}

impl<'w, 's> From<FilteredEntityMut<'w, 's>> for FilteredEntityRef<'w, 's> {
    fn from(entity: FilteredEntityMut<'w, 's>) -> Self {
        entity.into_readonly()
    }
}

/// The conversions of bevy's `EntityWorldMut`: each panics, naming the
/// entity, if a hook, observer or command despawned it meanwhile.
mod from_entity_world_mut {
    use super::{EntityMut, EntityRef, FilteredEntityMut, FilteredEntityRef};
    use crate::world::EntityWorldMut;

    impl<'w> From<EntityWorldMut<'w>> for EntityRef<'w> {
        #[track_caller]
        fn from(entity: EntityWorldMut<'w>) -> Self {
            entity.into_readonly()
        }
    }

    impl<'a> From<&'a EntityWorldMut<'_>> for EntityRef<'a> {
        #[track_caller]
        fn from(entity: &'a EntityWorldMut<'_>) -> Self {
            entity.as_readonly()
        }
    }

    impl<'w> From<EntityWorldMut<'w>> for EntityMut<'w> {
        #[track_caller]
        fn from(entity: EntityWorldMut<'w>) -> Self {
            entity.into_mutable()
        }
    }

    impl<'a> From<&'a mut EntityWorldMut<'_>> for EntityMut<'a> {
        #[track_caller]
        fn from(entity: &'a mut EntityWorldMut<'_>) -> Self {
            entity.as_mutable()
        }
    }

    impl<'w> From<EntityWorldMut<'w>> for FilteredEntityRef<'w, '_> {
        #[track_caller]
        fn from(entity: EntityWorldMut<'w>) -> Self {
            entity.into_readonly().into()
        }
    }

    impl<'a> From<&'a EntityWorldMut<'_>> for FilteredEntityRef<'a, '_> {
        #[track_caller]
        fn from(entity: &'a EntityWorldMut<'_>) -> Self {
            entity.as_readonly().into()
        }
    }

    impl<'w> From<EntityWorldMut<'w>> for FilteredEntityMut<'w, '_> {
        #[track_caller]
        fn from(entity: EntityWorldMut<'w>) -> Self {
            entity.into_mutable().into()
        }
    }

    impl<'a> From<&'a mut EntityWorldMut<'_>> for FilteredEntityMut<'a, '_> {
        #[track_caller]
        fn from(entity: &'a mut EntityWorldMut<'_>) -> Self {
            entity.as_mutable().into()
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use crate::world::{FilteredEntityMut, FilteredEntityRef};

    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    struct A(u32);
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    struct B(u32);
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    #[component(storage = "SparseSet")]
    struct S(u32);
    #[derive(Component, Debug, Clone, Copy, PartialEq)]
    struct Marker;

    /// Entities over three archetypes: `A`; `A, B`; `A, S, Marker`.
    fn world() -> World {
        let mut world = World::new();
        for i in 0..4 {
            world.spawn(A(i));
            world.spawn((A(10 + i), B(i)));
            world.spawn((A(20 + i), S(i), Marker));
        }
        world
    }

    #[test]
    fn items_kept_across_archetypes_read_their_own_table() {
        let mut world = world();
        let a = world.register_component::<A>();
        let mut query = QueryBuilder::<FilteredEntityRef>::new(&mut world)
            .ref_id(a)
            .build();
        // Collected: each archetype's view is still held when the next is
        // pointed at, so every archetype gets its own.
        let items: Vec<_> = query.iter(&world).collect();
        let mut seen: Vec<u32> = items
            .iter()
            .map(|item| {
                // SAFETY: `a` is `A`'s id.
                unsafe { item.get_by_id(a).unwrap().deref::<A>() }.0
            })
            .collect();
        seen.sort_unstable();
        let expected: Vec<u32> = (0..4).chain(10..14).chain(20..24).collect();
        assert_eq!(seen, expected);
        for item in &items {
            assert_eq!(
                item.get::<A>().map(|a| a.0),
                item.get_by_id(a).map(|p| {
                    // SAFETY: `a` is `A`'s id.
                    unsafe { p.deref::<A>() }.0
                })
            );
            assert_eq!(item.location(), world.entity(item.id()).location());
        }
    }

    #[test]
    fn queries_with_one_access_share_one_interned_copy() {
        let mut world = world();
        let (a, b) = (
            world.register_component::<A>(),
            world.register_component::<B>(),
        );
        let mut first = QueryBuilder::<FilteredEntityRef>::new(&mut world)
            .ref_id(a)
            .build();
        let mut second = QueryBuilder::<FilteredEntityRef>::new(&mut world)
            .ref_id(a)
            .build();
        let mut other = QueryBuilder::<FilteredEntityRef>::new(&mut world)
            .ref_id(b)
            .build();
        let first = first.iter(&world).next().unwrap().access() as *const _;
        let second = second.iter(&world).next().unwrap().access() as *const _;
        let other = other.iter(&world).next().unwrap().access() as *const _;
        assert_eq!(first, second, "one access, one copy");
        assert_ne!(first, other);
    }

    #[test]
    fn ids_outside_the_access_are_refused_though_the_table_has_them() {
        let mut world = world();
        let (a, b) = (
            world.register_component::<A>(),
            world.register_component::<B>(),
        );
        let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
            .ref_id(a)
            .with::<B>()
            .build();
        let mut count = 0;
        for mut item in query.iter_mut(&mut world) {
            assert!(item.get_by_id(a).is_some());
            assert!(item.get_by_id(b).is_none(), "`B` is a filter, not read");
            assert!(item.get_mut_by_id(a).is_none(), "`A` is read, not written");
            assert!(item.get_mut::<A>().is_none());
            assert!(item.contains_id(b));
            count += 1;
        }
        assert_eq!(count, 4);
    }

    #[test]
    fn sparse_set_components_are_read_and_written_by_id() {
        let mut world = world();
        let (a, s) = (
            world.register_component::<A>(),
            world.register_component::<S>(),
        );
        let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
            .ref_id(a)
            .mut_id(s)
            .with::<S>()
            .build();
        for mut item in query.iter_mut(&mut world) {
            // SAFETY: `a` is `A`'s id and `s` is `S`'s.
            let value = unsafe { item.get_by_id(a).unwrap().deref::<A>() }.0;
            let mut sparse = item.get_mut_by_id(s).expect("`S` is written");
            // SAFETY: `s` is `S`'s id.
            unsafe { sparse.as_mut().deref_mut::<S>() }.0 += value;
        }
        let mut sums: Vec<u32> = world.query::<&S>().iter(&world).map(|s| s.0).collect();
        sums.sort_unstable();
        assert_eq!(sums, vec![20, 22, 24, 26]);
    }

    #[test]
    fn writes_by_id_mark_the_value_changed_for_the_query_run() {
        let mut world = world();
        let a = world.register_component::<A>();
        world.increment_change_tick();
        let write_tick = world.change_tick();
        let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
            .mut_id(a)
            .with::<B>()
            .build();
        for mut item in query.iter_mut(&mut world) {
            let mut value = item.get_mut_by_id(a).expect("`A` is written");
            // SAFETY: `a` is `A`'s id.
            unsafe { value.as_mut().deref_mut::<A>() }.0 += 100;
        }
        let mut seen = Vec::new();
        for (value, b) in world.query::<(Ref<A>, Has<B>)>().iter(&world) {
            assert_eq!(value.last_changed() == write_tick, b, "{value:?}");
            if b {
                seen.push(value.0);
            }
        }
        seen.sort_unstable();
        assert_eq!(seen, vec![110, 111, 112, 113]);
    }

    #[test]
    fn a_handle_made_from_an_entity_ref_reads_everything() {
        let mut world = world();
        let e = world.spawn((A(7), S(8))).id();
        let s = world.register_component::<S>();
        let handle = FilteredEntityRef::from(world.entity(e));
        assert_eq!(handle.get::<A>(), Some(&A(7)));
        // SAFETY: `s` is `S`'s id.
        assert_eq!(unsafe { handle.get_by_id(s).unwrap().deref::<S>() }, &S(8));
        assert!(handle.get::<B>().is_none());
        assert!(handle.access().has_read_all());
    }
}
