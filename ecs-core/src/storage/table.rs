//! [`Table`]: struct-of-arrays storage for the table components of one set
//! of archetypes, and [`Tables`], every table of a world found by its
//! sorted component ids.
//!
//! A row moves between tables (insert: [`Table::move_to_superset`], remove:
//! `move_to_subset`) or out of one (despawn) by swap-remove: the last row
//! takes the vacated place and the caller fixes the moved entity's
//! location from the returned entity. See the [`storage`](super) module
//! docs for the diagrams.

use std::{
    alloc::{self, Layout},
    fmt,
    ptr::NonNull,
};

use hashbrown::HashMap;

use super::{Column, ColumnTail, FillValues, SparseSet};
use crate::{
    change_detection::{ComponentTicks, Tick},
    component::{ComponentId, Components},
    entity::Entity,
    utils::DropPanics,
};

/// A column position for a component the table does not have: what
/// [`column_slot`] gives then, in a query's per-table column cache (see
/// [`WorldQuery::table_columns`](crate::query::WorldQuery::table_columns))
/// and in an archetype edge's table moves.
pub const NO_COLUMN: u32 = u32::MAX;

/// The position of the column of `id` in `table`, or [`NO_COLUMN`]. What
/// [`WorldQuery::table_columns`](crate::query::WorldQuery::table_columns)
/// pushes for a column.
#[inline]
pub fn column_slot(table: &Table, id: ComponentId) -> u32 {
    table
        .column_index(id)
        .map_or(NO_COLUMN, |index| index as u32)
}

/// The id of a [`Table`] in [`Tables`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableId(u32);

impl TableId {
    /// The table with no columns, where entities without table components
    /// live.
    pub const EMPTY: TableId = TableId(0);
    pub(crate) const INVALID: TableId = TableId(u32::MAX);

    /// Makes an id from an index.
    #[inline]
    pub const fn new(index: usize) -> Self {
        TableId(index as u32)
    }

    /// The index of this id.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for TableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TableId({})", self.0)
    }
}

/// A row in a [`Table`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TableRow(u32);

impl TableRow {
    pub(crate) const INVALID: TableRow = TableRow(u32::MAX);

    /// Makes a row from an index.
    #[inline]
    pub const fn new(index: usize) -> Self {
        TableRow(index as u32)
    }

    /// The index of this row.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for TableRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TableRow({})", self.0)
    }
}

/// What moving a row out of a table did.
#[derive(Debug)]
pub(crate) struct TableMoveResult {
    /// The entity that was swapped into the vacated row, if any.
    pub(crate) swapped_entity: Option<Entity>,
    /// The row in the destination table.
    pub(crate) new_row: TableRow,
}

/// Struct-of-arrays storage for the table components of every entity
/// whose archetype maps to this table: one [`Column`] per component, rows
/// aligned across columns.
///
/// Invariants: every column has exactly `entities.len()` values (but for
/// the row being built), and row `r` of every column belongs to
/// `entities[r]`; `entities.len() <= row_capacity`, and `entities` and
/// every column can hold `row_capacity` rows without growing.
#[derive(Debug)]
pub struct Table {
    // Declared before `block`: the columns drop their values before the
    // block they live in is freed.
    columns: SparseSet<ComponentId, Column>,
    entities: Vec<Entity>,
    /// Rows that fit without any column growing: the capacity checks of
    /// the pushes that build a row are made once, in `push_entity`.
    row_capacity: usize,
    /// The one allocation holding every column's values and ticks (one
    /// allocation per table rather than three per column: fewer calls to
    /// the allocator, and a block big enough that the allocator keeps the
    /// memory when a world is dropped and another built).
    block: TableBlock,
    /// Each column's array pointers, by column position, side by side: a
    /// query setting up on a table reads one short entry per term instead
    /// of three pointers spread over a `Column`. They change only when the
    /// block does.
    pointers: ColumnPointers,
}

/// The [`ColumnTail`]s of a table's columns, refreshed whenever the
/// columns move to a new block.
#[derive(Debug, Default)]
struct ColumnPointers(Vec<ColumnTail>);

// SAFETY: the pointers point into the table's block, which the table owns;
// they are read through `&Table` and written through the table's columns
// under the table's own borrow rules, like the block itself.
unsafe impl Send for ColumnPointers {}
// SAFETY: as above.
unsafe impl Sync for ColumnPointers {}

/// The memory of a table's columns: `capacity` rows of each column's
/// values, added ticks and changed ticks.
#[derive(Debug)]
struct TableBlock {
    /// Dangling when nothing is allocated.
    ptr: NonNull<u8>,
    /// The layout `ptr` was allocated with (size 0: nothing allocated).
    layout: Layout,
    capacity: usize,
}

// SAFETY: the block is plain memory owned by its table; it is only read
// or written through the table's columns, which are `Send + Sync` (they
// hold `Send + Sync` component values).
unsafe impl Send for TableBlock {}
// SAFETY: as above.
unsafe impl Sync for TableBlock {}

impl TableBlock {
    fn empty() -> TableBlock {
        TableBlock {
            ptr: NonNull::dangling(),
            layout: Layout::new::<()>(),
            capacity: 0,
        }
    }
}

impl Drop for TableBlock {
    fn drop(&mut self) {
        if self.layout.size() != 0 {
            // SAFETY: allocated with this layout; the columns that lived in
            // it were dropped first (field order of `Table`).
            unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) };
        }
    }
}

