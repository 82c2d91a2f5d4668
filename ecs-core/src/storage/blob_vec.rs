//! `BlobVec`: a growable array of values of one run-time [`Layout`], with no
//! Rust type behind it. The unsafe core of storage: values are moved in and
//! out by `memcpy`, and dropped (through the component's drop function)
//! exactly once. See the invariants on [`BlobVec`].

use std::{
    alloc::{self, Layout},
    ptr::NonNull,
};

use crate::utils::DropPanics;

/// A type-erased, growable array of values of one layout.
///
/// Invariants: `data` points to memory for `capacity` items of
/// `item_layout` (dangling but aligned when nothing is allocated or the
/// item is zero-sized): an allocation the vector owns, or, when `external`,
/// part of a table's block that only the table grows and frees; the first
/// `len` items are initialised. Values
/// are moved in and out by `memcpy`; `drop` (if any) runs on each value
/// exactly once, when it is removed with a `_drop` method, cleared, or
/// when the vector is dropped.
pub(crate) struct BlobVec {
    /// The layout of one value: `size` bytes are copied in and out.
    item_layout: Layout,
    /// The distance between items: the size padded to the alignment, so
    /// every item stays aligned even for dynamic layouts whose size is not
    /// a multiple of their alignment.
    stride: usize,
    capacity: usize,
    len: usize,
    data: NonNull<u8>,
    drop: Option<unsafe fn(*mut u8)>,
    /// Whether `data` is memory the vector does not own (a table's block):
    /// then it never grows or frees it.
    external: bool,
}

// SAFETY: `BlobVec` only holds values of component and resource types,
// which are registered as `Send + Sync` (see `ComponentDescriptor`).
unsafe impl Send for BlobVec {}
// SAFETY: as above.
unsafe impl Sync for BlobVec {}

impl std::fmt::Debug for BlobVec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobVec")
            .field("item_layout", &self.item_layout)
            .field("capacity", &self.capacity)
            .field("len", &self.len)
            .finish()
    }
}

fn dangling(align: usize) -> NonNull<u8> {
    // An aligned, non-null address that is never dereferenced for a
    // non-zero size.
    NonNull::without_provenance(std::num::NonZeroUsize::new(align).expect("align is non-zero"))
}

/// Copies one item of `size` bytes. Component values are mostly small, and
/// for the common small sizes a copy of constant size (which the compiler
/// turns into a move or two) beats a call into `memcpy` (whose size is only
/// known at run time here). Bytes are copied as bytes: values may hold
/// padding or uninitialised memory.
///
/// # Safety
/// As for [`std::ptr::copy_nonoverlapping`] with `size` bytes.
#[inline(always)]
unsafe fn copy_item(src: *const u8, dst: *mut u8, size: usize) {
    // SAFETY: `size` bytes are readable at `src`, writable at `dst`, and
    // the ranges do not overlap (caller); each arm copies exactly `size`.
    unsafe {
        match size {
            4 => std::ptr::copy_nonoverlapping(src, dst, 4),
            8 => std::ptr::copy_nonoverlapping(src, dst, 8),
            12 => std::ptr::copy_nonoverlapping(src, dst, 12),
            16 => std::ptr::copy_nonoverlapping(src, dst, 16),
            _ => std::ptr::copy_nonoverlapping(src, dst, size),
        }
    }
}

impl BlobVec {
    /// An empty vector for items of `item_layout`.
    ///
    /// # Safety
    /// `drop`, if given, must be safe to call on a pointer to any value
    /// later pushed into this vector.
    pub(crate) unsafe fn new(
        item_layout: Layout,
        drop: Option<unsafe fn(*mut u8)>,
        capacity: usize,
    ) -> BlobVec {
        let stride = item_layout.pad_to_align().size();
        let mut vec = BlobVec {
            item_layout,
            stride,
            capacity: if stride == 0 { usize::MAX } else { 0 },
            len: 0,
            data: dangling(item_layout.align()),
            drop,
            external: false,
        };
        vec.reserve_exact(capacity);
        vec
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn layout(&self) -> Layout {
        self.item_layout
    }

    /// The number of items there is room for (`usize::MAX` for zero-sized
    /// items, which never allocate).
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Makes room for `additional` more items, growing geometrically.
    #[inline]
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.reserve_at(self.len, additional);
    }

