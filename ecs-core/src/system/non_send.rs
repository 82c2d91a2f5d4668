//! [`NonSend`] and [`NonSendMut`]: system parameters for resources that
//! need not be `Send` or `Sync` (window handles, `Rc`s, thread-bound
//! libraries).
//!
//! A system with one of them is marked non-send
//! ([`SystemMeta::set_non_send`]): a schedule runs it on the thread that
//! drives the schedule, never on a worker, so the value never leaves the
//! thread that inserted it (the storage also checks this on every access).

use std::{
    any::type_name,
    fmt,
    ops::{Deref, DerefMut},
};

use super::{ReadOnlySystemParam, SystemMeta, SystemParam, SystemParamValidationError};
use crate::{
    change_detection::{DetectChanges, DetectChangesMut, Mut, Ref, Tick},
    component::ComponentId,
    query::FilteredAccess,
    world::{UnsafeWorldCell, World},
};

/// Shared access to a non-send resource in a system, with its change
/// ticks. The system runs on the thread that runs the schedule.
///
/// ```
/// use ecs::prelude::*;
/// use std::rc::Rc;
///
/// fn read(names: NonSend<Rc<Vec<&'static str>>>, mut count: ResMut<Count>) {
///     count.0 = names.len();
/// }
/// #[derive(Resource, Default)]
/// struct Count(usize);
///
/// let mut world = World::new();
/// world.init_resource::<Count>();
/// world.insert_non_send(Rc::new(vec!["a", "b"]));
/// let mut schedule = Schedule::default();
/// schedule.add_systems(read);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Count>().0, 2);
/// ```
///
/// # Panics
/// When the system runs, if the resource does not exist (take
/// `Option<NonSend<T>>` instead), or belongs to another thread.
pub struct NonSend<'w, T: 'static>(Ref<'w, T>);

/// Mutable access to a non-send resource in a system; writing marks it
/// changed. The system runs on the thread that runs the schedule.
///
/// # Panics
/// As [`NonSend`].
pub struct NonSendMut<'w, T: 'static>(Mut<'w, T>);

impl<'w, T: 'static> NonSend<'w, T> {
    /// The reference, with the borrow's full lifetime.
    pub fn into_inner(self) -> &'w T {
        self.0.into_inner()
    }
}

impl<'w, T: 'static> NonSendMut<'w, T> {
    /// The mutable reference with the borrow's full lifetime (marks it
    /// changed).
    pub fn into_inner(self) -> &'w mut T {
        self.0.into_inner()
    }
}

crate::change_detection::mut_wrapper_methods!(NonSendMut, T);

impl<'w, T: 'static> From<NonSendMut<'w, T>> for Mut<'w, T> {
    fn from(value: NonSendMut<'w, T>) -> Self {
        value.0
    }
}

impl<T: 'static> Deref for NonSend<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: 'static> Deref for NonSendMut<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: 'static> DerefMut for NonSendMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

macro_rules! detect_changes {
    ($ty:ident) => {
        impl<T: 'static> DetectChanges for $ty<'_, T> {
            fn is_added(&self) -> bool {
                self.0.is_added()
            }
            fn is_changed(&self) -> bool {
                self.0.is_changed()
            }
            fn last_changed(&self) -> Tick {
                self.0.last_changed()
            }
            fn added(&self) -> Tick {
                self.0.added()
            }
        }

        impl<T: 'static + fmt::Debug> fmt::Debug for $ty<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($ty)).field(&*self.0).finish()
            }
        }
    };
}

detect_changes!(NonSend);
detect_changes!(NonSendMut);

impl<T: 'static> DetectChangesMut for NonSendMut<'_, T> {
    type Inner = T;
    fn set_changed(&mut self) {
        self.0.set_changed();
    }
    fn bypass_change_detection(&mut self) -> &mut T {
        self.0.bypass_change_detection()
    }
}

/// Registers `T` and records the parameter's access; marks the system
/// non-send.
fn init_non_send<T: 'static>(
    world: &mut World,
    meta: &mut SystemMeta,
    param: &str,
    write: bool,
) -> ComponentId {
    let id = world.components.register_non_send::<T>();
    let mut access = crate::query::Access::default();
    if write {
        access.add_write(id);
    } else {
        access.add_read(id);
    }
    let access = FilteredAccess::resources(access);
    meta.add_param_access(param, access, world);
    meta.set_non_send();
    id
}

