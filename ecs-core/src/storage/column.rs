//! [`Column`]: the values of one component in one table or sparse set, in
//! a type-erased `BlobVec`, with an added tick and a changed tick per value
//! in two arrays beside it, of the same length (kept once, by the values).
//!
//! ```text
//!  data           [ v0 | v1 | v2 | .. ]   aligned, stride = padded size
//!  added_ticks    [ t  | t  | t  | .. ]
//!  changed_ticks  [ t  | t  | t  | .. ]
//! ```
//!
//! A sparse set's column owns its three arrays; a table's columns live in
//! the table's one block (see `Table`), which only the table grows.

use std::{alloc::Layout, cell::UnsafeCell};

use super::blob_vec::BlobVec;
use crate::{
    change_detection::{ComponentTicks, Tick},
    component::ComponentInfo,
    utils::DropPanics,
};

/// The values of one component in one table (or one sparse set), with the
/// added and changed tick of each value stored beside it.
///
/// Invariant: the first `data.len()` entries of `added_ticks` and
/// `changed_ticks` are initialised: the values' length is the ticks' too.
/// Ticks sit in `UnsafeCell`s because queries update them through shared
/// access to the world.
#[derive(Debug)]
pub struct Column {
    data: BlobVec,
    added_ticks: TickVec,
    changed_ticks: TickVec,
    /// Whether the ticks follow their value when it is swap-removed or
    /// moved to another column ([`ComponentInfo::has_change_ticks`]). A
    /// column without them writes fixed ticks for a moved value instead and
    /// leaves the swapped-in row's stale ones: every tick below the length
    /// stays initialised, but none means anything.
    keeps_ticks: bool,
    /// Whether the values may be changed in place
    /// ([`ComponentInfo::mutable`]): untyped mutable access to the column
    /// refuses an immutable one.
    mutable: bool,
}

/// The pointers of a column's storage from [`Column::tail`]: item `row` of
/// the values is `size` bytes at `data + row * stride`, its ticks
/// `added[row]` and `changed[row]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ColumnTail {
    pub(crate) data: *mut u8,
    pub(crate) added: *mut UnsafeCell<Tick>,
    pub(crate) changed: *mut UnsafeCell<Tick>,
    pub(crate) stride: usize,
    pub(crate) size: usize,
}

/// An array of tick cells beside a column's values, on a [`BlobVec`] so
/// that a table can place it in its block of memory like the values.
///
/// Its length is the column's length, which the values' `BlobVec` keeps:
/// the ticks' own `BlobVec` serves only as memory and its length stays
/// zero, so every method takes the length from the column. A push or a
/// swap-remove then writes one length per column instead of three. Ticks
/// need no drop, so a `BlobVec` of length zero still frees its memory
/// correctly, and growing it keeps every tick (a reallocation keeps the
/// whole old allocation).
struct TickVec(BlobVec);

impl std::fmt::Debug for TickVec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The length is the column's; the `BlobVec`'s own is always zero.
        f.debug_struct("TickVec")
            .field("capacity", &self.capacity())
            .finish()
    }
}

impl TickVec {
    fn with_capacity(capacity: usize) -> TickVec {
        // SAFETY: ticks need no drop.
        TickVec(unsafe { BlobVec::new(Layout::new::<UnsafeCell<Tick>>(), None, capacity) })
    }

    #[inline]
    fn capacity(&self) -> usize {
        self.0.capacity()
    }

    #[inline]
    fn as_ptr(&self) -> *mut UnsafeCell<Tick> {
        self.0.as_ptr().cast()
    }

    /// The first `len` ticks.
    ///
    /// # Safety
    /// The first `len` ticks are initialised (`len` is at most the
    /// column's length).
    #[inline]
    unsafe fn as_slice(&self, len: usize) -> &[UnsafeCell<Tick>] {
        // SAFETY: initialised ticks (caller), of the item layout
        // `UnsafeCell<Tick>`; the pointer is aligned and non-null even when
        // nothing is allocated.
        unsafe { std::slice::from_raw_parts(self.as_ptr(), len) }
    }

    /// # Safety
    /// As for [`TickVec::as_slice`].
    #[inline]
    unsafe fn as_mut_slice(&mut self, len: usize) -> &mut [UnsafeCell<Tick>] {
        // SAFETY: as in `as_slice`, and `&mut self` makes it exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.as_ptr(), len) }
    }

    /// # Safety
    /// The tick at `row` is initialised (`row` is below the column's
    /// length).
    #[inline(always)]
    unsafe fn get_unchecked(&self, row: usize) -> &UnsafeCell<Tick> {
        // SAFETY: an initialised tick (caller).
        unsafe { &*self.as_ptr().add(row) }
    }

    /// Makes room for a tick at `len`, the column's length.
    #[inline]
    fn reserve_one(&mut self, len: usize) {
        self.0.reserve_at(len, 1);
    }

