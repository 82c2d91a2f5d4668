use std::{
    alloc::Layout,
    mem::MaybeUninit,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

use super::Bundle;
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
/// Stored back to back, unaligned (they are only ever copied as bytes or
/// read unaligned); the buffer is reused, so after warm-up it allocates
/// nothing.
#[derive(Default)]
pub(crate) struct ValueScratch {
    bytes: Vec<MaybeUninit<u8>>,
    items: Vec<(ComponentId, StorageType, usize)>,
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
                    let offset = self.bytes.len();
                    self.bytes.reserve(layout.size());
                    // SAFETY: `value` is an owned value of `layout`; its
                    // bytes move into the reserved space past `offset`.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            value.cast::<MaybeUninit<u8>>(),
                            self.bytes.as_mut_ptr().add(offset),
                            layout.size(),
                        );
                        self.bytes.set_len(offset + layout.size());
                    }
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
        let size = unsafe { components.get_info_unchecked(id) }.layout().size();
        let offset = self.bytes.len();
        self.bytes.reserve(size);
        // SAFETY: `value` is an owned value of `size` bytes (caller); they
        // move into the reserved space past `offset`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                value.cast::<MaybeUninit<u8>>(),
                self.bytes.as_mut_ptr().add(offset),
                size,
            );
            self.bytes.set_len(offset + size);
        }
        self.items.push((id, storage_type, offset));
    }

    /// Builds `B` from the values pushed by [`ValueScratch::push_taken`],
    /// in order, and empties the scratch. If `from_components` panics, the
    /// values it read are dropped by the unwind and this drops the others,
    /// so each is dropped once.
    ///
    /// # Safety
    /// The values pushed are exactly `B`'s components, in `B`'s order.
    pub(crate) unsafe fn take_bundle<B: Bundle>(&mut self, components: &Components) -> B {
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
        // handed out once (`read` moves on) and owned by the bundle from
        // then on; `from_components` reads them unaligned.
        unsafe {
            B::from_components(&mut unread, &mut |unread: &mut Unread<'_>| {
                let (_, _, offset) = unread.scratch.items[unread.read];
                unread.read += 1;
                unread.scratch.bytes.as_mut_ptr().add(offset).cast::<u8>()
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
        let base = self.bytes.as_mut_ptr().cast::<u8>();
        for &(id, storage_type, offset) in &self.items {
            // SAFETY: each item's bytes are an owned value of `id` (copied
            // as bytes, so alignment does not matter); the caller guarantees
            // the storage exists and the row being built is the last.
            unsafe {
                let value = base.add(offset);
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
    /// the end, every value was moved out). Each is copied to an aligned
    /// temporary first, since drop functions need alignment.
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
            let layout =
                Layout::from_size_align(info.layout().size().max(1), info.layout().align())
                    .expect("valid layout");
            // SAFETY: a fresh allocation of the value's layout receives its
            // bytes, is dropped once, and is freed.
            unsafe {
                let aligned = std::alloc::alloc(layout);
                if aligned.is_null() {
                    std::alloc::handle_alloc_error(layout);
                }
                std::ptr::copy_nonoverlapping(
                    self.bytes.as_ptr().add(offset).cast::<u8>(),
                    aligned,
                    info.layout().size(),
                );
                panics.drop_value(drop, aligned);
                std::alloc::dealloc(aligned, layout);
            }
        }
        // A panic from a `Drop` is swallowed: the constructor's or
        // `from_components`'s panic is the one that goes on.
        drop(panics);
    }
}
