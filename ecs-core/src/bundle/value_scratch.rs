use std::{
    alloc::Layout,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
    ptr::NonNull,
};

use super::BundleFromComponents;
use crate::{
    change_detection::{ComponentTicks, Tick},
    component::{ComponentId, Components, RequiredComponent, StorageType},
    entity::Entity,
    storage::{SparseSets, Table},
    utils::DropPanics,
};

/// Component values held outside storage while user code that may panic
/// runs, so that storage is never half-changed when it does:
/// - required components, made before an insert or spawn touches any
///   storage (their constructors are user code);
/// - the values a `take` moves out, held until the entity has moved and
///   only then handed to the bundle's `from_components` (which runs
///   `Default` of ignored fields).
///
/// Stored back to back, each at an offset aligned for it; the buffer is
/// reused, so after warm-up it allocates nothing.
#[derive(Default)]
pub(crate) struct ValueScratch {
    bytes: AlignedBytes,
    items: Vec<(ComponentId, StorageType, usize)>,
}

/// A growable byte buffer whose start is aligned to the largest alignment
/// asked for so far, so a value placed at an offset that is a multiple of
/// its alignment is aligned.
struct AlignedBytes {
    ptr: NonNull<u8>,
    len: usize,
    cap: usize,
    align: usize,
}

// SAFETY: it owns its bytes like a `Vec<u8>`; the values in them are
// components and resources, which are `Send + Sync`.
unsafe impl Send for AlignedBytes {}
// SAFETY: as above; `&AlignedBytes` gives no access to the bytes.
unsafe impl Sync for AlignedBytes {}

impl Default for AlignedBytes {
    fn default() -> Self {
        AlignedBytes {
            ptr: NonNull::dangling(),
            len: 0,
            cap: 0,
            align: 1,
        }
    }
}

impl AlignedBytes {
    /// Makes room for a value of `layout` at the end; returns its offset.
    fn push(&mut self, layout: Layout) -> usize {
        let offset = self.len.next_multiple_of(layout.align());
        let end = offset
            .checked_add(layout.size())
            .expect("value scratch overflow");
        if end > self.cap || layout.align() > self.align {
            self.grow(end, layout.align());
        }
        self.len = end;
        offset
    }

    #[cold]
    fn grow(&mut self, min_cap: usize, align: usize) {
        let align = self.align.max(align);
        let cap = min_cap.max(self.cap * 2).max(64);
        let layout = Layout::from_size_align(cap, align).expect("value scratch layout");
        // SAFETY: `layout` has a non-zero size.
        let new = unsafe { std::alloc::alloc(layout) };
        let new = NonNull::new(new).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        if self.cap > 0 {
            // SAFETY: the old buffer has `len <= cap` bytes, copied as bytes
            // into the larger new one (whose start is at least as aligned,
            // so every offset stays aligned); then it is freed with the
            // layout it was allocated with.
            unsafe {
                std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), new.as_ptr(), self.len);
                std::alloc::dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.cap, self.align),
                );
            }
        }
        self.ptr = new;
        self.cap = cap;
        self.align = align;
    }

    /// A pointer to the byte at `offset` (at most `len`).
    fn at(&mut self, offset: usize) -> *mut u8 {
        debug_assert!(offset <= self.len);
        self.ptr.as_ptr().wrapping_add(offset)
    }

    fn clear(&mut self) {
        self.len = 0;
    }
}

impl Drop for AlignedBytes {
    fn drop(&mut self) {
        if self.cap > 0 {
            // SAFETY: allocated by `grow` with this size and alignment.
            unsafe {
                std::alloc::dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.cap, self.align),
                )
            };
        }
    }
}

impl ValueScratch {
    /// Makes every required value. If a constructor panics, the values
    /// already made are dropped and the panic goes on.
    pub(crate) fn make(&mut self, required: &[RequiredComponent], components: &Components) {
        // Always checked: values left by an interrupted operation would be
        // written as this one's.
        assert!(
            self.items.is_empty(),
            "the value scratch holds values of an interrupted operation"
        );
        for requirement in required {
            // SAFETY: required ids come from this registry.
            let layout = unsafe { components.get_info_unchecked(requirement.id) }.layout();
            let result = catch_unwind(AssertUnwindSafe(|| {
                requirement.constructor.make(&mut |storage_type, value| {
                    let offset = self.bytes.push(layout);
                    // SAFETY: `value` is an owned value of `layout`; its
                    // bytes move into the room made at `offset`.
                    unsafe {
                        std::ptr::copy_nonoverlapping(value, self.bytes.at(offset), layout.size())
                    };
                    self.items.push((requirement.id, storage_type, offset));
                })
            }));
            if let Err(payload) = result {
                self.drop_from(0, components);
                resume_unwind(payload);
            }
        }
    }