    /// Writes the tick at index `len`, the column's length before the push.
    ///
    /// # Safety
    /// `len < capacity`.
    #[inline(always)]
    unsafe fn push_at(&mut self, len: usize, tick: Tick) {
        debug_assert!(len < self.capacity());
        // SAFETY: index `len` is allocated (caller) and aligned.
        unsafe { self.as_ptr().add(len).write(UnsafeCell::new(tick)) };
    }

    /// Removes the tick at `row`, moving the last one (at `len - 1`) into
    /// its place.
    ///
    /// # Safety
    /// `row < len`, and `len` is the column's length.
    #[inline(always)]
    unsafe fn swap_remove_at(&mut self, row: usize, len: usize) -> Tick {
        debug_assert!(row < len && len <= self.capacity());
        let base = self.as_ptr();
        // SAFETY: `row` and `len - 1` are initialised ticks (`row < len`);
        // `&mut self` makes the access exclusive; ticks need no drop, so
        // the moved-out last slot is just forgotten (the column's length
        // goes down).
        unsafe {
            let removed = base.add(row).read();
            base.add(row).write(base.add(len - 1).read());
            removed.into_inner()
        }
    }

    /// Copies the first `len` ticks to `dst` after its first `dst_len`.
    ///
    /// # Safety
    /// The first `len` ticks here are initialised, and `dst` has room for
    /// `dst_len + len` ticks.
    #[inline]
    unsafe fn copy_into(&self, len: usize, dst: &mut TickVec, dst_len: usize) {
        debug_assert!(dst_len + len <= dst.capacity());
        // SAFETY: initialised ticks (caller) copied into room in another
        // array (caller); ticks need no drop.
        unsafe { std::ptr::copy_nonoverlapping(self.as_ptr(), dst.as_ptr().add(dst_len), len) };
    }

    /// [`TickVec::copy_into`], each tick moved on by `delta` (wrapping).
    ///
    /// # Safety
    /// As for [`TickVec::copy_into`].
    #[inline]
    unsafe fn copy_shifted_into(&self, len: usize, dst: &mut TickVec, dst_len: usize, delta: u32) {
        debug_assert!(dst_len + len <= dst.capacity());
        let (src, out) = (self.as_ptr().cast::<Tick>(), dst.as_ptr().cast::<Tick>());
        for i in 0..len {
            // SAFETY: `i < len`: an initialised tick here and room for one
            // at `dst_len + i` in another array (caller); `UnsafeCell<Tick>`
            // has `Tick`'s layout, and nothing else touches either meanwhile.
            unsafe {
                let tick = src.add(i).read();
                out.add(dst_len + i)
                    .write(Tick::new(tick.get().wrapping_add(delta)));
            }
        }
    }

    /// Moves the first `len` ticks into memory owned by the column's table.
    ///
    /// # Safety
    /// As for [`BlobVec::move_to_external_at`].
    unsafe fn move_to_external(
        &mut self,
        len: usize,
        data: std::ptr::NonNull<u8>,
        capacity: usize,
    ) {
        // SAFETY: forwarded.
        unsafe { self.0.move_to_external_at(len, data, capacity) };
    }
}

// SAFETY: values are of `Send + Sync` component types; the tick cells are
// written only through exclusive world access, or through query fetches
// whose access was checked to give them exclusive use of this component.
unsafe impl Sync for Column {}

impl Column {
    pub(crate) fn new(info: &ComponentInfo, capacity: usize) -> Column {
        Column {
            keeps_ticks: info.has_change_ticks(),
            mutable: info.mutable(),
            ..Column::with_layout(info.layout(), info.drop_fn(), capacity)
        }
    }

    pub(crate) fn with_layout(
        layout: Layout,
        drop: Option<unsafe fn(*mut u8)>,
        capacity: usize,
    ) -> Column {
        Column {
            // SAFETY: `drop` comes from the component's descriptor and
            // matches the values that are pushed (the values of one
            // component).
            data: unsafe { BlobVec::new(layout, drop, capacity) },
            added_ticks: TickVec::with_capacity(capacity),
            changed_ticks: TickVec::with_capacity(capacity),
            keeps_ticks: true,
            mutable: true,
        }
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the component's values may be changed in place
    /// ([`ComponentInfo::mutable`]).
    #[inline]
    pub fn is_mutable(&self) -> bool {
        self.mutable
    }

    /// Whether the column holds no value.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.data.len() == 0
    }

    /// The layout of one value.
    #[inline]
    pub fn item_layout(&self) -> Layout {
        self.data.layout()
    }

    /// The number of values there is room for (`usize::MAX` for zero-sized
    /// values, which never allocate).
    #[inline]
    pub(crate) fn value_capacity(&self) -> usize {
        self.data.capacity()
    }

    /// The number of tick slots there is room for, added and changed
    /// together.
    #[inline]
    pub(crate) fn tick_capacity(&self) -> usize {
        self.added_ticks.capacity() + self.changed_ticks.capacity()
    }

