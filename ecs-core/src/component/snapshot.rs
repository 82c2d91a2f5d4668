//! Whether a component or resource type takes part in world snapshots,
//! declared on the type (`#[component(snapshot)]`, `#[resource(snapshot)]`)
//! so that every world it is registered in copies it.

use std::any::{type_name, TypeId};
use std::hash::{DefaultHasher, Hash};

/// Clones `n` values from `src` into uninitialised memory at `dst` (both
/// arrays of one type); on a panic it drops the clones it made.
pub(crate) type CloneValuesFn = unsafe fn(src: *const u8, dst: *mut u8, n: usize);

/// Hashes one value into a hasher.
pub(crate) type HashValueFn = unsafe fn(value: *const u8, state: &mut DefaultHasher);

/// How a type opted into snapshots is cloned and hashed.
#[derive(Clone, Copy)]
pub(crate) struct SnapshotFns {
    pub(crate) clone_values: CloneValuesFn,
    pub(crate) hash: Option<HashValueFn>,
    /// The type is `Copy`: its values are copied bitwise, whole columns at
    /// a time, and no user code runs.
    pub(crate) bitwise: bool,
    /// The type the functions read and write: a component or resource
    /// may only declare functions of its own type.
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
}

/// Whether [`World::snapshot`](crate::world::World::snapshot) copies a
/// component or resource type, and whether
/// [`World::checksum`](crate::world::World::checksum) hashes it.
///
/// A type declares it through [`Component::snapshot_behavior`](super::Component::snapshot_behavior)
/// or [`Resource::snapshot_behavior`](crate::resource::Resource::snapshot_behavior),
/// which the derives write for `#[component(snapshot)]` /
/// `#[resource(snapshot)]` ([`SnapshotBehavior::cloned`]) and
/// `#[component(snapshot = hash)]` / `#[resource(snapshot = hash)]`
/// ([`SnapshotBehavior::hashed`]). The default is [`SnapshotBehavior::IGNORE`]:
/// the type takes part only in the worlds that opt it in at run time
/// ([`World::register_snapshot`](crate::world::World::register_snapshot)).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::component::SnapshotBehavior;
///
/// #[derive(Clone)]
/// struct Health(u32);
///
/// impl Component for Health {
///     const STORAGE_TYPE: StorageType = StorageType::Table;
///     type Mutability = ecs::component::Mutable;
///     fn snapshot_behavior() -> SnapshotBehavior {
///         SnapshotBehavior::cloned::<Self>()
///     }
/// }
///
/// let mut world = World::new();
/// let e = world.spawn(Health(3)).id();
/// let snapshot = world.snapshot();
/// world.get_mut::<Health>(e).unwrap().0 = 0;
/// world.restore(&snapshot).unwrap();
/// assert_eq!(world.get::<Health>(e).unwrap().0, 3);
/// ```
#[derive(Clone, Copy, Default)]
pub struct SnapshotBehavior {
    fns: Option<SnapshotFns>,
}

impl std::fmt::Debug for SnapshotBehavior {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotBehavior")
            .field("snapshotted", &self.is_snapshotted())
            .field("hashed", &self.is_hashed())
            .finish()
    }
}

impl SnapshotBehavior {
    /// Not copied by snapshots unless a world opts the type in.
    ///
    /// ```
    /// use ecs::component::SnapshotBehavior;
    /// assert!(!SnapshotBehavior::IGNORE.is_snapshotted());
    /// ```
    pub const IGNORE: Self = Self { fns: None };

