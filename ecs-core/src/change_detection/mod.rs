//! Change detection: ticks and the smart pointers that record changes.
//!
//! Every component and resource value stores the tick it was added at and
//! the tick it last changed at. [`Mut`] marks its value changed when it is
//! dereferenced mutably; [`Ref`] and [`Mut`] answer
//! [`is_added`](DetectChanges::is_added) and
//! [`is_changed`](DetectChanges::is_changed) relative to the reader's last
//! run.
//!
//! # Keeping ticks comparable across the wrap
//!
//! The clock is a wrapping `u32`, and two ticks are compared by their
//! wrapped distance from the current one. That distance is right only
//! while no tick is older than [`MAX_CHANGE_AGE`], so every tick that is
//! kept must be clamped before it gets older than that:
//!
//! ```text
//!  holder                            clamped by
//!  component ticks (tables, sparse)  the world's check
//!  resource ticks                    the world's check
//!  World::last_change_tick           the world's check (and, when an
//!   (what standalone QueryStates      exclusive system sets it aside, on
//!    compare against)                 putting it back, by its count)
//!  a system's last run (any          itself, at the start of its next run,
//!   schedule, or none)                from its count
//!  an observer's last run            itself, at the start of its next run
//! ```
//!
//! The world decides when a check is due, from its own clock:
//! [`World::check_change_ticks`](crate::world::World::check_change_ticks)
//! clamps once [`CHECK_TICK_THRESHOLD`] ticks have passed since the last
//! check, whichever schedule (or `run_system_once`, `trigger`,
//! `clear_trackers`) calls it. Each check also records where the clock
//! stands on a count that does not wrap (a `u64`), so any tick taken since
//! the last check has a count too.
//!
//! Schedules belong to the user, not to the world, so the world cannot
//! reach their systems when it checks; registering them would tie a
//! schedule's lifetime to the world's. Instead each system (and observer)
//! keeps the count of its last run beside the tick, and before it runs
//! compares that count with the current one: if its last run is more than
//! [`MAX_CHANGE_AGE`] ticks old, however many times the clock wrapped while
//! it sat idle, it is clamped to exactly `MAX_CHANGE_AGE` ago, as the
//! world's check would have done. The count is exact, where the wrapped
//! distance of an idle schedule's last run says nothing after a full wrap.
//! The same covers a system kept outside any schedule. A standalone
//! [`QueryState`](crate::query::QueryState) keeps no tick of its own: it
//! compares against the world's last change tick.

mod tick;
mod untyped;

// Bevy's paths for items defined in other modules.
pub use crate::system::{Res, ResMut};
// Where bevy users find the contiguous slices of `contiguous_iter`.
pub use crate::query::{ContiguousMut, ContiguousRef};

pub(crate) use tick::CountedTick;
pub use tick::{CheckChangeTicks, ComponentTicks, Tick, CHECK_TICK_THRESHOLD, MAX_CHANGE_AGE};
pub use untyped::MutUntyped;

use std::{
    fmt,
    ops::{Deref, DerefMut},
};

/// Read access to a value's change ticks.
///
/// For a component that keeps no change ticks
/// ([`Component::CHANGE_TICKS`](crate::component::Component::CHANGE_TICKS)
/// `= false`) the answers are unspecified.
pub trait DetectChanges {
    /// Whether the value was added since the reader last ran.
    fn is_added(&self) -> bool;
    /// Whether the value was added or changed since the reader last ran.
    fn is_changed(&self) -> bool;
    /// The tick of the last change.
    fn last_changed(&self) -> Tick;
    /// The tick the value was added at.
    fn added(&self) -> Tick;
}

/// Write access to a value's change ticks.
pub trait DetectChangesMut: DetectChanges {
    /// The type of the value.
    type Inner: ?Sized;
    /// Marks the value changed without touching it.
    fn set_changed(&mut self);
    /// The value, mutably, without marking it changed.
    fn bypass_change_detection(&mut self) -> &mut Self::Inner;
    /// Overwrites the value and marks it changed only if it differs.
    fn set_if_neq(&mut self, value: Self::Inner) -> bool
    where
        Self::Inner: Sized + PartialEq,
    {
        let old = self.bypass_change_detection();
        if *old != value {
            *old = value;
            self.set_changed();
            true
        } else {
            false
        }
    }
}

/// The ticks a [`Ref`] reads.
#[derive(Clone, Copy)]
pub(crate) struct Ticks<'w> {
    pub(crate) added: &'w Tick,
    pub(crate) changed: &'w Tick,
    pub(crate) last_run: Tick,
    pub(crate) this_run: Tick,
}

/// The ticks a [`Mut`] reads and writes.
pub(crate) struct TicksMut<'w> {
    pub(crate) added: &'w mut Tick,
    pub(crate) changed: &'w mut Tick,
    pub(crate) last_run: Tick,
    pub(crate) this_run: Tick,
}