    /// Moves a value onto the end.
    ///
    /// # Safety
    /// `value` points to an owned, valid value of this column's component,
    /// outside this column; the caller gives up ownership.
    #[inline]
    pub(crate) unsafe fn push(&mut self, value: *mut u8, ticks: ComponentTicks) {
        let len = self.len();
        self.reserve_one(len);
        // SAFETY: forwarded; room was just reserved in all three arrays.
        unsafe { self.push_at(len, value, ticks) };
    }

    /// Makes room for one more value and its ticks.
    #[inline]
    fn reserve_one(&mut self, len: usize) {
        self.data.reserve(1);
        self.added_ticks.reserve_one(len);
        self.changed_ticks.reserve_one(len);
    }

    /// Moves a value of type `T` onto the end.
    ///
    /// # Safety
    /// `T` is this column's component type.
    #[inline]
    pub(crate) unsafe fn push_typed<T>(&mut self, value: T, ticks: ComponentTicks) {
        let len = self.len();
        self.reserve_one(len);
        // SAFETY: room was just reserved in all three arrays.
        unsafe { self.push_typed_at(len, value, ticks) };
    }

    /// Moves a value onto the end (index `len`) without checking the
    /// capacity. The caller gives the length (a table knows it from its
    /// row count), so the write does not wait for it to be read.
    ///
    /// # Safety
    /// As for [`Column::push`]; `len` is the length and the column has room
    /// for one more value (`len < capacity`).
    #[inline]
    pub(crate) unsafe fn push_at(&mut self, len: usize, value: *mut u8, ticks: ComponentTicks) {
        debug_assert!(len < self.capacity());
        // SAFETY: forwarded; room was guaranteed by the caller.
        unsafe {
            self.data.push_at(len, value);
            self.push_ticks_at(len, ticks);
        }
    }

    /// Moves a value of type `T` onto the end without checking the
    /// capacity.
    ///
    /// # Safety
    /// `T` is this column's component type, and the column has room for
    /// one more value (`len < capacity`).
    #[inline(always)]
    pub(crate) unsafe fn push_typed_within_capacity<T>(&mut self, value: T, ticks: ComponentTicks) {
        // SAFETY: forwarded; `self.len()` is the length.
        unsafe { self.push_typed_at(self.len(), value, ticks) };
    }

    /// [`Column::push_typed_within_capacity`] with the length given.
    ///
    /// # Safety
    /// As for [`Column::push_typed_within_capacity`], and `len` is the
    /// length.
    #[inline(always)]
    pub(crate) unsafe fn push_typed_at<T>(&mut self, len: usize, value: T, ticks: ComponentTicks) {
        debug_assert!(len < self.capacity());
        // SAFETY: forwarded; room was guaranteed by the caller.
        unsafe {
            self.data.push_typed_at(len, value);
            self.push_ticks_at(len, ticks);
        }
    }

    /// Moves `count` values of type `T`, read from `src` on, onto the end,
    /// all with `ticks`: one copy of the values.
    ///
    /// # Safety
    /// `T` is this column's component type; `src` points to `count`
    /// initialised values outside this column, whose ownership moves here
    /// (the caller must not drop or use them after); the column has room
    /// for `count` more values.
    #[cfg(feature = "serde")]
    pub(crate) unsafe fn push_moved_run<T>(
        &mut self,
        src: *const T,
        count: usize,
        ticks: ComponentTicks,
    ) {
        let len = self.len();
        debug_assert!(count <= self.capacity() - len);
        debug_assert_eq!(Layout::new::<T>(), self.data.layout());
        // SAFETY: room for `count` values past `len` in all three arrays
        // (caller), aligned for `T` (the item layout is `T`'s) and for
        // ticks; `src` is outside the column (caller), so the copy does
        // not overlap; every row up to `len + count` is written before
        // the length covers it.
        unsafe {
            std::ptr::copy_nonoverlapping(src, self.data.as_ptr().cast::<T>().add(len), count);
            let (added, changed) = (self.added_ticks.as_ptr(), self.changed_ticks.as_ptr());
            for row in len..len + count {
                added.add(row).write(UnsafeCell::new(ticks.added));
                changed.add(row).write(UnsafeCell::new(ticks.changed));
            }
            self.data.set_len(len + count);
        }
    }

    /// # Safety
    /// `len` is the column's length before the push, and both tick arrays
    /// have room for one more tick.
    #[inline(always)]
    unsafe fn push_ticks_at(&mut self, len: usize, ticks: ComponentTicks) {
        // SAFETY: forwarded.
        unsafe {
            self.added_ticks.push_at(len, ticks.added);
            self.changed_ticks.push_at(len, ticks.changed);
        }
    }

    /// Where the values and ticks of the rows past the length go, for a
    /// run that writes several rows in place before [`Column::set_len`].
    #[inline]
    pub(crate) fn tail(&mut self) -> ColumnTail {
        ColumnTail {
            data: self.data.as_ptr(),
            added: self.added_ticks.as_ptr(),
            changed: self.changed_ticks.as_ptr(),
            stride: self.data.layout().pad_to_align().size(),
            size: self.data.layout().size(),
        }
    }