    /// Copied by snapshots through `Clone`; not part of the checksum.
    ///
    /// ```
    /// use ecs::component::SnapshotBehavior;
    /// let behavior = SnapshotBehavior::cloned::<Vec<u8>>();
    /// assert!(behavior.is_snapshotted() && !behavior.is_hashed());
    /// ```
    pub fn cloned<T: Clone + 'static>() -> Self {
        Self {
            fns: Some(SnapshotFns {
                clone_values: clone_values::<T>,
                hash: None,
                bitwise: false,
                type_id: TypeId::of::<T>(),
                type_name: type_name::<T>(),
            }),
        }
    }

    /// Copied by snapshots through `Clone`, and hashed into the checksum
    /// through `Hash`.
    ///
    /// ```
    /// use ecs::component::SnapshotBehavior;
    /// let behavior = SnapshotBehavior::hashed::<u64>();
    /// assert!(behavior.is_snapshotted() && behavior.is_hashed());
    /// ```
    pub fn hashed<T: Clone + Hash + 'static>() -> Self {
        Self {
            fns: Some(SnapshotFns {
                clone_values: clone_values::<T>,
                hash: Some(hash_value::<T>),
                bitwise: false,
                type_id: TypeId::of::<T>(),
                type_name: type_name::<T>(),
            }),
        }
    }

    /// Copied by snapshots bitwise, a whole column with one copy; not part
    /// of the checksum. The `T: Copy` bound is what makes this sound: a
    /// restore then writes the values straight into the world, since no
    /// `Clone` can panic half way. A `Clone` impl the type writes by hand
    /// is not called (as `std` copies slices of `Copy` values).
    ///
    /// ```
    /// use ecs::component::SnapshotBehavior;
    /// let behavior = SnapshotBehavior::copied::<[f32; 3]>();
    /// assert!(behavior.is_snapshotted() && behavior.is_copied());
    /// ```
    pub fn copied<T: Copy + 'static>() -> Self {
        Self {
            fns: Some(SnapshotFns {
                clone_values: copy_values::<T>,
                hash: None,
                bitwise: true,
                type_id: TypeId::of::<T>(),
                type_name: type_name::<T>(),
            }),
        }
    }

    /// [`SnapshotBehavior::copied`], and hashed into the checksum through
    /// `Hash`.
    ///
    /// ```
    /// use ecs::component::SnapshotBehavior;
    /// let behavior = SnapshotBehavior::copied_hashed::<u64>();
    /// assert!(behavior.is_copied() && behavior.is_hashed());
    /// ```
    pub fn copied_hashed<T: Copy + Hash + 'static>() -> Self {
        Self {
            fns: Some(SnapshotFns {
                clone_values: copy_values::<T>,
                hash: Some(hash_value::<T>),
                bitwise: true,
                type_id: TypeId::of::<T>(),
                type_name: type_name::<T>(),
            }),
        }
    }

    /// Whether snapshots copy the type bitwise (it is `Copy`, see
    /// [`SnapshotBehavior::copied`]).
    ///
    /// ```
    /// use ecs::component::SnapshotBehavior;
    /// assert!(!SnapshotBehavior::cloned::<u8>().is_copied());
    /// ```
    pub fn is_copied(&self) -> bool {
        self.fns.is_some_and(|fns| fns.bitwise)
    }

    /// Whether snapshots copy the type.
    ///
    /// ```
    /// use ecs::component::SnapshotBehavior;
    /// assert!(SnapshotBehavior::cloned::<u8>().is_snapshotted());
    /// ```
    pub fn is_snapshotted(&self) -> bool {
        self.fns.is_some()
    }

    /// Whether the checksum hashes the type.
    ///
    /// ```
    /// use ecs::component::SnapshotBehavior;
    /// assert!(!SnapshotBehavior::cloned::<u8>().is_hashed());
    /// ```
    pub fn is_hashed(&self) -> bool {
        self.fns.is_some_and(|fns| fns.hash.is_some())
    }

    pub(crate) fn fns(&self) -> Option<SnapshotFns> {
        self.fns
    }

    /// `self`, declared by the type `owner` (named `owner_name`).
    ///
    /// # Panics
    /// If the functions are another type's: they would read and write the
    /// owner's values as that type.
    pub(crate) fn checked_for(self, owner: TypeId, owner_name: &str) -> Self {
        if let Some(fns) = self.fns {
            assert!(
                fns.type_id == owner,
                "the snapshot behavior of `{owner_name}` is built for `{}`: a component or \
                 resource declares a `SnapshotBehavior` of its own type (`SnapshotBehavior::copied::<Self>()`)",
                fns.type_name
            );
        }
        self
    }
}