    /// [`BlobVec::reserve`] with the number of items in use given: room for
    /// `len + additional` items. For a vector whose length is kept
    /// elsewhere (the tick arrays of a column; see `TickVec`), growing
    /// keeps every byte of the old allocation.
    #[inline]
    pub(crate) fn reserve_at(&mut self, len: usize, additional: usize) {
        debug_assert!(len >= self.len && len <= self.capacity);
        let available = self.capacity - len;
        if available < additional {
            let needed = len.checked_add(additional).expect("capacity overflow");
            let target = needed.max(self.capacity.saturating_mul(2)).max(4);
            self.grow_to(target);
        }
    }

    /// Makes room for exactly `additional` more items.
    pub(crate) fn reserve_exact(&mut self, additional: usize) {
        let available = self.capacity - self.len;
        if available < additional {
            let needed = self.len.checked_add(additional).expect("capacity overflow");
            self.grow_to(needed);
        }
    }

    #[cold]
    fn grow_to(&mut self, new_capacity: usize) {
        debug_assert!(self.stride != 0, "zero-sized items never grow");
        assert!(
            !self.external,
            "a table column grows only with its table (Table::reserve)"
        );
        let new_layout = self.array_layout(new_capacity);
        // SAFETY: `new_layout` has a non-zero size (item size and capacity
        // are non-zero). When reallocating, the old allocation was made with
        // `array_layout(capacity)`.
        let new_data = unsafe {
            if self.capacity == 0 {
                alloc::alloc(new_layout)
            } else {
                alloc::realloc(
                    self.data.as_ptr(),
                    self.array_layout(self.capacity),
                    new_layout.size(),
                )
            }
        };
        self.data = NonNull::new(new_data).unwrap_or_else(|| alloc::handle_alloc_error(new_layout));
        self.capacity = new_capacity;
    }

    /// A pointer to item `index`.
    ///
    /// # Safety
    /// `index` must be less than the capacity (and less than `len` to read).
    #[inline]
    pub(crate) unsafe fn get_unchecked(&self, index: usize) -> *mut u8 {
        debug_assert!(index < self.capacity);
        // SAFETY: `index` is within the allocation (or the item is a ZST and
        // the offset is zero).
        unsafe { self.data.as_ptr().add(index * self.stride) }
    }