impl Table {
    pub(crate) fn new(
        component_ids: &[ComponentId],
        components: &Components,
        capacity: usize,
    ) -> Table {
        let mut columns = SparseSet::with_capacity(component_ids.len());
        for &id in component_ids {
            let info = components
                .get_info(id)
                .expect("table component is registered");
            columns.insert(id, Column::new(info, 0));
        }
        let mut table = Table {
            columns,
            entities: Vec::new(),
            row_capacity: 0,
            block: TableBlock::empty(),
            pointers: ColumnPointers::default(),
        };
        table.refresh_pointers();
        table.reserve(capacity);
        table
    }

    /// Records every column's array pointers in `pointers`.
    fn refresh_pointers(&mut self) {
        self.pointers.0.clear();
        self.pointers.0.extend(
            self.columns
                .values_mut()
                .iter_mut()
                .map(|column| column.tail()),
        );
    }

    /// The array pointers of the column at `index` (a position as
    /// [`column_slot`] gives).
    ///
    /// # Safety
    /// `index` is below the number of columns.
    #[inline(always)]
    pub(crate) unsafe fn column_pointers_unchecked(&self, index: usize) -> &ColumnTail {
        debug_assert!(index < self.pointers.0.len());
        debug_assert!(
            self.pointers.0[index].data == self.columns.values()[index].data_non_null().as_ptr()
                && self.pointers.0[index].changed.cast_const()
                    == self.columns.values()[index].changed_ticks().as_ptr(),
            "a column moved without its table's pointers being refreshed"
        );
        // SAFETY: one entry per column (kept by `refresh_pointers`), and
        // `index` is a column position (caller).
        unsafe { self.pointers.0.get_unchecked(index) }
    }

    /// Recomputes `row_capacity` from the capacities (which only grow).
    fn update_row_capacity(&mut self) {
        self.row_capacity = self
            .columns
            .values()
            .iter()
            .map(Column::capacity)
            .fold(self.entities.capacity(), usize::min);
    }

    /// The entities of the table, by row.
    #[inline]
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The number of rows.
    #[inline]
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// Whether the table has no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The number of rows the entity list has room for.
    #[inline]
    pub(crate) fn entity_capacity(&self) -> usize {
        self.entities.capacity()
    }

    /// The column of a component.
    #[inline]
    pub fn get_column(&self, id: ComponentId) -> Option<&Column> {
        self.columns.get(id)
    }

    #[inline]
    pub(crate) fn get_column_mut(&mut self, id: ComponentId) -> Option<&mut Column> {
        self.columns.get_mut(id)
    }

    /// Whether the table has a column for the component.
    #[inline]
    pub fn has_column(&self, id: ComponentId) -> bool {
        self.columns.contains(id)
    }

    /// The position of a component's column in [`Table::columns`]. A
    /// table's columns never change after it is built, so the position
    /// holds for the table's life: queries find it once per table they
    /// match and then reach the column with
    /// [`Table::column_at_unchecked`], skipping the lookup by id.
    #[inline]
    pub fn column_index(&self, id: ComponentId) -> Option<usize> {
        self.columns.dense_index(id)
    }

    /// The column at `index` in [`Table::columns`].
    ///
    /// # Safety
    /// `index < self.columns().len()`.
    #[inline(always)]
    pub unsafe fn column_at_unchecked(&self, index: usize) -> &Column {
        debug_assert!(index < self.columns.len());
        // SAFETY: in bounds (caller).
        unsafe { self.columns.values().get_unchecked(index) }
    }

    /// The component ids of the columns.
    #[inline]
    pub fn component_ids(&self) -> &[ComponentId] {
        self.columns.indices()
    }

    /// The columns, in the order of [`Table::component_ids`].
    #[inline]
    pub fn columns(&self) -> &[Column] {
        self.columns.values()
    }

    /// The bytes the values of this table's rows take (not counting spare
    /// capacity and ticks).
    pub fn data_bytes(&self) -> usize {
        self.columns
            .values()
            .iter()
            .map(|c| c.item_layout().pad_to_align().size() * c.len())
            .sum()
    }