type Cells<'w> = (
    *mut u8,
    &'w std::cell::UnsafeCell<Tick>,
    &'w std::cell::UnsafeCell<Tick>,
);

/// The value's cells, if present.
///
/// # Panics
/// If the value belongs to another thread.
#[track_caller]
fn cells(id: ComponentId, world: UnsafeWorldCell<'_>) -> Option<Cells<'_>> {
    // SAFETY: only `id`'s storage is read; the parameter recorded access
    // to it.
    unsafe { world.storages() }
        .non_sends
        .get(id)?
        .get_with_tick_cells()
}

#[cold]
#[track_caller]
fn missing<T: 'static>(meta: &SystemMeta) -> ! {
    panic!("{}", missing_message::<T>(meta))
}

#[cold]
fn missing_message<T: 'static>(meta: &SystemMeta) -> String {
    format!(
        "non-send resource `{}` requested by system `{}` does not exist: insert it with \
         `insert_non_send` before running the system, or take `Option<NonSend<{0}>>`",
        type_name::<T>(),
        meta.name()
    )
}

/// # Safety
/// The cells hold a `T`, and the caller holds read access to it.
unsafe fn make_ref<'w, T: 'static>(
    (ptr, added, changed): Cells<'w>,
    meta: &SystemMeta,
    this_run: Tick,
) -> NonSend<'w, T> {
    // SAFETY: guaranteed by the caller; only shared references are made.
    unsafe {
        NonSend(Ref::new(
            &*ptr.cast::<T>(),
            &*added.get(),
            &*changed.get(),
            meta.last_run(),
            this_run,
        ))
    }
}

/// # Safety
/// The cells hold a `T`, and the caller holds write access to it.
unsafe fn make_mut<'w, T: 'static>(
    (ptr, added, changed): Cells<'w>,
    meta: &SystemMeta,
    this_run: Tick,
) -> NonSendMut<'w, T> {
    // SAFETY: guaranteed by the caller.
    unsafe {
        NonSendMut(Mut::new(
            &mut *ptr.cast::<T>(),
            &mut *added.get(),
            &mut *changed.get(),
            meta.last_run(),
            this_run,
        ))
    }
}

// SAFETY: records a read of the non-send resource, and marks the system
// non-send so it is run on the thread that owns the value.
unsafe impl<T: 'static> SystemParam for NonSend<'_, T> {
    type State = ComponentId;
    type Item<'w, 's> = NonSend<'w, T>;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> ComponentId {
        init_non_send::<T>(world, meta, type_name::<Self>(), false)
    }

    unsafe fn get_param<'w, 's>(
        id: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        match cells(*id, world) {
            // SAFETY: `id` is `T`'s id; read access is recorded.
            Some(cells) => unsafe { make_ref(cells, meta, change_tick) },
            None => missing::<T>(meta),
        }
    }

    #[inline]
    #[track_caller]
    unsafe fn try_get_param<'w, 's>(
        id: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        match cells(*id, world) {
            // SAFETY: `id` is `T`'s id; read access is recorded.
            Some(cells) => Ok(unsafe { make_ref(cells, meta, change_tick) }),
            None => Err(SystemParamValidationError::invalid::<Self>(
                missing_message::<T>(meta),
            )),
        }
    }
}

// SAFETY: records a write of the non-send resource, and marks the system
// non-send.
unsafe impl<T: 'static> SystemParam for NonSendMut<'_, T> {
    type State = ComponentId;
    type Item<'w, 's> = NonSendMut<'w, T>;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> ComponentId {
        init_non_send::<T>(world, meta, type_name::<Self>(), true)
    }

    unsafe fn get_param<'w, 's>(
        id: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        match cells(*id, world) {
            // SAFETY: `id` is `T`'s id; write access is recorded.
            Some(cells) => unsafe { make_mut(cells, meta, change_tick) },
            None => missing::<T>(meta),
        }
    }

    #[inline]
    #[track_caller]
    unsafe fn try_get_param<'w, 's>(
        id: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        match cells(*id, world) {
            // SAFETY: `id` is `T`'s id; write access is recorded.
            Some(cells) => Ok(unsafe { make_mut(cells, meta, change_tick) }),
            None => Err(SystemParamValidationError::invalid::<Self>(
                missing_message::<T>(meta),
            )),
        }
    }
}

// SAFETY: reads only.
unsafe impl<T: 'static> ReadOnlySystemParam for NonSend<'_, T> {}
