use std::{
    alloc::Layout,
    mem::MaybeUninit,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

use crate::{
    change_detection::{ComponentTicks, Tick},
    component::{ComponentId, Components, RequiredComponent, StorageType},
    entity::Entity,
    storage::{SparseSets, Table},
    utils::DropPanics,
};

/// Values of required components, made before an insert or spawn touches
/// any storage: their constructors are user code and may panic, and
/// nothing may have moved when they do. Stored back to back, unaligned
/// (they are only ever copied as bytes); the buffer is reused, so after
/// warm-up making them allocates nothing.
#[derive(Default)]
pub(crate) struct RequiredScratch {
    bytes: Vec<MaybeUninit<u8>>,
    items: Vec<(ComponentId, StorageType, usize)>,
}

impl RequiredScratch {
    /// Makes every required value. If a constructor panics, the values
    /// already made are dropped and the panic goes on.
    pub(crate) fn make(&mut self, required: &[RequiredComponent], components: &Components) {
        debug_assert!(self.items.is_empty());
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
                self.drop_all(components);
                resume_unwind(payload);
            }
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

    fn clear(&mut self) {
        self.items.clear();
        self.bytes.clear();
    }

    /// Drops the values made (a constructor panicked). Each is copied to an
    /// aligned temporary first, since drop functions need alignment.
    #[cold]
    fn drop_all(&mut self, components: &Components) {
        let mut panics = DropPanics::default();
        for &(id, _, offset) in &self.items {
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
        self.clear();
        // A second panic from a `Drop` is swallowed: the constructor's panic
        // is the one that goes on.
        drop(panics);
    }
}