    /// Makes room for `additional` more rows, growing geometrically (at
    /// least doubling), as `Vec::reserve` does: many small batches then
    /// move the table's values a logarithmic number of times, not once
    /// per batch.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let len = self.entities.len();
        if self.row_capacity - len < additional {
            let needed = len.checked_add(additional).expect("capacity overflow");
            self.entities.reserve(additional);
            if needed > self.block.capacity {
                self.grow_block(needed.max(self.block.capacity.saturating_mul(2)));
            }
            self.update_row_capacity();
        }
    }

    /// Where each column's three arrays start in a block for `capacity`
    /// rows (one after the other, each aligned), and the block's layout.
    fn block_layout(&self, capacity: usize) -> (Layout, Vec<usize>) {
        let mut layout = Layout::new::<()>();
        let mut offsets = Vec::with_capacity(3 * self.columns.len());
        for column in self.columns.values() {
            for array in column.array_layouts(capacity) {
                let (extended, offset) = layout.extend(array).expect("capacity overflow");
                layout = extended;
                offsets.push(offset);
            }
        }
        (layout.pad_to_align(), offsets)
    }

    /// Moves every column into a block for `capacity` rows: the current
    /// block reallocated (which can grow it in place or remap its pages,
    /// where a new block would fault in every page again), or a first one.
    #[cold]
    fn grow_block(&mut self, capacity: usize) {
        if self.columns.is_empty() {
            return;
        }
        let (layout, offsets) = self.block_layout(capacity);
        if self.block.layout.size() != 0 {
            // A table's columns never change, so neither does the alignment.
            debug_assert_eq!(self.block.layout.align(), layout.align());
            self.realloc_block(capacity, layout, &offsets);
            return;
        }
        let ptr = if layout.size() == 0 {
            NonNull::dangling()
        } else {
            // SAFETY: the layout has a non-zero size.
            NonNull::new(unsafe { alloc::alloc(layout) })
                .unwrap_or_else(|| alloc::handle_alloc_error(layout))
        };
        for (column, offsets) in self.columns.values_mut().iter_mut().zip(offsets.chunks(3)) {
            // SAFETY: the offsets come from extending `layout` with each
            // array's layout, so each pointer is aligned, in bounds and
            // disjoint from the others; the block outlives the column (it
            // is freed after the columns are dropped, or reallocated with
            // them moved along); `capacity` covers every row.
            unsafe {
                let at = |offset: usize| NonNull::new_unchecked(ptr.as_ptr().add(offset));
                column.move_to_external([at(offsets[0]), at(offsets[1]), at(offsets[2])], capacity);
            }
        }
        // There was no block before (the columns held nothing allocated).
        self.block = TableBlock {
            ptr,
            layout,
            capacity,
        };
        self.refresh_pointers();
    }

    /// [`Table::grow_block`] by reallocating the current block, then
    /// moving each array up to its place for `capacity` rows, last first.
    fn realloc_block(&mut self, capacity: usize, layout: Layout, offsets: &[usize]) {
        let (_, old_offsets) = self.block_layout(self.block.capacity);
        // SAFETY: the block was allocated with `self.block.layout`, whose
        // alignment `layout` shares; the new size is non-zero (it is at
        // least the old one's).
        let ptr = NonNull::new(unsafe {
            alloc::realloc(self.block.ptr.as_ptr(), self.block.layout, layout.size())
        })
        .unwrap_or_else(|| alloc::handle_alloc_error(layout));
        // Field by field: the old block must not be freed again (`realloc`
        // freed or kept it).
        self.block.ptr = ptr;
        self.block.layout = layout;
        self.block.capacity = capacity;
        let columns = self.columns.values_mut();
        for (index, column) in columns.iter_mut().enumerate().rev() {
            let used = column.array_layouts(column.len());
            for array in (0..3).rev() {
                let (from, to) = (old_offsets[3 * index + array], offsets[3 * index + array]);
                // SAFETY: the bytes at `from` are this array's rows, kept by
                // `realloc`; `to >= from` (every array is at least as
                // large as before, laid out in the same order), and the
                // arrays after this one were moved up already, so the copy
                // overwrites only its own rows or free space (`copy`
                // allows the overlap).
                unsafe {
                    std::ptr::copy(
                        ptr.as_ptr().add(from),
                        ptr.as_ptr().add(to),
                        used[array].size(),
                    );
                }
            }
            // SAFETY: the column's arrays were in the block, and now sit at
            // the offsets of a block for `capacity` rows.
            unsafe {
                let at = |offset: usize| NonNull::new_unchecked(ptr.as_ptr().add(offset));
                let o = &offsets[3 * index..3 * index + 3];
                column.rebase_external([at(o[0]), at(o[1]), at(o[2])], capacity);
            }
        }
        self.refresh_pointers();
    }

    /// Grows every column geometrically (at least doubling).
    #[cold]
    fn grow_rows(&mut self) {
        self.reserve(self.entities.len().max(4));
    }

    /// Adds a row for `entity`. The caller must push one value onto every
    /// column before any other use of the table; those pushes need no
    /// capacity check (the row fits in every column).
    #[inline]
    pub(crate) fn push_entity(&mut self, entity: Entity) -> TableRow {
        let len = self.entities.len();
        if len == self.row_capacity {
            self.grow_rows();
        }
        debug_assert!(len < self.row_capacity);
        // SAFETY: `len < row_capacity <= entities.capacity()`, so slot
        // `len` is allocated; it is written before the length covers it.
        unsafe {
            self.entities.as_mut_ptr().add(len).write(entity);
            self.entities.set_len(len + 1);
        }
        TableRow::new(len)
    }

    /// Adds a row for each of `entities` and returns the first's row. The
    /// caller must push one value per new row onto every column, in row
    /// order, before any other use of the table.
    #[cfg(feature = "serde")]
    pub(crate) fn push_entities(&mut self, entities: &[Entity]) -> TableRow {
        self.reserve(entities.len());
        let first = self.entities.len();
        self.entities.extend_from_slice(entities);
        TableRow::new(first)
    }

    /// Removes `row`, dropping its values; the last row moves into its
    /// place. Returns the entity that moved.
    ///
    /// # Safety
    /// `row` is a valid row.
    pub(crate) unsafe fn swap_remove_and_drop(
        &mut self,
        row: TableRow,
        panics: &mut DropPanics,
    ) -> Option<Entity> {
        let len = self.entities.len();
        for column in self.columns.values_mut() {
            // SAFETY: every column has a value at every valid row, and
            // `len` values (the table invariant).
            unsafe { column.swap_remove_and_drop_at(row.index(), len, panics) };
        }
        self.swap_remove_entity(row)
    }

    #[inline]
    fn swap_remove_entity(&mut self, row: TableRow) -> Option<Entity> {
        let is_last = row.index() == self.entities.len() - 1;
        self.entities.swap_remove(row.index());
        (!is_last).then(|| self.entities[row.index()])
    }

    /// Where each of this table's columns sits in `to` (see
    /// [`TableMoves`](crate::archetype::TableMoves)): the position of the
    /// same component's column, or [`NO_COLUMN`] if `to` lacks it.
    pub(crate) fn column_positions_in(&self, to: &Table) -> Box<[u32]> {
        self.component_ids()
            .iter()
            .map(|&id| column_slot(to, id))
            .collect()
    }

    /// Whether `moves` is what [`Table::column_positions_in`] gives for
    /// `to` (debug checks and the integrity check).
    pub(crate) fn column_positions_match(&self, to: &Table, moves: &[u32]) -> bool {
        // Without allocating: moves check this in debug builds, where the
        // no-allocation tests run too.
        moves.len() == self.columns.len()
            && self
                .component_ids()
                .iter()
                .zip(moves)
                .all(|(&id, &at)| column_slot(to, id) == at)
    }

    /// The start of a move of `row` to `new_table`: checks `moves` and
    /// pushes the moving entity onto `new_table`. Returns this table's
    /// length and the entity's row in `new_table`.
    #[inline(always)]
    fn push_moving_row(
        &self,
        row: TableRow,
        new_table: &mut Table,
        moves: &[u32],
    ) -> (usize, TableRow) {
        // Checked in release too (one comparison): a short `moves` would
        // silently leave values behind; a panic at least says so.
        assert_eq!(moves.len(), self.columns.len(), "one position per column");
        debug_assert!(self.column_positions_match(new_table, moves));
        let entity = self.entities[row.index()];
        let len = self.entities.len();
        (len, new_table.push_entity(entity))
    }

    /// Moves `row` to `new_table`, which has a column for every component
    /// of this table. The caller must then push values onto the columns of
    /// `new_table` that this table lacks.
    ///
    /// # Safety
    /// `row` is valid; `new_table` is a different table whose components
    /// are a superset of this table's; `moves` is
    /// `self.column_positions_in(new_table)`.
    pub(crate) unsafe fn move_to_superset(
        &mut self,
        row: TableRow,
        new_table: &mut Table,
        moves: &[u32],
    ) -> TableMoveResult {
        debug_assert!(!moves.contains(&NO_COLUMN), "destination is a superset");
        let (len, new_row) = self.push_moving_row(row, new_table, moves);
        let new_columns = new_table.columns.values_mut();
        for (column, &to) in self.columns.values_mut().iter_mut().zip(moves) {
            // SAFETY: `to` is the position of this column's component in
            // the destination, a superset (caller); `row` is valid; every
            // column here has `len` values and every column there
            // `new_row` (the row being built is the last); the removed
            // value moves straight into the other table's column, which
            // has room: its row was just pushed (`row_capacity`).
            unsafe {
                column.swap_remove_into_at(
                    row.index(),
                    len,
                    new_columns.get_unchecked_mut(to as usize),
                    new_row.index(),
                )
            };
        }
        TableMoveResult {
            swapped_entity: self.swap_remove_entity(row),
            new_row,
        }
    }

    /// Moves `row` to `new_table`, dropping the values of components that
    /// `new_table` lacks (or leaving them to the caller, who has already
    /// read them out, when `drop_missing` is false).
    ///
    /// # Safety
    /// `row` is valid; `new_table` is a different table whose components
    /// are a subset of this table's; `moves` is
    /// `self.column_positions_in(new_table)`. With `drop_missing == false`
    /// the caller must already have taken ownership of the missing values.
    pub(crate) unsafe fn move_to_subset(
        &mut self,
        row: TableRow,
        new_table: &mut Table,
        moves: &[u32],
        drop_missing: bool,
        panics: &mut DropPanics,
    ) -> TableMoveResult {
        let (len, new_row) = self.push_moving_row(row, new_table, moves);
        let new_columns = new_table.columns.values_mut();
        for (column, &to) in self.columns.values_mut().iter_mut().zip(moves) {
            // SAFETY: `to` is the position of this column's component in
            // the destination, or `NO_COLUMN` if it lacks it (caller);
            // `row` is valid in every column; the columns here have `len`
            // values and those there `new_row`; the destination column
            // has room for the row just pushed (`row_capacity`).
            unsafe {
                if to != NO_COLUMN {
                    let new_column = new_columns.get_unchecked_mut(to as usize);
                    column.swap_remove_into_at(row.index(), len, new_column, new_row.index());
                } else if drop_missing {
                    column.swap_remove_and_drop_at(row.index(), len, panics);
                } else {
                    let _ = column.swap_remove_and_forget(row.index());
                }
            }
        }
        TableMoveResult {
            swapped_entity: self.swap_remove_entity(row),
            new_row,
        }
    }

    /// Moves every row to the end of `new_table` with one copy per column
    /// (its entities with one copy too), dropping the values of the columns
    /// `new_table` lacks, and empties this table. Returns the first moved
    /// row of `new_table`; the moved rows run to its end, in row order.
    ///
    /// # Safety
    /// `new_table` is a different table; `moves` is
    /// `self.column_positions_in(new_table)`; before any other use of
    /// `new_table`, the caller pushes a value for each moved row, in row
    /// order, onto every column of `new_table` this table lacks.
    pub(crate) unsafe fn move_all_rows(
        &mut self,
        new_table: &mut Table,
        moves: &[u32],
        panics: &mut DropPanics,
    ) -> usize {
        assert_eq!(moves.len(), self.columns.len(), "one position per column");
        debug_assert!(self.column_positions_match(new_table, moves));
        let n = self.entities.len();
        new_table.reserve(n);
        let new_columns = new_table.columns.values_mut();
        for (column, &to) in self.columns.values_mut().iter_mut().zip(moves) {
            if to == NO_COLUMN {
                column.clear(panics);
            } else {
                // SAFETY: `to` is the position of the same component's
                // column in `new_table` (caller), which has room for `n`
                // more rows (reserved above; its columns hold one value
                // per row it has).
                unsafe { column.append_all_into(new_columns.get_unchecked_mut(to as usize)) };
            }
        }
        let start = new_table.entities.len();
        // Within the rows reserved above; cleared rather than taken, so
        // this table keeps its capacity.
        new_table.entities.extend_from_slice(&self.entities);
        self.entities.clear();
        start
    }

    /// Moves every row of `source`, a whole table of the same components,
    /// onto the end of this one, and returns the first moved row. An empty
    /// table takes `source`'s memory as it is, copying nothing.
    ///
    /// # Panics
    /// If the tables' components differ, or `source` is not whole (a
    /// column short of a value).
    #[cfg(feature = "serde")]
    pub(crate) fn append_table(&mut self, source: &mut Table) -> usize {
        assert_eq!(
            self.component_ids(),
            source.component_ids(),
            "tables of the same components"
        );
        let rows = source.entities.len();
        assert!(
            source.columns.values().iter().all(|c| c.len() == rows),
            "a whole table"
        );
        if self.entities.is_empty() {
            // Same components in the same order, so the same columns: only
            // the memory differs.
            std::mem::swap(self, source);
            return 0;
        }
        let moves = source.column_positions_in(self);
        let mut panics = DropPanics::default();
        // SAFETY: two tables borrowed apart; `moves` is what
        // `column_positions_in` gives; this table has no column `source`
        // lacks, so no row is left short of a value.
        let start = unsafe { source.move_all_rows(self, &moves, &mut panics) };
        panics.finish();
        start
    }

    /// Pushes a value onto the column of `id` for the row being built.
    ///
    /// # Safety
    /// The table has a column for `id`; `value` is an owned value of that
    /// component; the row being built is the column's next (rows are filled
    /// in order, after [`Table::push_entity`] or [`Table::move_all_rows`])
    /// and this column has no value for it yet.
    #[inline]
    pub(crate) unsafe fn push_value(
        &mut self,
        id: ComponentId,
        value: *mut u8,
        ticks: ComponentTicks,
    ) {
        // SAFETY: guaranteed by the caller; the column holds the values of
        // the rows before the one being built, fewer than
        // `entities.len() <= row_capacity`, so it has room.
        unsafe {
            let column = self.columns.get_mut(id).unwrap_unchecked();
            debug_assert!(column.len() < self.entities.len());
            column.push_at(column.len(), value, ticks)
        };
    }

    /// Pushes a value of type `T` onto the column of `id` for the row being
    /// built.
    ///
    /// # Safety
    /// As for [`Table::push_value`], and `T` is that component's type.
    #[inline(always)]
    pub(crate) unsafe fn push_typed<T>(
        &mut self,
        id: ComponentId,
        value: T,
        ticks: ComponentTicks,
    ) {
        // SAFETY: as in `push_value`.
        unsafe {
            self.columns
                .get_mut(id)
                .unwrap_unchecked()
                .push_typed_within_capacity(value, ticks)
        };
    }

    /// The column at position `index` ([`Table::column_index`]).
    ///
    /// # Safety
    /// `index` is below the number of columns.
    #[inline]
    pub(crate) unsafe fn column_at_mut(&mut self, index: usize) -> &mut Column {
        // SAFETY: guaranteed by the caller.
        unsafe { self.columns.values_mut().get_unchecked_mut(index) }
    }

    /// [`Table::push_typed`] onto the column at position `index` (of the
    /// component `id`): no lookup by id.
    ///
    /// # Safety
    /// As for [`Table::push_typed`], and `index` is the position of `id`'s
    /// column ([`Table::column_index`]).
    #[inline(always)]
    pub(crate) unsafe fn push_typed_at<T>(
        &mut self,
        index: usize,
        id: ComponentId,
        value: T,
        ticks: ComponentTicks,
    ) {
        debug_assert_eq!(self.column_index(id), Some(index));
        // SAFETY: `index` is the column of `id` (caller), and the rest as in
        // `push_typed`.
        unsafe {
            self.columns
                .values_mut()
                .get_unchecked_mut(index)
                .push_typed_within_capacity(value, ticks)
        };
    }

    pub(crate) fn clear(&mut self, panics: &mut DropPanics) {
        self.entities.clear();
        for column in self.columns.values_mut() {
            column.clear(panics);
        }
    }

    pub(crate) fn check_change_ticks(&mut self, change_tick: Tick) {
        for column in self.columns.values_mut() {
            column.check_change_ticks(change_tick);
        }
    }

    #[cfg(test)]
    pub(crate) fn assert_consistent(&self) {
        for column in self.columns.values() {
            assert_eq!(column.len(), self.entities.len());
        }
    }
}