    /// A pointer to the first item.
    #[inline]
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.data.as_ptr()
    }

    /// [`BlobVec::as_ptr`], as a `NonNull` (so the optimiser knows every
    /// item pointer derived from it is non-null too).
    #[inline]
    pub(crate) fn as_non_null(&self) -> NonNull<u8> {
        self.data
    }

    /// Moves the value at `value` onto the end.
    ///
    /// # Safety
    /// `value` must point to a valid value of this vector's item type,
    /// not inside this vector; ownership moves in (the caller must not drop
    /// or use it afterwards).
    #[inline]
    pub(crate) unsafe fn push(&mut self, value: *mut u8) {
        self.reserve(1);
        // SAFETY: room was reserved for index `len`; `value` forwarded.
        unsafe { self.push_within_capacity(value) };
    }

    /// [`BlobVec::push`] without the capacity check.
    ///
    /// # Safety
    /// As for [`BlobVec::push`], and `len < capacity`.
    #[inline]
    pub(crate) unsafe fn push_within_capacity(&mut self, value: *mut u8) {
        // SAFETY: forwarded; `self.len` is the length.
        unsafe { self.push_at(self.len, value) };
    }

    /// [`BlobVec::push_within_capacity`] for a caller that already knows
    /// the length (a table knows it from its row count): the write does
    /// not wait for the length to be read.
    ///
    /// # Safety
    /// As for [`BlobVec::push_within_capacity`], and `len` is the length.
    #[inline(always)]
    pub(crate) unsafe fn push_at(&mut self, len: usize, value: *mut u8) {
        debug_assert_eq!(len, self.len);
        debug_assert!(len < self.capacity);
        // SAFETY: index `len` is allocated (caller); `value` is a valid item
        // outside this allocation.
        unsafe {
            copy_item(value, self.get_unchecked(len), self.item_layout.size());
        }
        self.len = len + 1;
    }

    /// Moves `value` onto the end (index `len`) with a typed write, without
    /// the capacity check; the caller gives the length, as for
    /// [`BlobVec::push_at`].
    ///
    /// # Safety
    /// `T` is this vector's item type (its layout is the item layout, and
    /// `drop` drops a `T`), `len` is the length and `len < capacity`.
    #[inline(always)]
    pub(crate) unsafe fn push_typed_at<T>(&mut self, len: usize, value: T) {
        debug_assert_eq!(std::alloc::Layout::new::<T>(), self.item_layout);
        debug_assert_eq!(len, self.len);
        debug_assert!(len < self.capacity);
        // SAFETY: index `len` is allocated (caller) and aligned for `T`
        // (the item layout is `T`'s, so the stride is `size_of::<T>()`);
        // for a zero-sized `T` the pointer is the aligned dangling one,
        // valid for a zero-sized write.
        unsafe { self.data.as_ptr().cast::<T>().add(len).write(value) };
        self.len = len + 1;
    }

    /// Replaces the value at `index` with the one at `value`, dropping the
    /// old one. A panic from the old value's `Drop` is caught into `panics`
    /// and the new value is still written.
    ///
    /// # Safety
    /// `index < len`; `value` as for [`BlobVec::push`].
    #[inline]
    pub(crate) unsafe fn replace_unchecked(
        &mut self,
        index: usize,
        value: *mut u8,
        panics: &mut DropPanics,
    ) {
        debug_assert!(index < self.len);
        // SAFETY: `index < len`, so the slot holds a valid value that we own.
        let slot = unsafe { self.get_unchecked(index) };
        if let Some(drop) = self.drop {
            // SAFETY: the old value is valid and is overwritten right after.
            unsafe { panics.drop_value(drop, slot) };
        }
        // SAFETY: the slot is now logically uninitialised; `value` is a
        // valid item outside this allocation.
        unsafe { copy_item(value, slot, self.item_layout.size()) };
    }

    /// Removes the value at `index` by swapping the last value into its
    /// place, and returns a pointer to the removed value, which now sits
    /// just past the end. The pointer is valid until the next push; the
    /// caller owns the value.
    ///
    /// # Safety
    /// `index < len`.
    #[inline]
    #[must_use = "the removed value must be moved out or dropped"]
    pub(crate) unsafe fn swap_remove_and_forget_unchecked(&mut self, index: usize) -> *mut u8 {
        debug_assert!(index < self.len);
        let last = self.len - 1;
        let size = self.item_layout.size();
        if index != last {
            // SAFETY: both indices are below `len` and distinct, so the two
            // items do not overlap.
            unsafe {
                std::ptr::swap_nonoverlapping(
                    self.get_unchecked(index),
                    self.get_unchecked(last),
                    size,
                );
            }
        }
        self.len = last;
        // SAFETY: `last` is below the capacity.
        unsafe { self.get_unchecked(last) }
    }

    /// Removes and drops the value at `index`, swapping the last value into
    /// its place. A panicking `Drop` is caught into `panics`; the vector is
    /// consistent either way. The caller gives the length, as for
    /// [`BlobVec::push_at`].
    ///
    /// # Safety
    /// `index < len`, and `len` is the length.
    #[inline(always)]
    pub(crate) unsafe fn swap_remove_and_drop_at(
        &mut self,
        index: usize,
        len: usize,
        panics: &mut DropPanics,
    ) {
        debug_assert_eq!(len, self.len);
        debug_assert!(index < len);
        let last = len - 1;
        // The length goes down first, so whatever the `Drop` does, the
        // value at `index` can never be dropped twice.
        self.len = last;
        // SAFETY: `index <= last < capacity`; the value at `index` is owned
        // by us and dropped once (a panic is caught); then the last value
        // moves into its slot (one copy, not a swap).
        unsafe {
            let hole = self.get_unchecked(index);
            if let Some(drop) = self.drop {
                panics.drop_value(drop, hole);
            }
            if index != last {
                copy_item(self.get_unchecked(last), hole, self.item_layout.size());
            }
        }
    }

    /// Moves the value at `index` onto the end of `dst` and the last value
    /// into its place: two copies, where a swap-remove then push takes
    /// four.
    ///
    /// The caller gives both lengths, as for [`BlobVec::push_at`].
    ///
    /// # Safety
    /// `index < len`; `len` is this vector's length and `dst_len` is
    /// `dst`'s; `dst` holds values of the same type and has room for one
    /// more (`dst_len < dst.capacity`).
    #[inline(always)]
    pub(crate) unsafe fn swap_remove_into_at(
        &mut self,
        index: usize,
        len: usize,
        dst: &mut BlobVec,
        dst_len: usize,
    ) {
        debug_assert_eq!(len, self.len);
        debug_assert!(index < len);
        debug_assert_eq!(self.item_layout, dst.item_layout);
        let last = len - 1;
        debug_assert_eq!(dst_len, dst.len);
        debug_assert!(dst_len < dst.capacity);
        let size = self.item_layout.size();
        // SAFETY: the value at `index` moves (bitwise) into slot `dst_len`
        // of `dst`, another allocation with room for it; then the last
        // value fills the hole.
        unsafe {
            let hole = self.get_unchecked(index);
            copy_item(hole, dst.get_unchecked(dst_len), size);
            if index != last {
                copy_item(self.get_unchecked(last), hole, size);
            }
        }
        dst.len = dst_len + 1;
        self.len = last;
    }

    /// Moves every value onto the end of `dst` with one copy, leaving this
    /// vector empty (the values are moved, not dropped).
    ///
    /// # Safety
    /// `dst` holds values of the same type and has room for `self.len()`
    /// more (`dst.len + self.len <= dst.capacity`).
    pub(crate) unsafe fn append_all_into(&mut self, dst: &mut BlobVec) {
        // SAFETY: forwarded; this vector gives up the values copied, each
        // now owned by `dst` alone.
        unsafe { self.copy_bytes_onto(dst) };
        self.len = 0;
    }

    /// Copies every value bitwise onto the end of `dst`, keeping them here
    /// too: a duplicate for types whose bitwise copy is a valid value
    /// (`Copy` types).
    ///
    /// # Safety
    /// `dst` holds values of the same `Copy` type and has room for
    /// `self.len()` more (`dst.len + self.len <= dst.capacity`).
    pub(crate) unsafe fn copy_all_into(&self, dst: &mut BlobVec) {
        debug_assert!(self.drop.is_none(), "`Copy` values need no drop");
        // SAFETY: forwarded; a bitwise copy of a `Copy` value is a value of
        // its own, so the values stay valid here too.
        unsafe { self.copy_bytes_onto(dst) };
    }

    /// Copies the bytes of every value onto the end of `dst` with one copy
    /// and counts them in `dst`'s length.
    ///
    /// # Safety
    /// `dst` holds values of the same type and has room for `self.len()`
    /// more; the caller makes the copies' ownership right (the values
    /// moved out of here, or `Copy`).
    unsafe fn copy_bytes_onto(&self, dst: &mut BlobVec) {
        debug_assert_eq!(self.item_layout, dst.item_layout);
        let n = self.len;
        debug_assert!(dst.len + n <= dst.capacity);
        if self.stride != 0 && n != 0 {
            // SAFETY: the first `n` items here are initialised; `dst` has
            // room for `n` more after its `len` (caller); the two are
            // different vectors, so the ranges do not overlap; the bytes
            // between items (padding) may be copied uninitialised.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.data.as_ptr(),
                    dst.get_unchecked(dst.len),
                    n * self.stride,
                )
            };
        }
        dst.len += n;
    }

    /// Moves the items to `data`, memory for `capacity` items that the
    /// vector will use from now on without owning it (it never grows or
    /// frees it); frees the old allocation if the vector owned it.
    /// Zero-sized items need no memory: nothing changes for them.
    ///
    /// # Safety
    /// `capacity >= len`; `data` is valid for reads and writes of
    /// `array_layout(capacity)`, aligned for it, does not overlap the
    /// current items, and stays valid (untouched by anyone else) until the
    /// vector is dropped or moved to other memory.
    pub(crate) unsafe fn move_to_external(&mut self, data: NonNull<u8>, capacity: usize) {
        // SAFETY: forwarded; the first `len` items are the ones in use.
        unsafe { self.move_to_external_at(self.len, data, capacity) };
    }

    /// [`BlobVec::move_to_external`] with the number of items in use given
    /// (for a vector whose length is kept elsewhere): the first `len` items
    /// are copied.
    ///
    /// # Safety
    /// As for [`BlobVec::move_to_external`], with `capacity >= len`; the
    /// first `len` items are initialised and `len` is at least the
    /// vector's own length.
    pub(crate) unsafe fn move_to_external_at(
        &mut self,
        len: usize,
        data: NonNull<u8>,
        capacity: usize,
    ) {
        debug_assert!(len >= self.len && capacity >= len);
        if self.stride == 0 {
            return;
        }
        // SAFETY: the first `len` items are initialised (caller); `data`
        // has room for them and does not overlap (caller).
        unsafe {
            std::ptr::copy_nonoverlapping(self.data.as_ptr(), data.as_ptr(), len * self.stride);
        }
        if !self.external && self.capacity != 0 {
            // SAFETY: the vector owned this allocation, made with this
            // layout; its items were copied out above (moved, not dropped).
            unsafe { alloc::dealloc(self.data.as_ptr(), self.array_layout(self.capacity)) };
        }
        self.data = data;
        self.capacity = capacity;
        self.external = true;
    }

    /// Points the vector at `data`, memory for `capacity` items that its
    /// items were already moved to (by the owner of both), and forgets the
    /// memory it pointed at.
    ///
    /// # Safety
    /// The vector's memory is external (owned by someone else, who already
    /// moved or freed it); `data` holds its items in use and is valid as
    /// for [`BlobVec::move_to_external`].
    pub(crate) unsafe fn rebase_external(&mut self, data: NonNull<u8>, capacity: usize) {
        debug_assert!(self.external || self.stride == 0);
        if self.stride == 0 {
            return;
        }
        self.data = data;
        self.capacity = capacity;
    }

    /// Drops every value and sets the length to zero, keeping the
    /// allocation.
    pub(crate) fn clear(&mut self, panics: &mut DropPanics) {
        let len = self.len;
        // Set the length first: whatever a `Drop` does, no value can be
        // dropped twice.
        self.len = 0;
        if let Some(drop) = self.drop {
            for index in 0..len {
                // SAFETY: each of the first `len` items was valid and is
                // dropped once.
                unsafe { panics.drop_value(drop, self.get_unchecked(index)) };
            }
        }
    }
}

