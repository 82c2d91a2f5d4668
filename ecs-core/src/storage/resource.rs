//! [`ResourceData`]: the storage of one resource (room for one value, with
//! its ticks), and [`Resources`], every resource of a world by component
//! id.

use std::cell::UnsafeCell;

use super::{blob_vec::BlobVec, SparseSet};
use crate::{
    change_detection::{ComponentTicks, Tick},
    component::{ComponentId, ComponentInfo},
    utils::DropPanics,
};

/// The storage of one resource: at most one value, with its ticks.
#[derive(Debug)]
pub struct ResourceData {
    data: BlobVec,
    added: UnsafeCell<Tick>,
    changed: UnsafeCell<Tick>,
}

// SAFETY: values are of `Send + Sync` resource types; the tick cells are
// written only through exclusive world access or a checked `ResMut`.
unsafe impl Sync for ResourceData {}

impl ResourceData {
    /// Whether the resource currently has a value.
    #[inline]
    pub fn is_present(&self) -> bool {
        self.data.len() == 1
    }

    /// A pointer to the value, if present.
    #[inline]
    pub fn get_data(&self) -> Option<*mut u8> {
        if self.is_present() {
            // SAFETY: index 0 holds the value when present.
            Some(unsafe { self.data.get_unchecked(0) })
        } else {
            None
        }
    }

    /// The value's ticks, if present.
    #[inline]
    pub fn get_ticks(&self) -> Option<ComponentTicks> {
        // SAFETY: the tick cells are only written through `&mut self` or
        // through a `Mut` borrowed from `&mut World`, never while shared.
        self.is_present().then(|| unsafe {
            ComponentTicks {
                added: *self.added.get(),
                changed: *self.changed.get(),
            }
        })
    }

    /// The value and its tick cells, if present.
    #[inline]
    pub fn get_with_tick_cells(&self) -> Option<(*mut u8, &UnsafeCell<Tick>, &UnsafeCell<Tick>)> {
        self.get_data().map(|ptr| (ptr, &self.added, &self.changed))
    }

    /// Sets the value, replacing (and dropping) an old one.
    ///
    /// # Safety
    /// `value` points to an owned, valid value of this resource's type; the
    /// caller gives up ownership.
    pub(crate) unsafe fn insert(&mut self, value: *mut u8, tick: Tick) {
        if self.is_present() {
            let mut panics = DropPanics::default();
            // SAFETY: index 0 holds the value; `value` forwarded.
            unsafe { self.data.replace_unchecked(0, value, &mut panics) };
            *self.changed.get_mut() = tick;
            panics.finish();
        } else {
            // SAFETY: forwarded.
            unsafe { self.data.push(value) };
            *self.added.get_mut() = tick;
            *self.changed.get_mut() = tick;
        }
    }

    /// Sets the value with explicit ticks (used to put a value back).
    ///
    /// # Safety
    /// As for [`ResourceData::insert`]; the resource must be absent.
    pub(crate) unsafe fn insert_with_ticks(&mut self, value: *mut u8, ticks: ComponentTicks) {
        debug_assert!(!self.is_present());
        // SAFETY: forwarded.
        unsafe { self.data.push(value) };
        *self.added.get_mut() = ticks.added;
        *self.changed.get_mut() = ticks.changed;
    }

    /// Takes the value out: a pointer valid until the next insert, and its
    /// ticks. The caller owns the value.
    #[must_use = "the removed value must be moved out or dropped"]
    pub(crate) fn remove(&mut self) -> Option<(*mut u8, ComponentTicks)> {
        if !self.is_present() {
            return None;
        }
        let ticks = ComponentTicks {
            added: *self.added.get_mut(),
            changed: *self.changed.get_mut(),
        };
        // SAFETY: index 0 holds the value.
        let value = unsafe { self.data.swap_remove_and_forget_unchecked(0) };
        Some((value, ticks))
    }

    fn check_change_ticks(&mut self, change_tick: Tick) {
        self.added.get_mut().check_tick(change_tick);
        self.changed.get_mut().check_tick(change_tick);
    }
}

/// Every resource of a world, by component id.
#[derive(Debug, Default)]
pub struct Resources {
    resources: SparseSet<ComponentId, ResourceData>,
}

impl Resources {
    /// The storage of a resource, if ever created.
    #[inline]
    pub fn get(&self, id: ComponentId) -> Option<&ResourceData> {
        self.resources.get(id)
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: ComponentId) -> Option<&mut ResourceData> {
        self.resources.get_mut(id)
    }

    pub(crate) fn get_or_insert(&mut self, info: &ComponentInfo) -> &mut ResourceData {
        self.resources
            .get_or_insert_with(info.id(), || ResourceData {
                // SAFETY: the drop function comes from the resource's own
                // descriptor.
                data: unsafe { BlobVec::new(info.layout(), info.drop_fn(), 1) },
                added: UnsafeCell::new(Tick::default()),
                changed: UnsafeCell::new(Tick::default()),
            })
    }

    /// The number of resources that have a value.
    pub fn len(&self) -> usize {
        self.resources
            .values()
            .iter()
            .filter(|r| r.is_present())
            .count()
    }

    /// Whether no resource has a value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every present resource, by id.
    pub fn iter(&self) -> impl Iterator<Item = (ComponentId, &ResourceData)> {
        self.resources
            .iter()
            .filter(|(_, r)| r.is_present())
            .map(|(&id, r)| (id, r))
    }

    pub(crate) fn clear_all(&mut self, panics: &mut DropPanics) {
        for data in self.resources.values_mut() {
            data.data.clear(panics);
        }
    }

    pub(crate) fn check_change_ticks(&mut self, change_tick: Tick) {
        for data in self.resources.values_mut() {
            data.check_change_ticks(change_tick);
        }
    }
}