/// Every table of a world, found by the sorted set of its components.
#[derive(Debug)]
pub struct Tables {
    tables: Vec<Table>,
    table_ids: HashMap<Box<[ComponentId]>, TableId>,
}

impl Default for Tables {
    fn default() -> Self {
        let empty = Table {
            columns: SparseSet::default(),
            entities: Vec::new(),
            row_capacity: 0,
            block: TableBlock::empty(),
            pointers: ColumnPointers::default(),
        };
        let mut table_ids = HashMap::new();
        table_ids.insert(Box::default(), TableId::EMPTY);
        Tables {
            tables: vec![empty],
            table_ids,
        }
    }
}

/// The panic of [`Tables::get_2_mut`], out of line.
#[cold]
#[inline(never)]
fn not_two_tables(a: TableId, b: TableId, count: usize) -> ! {
    panic!("get_2_mut needs two distinct tables of the {count} there are, got {a:?} and {b:?}")
}

impl Tables {
    /// The number of tables.
    #[inline]
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// Whether there are no tables (never: the empty table always exists).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// A table by id.
    #[inline]
    pub fn get(&self, id: TableId) -> Option<&Table> {
        self.tables.get(id.index())
    }

    /// Two distinct tables, mutably.
    #[inline]
    pub(crate) fn get_2_mut(&mut self, a: TableId, b: TableId) -> (&mut Table, &mut Table) {
        // The panic's message is formatted in a function of its own: an
        // inline `assert_ne!` spills both ids to the stack for its message,
        // and reading that slot back stalls on store forwarding every call.
        let count = self.tables.len();
        match self.tables.get_disjoint_mut([a.index(), b.index()]) {
            Ok([a, b]) => (a, b),
            Err(_) => not_two_tables(a, b, count),
        }
    }