/// Clones `n` values of `T` from `src` into uninitialised memory at `dst`,
/// dropping the clones made so far if one panics.
///
/// # Safety
/// `src` points to `n` valid values of `T`, `dst` to room for `n` values
/// of `T`, not overlapping.
unsafe fn clone_values<T: Clone>(src: *const u8, dst: *mut u8, n: usize) {
    struct Written<T> {
        dst: *mut T,
        done: usize,
    }
    impl<T> Drop for Written<T> {
        fn drop(&mut self) {
            // SAFETY: the first `done` values were written and are owned
            // by nobody else yet.
            unsafe {
                std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(self.dst, self.done))
            };
        }
    }
    let (src, dst) = (src.cast::<T>(), dst.cast::<T>());
    if !std::mem::needs_drop::<T>() {
        // Nothing to drop if a clone panics, so no guard: a `Copy` type's
        // loop then compiles to one memcpy.
        for i in 0..n {
            // SAFETY: as below.
            unsafe { dst.add(i).write((*src.add(i)).clone()) };
        }
        return;
    }
    let mut written = Written { dst, done: 0 };
    for i in 0..n {
        // SAFETY: `i < n`: a valid source value and room for its clone
        // (caller).
        unsafe { dst.add(i).write((*src.add(i)).clone()) };
        written.done = i + 1;
    }
    std::mem::forget(written);
}

/// Copies `n` values of `T` from `src` to uninitialised memory at `dst`,
/// bitwise: nothing can panic.
///
/// # Safety
/// As for [`clone_values`].
unsafe fn copy_values<T: Copy>(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: `n` valid values and room for them, not overlapping (caller);
    // a bitwise copy of a `Copy` value is a value of its own.
    unsafe { std::ptr::copy_nonoverlapping(src.cast::<T>(), dst.cast::<T>(), n) };
}

/// Hashes a value of `T`.
///
/// # Safety
/// `value` points to a valid `T`.
unsafe fn hash_value<T: Hash>(value: *const u8, state: &mut DefaultHasher) {
    // SAFETY: a valid `T` (caller).
    unsafe { (*value.cast::<T>()).hash(state) };
}

/// How `#[component(snapshot)]` and `#[resource(snapshot)]` pick the bitwise
/// path for a `Copy` type: method lookup on `&&Probe<T>` finds the impl on
/// `&Probe<T>`, bounded by `T: Copy`, before the one on `Probe<T>`, which
/// keeps the behaviour the derive built. The bound is checked by the
/// compiler, so a type is copied bitwise only if it really is `Copy`; in a
/// generic impl the bound is unknown and the fallback is kept.
#[doc(hidden)]
pub mod probe {
    use std::{hash::Hash, marker::PhantomData};

    use super::SnapshotBehavior;

    /// The type a behaviour is picked for.
    pub struct Probe<T>(PhantomData<T>);

    impl<T> Probe<T> {
        /// A probe for `T`.
        pub const fn new() -> Self {
            Probe(PhantomData)
        }
    }

    impl<T> Default for Probe<T> {
        fn default() -> Self {
            Self::new()
        }
    }

    /// Picked for a `Copy` type: copied bitwise.
    pub trait ViaCopy {
        /// [`SnapshotBehavior::copied`].
        fn snapshot_or(&self, fallback: SnapshotBehavior) -> SnapshotBehavior;
    }

    impl<T: Copy + 'static> ViaCopy for &Probe<T> {
        fn snapshot_or(&self, _fallback: SnapshotBehavior) -> SnapshotBehavior {
            SnapshotBehavior::copied::<T>()
        }
    }

    /// Picked for any other type: the derive's own behaviour.
    pub trait ViaFallback {
        /// `fallback`.
        fn snapshot_or(&self, fallback: SnapshotBehavior) -> SnapshotBehavior;
    }

    impl<T> ViaFallback for Probe<T> {
        fn snapshot_or(&self, fallback: SnapshotBehavior) -> SnapshotBehavior {
            fallback
        }
    }

    /// Picked for a `Copy + Hash` type: copied bitwise and hashed.
    pub trait ViaCopyHashed {
        /// [`SnapshotBehavior::copied_hashed`].
        fn snapshot_hashed_or(&self, fallback: SnapshotBehavior) -> SnapshotBehavior;
    }

    impl<T: Copy + Hash + 'static> ViaCopyHashed for &Probe<T> {
        fn snapshot_hashed_or(&self, _fallback: SnapshotBehavior) -> SnapshotBehavior {
            SnapshotBehavior::copied_hashed::<T>()
        }
    }

    /// Picked for any other type: the derive's own hashed behaviour.
    pub trait ViaFallbackHashed {
        /// `fallback`.
        fn snapshot_hashed_or(&self, fallback: SnapshotBehavior) -> SnapshotBehavior;
    }

    impl<T> ViaFallbackHashed for Probe<T> {
        fn snapshot_hashed_or(&self, fallback: SnapshotBehavior) -> SnapshotBehavior {
            fallback
        }
    }
}