    /// Moves a value's bytes in: a component a `take` moves out of
    /// storage.
    ///
    /// # Safety
    /// `value` points to an owned, valid value of component `id` (of this
    /// registry), whose ownership moves to the scratch (the caller must
    /// not drop or read it again).
    pub(crate) unsafe fn push_taken(
        &mut self,
        id: ComponentId,
        storage_type: StorageType,
        value: *const u8,
        components: &Components,
    ) {
        // SAFETY: `id` is of this registry (caller).
        let layout = unsafe { components.get_info_unchecked(id) }.layout();
        let offset = self.bytes.push(layout);
        // SAFETY: `value` is an owned value of `layout` (caller); its bytes
        // move into the room made at `offset`.
        unsafe { std::ptr::copy_nonoverlapping(value, self.bytes.at(offset), layout.size()) };
        self.items.push((id, storage_type, offset));
    }

    /// Builds `B` from the values pushed by [`ValueScratch::push_taken`],
    /// in order, and empties the scratch. If `from_components` panics, the
    /// values it read are dropped by the unwind and this drops the others,
    /// so each is dropped once.
    ///
    /// # Safety
    /// The values pushed are exactly `B`'s components, in `B`'s order.
    pub(crate) unsafe fn take_bundle<B: BundleFromComponents>(
        &mut self,
        components: &Components,
    ) -> B {
        /// Drops the values `from_components` has not read, also when it
        /// unwinds.
        struct Unread<'a> {
            scratch: &'a mut ValueScratch,
            components: &'a Components,
            read: usize,
        }
        impl Drop for Unread<'_> {
            fn drop(&mut self) {
                self.scratch.drop_from(self.read, self.components);
            }
        }
        let mut unread = Unread {
            scratch: self,
            components,
            read: 0,
        };
        // SAFETY: the values are `B`'s components in order (caller), each
        // aligned, handed out once (`read` moves on) and owned by the bundle
        // from then on.
        unsafe {
            B::from_components(&mut unread, &mut |unread: &mut Unread<'_>| {
                let (_, _, offset) = unread.scratch.items[unread.read];
                unread.read += 1;
                unread.scratch.bytes.at(offset)
            })
        }
    }

    /// Moves every value made into the entity's storage, as added at
    /// `tick`.
    ///
    /// # Safety
    /// The entity's row in `table` is being built (it is the last row, and
    /// the columns of the required components, which the entity did not
    /// have, hold no value for it yet), `table` has a column for every
    /// required table component, and
    /// every required sparse component has a set without a value for the
    /// entity.
    pub(crate) unsafe fn write(
        &mut self,
        entity: Entity,
        table: &mut Table,
        sparse_sets: &mut SparseSets,
        tick: Tick,
        panics: &mut DropPanics,
    ) {
        for &(id, storage_type, offset) in &self.items {
            let value = self.bytes.at(offset);
            // SAFETY: each item's bytes are an owned, aligned value of `id`;
            // the caller guarantees the storage exists and the row being
            // built is the last.
            unsafe {
                match storage_type {
                    StorageType::Table => table.push_value(id, value, ComponentTicks::new(tick)),
                    StorageType::SparseSet => sparse_sets
                        .get_mut(id)
                        .unwrap_unchecked()
                        .insert(entity, value, tick, panics),
                }
            }
        }
        self.clear();
    }

    /// Whether it holds no value.
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    fn clear(&mut self) {
        self.items.clear();
        self.bytes.clear();
    }

    /// Drops the values from the `start`-th on and empties the scratch (a
    /// constructor or `from_components` panicked, or, with `start` past
    /// the end, every value was moved out).
    fn drop_from(&mut self, start: usize, components: &Components) {
        if start < self.items.len() {
            self.drop_values(start, components);
        }
        self.clear();
    }

    #[cold]
    fn drop_values(&mut self, start: usize, components: &Components) {
        let mut panics = DropPanics::default();
        for &(id, _, offset) in &self.items[start..] {
            // SAFETY: ids come from this registry.
            let info = unsafe { components.get_info_unchecked(id) };
            let Some(drop) = info.drop_fn() else { continue };
            // SAFETY: the item is an owned, aligned value of `id`, dropped
            // once here (the scratch is cleared right after).
            unsafe { panics.drop_value(drop, self.bytes.at(offset)) };
        }
        // A panic from a `Drop` is swallowed: the constructor's or
        // `from_components`'s panic is the one that goes on.
        drop(panics);
    }
}