    /// The table for a sorted set of table components, created if new.
    pub(crate) fn get_id_or_insert(
        &mut self,
        component_ids: &[ComponentId],
        components: &Components,
    ) -> TableId {
        debug_assert!(
            component_ids.windows(2).all(|w| w[0] < w[1]),
            "sorted and unique"
        );
        if let Some(&id) = self.table_ids.get(component_ids) {
            return id;
        }
        let id = TableId::new(self.tables.len());
        self.tables.push(Table::new(component_ids, components, 0));
        self.table_ids.insert(component_ids.into(), id);
        id
    }

    /// Every table.
    pub fn iter(&self) -> std::slice::Iter<'_, Table> {
        self.tables.iter()
    }

    pub(crate) fn clear_all(&mut self, panics: &mut DropPanics) {
        for table in &mut self.tables {
            table.clear(panics);
        }
    }

    pub(crate) fn check_change_ticks(&mut self, change_tick: Tick) {
        for table in &mut self.tables {
            table.check_change_ticks(change_tick);
        }
    }
}

impl std::ops::Index<TableId> for Tables {
    type Output = Table;
    #[inline]
    #[track_caller]
    fn index(&self, id: TableId) -> &Table {
        if id.index() >= self.tables.len() {
            crate::utils::unknown_id(id, self.tables.len());
        }
        &self.tables[id.index()]
    }
}

