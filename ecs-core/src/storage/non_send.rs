//! [`NonSendData`]: the storage of one non-send resource (a `'static`
//! value that need not be `Send` or `Sync`), tied to the thread that put
//! it in; [`NonSends`], every non-send resource of a world by id.
//!
//! A world is `Send` and `Sync`, so it may travel to or be shared with
//! another thread; its non-send values may not. Every access to a value
//! checks that it happens on the thread that inserted it and panics
//! otherwise, naming the type and both threads. A world dropped on another
//! thread forgets (leaks) those values rather than drop them there.

use std::{
    borrow::Cow,
    cell::UnsafeCell,
    thread::{self, ThreadId},
};

use super::{blob_vec::BlobVec, SparseSet};
use crate::{
    change_detection::{ComponentTicks, Tick},
    component::{ComponentId, ComponentInfo},
    utils::DropPanics,
};

/// The storage of one non-send resource: at most one value, its ticks and
/// the thread it belongs to.
#[derive(Debug)]
pub struct NonSendData {
    data: BlobVec,
    added: UnsafeCell<Tick>,
    changed: UnsafeCell<Tick>,
    name: Cow<'static, str>,
    /// The thread that inserted the current value.
    origin: Option<ThreadId>,
}

// SAFETY: the value is only reached through `validate_access`, which
// panics on any thread but the one that inserted it, so it is never used
// or dropped on another thread; the tick cells are written only through
// exclusive world access or a checked `NonSendMut`.
unsafe impl Sync for NonSendData {}
// SAFETY: as for `Sync`: moving the storage moves no access to the value.
unsafe impl Send for NonSendData {}

/// The thread, with its name when it has one, for panic messages.
fn describe(id: Option<ThreadId>, name: Option<&str>) -> String {
    match (id, name) {
        (Some(id), Some(name)) => format!("{id:?} (`{name}`)"),
        (Some(id), None) => format!("{id:?}"),
        (None, _) => "no thread".to_owned(),
    }
}

impl NonSendData {
    /// Whether the resource currently has a value.
    #[inline]
    pub fn is_present(&self) -> bool {
        self.data.len() == 1
    }