/// Shared access to a value with its change ticks.
///
/// As a query term, `Ref<T>` panics when its query is built if the
/// component keeps no change ticks
/// ([`Component::CHANGE_TICKS`](crate::component::Component::CHANGE_TICKS)
/// `= false`).
pub struct Ref<'w, T: ?Sized> {
    pub(crate) value: &'w T,
    pub(crate) ticks: Ticks<'w>,
}

/// Mutable access to a value that marks it changed when written.
///
/// Dereferencing mutably (`*m = ..`, `m.x += 1.0`) sets the value's changed
/// tick; [`DetectChangesMut::bypass_change_detection`] does not.
pub struct Mut<'w, T: ?Sized> {
    pub(crate) value: &'w mut T,
    pub(crate) ticks: TicksMut<'w>,
}

impl<'w, T: ?Sized> Ref<'w, T> {
    /// Compares against `last_run` and `this_run` from now on: what
    /// `is_added` and `is_changed` answer is relative to them.
    #[inline]
    pub fn set_ticks(&mut self, last_run: Tick, this_run: Tick) {
        self.ticks.last_run = last_run;
        self.ticks.this_run = this_run;
    }

    /// Builds a `Ref` from its parts.
    pub fn new(
        value: &'w T,
        added: &'w Tick,
        changed: &'w Tick,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        Ref {
            value,
            ticks: Ticks {
                added,
                changed,
                last_run,
                this_run,
            },
        }
    }

    /// The reference, with the borrow's full lifetime.
    #[inline]
    pub fn into_inner(self) -> &'w T {
        self.value
    }

    /// Maps to a part of the value, keeping the ticks.
    pub fn map<U: ?Sized>(self, f: impl FnOnce(&T) -> &U) -> Ref<'w, U> {
        Ref {
            value: f(self.value),
            ticks: self.ticks,
        }
    }
}

impl<'w, T: ?Sized> Mut<'w, T> {
    /// Compares against `last_run` and marks writes with `this_run` from
    /// now on.
    #[inline]
    pub fn set_ticks(&mut self, last_run: Tick, this_run: Tick) {
        self.ticks.last_run = last_run;
        self.ticks.this_run = this_run;
    }

    /// Builds a `Mut` from its parts.
    pub fn new(
        value: &'w mut T,
        added: &'w mut Tick,
        changed: &'w mut Tick,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        Mut {
            value,
            ticks: TicksMut {
                added,
                changed,
                last_run,
                this_run,
            },
        }
    }

    /// The mutable reference with the borrow's full lifetime, marking the
    /// value changed.
    #[inline]
    pub fn into_inner(mut self) -> &'w mut T {
        self.set_changed();
        self.value
    }

    /// A shorter-lived `Mut` to the same value.
    #[inline]
    pub fn reborrow(&mut self) -> Mut<'_, T> {
        Mut {
            value: self.value,
            ticks: TicksMut {
                added: self.ticks.added,
                changed: self.ticks.changed,
                last_run: self.ticks.last_run,
                this_run: self.ticks.this_run,
            },
        }
    }

    /// Maps to a part of the value, keeping the ticks.
    pub fn map_unchanged<U: ?Sized>(self, f: impl FnOnce(&mut T) -> &mut U) -> Mut<'w, U> {
        Mut {
            value: f(self.value),
            ticks: self.ticks,
        }
    }

    /// Maps to a part of the value that may be absent, keeping the ticks;
    /// `None` when `f` finds nothing. Calling it marks nothing changed.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Slots(Vec<u32>);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Slots(vec![1, 2])).id();
    /// let slots = world.get_mut::<Slots>(e).unwrap();
    /// let mut second = slots.filter_map_unchanged(|s| s.0.get_mut(1)).unwrap();
    /// *second += 10;
    /// assert_eq!(world.get::<Slots>(e).unwrap().0, [1, 12]);
    /// ```
    pub fn filter_map_unchanged<U: ?Sized>(
        self,
        f: impl FnOnce(&mut T) -> Option<&mut U>,
    ) -> Option<Mut<'w, U>> {
        let ticks = self.ticks;
        f(self.value).map(|value| Mut { value, ticks })
    }

    /// Maps to a part of the value through a fallible `f`, keeping the
    /// ticks; `f`'s error otherwise. Calling it marks nothing changed.
    pub fn try_map_unchanged<U: ?Sized, E>(
        self,
        f: impl FnOnce(&mut T) -> Result<&mut U, E>,
    ) -> Result<Mut<'w, U>, E> {
        let ticks = self.ticks;
        f(self.value).map(|value| Mut { value, ticks })
    }

    /// A shorter-lived `Mut` to the target of the value's `DerefMut` (a
    /// `Mut<Box<U>>` as a `Mut<U>`), sharing the ticks.
    pub fn as_deref_mut(&mut self) -> Mut<'_, <T as Deref>::Target>
    where
        T: DerefMut,
    {
        self.reborrow().map_unchanged(|v| v.deref_mut())
    }
}