impl std::ops::IndexMut<TableId> for Tables {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, id: TableId) -> &mut Table {
        if id.index() >= self.tables.len() {
            crate::utils::unknown_id(id, self.tables.len());
        }
        &mut self.tables[id.index()]
    }
}

/// Snapshot support: empty a table keeping moved-out values, and fill an
/// empty table with whole columns.
impl Table {
    /// Empties the table. `keep(position)` gives, for the column at that
    /// position, which rows' values were moved out (and are not dropped).
    pub(crate) fn clear_keeping<'a>(
        &mut self,
        keep: impl Fn(usize) -> Option<&'a [bool]>,
        panics: &mut DropPanics,
    ) {
        self.entities.clear();
        for (position, column) in self.columns.values_mut().iter_mut().enumerate() {
            column.clear_keeping(keep(position), panics);
        }
    }

    /// Fills the empty table with `entities`, putting in one column of
    /// values per column position.
    ///
    /// # Safety
    /// The table is empty; `columns[i]` holds values of the component of
    /// the column at position `i` (of a `Copy` type if copied), exactly
    /// `entities.len()` of them.
    pub(crate) unsafe fn fill(&mut self, entities: &[Entity], columns: Vec<FillValues<'_>>) {
        debug_assert!(self.entities.is_empty());
        assert_eq!(columns.len(), self.columns.len(), "one column per column");
        self.reserve(entities.len());
        self.entities.extend_from_slice(entities);
        for (column, values) in self.columns.values_mut().iter_mut().zip(columns) {
            debug_assert_eq!(values.len(), entities.len());
            // SAFETY: same component (caller); room for every row was
            // reserved above, and the column was empty.
            unsafe { values.append_into(column) };
        }
    }
}

impl Tables {
    /// Every table, mutably.
    pub(crate) fn iter_mut(&mut self) -> std::slice::IterMut<'_, Table> {
        self.tables.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::component::{Component, StorageType};

    #[derive(Debug, PartialEq)]
    struct A(u32);
    impl Component for A {
        const STORAGE_TYPE: StorageType = StorageType::Table;
        type Mutability = crate::component::Mutable;
    }
    #[derive(Debug, PartialEq)]
    struct B(String);
    impl Component for B {
        const STORAGE_TYPE: StorageType = StorageType::Table;
        type Mutability = crate::component::Mutable;
    }

    fn push<T>(table: &mut Table, id: ComponentId, value: T) {
        push_ticked(table, id, value, ComponentTicks::default());
    }