    /// Sets the length after rows were written through a [`ColumnTail`].
    ///
    /// # Safety
    /// Every row below `len` holds a value and its ticks, and
    /// `len <= capacity`.
    #[inline]
    pub(crate) unsafe fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.capacity());
        // SAFETY: forwarded; the ticks' length is the values'.
        unsafe { self.data.set_len(len) };
    }

    /// How many values fit without growing.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.data
            .capacity()
            .min(self.added_ticks.capacity())
            .min(self.changed_ticks.capacity())
    }

    /// Replaces the value at `row`, marking it changed at `change_tick`.
    ///
    /// # Safety
    /// `row < len`; `value` as for [`Column::push`].
    #[inline]
    pub(crate) unsafe fn replace(
        &mut self,
        row: usize,
        value: *mut u8,
        change_tick: Tick,
        panics: &mut DropPanics,
    ) {
        // SAFETY: forwarded.
        unsafe { self.data.replace_unchecked(row, value, panics) };
        // SAFETY: `row < len`, and the ticks of every row below the length
        // are initialised; `&mut self` makes the write exclusive.
        unsafe { *self.changed_ticks.get_unchecked(row).get() = change_tick };
    }

    /// Removes and drops the value at `row`, swapping in the last one.
    ///
    /// # Safety
    /// `row < len`.
    #[inline]
    pub(crate) unsafe fn swap_remove_and_drop(&mut self, row: usize, panics: &mut DropPanics) {
        // SAFETY: forwarded; `self.len()` is the length.
        unsafe { self.swap_remove_and_drop_at(row, self.len(), panics) };
    }

    /// [`Column::swap_remove_and_drop`] with the length given.
    ///
    /// # Safety
    /// `row < len`, and `len` is the length.
    #[inline(always)]
    pub(crate) unsafe fn swap_remove_and_drop_at(
        &mut self,
        row: usize,
        len: usize,
        panics: &mut DropPanics,
    ) {
        // SAFETY: `row < len`, and `len` is the values' length, which is
        // the ticks' too (the column invariant).
        unsafe {
            self.data.swap_remove_and_drop_at(row, len, panics);
            if self.keeps_ticks {
                self.added_ticks.swap_remove_at(row, len);
                self.changed_ticks.swap_remove_at(row, len);
            }
        }
    }

    /// Moves the value at `row` (and its ticks) onto the end of `dst`,
    /// moving the last value into its place. The caller gives both lengths,
    /// as for [`Column::push_at`].
    ///
    /// # Safety
    /// `row < len`; `len` is this column's length and `dst_len` is `dst`'s;
    /// `dst` holds the same component and has room for one more value
    /// (`dst_len < capacity`).
    #[inline(always)]
    pub(crate) unsafe fn swap_remove_into_at(
        &mut self,
        row: usize,
        len: usize,
        dst: &mut Column,
        dst_len: usize,
    ) {
        debug_assert!(dst_len < dst.capacity());
        // SAFETY: forwarded; `dst` has room (caller).
        unsafe {
            self.data
                .swap_remove_into_at(row, len, &mut dst.data, dst_len);
            let ticks = self.swap_remove_ticks(row, len);
            dst.push_ticks_at(dst_len, ticks);
        }
    }

    /// Moves every value (and its ticks) onto the end of `dst` with one
    /// copy per array, leaving this column empty.
    ///
    /// # Safety
    /// `dst` holds the same component and has room for `self.len()` more
    /// values.
    pub(crate) unsafe fn append_all_into(&mut self, dst: &mut Column) {
        let (len, dst_len) = (self.len(), dst.len());
        // SAFETY: the ticks first, while the lengths still say how many
        // are initialised (the column invariant); `dst` has room (caller).
        unsafe {
            self.added_ticks
                .copy_into(len, &mut dst.added_ticks, dst_len);
            self.changed_ticks
                .copy_into(len, &mut dst.changed_ticks, dst_len);
            self.data.append_all_into(&mut dst.data);
        }
    }

    /// Removes the value at `row`, swapping in the last one, and returns a
    /// pointer to it (valid until the next push) and its ticks. The caller
    /// owns the value.
    ///
    /// # Safety
    /// `row < len`.
    #[inline]
    #[must_use = "the removed value must be moved out or dropped"]
    pub(crate) unsafe fn swap_remove_and_forget(
        &mut self,
        row: usize,
    ) -> (*mut u8, ComponentTicks) {
        let len = self.len();
        // SAFETY: `row < len` (caller), and `len` is the length of the
        // ticks as well.
        unsafe {
            (
                self.data.swap_remove_and_forget_unchecked(row),
                self.swap_remove_ticks(row, len),
            )
        }
    }

    /// Removes the ticks at `row`, moving the last row's into its place,
    /// and returns them; a column without change ticks touches neither and returns
    /// fixed ticks.
    ///
    /// # Safety
    /// `row < len`, and `len` is the column's length.
    #[inline(always)]
    unsafe fn swap_remove_ticks(&mut self, row: usize, len: usize) -> ComponentTicks {
        if !self.keeps_ticks {
            return ComponentTicks::new(Tick::new(0));
        }
        // SAFETY: forwarded; `len` is the length of the ticks too.
        unsafe {
            ComponentTicks {
                added: self.added_ticks.swap_remove_at(row, len),
                changed: self.changed_ticks.swap_remove_at(row, len),
            }
        }
    }

    /// A pointer to the value at `row`.
    ///
    /// # Safety
    /// `row < len`.
    #[inline]
    pub unsafe fn get_data_unchecked(&self, row: usize) -> *mut u8 {
        debug_assert!(row < self.len());
        // SAFETY: forwarded.
        unsafe { self.data.get_unchecked(row) }
    }

    /// The ticks of the value at `row`.
    #[inline]
    pub fn get_ticks(&self, row: usize) -> Option<ComponentTicks> {
        if row < self.len() {
            // SAFETY: `row < len`; no `&mut` to these ticks exists while the
            // column is shared, except through the query plumbing, which
            // does not overlap with this read.
            unsafe { Some(self.get_ticks_unchecked(row)) }
        } else {
            None
        }
    }

    /// The ticks of the value at `row`.
    ///
    /// # Safety
    /// `row < len`, and no write to these ticks may happen meanwhile.
    #[inline]
    pub unsafe fn get_ticks_unchecked(&self, row: usize) -> ComponentTicks {
        // SAFETY: guaranteed by the caller.
        unsafe {
            ComponentTicks {
                added: *self.added_ticks.get_unchecked(row).get(),
                changed: *self.changed_ticks.get_unchecked(row).get(),
            }
        }
    }

    /// The cells of the added and changed tick at `row`.
    ///
    /// # Safety
    /// `row < len`.
    #[inline]
    pub unsafe fn get_tick_cells_unchecked(
        &self,
        row: usize,
    ) -> (&UnsafeCell<Tick>, &UnsafeCell<Tick>) {
        // SAFETY: guaranteed by the caller.
        unsafe {
            (
                self.added_ticks.get_unchecked(row),
                self.changed_ticks.get_unchecked(row),
            )
        }
    }

    /// A pointer to the first value.
    #[inline]
    pub fn data_ptr(&self) -> *mut u8 {
        self.data.as_ptr()
    }

    /// [`Column::data_ptr`] as a `NonNull`.
    #[inline]
    pub(crate) fn data_non_null(&self) -> std::ptr::NonNull<u8> {
        self.data.as_non_null()
    }

    /// The added ticks of all values.
    #[inline]
    pub fn added_ticks(&self) -> &[UnsafeCell<Tick>] {
        // SAFETY: the ticks of every row below the length are initialised.
        unsafe { self.added_ticks.as_slice(self.len()) }
    }

    /// The changed ticks of all values.
    #[inline]
    pub fn changed_ticks(&self) -> &[UnsafeCell<Tick>] {
        // SAFETY: the ticks of every row below the length are initialised.
        unsafe { self.changed_ticks.as_slice(self.len()) }
    }

    /// Drops every value; the ticks follow the length to zero.
    pub(crate) fn clear(&mut self, panics: &mut DropPanics) {
        self.data.clear(panics);
    }

    /// The layouts of the column's three arrays (values, added ticks,
    /// changed ticks) at `capacity`: what a table's block holds for it.
    pub(crate) fn array_layouts(&self, capacity: usize) -> [Layout; 3] {
        [
            self.data.array_layout(capacity),
            self.added_ticks.0.array_layout(capacity),
            self.changed_ticks.0.array_layout(capacity),
        ]
    }

    /// Moves the column's arrays into memory owned by its table.
    ///
    /// # Safety
    /// `capacity >= len`, and each pointer is valid, aligned, disjoint
    /// memory for the matching layout of [`Column::array_layouts`] at
    /// `capacity`, kept alive and untouched by others until the column is
    /// dropped or moved again (see `BlobVec::move_to_external`).
    pub(crate) unsafe fn move_to_external(
        &mut self,
        [data, added, changed]: [std::ptr::NonNull<u8>; 3],
        capacity: usize,
    ) {
        let len = self.len();
        // SAFETY: forwarded; the first `len` ticks are initialised.
        unsafe {
            self.data.move_to_external(data, capacity);
            self.added_ticks.move_to_external(len, added, capacity);
            self.changed_ticks.move_to_external(len, changed, capacity);
        }
    }

    /// Points the column's arrays at memory its table already moved them
    /// to (a reallocated block).
    ///
    /// # Safety
    /// The column's arrays live in its table's memory; each pointer holds
    /// the column's rows of the matching array and is otherwise as for
    /// [`Column::move_to_external`].
    pub(crate) unsafe fn rebase_external(
        &mut self,
        [data, added, changed]: [std::ptr::NonNull<u8>; 3],
        capacity: usize,
    ) {
        // SAFETY: forwarded.
        unsafe {
            self.data.rebase_external(data, capacity);
            self.added_ticks.0.rebase_external(added, capacity);
            self.changed_ticks.0.rebase_external(changed, capacity);
        }
    }

    pub(crate) fn check_change_ticks(&mut self, change_tick: Tick) {
        if !self.keeps_ticks {
            // These ticks mean nothing, so they need no clamping.
            return;
        }
        let len = self.len();
        // SAFETY: the ticks of every row below the length are initialised.
        let (added, changed) = unsafe {
            (
                self.added_ticks.as_mut_slice(len),
                self.changed_ticks.as_mut_slice(len),
            )
        };
        for tick in added.iter_mut().chain(changed.iter_mut()) {
            tick.get_mut().check_tick(change_tick);
        }
    }
}