/// The `Mut` methods of a wrapper around a `Mut<'w, $target>` in field 0
/// (`ResMut`, `NonSendMut`), each delegating to the inner `Mut`.
macro_rules! mut_wrapper_methods {
    ($name:ident, $param:ident $(: $bound:path)?) => {
        impl<'w, $param: 'static $(+ $bound)?> $name<'w, $param> {
            /// A shorter-lived [`Mut`](crate::change_detection::Mut) to
            /// the same value, sharing its ticks.
            #[inline]
            pub fn reborrow(&mut self) -> $crate::change_detection::Mut<'_, $param> {
                self.0.reborrow()
            }

            /// Maps to a part of the value, keeping the ticks (see
            /// [`Mut::map_unchanged`](crate::change_detection::Mut::map_unchanged)).
            pub fn map_unchanged<U: ?Sized>(
                self,
                f: impl FnOnce(&mut $param) -> &mut U,
            ) -> $crate::change_detection::Mut<'w, U> {
                self.0.map_unchanged(f)
            }

            /// Maps to a part of the value that may be absent (see
            /// [`Mut::filter_map_unchanged`](crate::change_detection::Mut::filter_map_unchanged)).
            pub fn filter_map_unchanged<U: ?Sized>(
                self,
                f: impl FnOnce(&mut $param) -> Option<&mut U>,
            ) -> Option<$crate::change_detection::Mut<'w, U>> {
                self.0.filter_map_unchanged(f)
            }

            /// Maps to a part of the value through a fallible `f` (see
            /// [`Mut::try_map_unchanged`](crate::change_detection::Mut::try_map_unchanged)).
            pub fn try_map_unchanged<U: ?Sized, E>(
                self,
                f: impl FnOnce(&mut $param) -> Result<&mut U, E>,
            ) -> Result<$crate::change_detection::Mut<'w, U>, E> {
                self.0.try_map_unchanged(f)
            }

            /// A shorter-lived `Mut` to the target of the value's
            /// `DerefMut`, sharing the ticks.
            pub fn as_deref_mut(
                &mut self,
            ) -> $crate::change_detection::Mut<'_, <$param as std::ops::Deref>::Target>
            where
                $param: std::ops::DerefMut,
            {
                self.0.as_deref_mut()
            }
        }
    };
}
pub(crate) use mut_wrapper_methods;

macro_rules! impl_detect_changes {
    ($name:ident) => {
        impl<T: ?Sized> DetectChanges for $name<'_, T> {
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

        impl<T: ?Sized> Deref for $name<'_, T> {
            type Target = T;
            #[inline]
            fn deref(&self) -> &T {
                self.value
            }
        }

        impl<T: ?Sized> AsRef<T> for $name<'_, T> {
            #[inline]
            fn as_ref(&self) -> &T {
                self.value
            }
        }

        impl<T: ?Sized + fmt::Debug> fmt::Debug for $name<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.value).finish()
            }
        }
    };
}

impl_detect_changes!(Ref);
impl_detect_changes!(Mut);

impl<T: ?Sized> DetectChangesMut for Mut<'_, T> {
    type Inner = T;

    #[inline]
    fn set_changed(&mut self) {
        *self.ticks.changed = self.ticks.this_run;
    }

    #[inline]
    fn bypass_change_detection(&mut self) -> &mut T {
        self.value
    }
}

impl<T: ?Sized> DerefMut for Mut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.set_changed();
        self.value
    }
}

impl<T: ?Sized> AsMut<T> for Mut<'_, T> {
    #[inline]
    fn as_mut(&mut self) -> &mut T {
        self.deref_mut()
    }
}

impl<'w, T: ?Sized> From<Mut<'w, T>> for Ref<'w, T> {
    fn from(m: Mut<'w, T>) -> Self {
        Ref {
            value: m.value,
            ticks: Ticks {
                added: m.ticks.added,
                changed: m.ticks.changed,
                last_run: m.ticks.last_run,
                this_run: m.ticks.this_run,
            },
        }
    }
}

#[cfg(test)]
mod wrap_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deref_mut_marks_changed_and_bypass_does_not() {
        let mut value = 1u32;
        let mut added = Tick::new(1);
        let mut changed = Tick::new(1);
        {
            let mut m = Mut::new(
                &mut value,
                &mut added,
                &mut changed,
                Tick::new(2),
                Tick::new(3),
            );
            assert!(!m.is_changed());
            *m.bypass_change_detection() = 5;
            assert!(!m.is_changed());
            *m += 1;
            assert!(m.is_changed());
            assert!(!m.is_added());
            assert_eq!(m.last_changed(), Tick::new(3));
        }
        assert_eq!(value, 6);
        assert_eq!(changed, Tick::new(3));
    }
}