    fn push_ticked<T>(table: &mut Table, id: ComponentId, value: T, ticks: ComponentTicks) {
        let mut value = std::mem::ManuallyDrop::new(value);
        // SAFETY: the table has a column for `id` of type `T`.
        unsafe { table.push_value(id, (&mut *value as *mut T).cast(), ticks) };
    }

    fn ticks(i: u32) -> ComponentTicks {
        ComponentTicks {
            added: Tick::new(i),
            changed: Tick::new(i + 7),
        }
    }

    #[derive(Debug, PartialEq)]
    struct Marker;
    impl Component for Marker {
        const STORAGE_TYPE: StorageType = StorageType::Table;
        type Mutability = crate::component::Mutable;
    }
    #[derive(Debug, PartialEq)]
    #[repr(align(64))]
    struct Wide(u8);
    impl Component for Wide {
        const STORAGE_TYPE: StorageType = StorageType::Table;
        type Mutability = crate::component::Mutable;
    }

    #[test]
    fn one_block_holds_every_column_and_survives_growth() {
        let mut components = Components::default();
        let mut ids = [
            components.register_component::<A>(),
            components.register_component::<B>(),
            components.register_component::<Marker>(),
            components.register_component::<Wide>(),
        ];
        let [a, b, marker, wide] = ids;
        ids.sort();
        let mut tables = Tables::default();
        let id = tables.get_id_or_insert(&ids, &components);
        let table = &mut tables[id];
        let n = if cfg!(miri) { 40 } else { 1000 };
        let mut capacities = Vec::new();
        for i in 0..n {
            table.push_entity(Entity::from_raw(i));
            push_ticked(table, a, A(i), ticks(i));
            push_ticked(table, b, B(i.to_string()), ticks(i + 1));
            push_ticked(table, marker, Marker, ticks(i + 2));
            push_ticked(table, wide, Wide(i as u8), ticks(i + 3));
            if capacities.last() != Some(&table.block.capacity) {
                capacities.push(table.block.capacity);
            }
            table.assert_consistent();
        }
        // The block grew geometrically, several times, and every column
        // (but the zero-sized one) lives in it.
        assert!(capacities.len() >= 4, "{capacities:?}");
        assert!(
            capacities.windows(2).all(|w| w[1] >= 2 * w[0]),
            "{capacities:?}"
        );
        let block = table.block.ptr.as_ptr() as usize
            ..table.block.ptr.as_ptr() as usize + table.block.layout.size();
        for &column in &[a, b, wide] {
            let column = table.get_column(column).unwrap();
            assert!(block.contains(&(column.data_ptr() as usize)));
            assert!(block.contains(&(column.changed_ticks().as_ptr() as usize)));
        }
        assert_eq!(table.get_column(wide).unwrap().data_ptr() as usize % 64, 0);
        for row in 0..n as usize {
            // SAFETY: valid rows; the columns hold `A`, `B` and `Wide`.
            unsafe {
                let column = |id| table.get_column(id).unwrap().get_data_unchecked(row);
                assert_eq!((*column(a).cast::<A>()).0, row as u32);
                assert_eq!((*column(b).cast::<B>()).0, row.to_string());
                assert_eq!((*column(wide).cast::<Wide>()).0, row as u8);
            }
            // Each array moved with its block: the ticks too.
            for (k, id) in [a, b, marker, wide].into_iter().enumerate() {
                let got = table.get_column(id).unwrap().get_ticks(row);
                assert_eq!(
                    got,
                    Some(ticks(row as u32 + k as u32)),
                    "column {k}, row {row}"
                );
            }
        }
        // Dropping the tables drops every `String` once (Miri checks for
        // leaks and double frees) and frees the block.
    }

    #[test]
    fn small_reservations_grow_the_block_geometrically() {
        // A batch spawn reserves its size first; many small batches must
        // not each move the whole table into a block just large enough.
        let mut components = Components::default();
        let a = components.register_component::<A>();
        let mut tables = Tables::default();
        let id = tables.get_id_or_insert(&[a], &components);
        let table = &mut tables[id];
        let (batches, batch) = if cfg!(miri) { (20, 3) } else { (1000, 10) };
        table.reserve(batch);
        let first = table.block.capacity;
        assert_eq!(first, batch, "an empty table reserves exactly");
        let mut capacities = vec![first];
        for i in 0..batches * batch {
            if i % batch == 0 {
                table.reserve(batch);
            }
            table.push_entity(Entity::from_raw(i as u32));
            push(table, a, A(i as u32));
            if capacities.last() != Some(&table.block.capacity) {
                capacities.push(table.block.capacity);
            }
        }
        table.assert_consistent();
        assert!(
            capacities.windows(2).all(|w| w[1] >= 2 * w[0]),
            "{capacities:?}"
        );
        let bound = (batches as f64).log2().ceil() as usize + 1;
        assert!(capacities.len() <= bound, "{capacities:?}");
    }