/// Clones `n` values from `src` into uninitialised memory at `dst` (both
/// arrays of one component type); on a panic it drops the clones it made.
pub(crate) type CloneValuesFn = unsafe fn(src: *const u8, dst: *mut u8, n: usize);

/// The values a restore puts into an emptied column.
pub(crate) enum FillValues<'a> {
    /// Values moved in; the column they come from is left empty.
    Moved(Column),
    /// Values of a `Copy` type, copied bitwise from a column that keeps
    /// them, with their ticks moved on by the given delta.
    Copied(&'a Column, u32),
}

impl FillValues<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            FillValues::Moved(column) => column.len(),
            FillValues::Copied(column, _) => column.len(),
        }
    }

    /// Puts the values onto the end of `dst`.
    ///
    /// # Safety
    /// `dst` holds the same component, whose type is `Copy` for
    /// [`FillValues::Copied`], and has room for `self.len()` more values.
    pub(crate) unsafe fn append_into(self, dst: &mut Column) {
        // SAFETY: forwarded.
        unsafe {
            match self {
                FillValues::Moved(mut values) => values.append_all_into(dst),
                FillValues::Copied(values, delta) => values.copy_all_into(dst, delta),
            }
        }
    }
}

/// Snapshot support: columns of their own that hold clones, and clears that
/// keep the values moved out.
impl Column {
    /// A column of its own holding a clone of every value, with the same
    /// ticks. If a clone panics, the clones made so far are dropped and
    /// this column is untouched.
    ///
    /// # Safety
    /// `clone_values` clones values of this column's component.
    pub(crate) unsafe fn clone_column(&self, clone_values: CloneValuesFn) -> Column {
        let n = self.len();
        let mut out = self.empty_like(n);
        // SAFETY: `out` has room for `n` values and ticks; the first `n`
        // ticks and values here are initialised; the clones are written to
        // `out`'s memory before its length covers them, so a panic leaves
        // `out` empty (the clone function drops its partial work).
        unsafe {
            self.added_ticks.copy_into(n, &mut out.added_ticks, 0);
            self.changed_ticks.copy_into(n, &mut out.changed_ticks, 0);
            clone_values(self.data.as_ptr(), out.data.as_ptr(), n);
            out.data.set_len(n);
        }
        out
    }