    /// The resource's type name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// # Panics
    /// If this is not the thread that inserted the value, naming the type
    /// and both threads.
    #[inline]
    #[track_caller]
    fn validate_access(&self) {
        if self.origin != Some(thread::current().id()) {
            self.wrong_thread();
        }
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn wrong_thread(&self) -> ! {
        let current = thread::current();
        panic!(
            "non-send resource `{}` was inserted on thread {} and accessed from thread {}: \
             a `!Send` value stays on the thread that owns it (systems using it run on the \
             thread that runs the schedule)",
            self.name,
            describe(self.origin, None),
            describe(Some(current.id()), current.name()),
        )
    }

    /// A pointer to the value, if present.
    ///
    /// # Panics
    /// If a value is present and this is not the thread that inserted it.
    #[inline]
    #[track_caller]
    pub fn get_data(&self) -> Option<*mut u8> {
        if !self.is_present() {
            return None;
        }
        self.validate_access();
        // SAFETY: index 0 holds the value when present.
        Some(unsafe { self.data.get_unchecked(0) })
    }

    /// The value's ticks, if present (ticks are plain data: any thread may
    /// read them).
    #[inline]
    pub fn get_ticks(&self) -> Option<ComponentTicks> {
        // SAFETY: the tick cells are only written through `&mut self` or a
        // `Mut` borrowed from exclusive access, never while shared.
        self.is_present().then(|| unsafe {
            ComponentTicks {
                added: *self.added.get(),
                changed: *self.changed.get(),
            }
        })
    }

    /// The value and its tick cells, if present.
    ///
    /// # Panics
    /// As [`NonSendData::get_data`].
    #[inline]
    #[track_caller]
    pub fn get_with_tick_cells(&self) -> Option<(*mut u8, &UnsafeCell<Tick>, &UnsafeCell<Tick>)> {
        self.get_data().map(|ptr| (ptr, &self.added, &self.changed))
    }

    /// Panics unless the slot is empty or its value belongs to this
    /// thread: what [`NonSendData::insert`] needs.
    #[inline]
    #[track_caller]
    pub(crate) fn validate_insert(&self) {
        if self.is_present() {
            self.validate_access();
        }
    }

    /// Sets the value, replacing (and dropping) an old one; the value
    /// belongs to this thread from now on.
    ///
    /// # Safety
    /// `value` points to an owned, valid value of this resource's type; the
    /// caller gives up ownership. Any old value belongs to this thread
    /// ([`NonSendData::validate_insert`]).
    pub(crate) unsafe fn insert(&mut self, value: *mut u8, tick: Tick) {
        if self.is_present() {
            debug_assert_eq!(self.origin, Some(thread::current().id()));
            let mut panics = DropPanics::default();
            // SAFETY: index 0 holds the value; `value` forwarded.
            unsafe { self.data.replace_unchecked(0, value, &mut panics) };
            *self.changed.get_mut() = tick;
            panics.finish();
        } else {
            // SAFETY: forwarded.
            unsafe { self.data.push(value) };
            self.origin = Some(thread::current().id());
            *self.added.get_mut() = tick;
            *self.changed.get_mut() = tick;
        }
    }

    /// Takes the value out: a pointer valid until the next insert, and its
    /// ticks. The caller owns the value.
    ///
    /// # Panics
    /// If a value is present and this is not the thread that inserted it.
    #[must_use = "the removed value must be moved out or dropped"]
    #[track_caller]
    pub(crate) fn remove(&mut self) -> Option<(*mut u8, ComponentTicks)> {
        if !self.is_present() {
            return None;
        }
        self.validate_access();
        let ticks = ComponentTicks {
            added: *self.added.get_mut(),
            changed: *self.changed.get_mut(),
        };
        // SAFETY: index 0 holds the value.
        let value = unsafe { self.data.swap_remove_and_forget_unchecked(0) };
        Some((value, ticks))
    }

    /// Drops the value on its own thread; on another thread forgets it
    /// (its memory is freed, its `Drop` never runs), as bevy does.
    fn clear(&mut self, panics: &mut DropPanics) {
        if self.is_present() && self.origin != Some(thread::current().id()) {
            log::warn!(
                "non-send resource `{}` of thread {} is not dropped: its world was dropped on \
                 thread {}",
                self.name,
                describe(self.origin, None),
                describe(Some(thread::current().id()), thread::current().name()),
            );
            // SAFETY: index 0 holds the value, which is forgotten.
            let _ = unsafe { self.data.swap_remove_and_forget_unchecked(0) };
            return;
        }
        self.data.clear(panics);
    }

    fn check_change_ticks(&mut self, change_tick: Tick) {
        self.added.get_mut().check_tick(change_tick);
        self.changed.get_mut().check_tick(change_tick);
    }
}

impl Drop for NonSendData {
    fn drop(&mut self) {
        // The world clears its stores first; this covers a store dropped
        // on its own, and never drops a value on the wrong thread.
        let mut panics = DropPanics::default();
        self.clear(&mut panics);
        if !thread::panicking() {
            panics.finish();
        }
    }
}

/// Every non-send resource of a world, by component id.
#[derive(Debug, Default)]
pub struct NonSends {
    non_sends: SparseSet<ComponentId, NonSendData>,
}

impl NonSends {
    /// The storage of a non-send resource, if ever created.
    #[inline]
    pub fn get(&self, id: ComponentId) -> Option<&NonSendData> {
        self.non_sends.get(id)
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, id: ComponentId) -> Option<&mut NonSendData> {
        self.non_sends.get_mut(id)
    }

    pub(crate) fn get_or_insert(&mut self, info: &ComponentInfo) -> &mut NonSendData {
        self.non_sends
            .get_or_insert_with(info.id(), || NonSendData {
                // SAFETY: the drop function comes from the type's own
                // descriptor.
                data: unsafe { BlobVec::new(info.layout(), info.drop_fn(), 1) },
                added: UnsafeCell::new(Tick::default()),
                changed: UnsafeCell::new(Tick::default()),
                name: Cow::Owned(info.name().to_owned()),
                origin: None,
            })
    }

    /// The number of non-send resources that have a value.
    pub fn len(&self) -> usize {
        self.non_sends
            .values()
            .iter()
            .filter(|r| r.is_present())
            .count()
    }

    /// Whether no non-send resource has a value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Panics, naming the type and both threads, if a value belongs to
    /// another thread.
    #[track_caller]
    pub(crate) fn assert_all_local(&self) {
        let here = Some(thread::current().id());
        if let Some(data) = self
            .non_sends
            .values()
            .iter()
            .find(|data| data.is_present() && data.origin != here)
        {
            data.wrong_thread();
        }
    }

    /// Drops every value of this thread and forgets those of others.
    pub(crate) fn clear_all(&mut self, panics: &mut DropPanics) {
        for data in self.non_sends.values_mut() {
            data.clear(panics);
        }
    }

    pub(crate) fn check_change_ticks(&mut self, change_tick: Tick) {
        for data in self.non_sends.values_mut() {
            data.check_change_ticks(change_tick);
        }
    }
}