    #[test]
    fn get_2_mut_hands_out_the_two_tables_asked_for() {
        let mut components = Components::default();
        let a = components.register_component::<A>();
        let b = components.register_component::<B>();
        let mut tables = Tables::default();
        let ta = tables.get_id_or_insert(&[a], &components);
        let tb = tables.get_id_or_insert(&[b], &components);
        let address = |tables: &Tables, id: TableId| &tables[id] as *const Table;
        let (at_a, at_b) = (address(&tables, ta), address(&tables, tb));
        let at = |id: TableId| if id == ta { at_a } else { at_b };
        for (x, y) in [(ta, tb), (tb, ta)] {
            let (first, second) = tables.get_2_mut(x, y);
            assert!(std::ptr::eq(first, at(x)) && std::ptr::eq(second, at(y)));
        }
        let same = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = tables.get_2_mut(ta, ta);
        }))
        .expect_err("the same table twice panics");
        let message = same.downcast_ref::<String>().expect("a formatted message");
        assert!(message.contains("two distinct tables"), "{message}");
        let missing = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = tables.get_2_mut(ta, TableId::new(7));
        }))
        .expect_err("a table that does not exist panics");
        let message = missing
            .downcast_ref::<String>()
            .expect("a formatted message");
        assert!(message.contains("of the 3 there are"), "{message}");
    }

    #[test]
    fn rows_stay_aligned_through_moves() {
        let mut components = Components::default();
        let a = components.register_component::<A>();
        let b = components.register_component::<B>();
        let mut tables = Tables::default();
        let ta = tables.get_id_or_insert(&[a], &components);
        let mut ids = [a, b];
        ids.sort();
        let tab = tables.get_id_or_insert(&ids, &components);
        assert_eq!(tables.get_id_or_insert(&[a], &components), ta);
        let n = if cfg!(miri) { 10 } else { 100 };
        for i in 0..n {
            let table = &mut tables[ta];
            table.push_entity(Entity::from_raw(i));
            push(table, a, A(i));
        }
        let mut panics = DropPanics::default();
        let there = tables[ta].column_positions_in(&tables[tab]);
        let back = tables[tab].column_positions_in(&tables[ta]);
        // Move every even entity to the (A, B) table.
        for i in (0..n).step_by(2) {
            let row = tables[ta]
                .entities()
                .iter()
                .position(|e| e.index() == i)
                .unwrap();
            let (from, to) = tables.get_2_mut(ta, tab);
            // SAFETY: valid row; (A, B) is a superset of (A); `there` is
            // where (A)'s columns sit in (A, B).
            unsafe { from.move_to_superset(TableRow::new(row), to, &there) };
            push(to, b, B(format!("b{i}")));
        }
        tables[ta].assert_consistent();
        tables[tab].assert_consistent();
        for table in [&tables[ta], &tables[tab]] {
            for (row, e) in table.entities().iter().enumerate() {
                // SAFETY: row is valid; the column holds `A`.
                let value = unsafe {
                    &*table
                        .get_column(a)
                        .unwrap()
                        .get_data_unchecked(row)
                        .cast::<A>()
                };
                assert_eq!(value.0, e.index());
            }
        }
        // And back, dropping B.
        let row = 0;
        let moved = tables[tab].entities()[row];
        let (from, to) = tables.get_2_mut(tab, ta);
        // SAFETY: valid row; (A) is a subset of (A, B); `back` is where
        // (A, B)'s columns sit in (A).
        unsafe { from.move_to_subset(TableRow::new(row), to, &back, true, &mut panics) };
        assert_eq!(*tables[ta].entities().last().unwrap(), moved);
        tables[ta].assert_consistent();
        tables[tab].assert_consistent();
        panics.finish();
    }

    /// Reads `B`'s value at `row` of `table`.
    fn b_at(table: &Table, b: ComponentId, row: usize) -> &str {
        let column = table.get_column(b).unwrap();
        // SAFETY: the column holds `B`s and `row` is one of its rows.
        unsafe { &(*column.data_ptr().cast::<B>().add(row)).0 }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn append_table_takes_an_empty_tables_place_or_moves_every_row() {
        let mut components = Components::default();
        let mut ids = [
            components.register_component::<A>(),
            components.register_component::<B>(),
        ];
        let [a, b] = ids;
        ids.sort();
        let fill = |from: u32, to: u32| {
            let mut table = Table::new(&ids, &components, 0);
            for i in from..to {
                table.push_entity(Entity::from_raw(i));
                push_ticked(&mut table, a, A(i), ticks(i));
                push(&mut table, b, B(format!("b{i}")));
            }
            table
        };
        let mut target = Table::new(&ids, &components, 0);
        let mut first = fill(0, 5);
        assert_eq!(target.append_table(&mut first), 0, "an empty table");
        assert!(first.is_empty(), "the source is left empty");
        let mut second = fill(5, 9);
        assert_eq!(target.append_table(&mut second), 5, "after the rows it has");
        assert!(second.is_empty());
        target.assert_consistent();
        assert_eq!(target.entity_count(), 9);
        for i in 0..9u32 {
            let row = i as usize;
            assert_eq!(target.entities()[row], Entity::from_raw(i));
            assert_eq!(b_at(&target, b, row), format!("b{i}"));
            assert_eq!(target.get_column(a).unwrap().get_ticks(row), Some(ticks(i)));
        }
        let mut panics = DropPanics::default();
        target.clear(&mut panics);
        panics.finish();
    }

    #[cfg(feature = "serde")]
    #[test]
    #[should_panic(expected = "a whole table")]
    fn append_table_refuses_a_table_short_of_a_value() {
        let mut components = Components::default();
        let mut ids = [
            components.register_component::<A>(),
            components.register_component::<B>(),
        ];
        let [a, _] = ids;
        ids.sort();
        let mut source = Table::new(&ids, &components, 0);
        source.push_entity(Entity::from_raw(0));
        push(&mut source, a, A(0));
        Table::new(&ids, &components, 0).append_table(&mut source);
    }
}