    /// Makes `dst`, a column of its own, a bitwise copy of this one (values
    /// and ticks), reusing its memory when it has room. Nothing runs that
    /// could panic.
    ///
    /// # Safety
    /// `dst` holds the same component, whose type is `Copy`.
    pub(crate) unsafe fn copy_over(&self, dst: &mut Column) {
        debug_assert_eq!(self.item_layout(), dst.item_layout());
        debug_assert!(self.data.drop_fn().is_none() && dst.data.drop_fn().is_none());
        let n = self.len();
        if dst.capacity() < n {
            *dst = self.empty_like(n);
        }
        // SAFETY: a `Copy` type has nothing to drop, so forgetting the old
        // values is dropping them; then `dst` is empty with room for `n`
        // values, of the same `Copy` component (caller).
        unsafe {
            dst.data.set_len(0);
            self.copy_all_into(dst, 0);
        }
    }

    /// Copies every value bitwise onto the end of `dst`, with its ticks
    /// moved on by `delta` (wrapping, as the clock does); the values stay
    /// here too. Nothing runs that could panic.
    ///
    /// # Safety
    /// `dst` holds the same component, whose type is `Copy`, and has room
    /// for `self.len()` more values (`dst.len() + self.len() <= capacity`).
    pub(crate) unsafe fn copy_all_into(&self, dst: &mut Column, delta: u32) {
        let (len, dst_len) = (self.len(), dst.len());
        debug_assert!(dst_len + len <= dst.capacity());
        // SAFETY: the ticks first, while `dst`'s length still says where
        // they go; the first `len` ticks here are initialised and `dst` has
        // room (caller); the values are a `Copy` type (caller).
        unsafe {
            if delta == 0 {
                self.added_ticks
                    .copy_into(len, &mut dst.added_ticks, dst_len);
                self.changed_ticks
                    .copy_into(len, &mut dst.changed_ticks, dst_len);
            } else {
                self.added_ticks
                    .copy_shifted_into(len, &mut dst.added_ticks, dst_len, delta);
                self.changed_ticks
                    .copy_shifted_into(len, &mut dst.changed_ticks, dst_len, delta);
            }
            self.data.copy_all_into(&mut dst.data);
        }
    }

