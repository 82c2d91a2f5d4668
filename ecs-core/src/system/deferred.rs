//! [`Deferred`]: a system's own buffer of world changes, applied at its
//! next sync point, as its [`Commands`](super::Commands) are.

use std::ops::{Deref, DerefMut};

use super::{CommandQueue, ReadOnlySystemParam, SystemMeta, SystemParam};
use crate::{
    change_detection::Tick,
    utils::SyncCell,
    world::{FromWorld, UnsafeWorldCell, World},
};

/// A buffer of world changes that a system fills while it runs, through
/// [`Deferred<T>`], and that is applied with exclusive world access at the
/// system's next sync point (where its commands apply).
///
/// Keep [`apply`](SystemBuffer::apply) short: buffers apply one at a time.
///
/// Unlike bevy's, `apply` is the method to write and `queue` takes a
/// [`CommandQueue`] rather than a `DeferredWorld`, as our observers hand
/// their deferred work over as a queue. The [`SystemMeta`] both receive
/// carries the system's name (not its access or last run), as
/// [`SystemParam::apply`] is given no meta to pass on.
pub trait SystemBuffer: FromWorld + Send + 'static {
    /// Applies the buffered changes to `world`.
    fn apply(&mut self, system_meta: &SystemMeta, world: &mut World);

    /// Moves the buffered changes onto `queue`, as commands (an observer's
    /// deferred work goes there, to be applied after the operation that
    /// triggered it). By default nothing is moved: a buffer meant for
    /// observers implements it.
    fn queue(&mut self, system_meta: &SystemMeta, queue: &mut CommandQueue) {
        let _ = (system_meta, queue);
    }
}

/// A system's own [`SystemBuffer`], built with [`FromWorld`] when the
/// system is initialised and applied at each of its sync points.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{Deferred, SystemBuffer, SystemMeta};
///
/// #[derive(Resource, Default)]
/// struct Log(Vec<String>);
///
/// #[derive(Default)]
/// struct LogBuffer(Vec<String>);
///
/// impl SystemBuffer for LogBuffer {
///     fn apply(&mut self, _: &SystemMeta, world: &mut World) {
///         world.resource_mut::<Log>().0.append(&mut self.0);
///     }
/// }
///
/// fn log(mut buffer: Deferred<LogBuffer>) {
///     buffer.0.push("ran".to_owned());
/// }
///
/// let mut world = World::new();
/// world.init_resource::<Log>();
/// world.run_system_once(log).unwrap();
/// assert_eq!(world.resource::<Log>().0, ["ran"]);
/// ```
pub struct Deferred<'a, T: SystemBuffer>(&'a mut T);

impl<T: SystemBuffer> Deref for Deferred<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.0
    }
}

impl<T: SystemBuffer> DerefMut for Deferred<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.0
    }
}

impl<T: SystemBuffer> Deferred<'_, T> {
    /// The same buffer, for a shorter borrow (to pass `&mut Deferred<T>`
    /// on as a `Deferred<T>`).
    pub fn reborrow(&mut self) -> Deferred<'_, T> {
        Deferred(self.0)
    }
}

/// The state of a [`Deferred`]: the buffer, and the meta handed to
/// [`SystemBuffer::apply`], as [`SystemParam::apply`] receives none.
#[doc(hidden)]
pub struct DeferredState<T> {
    buffer: SyncCell<T>,
    meta: SystemMeta,
}

// SAFETY: touches no world data while the system runs; the buffer is the
// system's own state, applied later with exclusive access.
unsafe impl<T: SystemBuffer> SystemParam for Deferred<'_, T> {
    type State = DeferredState<T>;
    type Item<'w, 's> = Deferred<'s, T>;

    #[track_caller]
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> DeferredState<T> {
        meta.set_has_deferred();
        DeferredState {
            buffer: SyncCell::new(T::from_world(world)),
            meta: meta.for_member(),
        }
    }

    #[inline]
    unsafe fn get_param<'w, 's>(
        state: &'s mut DeferredState<T>,
        meta: &SystemMeta,
        _: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> Deferred<'s, T> {
        // `apply` gets the meta of the run that filled the buffer.
        state.meta.sync_last_run(meta);
        Deferred(state.buffer.get())
    }

    fn apply(state: &mut DeferredState<T>, world: &mut World) {
        state.buffer.get().apply(&state.meta, world);
    }

    fn queue(state: &mut DeferredState<T>, queue: &mut CommandQueue) {
        state.buffer.get().queue(&state.meta, queue);
    }
}

// SAFETY: reads and writes only the system's own buffer while it runs.
unsafe impl<T: SystemBuffer> ReadOnlySystemParam for Deferred<'_, T> {}
