//! [`MutUntyped`]: change-detected mutable access to a value whose type is
//! known only at run time (dynamic components and resources).

use super::{DetectChanges, DetectChangesMut, Mut, Tick, TicksMut};
use crate::ptr::{Ptr, PtrMut};

/// Mutable access to a value of a type known only by its
/// [`ComponentId`](crate::component::ComponentId), that marks the value
/// changed when it is written, as [`Mut`] does for typed values.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let e = world.spawn(Health(3)).id();
/// let id = world.component_id::<Health>().unwrap();
/// let mut entity = world.entity_mut(e);
/// let mut health = entity.get_mut_by_id(id).unwrap();
/// // SAFETY: `id` is `Health`'s id, so the value is a `Health`.
/// unsafe { health.as_mut().deref_mut::<Health>().0 = 7 };
/// assert!(health.is_changed());
/// assert_eq!(entity.get::<Health>().unwrap().0, 7);
/// ```
pub struct MutUntyped<'w> {
    pub(crate) value: PtrMut<'w>,
    pub(crate) ticks: TicksMut<'w>,
}

impl<'w> MutUntyped<'w> {
    /// Builds a `MutUntyped` from its parts.
    #[inline]
    pub(crate) fn new(
        value: PtrMut<'w>,
        added: &'w mut Tick,
        changed: &'w mut Tick,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        MutUntyped {
            value,
            ticks: TicksMut {
                added,
                changed,
                last_run,
                this_run,
            },
        }
    }

    /// The pointer with the borrow's full lifetime, marking the value
    /// changed.
    #[inline]
    pub fn into_inner(mut self) -> PtrMut<'w> {
        self.set_changed();
        self.value
    }

    /// A shorter-lived `MutUntyped` to the same value.
    #[inline]
    pub fn reborrow(&mut self) -> MutUntyped<'_> {
        MutUntyped {
            value: self.value.reborrow(),
            ticks: TicksMut {
                added: self.ticks.added,
                changed: self.ticks.changed,
                last_run: self.ticks.last_run,
                this_run: self.ticks.this_run,
            },
        }
    }

    /// Whether the value changed after `tick`.
    #[inline]
    pub fn has_changed_since(&self, tick: Tick) -> bool {
        self.ticks.changed.is_newer_than(tick, self.ticks.this_run)
    }

    /// The pointer, mutably, marking the value changed.
    #[inline]
    pub fn as_mut(&mut self) -> PtrMut<'_> {
        self.set_changed();
        self.value.reborrow()
    }

    /// The pointer, read-only.
    #[inline]
    pub fn as_ref(&self) -> Ptr<'_> {
        self.value.as_ref()
    }

    /// A typed [`Mut`] to what `f` picks out of the pointer (the value or a
    /// part of it), keeping the ticks and without marking anything changed.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Health(3)).id();
    /// let id = world.component_id::<Health>().unwrap();
    /// let mut entity = world.entity_mut(e);
    /// let untyped = entity.get_mut_by_id(id).unwrap();
    /// // SAFETY: `id` is `Health`'s id.
    /// let mut health = untyped.map_unchanged(|ptr| unsafe { ptr.deref_mut::<Health>() });
    /// health.0 += 1;
    /// assert_eq!(health.0, 4);
    /// ```
    #[inline]
    pub fn map_unchanged<T: ?Sized>(self, f: impl FnOnce(PtrMut<'w>) -> &'w mut T) -> Mut<'w, T> {
        Mut {
            value: f(self.value),
            ticks: self.ticks,
        }
    }

    /// The typed [`Mut`] of the value.
    ///
    /// # Safety
    /// The value is a `T` (the pointer is aligned for the component's
    /// layout, so for `T` too).
    #[inline]
    pub unsafe fn with_type<T>(self) -> Mut<'w, T> {
        Mut {
            // SAFETY: the value is a `T` (caller), exclusively borrowed for
            // `'w` (the pointer's contract).
            value: unsafe { self.value.deref_mut::<T>() },
            ticks: self.ticks,
        }
    }
}

impl DetectChanges for MutUntyped<'_> {
    #[inline]
    fn is_added(&self) -> bool {
        self.ticks
            .added
            .is_newer_than(self.ticks.last_run, self.ticks.this_run)
    }

    #[inline]
    fn is_changed(&self) -> bool {
        self.ticks
            .changed
            .is_newer_than(self.ticks.last_run, self.ticks.this_run)
    }

    #[inline]
    fn last_changed(&self) -> Tick {
        *self.ticks.changed
    }

    #[inline]
    fn added(&self) -> Tick {
        *self.ticks.added
    }
}

impl<'w> DetectChangesMut for MutUntyped<'w> {
    type Inner = PtrMut<'w>;

    #[inline]
    fn set_changed(&mut self) {
        *self.ticks.changed = self.ticks.this_run;
    }

    #[inline]
    fn bypass_change_detection(&mut self) -> &mut PtrMut<'w> {
        &mut self.value
    }
}

impl std::fmt::Debug for MutUntyped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("MutUntyped")
            .field(&self.value.as_ptr())
            .finish()
    }
}

impl<'w, T> From<Mut<'w, T>> for MutUntyped<'w> {
    #[inline]
    fn from(value: Mut<'w, T>) -> Self {
        MutUntyped {
            value: value.value.into(),
            ticks: value.ticks,
        }
    }
}