    /// A column of its own holding a clone of the one value at `src`, with
    /// `ticks`. If the clone panics, nothing is left to drop.
    ///
    /// # Safety
    /// `src` points to a valid value of the component that `layout`, `drop`
    /// and `clone_values` are of.
    pub(crate) unsafe fn clone_one(
        layout: Layout,
        drop: Option<unsafe fn(*mut u8)>,
        src: *const u8,
        ticks: ComponentTicks,
        clone_values: CloneValuesFn,
    ) -> Column {
        let mut out = Column::with_layout(layout, drop, 1);
        // SAFETY: `out` has room for one value and its ticks; the clone is
        // written before the length covers it.
        unsafe {
            out.added_ticks.push_at(0, ticks.added);
            out.changed_ticks.push_at(0, ticks.changed);
            clone_values(src, out.data.as_ptr(), 1);
            out.data.set_len(1);
        }
        out
    }

    /// Moves every tick on by `delta` (wrapping, as the clock does).
    pub(crate) fn shift_ticks(&mut self, delta: u32) {
        let len = self.len();
        // SAFETY: the ticks of every row below the length are initialised.
        let (added, changed) = unsafe {
            (
                self.added_ticks.as_mut_slice(len),
                self.changed_ticks.as_mut_slice(len),
            )
        };
        for tick in added.iter_mut().chain(changed.iter_mut()) {
            let tick = tick.get_mut();
            *tick = Tick::new(tick.get().wrapping_add(delta));
        }
    }

    /// A standalone, empty column for the same component, with room for
    /// `capacity` values.
    pub(crate) fn empty_like(&self, capacity: usize) -> Column {
        Column {
            keeps_ticks: self.keeps_ticks,
            mutable: self.mutable,
            ..Column::with_layout(self.item_layout(), self.data.drop_fn(), capacity)
        }
    }

    /// Makes room for `additional` more values (a column of its own: a
    /// table's columns grow through their table).
    pub(crate) fn reserve_standalone(&mut self, additional: usize) {
        let len = self.len();
        self.data.reserve(additional);
        self.added_ticks.0.reserve_at(len, additional);
        self.changed_ticks.0.reserve_at(len, additional);
    }