impl Drop for BlobVec {
    fn drop(&mut self) {
        let mut panics = DropPanics::default();
        self.clear(&mut panics);
        if !self.external && self.stride != 0 && self.capacity != 0 {
            // SAFETY: the allocation was made with this layout.
            unsafe { alloc::dealloc(self.data.as_ptr(), self.array_layout(self.capacity)) };
        }
        panics.finish();
    }
}

impl BlobVec {
    /// The layout of an array of `n` items (zero-sized for zero-sized
    /// items).
    pub(crate) fn array_layout(&self, n: usize) -> Layout {
        let size = self.stride.checked_mul(n).expect("capacity overflow");
        Layout::from_size_align(size, self.item_layout.align()).expect("capacity overflow")
    }
}

/// Snapshot support: whole-vector clones and clears that keep moved-out items.
impl BlobVec {
    /// The function that drops one item, if items need dropping.
    #[inline]
    pub(crate) fn drop_fn(&self) -> Option<unsafe fn(*mut u8)> {
        self.drop
    }

    /// Sets the length.
    ///
    /// # Safety
    /// `len <= capacity`, and the first `len` items are initialised and
    /// owned by this vector alone.
    #[inline]
    pub(crate) unsafe fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.capacity);
        self.len = len;
    }

    /// Sets the length to zero, dropping each item whose `keep` flag is
    /// unset; the kept items were moved out bitwise and belong elsewhere.
    pub(crate) fn clear_keeping(&mut self, keep: &[bool], panics: &mut DropPanics) {
        let len = self.len;
        assert_eq!(keep.len(), len, "one keep flag per item");
        // Length first: whatever a `Drop` does, no item is dropped twice.
        self.len = 0;
        if let Some(drop) = self.drop {
            for (index, &kept) in keep.iter().enumerate() {
                if !kept {
                    // SAFETY: each of the first `len` items was valid; this
                    // one was not moved out and is dropped once.
                    unsafe { panics.drop_value(drop, self.get_unchecked(index)) };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{cell::Cell, rc::Rc};

    struct Counted(Rc<Cell<usize>>, #[allow(dead_code)] u64);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    unsafe fn drop_counted(ptr: *mut u8) {
        // SAFETY: only called on valid `Counted` values.
        unsafe { ptr.cast::<Counted>().drop_in_place() }
    }

    fn push<T>(vec: &mut BlobVec, value: T) {
        let mut value = std::mem::ManuallyDrop::new(value);
        // SAFETY: the vector's items are `T`; ownership moves in.
        unsafe { vec.push((&mut *value as *mut T).cast()) };
    }

    /// Moves, replaces and swap-removes values of each size `copy_item`
    /// handles inline, padding included (Miri flags a copy that reads
    /// padding as an integer), and checks every value arrives and each
    /// hole is filled.
    fn move_between_vectors<T: Copy + PartialEq + std::fmt::Debug>(make: impl Fn(u8) -> T) {
        // SAFETY: `T` is `Copy`, so it needs no drop.
        let mut src = unsafe { BlobVec::new(Layout::new::<T>(), None, 4) };
        // SAFETY: as above.
        let mut dst = unsafe { BlobVec::new(Layout::new::<T>(), None, 4) };
        for i in 0..4 {
            push(&mut src, make(i));
        }
        // Move row 1 (the last row fills its hole), then the last row.
        for row in [1, 2] {
            let (len, dst_len) = (src.len(), dst.len());
            // SAFETY: `row < len`; `dst` has room; both hold `T`s.
            unsafe { src.swap_remove_into_at(row, len, &mut dst, dst_len) };
        }
        let read = |vec: &BlobVec, i: usize| {
            // SAFETY: `i < len`, and the items are `T`s.
            unsafe { *vec.get_unchecked(i).cast::<T>() }
        };
        assert_eq!((src.len(), dst.len()), (2, 2));
        assert_eq!([read(&src, 0), read(&src, 1)], [make(0), make(3)]);
        assert_eq!([read(&dst, 0), read(&dst, 1)], [make(1), make(2)]);
        // Replace row 0 of `src`; swap-remove row 0 of `dst` (its last row
        // fills the hole) and then its only row.
        let mut panics = DropPanics::default();
        let mut new = make(9);
        // SAFETY: `0 < len`; `new` is a `T` outside the vector, `Copy`, so
        // the copy taken needs no forgetting.
        unsafe { src.replace_unchecked(0, (&mut new as *mut T).cast(), &mut panics) };
        assert_eq!([read(&src, 0), read(&src, 1)], [make(9), make(3)]);
        for expected_len in [1, 0] {
            let len = dst.len();
            // SAFETY: `0 < len`, the length.
            unsafe { dst.swap_remove_and_drop_at(0, len, &mut panics) };
            assert_eq!(dst.len(), expected_len);
            if expected_len == 1 {
                assert_eq!(read(&dst, 0), make(2));
            }
        }
        assert!(panics.is_empty());
    }

    #[test]
    fn moves_small_values_with_padding() {
        #[derive(Clone, Copy, PartialEq, Debug)]
        struct Padded4(u16, u8);
        #[derive(Clone, Copy, PartialEq, Debug)]
        struct Padded8(u32, u8);
        #[derive(Clone, Copy, PartialEq, Debug)]
        struct Padded12(u32, u32, u8);
        #[derive(Clone, Copy, PartialEq, Debug)]
        struct Padded16(u64, u8);
        assert_eq!(
            [4, 8, 12, 16],
            [
                std::mem::size_of::<Padded4>(),
                std::mem::size_of::<Padded8>(),
                std::mem::size_of::<Padded12>(),
                std::mem::size_of::<Padded16>(),
            ]
        );
        move_between_vectors(|i| Padded4(u16::from(i) * 300, i));
        move_between_vectors(|i| Padded8(u32::from(i) * 70_000, i));
        move_between_vectors(|i| Padded12(u32::from(i), u32::from(i) * 3, i));
        move_between_vectors(|i| Padded16(u64::from(i) << 40, i));
        move_between_vectors(|i| [i; 3]);
    }

    #[test]
    fn drops_each_value_exactly_once() {
        let drops = Rc::new(Cell::new(0));
        // SAFETY: `drop_counted` matches the item type.
        let mut vec = unsafe { BlobVec::new(Layout::new::<Counted>(), Some(drop_counted), 0) };
        for i in 0..10 {
            push(&mut vec, Counted(drops.clone(), i));
        }
        let mut panics = DropPanics::default();
        // SAFETY: indices below len.
        unsafe {
            vec.swap_remove_and_drop_at(3, vec.len(), &mut panics);
            vec.swap_remove_and_drop_at(8, vec.len(), &mut panics);
        }
        assert_eq!(drops.get(), 2);
        assert_eq!(vec.len(), 8);
        // The last value moved into slot 3.
        // SAFETY: index 3 < len and holds a `Counted`.
        assert_eq!(unsafe { &*vec.get_unchecked(3).cast::<Counted>() }.1, 9);
        let mut replacement = std::mem::ManuallyDrop::new(Counted(drops.clone(), 100));
        // SAFETY: index 0 < len; replacement is an owned `Counted`.
        unsafe {
            vec.replace_unchecked(0, (&mut *replacement as *mut Counted).cast(), &mut panics)
        };
        assert_eq!(drops.get(), 3);
        // SAFETY: index 0 < len.
        let removed = unsafe { vec.swap_remove_and_forget_unchecked(0) };
        // SAFETY: the removed value is owned by us; read it out once.
        let removed = unsafe { removed.cast::<Counted>().read() };
        assert_eq!(removed.1, 100);
        assert_eq!(drops.get(), 3);
        drop(removed);
        assert_eq!(drops.get(), 4);
        // 7 values remain: 10 pushed + 1 replacement - 4 dropped.
        drop(vec);
        assert_eq!(drops.get(), 11);
        panics.finish();
    }

    #[test]
    fn zero_sized_and_over_aligned_items() {
        #[repr(align(64))]
        struct Aligned(u8);
        // SAFETY: no drop function.
        let mut zst = unsafe { BlobVec::new(Layout::new::<()>(), None, 0) };
        for _ in 0..1000 {
            push(&mut zst, ());
        }
        assert_eq!(zst.len(), 1000);
        // SAFETY: no drop function.
        let mut aligned = unsafe { BlobVec::new(Layout::new::<Aligned>(), None, 1) };
        for i in 0..20u8 {
            push(&mut aligned, Aligned(i));
        }
        for i in 0..20 {
            // SAFETY: i < len.
            let ptr = unsafe { aligned.get_unchecked(i) };
            assert_eq!(ptr as usize % 64, 0);
            // SAFETY: valid `Aligned` at `ptr`.
            assert_eq!(unsafe { &*ptr.cast::<Aligned>() }.0, i as u8);
        }
    }

    #[test]
    fn panicking_drop_is_caught_and_rest_still_dropped() {
        struct Bomb(Rc<Cell<usize>>, bool);
        impl Drop for Bomb {
            fn drop(&mut self) {
                self.0.set(self.0.get() + 1);
                if self.1 {
                    panic!("boom");
                }
            }
        }
        unsafe fn drop_bomb(ptr: *mut u8) {
            // SAFETY: only called on valid `Bomb` values.
            unsafe { ptr.cast::<Bomb>().drop_in_place() }
        }
        let drops = Rc::new(Cell::new(0));
        // SAFETY: `drop_bomb` matches the item type.
        let mut vec = unsafe { BlobVec::new(Layout::new::<Bomb>(), Some(drop_bomb), 0) };
        for i in 0..5 {
            push(&mut vec, Bomb(drops.clone(), i == 1));
        }
        let mut panics = DropPanics::default();
        vec.clear(&mut panics);
        assert_eq!(drops.get(), 5);
        assert_eq!(vec.len(), 0);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| panics.finish()));
        assert!(result.is_err(), "the caught panic is re-raised");
    }
}