    /// Empties the column, dropping each value whose `keep` flag is unset
    /// (`None`: every value); the kept values were moved out bitwise.
    pub(crate) fn clear_keeping(&mut self, keep: Option<&[bool]>, panics: &mut DropPanics) {
        match keep {
            Some(keep) => self.data.clear_keeping(keep, panics),
            None => self.data.clear(panics),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks(i: u32) -> ComponentTicks {
        ComponentTicks {
            added: Tick::new(i),
            changed: Tick::new(i + 1_000),
        }
    }

    /// The column's values (`u64`s) and their ticks, in row order.
    fn contents(column: &Column) -> Vec<(u64, u32, u32)> {
        (0..column.len())
            .map(|row| {
                // SAFETY: `row < len`; the column holds `u64`s; nothing
                // writes meanwhile.
                unsafe {
                    let value = *column.get_data_unchecked(row).cast::<u64>();
                    let t = column.get_ticks_unchecked(row);
                    (value, t.added.get(), t.changed.get())
                }
            })
            .collect()
    }

    /// A bitwise copy appends after what the target holds, moves only the
    /// copied ticks on, and leaves the source as it was.
    #[test]
    fn copy_all_into_appends_values_and_shifted_ticks() {
        let mut source = Column::with_layout(Layout::new::<u64>(), None, 0);
        let mut target = Column::with_layout(Layout::new::<u64>(), None, 0);
        for i in 0..5 {
            // SAFETY: both columns hold `u64`s.
            unsafe {
                source.push_typed(u64::from(i), ticks(i));
                target.push_typed(100 + u64::from(i), ticks(100 + i));
            }
        }
        let before = contents(&source);
        let mut expected = contents(&target);
        expected.extend(before.iter().map(|&(v, a, c)| (v, a + 7, c + 7)));
        for delta in [7, 0] {
            target.reserve_standalone(source.len());
            // SAFETY: same `Copy` type, room reserved just above.
            unsafe { source.copy_all_into(&mut target, delta) };
        }
        expected.extend(before.iter().copied());
        assert_eq!(contents(&target), expected);
        assert_eq!(contents(&source), before);
    }

    /// A column without change ticks moves and swap-removes values alone:
    /// the moved value gets fixed ticks and the row it left keeps
    /// its own, while a column with ticks carries them along.
    #[test]
    fn tickless_columns_leave_ticks_behind_on_moves() {
        for keeps_ticks in [true, false] {
            let column = || Column {
                keeps_ticks,
                ..Column::with_layout(Layout::new::<u64>(), None, 4)
            };
            let (mut source, mut target) = (column(), column());
            for i in 0..4 {
                // SAFETY: both columns hold `u64`s, with room for 4.
                unsafe { source.push_typed(u64::from(i), ticks(i)) };
            }
            // SAFETY: `0 < 4 = len`; same component; `target` has room.
            unsafe { source.swap_remove_into_at(0, 4, &mut target, 0) };
            // SAFETY: `1 < 3 = len`.
            let (_, removed) = unsafe { source.swap_remove_and_forget(1) };
            let mut panics = DropPanics::default();
            // SAFETY: `0 < 2 = len`.
            unsafe { source.swap_remove_and_drop(0, &mut panics) };
            if keeps_ticks {
                assert_eq!(contents(&target), [(0, 0, 1_000)]);
                assert_eq!(removed, ticks(1));
                assert_eq!(contents(&source), [(2, 2, 1_002)]);
            } else {
                assert_eq!(contents(&target), [(0, 0, 0)]);
                assert_eq!(removed, ComponentTicks::new(Tick::new(0)));
                // Row 0 kept value 0's ticks through both swaps.
                assert_eq!(contents(&source), [(2, 0, 1_000)]);
            }
        }
    }

    /// The ticks keep no length of their own: growing, swap-removing and
    /// moving the column to other memory must keep each value's ticks
    /// beside it.
    #[test]
    fn ticks_follow_their_values() {
        let mut column = Column::with_layout(Layout::new::<u64>(), None, 0);
        let mut model: Vec<(u64, u32, u32)> = Vec::new();
        let n = if cfg!(miri) { 40 } else { 500 };
        for i in 0..n {
            // Grows (owned memory) several times on the way.
            // SAFETY: the column holds `u64`s.
            unsafe { column.push_typed(u64::from(i), ticks(i)) };
            model.push((u64::from(i), i, i + 1_000));
        }
        assert!(column.capacity() >= n as usize);
        assert_eq!(contents(&column), model);
        // The tick slices queries read hold the same ticks, in row order.
        let slice = |ticks: &[UnsafeCell<Tick>]| -> Vec<u32> {
            // SAFETY: nothing writes the ticks meanwhile.
            ticks.iter().map(|t| unsafe { *t.get() }.get()).collect()
        };
        assert_eq!(
            slice(column.added_ticks()),
            model.iter().map(|m| m.1).collect::<Vec<_>>()
        );
        assert_eq!(
            slice(column.changed_ticks()),
            model.iter().map(|m| m.2).collect::<Vec<_>>()
        );
        for row in [0, 7, 3, (n / 2) as usize] {
            // SAFETY: `row < len`; `u64` needs no drop.
            let (value, t) = unsafe { column.swap_remove_and_forget(row) };
            // SAFETY: the removed value stays readable until the next push.
            let value = unsafe { *value.cast::<u64>() };
            assert_eq!((value, t.added.get(), t.changed.get()), model[row]);
            model.swap_remove(row);
        }
        let mut panics = DropPanics::default();
        // SAFETY: `1 < len`, which is the length.
        unsafe { column.swap_remove_and_drop_at(1, column.len(), &mut panics) };
        model.swap_remove(1);
        assert_eq!(contents(&column), model);

        // Move the arrays to memory the column does not own, as a table
        // does, then keep using it within that capacity.
        let capacity = column.len() + 8;
        let layouts = column.array_layouts(capacity);
        let blocks = layouts.map(|layout| {
            // SAFETY: the layouts have a non-zero size.
            std::ptr::NonNull::new(unsafe { std::alloc::alloc(layout) }).unwrap()
        });
        // SAFETY: each block is fresh memory of the matching layout at
        // `capacity >= len`, freed below only after the column is gone.
        unsafe { column.move_to_external(blocks, capacity) };
        assert_eq!(contents(&column), model);
        let len = column.len();
        // SAFETY: `len < capacity`, and `len` is the length.
        unsafe { column.push_typed_at(len, 77u64, ticks(77)) };
        model.push((77, 77, 1_077));
        let mut other = Column::with_layout(Layout::new::<u64>(), None, 4);
        // SAFETY: `0 < len`; `other` holds `u64`s and has room.
        unsafe { column.swap_remove_into_at(0, column.len(), &mut other, 0) };
        let first = model.swap_remove(0);
        assert_eq!(contents(&column), model);
        assert_eq!(contents(&other), vec![first]);
        column.check_change_ticks(Tick::new(2_000));
        assert_eq!(contents(&column), model);
        panics.finish();
        drop(column);
        for (block, layout) in blocks.into_iter().zip(layouts) {
            // SAFETY: allocated above with this layout; the column that
            // used it is dropped.
            unsafe { std::alloc::dealloc(block.as_ptr(), layout) };
        }
    }
}
