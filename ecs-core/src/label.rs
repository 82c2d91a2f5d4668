//! Label traits: object-safe equality and hashing, and
//! [`define_label!`](crate::define_label), which makes a label trait whose
//! values intern to a `Copy` handle.
//!
//! ```text
//! #[derive(ScheduleLabel)] struct FixedUpdate;     any Clone + Eq + Hash + Debug type
//!        │ .intern()
//!        ▼
//! Interned<dyn ScheduleLabel>                      a pointer: Copy, Eq and Hash by address
//! ```
//!
//! [`DynEq`] and [`DynHash`] compare and hash `dyn` values of different
//! types: values of two types are never equal, and the type takes part in
//! the hash.

use std::any::Any;
use std::hash::{Hash, Hasher};

// Named by `define_label!` expansions, so they need no `Box` in scope.
#[doc(hidden)]
pub use std::boxed::Box;

/// [`Eq`] for trait objects: implemented for every `'static` type that is
/// `Eq`.
///
/// ```
/// use ecs::label::DynEq;
///
/// let one: &dyn DynEq = &1u32;
/// assert!(one.dyn_eq(&1u32));
/// assert!(!one.dyn_eq(&2u32));
/// assert!(!one.dyn_eq(&1u64)); // another type is never equal
/// ```
pub trait DynEq: Any {
    /// Whether `other` has `self`'s type and an equal value.
    fn dyn_eq(&self, other: &dyn DynEq) -> bool;
}

impl<T: Any + Eq> DynEq for T {
    fn dyn_eq(&self, other: &dyn DynEq) -> bool {
        (other as &dyn Any)
            .downcast_ref::<T>()
            .is_some_and(|other| self == other)
    }
}

/// [`Hash`] for trait objects: implemented for every `'static` type that is
/// `Eq` and `Hash`. The type's id is hashed too, so equal-looking values of
/// two types rarely collide.
///
/// ```
/// use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hasher};
/// use ecs::label::DynHash;
///
/// let hash = |value: &dyn DynHash| {
///     let mut state = BuildHasherDefault::<DefaultHasher>::default().build_hasher();
///     value.dyn_hash(&mut state);
///     state.finish()
/// };
/// assert_eq!(hash(&"a"), hash(&"a"));
/// ```
pub trait DynHash: DynEq {
    /// Feeds the value, then its type, to `state`.
    fn dyn_hash(&self, state: &mut dyn Hasher);
}

impl<T: DynEq + Hash> DynHash for T {
    fn dyn_hash(&self, mut state: &mut dyn Hasher) {
        T::hash(self, &mut state);
        self.type_id().hash(&mut state);
    }
}

/// Defines a label trait: `Send + Sync + Debug + DynEq + DynHash`, with
/// `dyn_clone` (implemented by each label type) and `intern` (provided,
/// through a global [`Interner`](crate::intern::Interner) of its own).
///
/// The macro also makes `dyn Trait` [`Eq`], [`Hash`] and
/// [`Internable`](crate::intern::Internable), and implements the trait for
/// `Interned<dyn Trait>`, so an interned label is itself a label.
///
/// ```
/// use ecs::define_label;
///
/// define_label!(
///     /// Which side a player is on.
///     Team,
/// );
///
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// struct Home;
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// struct Away;
///
/// impl Team for Home {
///     fn dyn_clone(&self) -> Box<dyn Team> {
///         Box::new(self.clone())
///     }
/// }
/// impl Team for Away {
///     fn dyn_clone(&self) -> Box<dyn Team> {
///         Box::new(self.clone())
///     }
/// }
///
/// assert_eq!(Home.intern(), Home.intern());
/// assert_ne!(Home.intern(), Away.intern());
/// assert_eq!(Home.intern().intern(), Home.intern());
/// ```
///
/// Extra methods go in `extra_methods`, with their forwarding for the
/// interned handle in `extra_methods_impl`:
///
/// ```
/// use ecs::define_label;
///
/// define_label!(
///     /// A label with a priority.
///     Ranked,
///     extra_methods: {
///         /// Higher runs first.
///         fn rank(&self) -> i32;
///     },
///     extra_methods_impl: {
///         fn rank(&self) -> i32 {
///             (**self).rank()
///         }
///     }
/// );
///
/// #[derive(Clone, Debug, PartialEq, Eq, Hash)]
/// struct First;
///
/// impl Ranked for First {
///     fn dyn_clone(&self) -> Box<dyn Ranked> {
///         Box::new(self.clone())
///     }
///     fn rank(&self) -> i32 {
///         10
///     }
/// }
///
/// assert_eq!(First.intern().rank(), 10);
/// ```
#[macro_export]
macro_rules! define_label {
    (
        $(#[$label_attr:meta])*
        $label_trait_name:ident $(,)?
    ) => {
        $crate::define_label!(
            $(#[$label_attr])*
            $label_trait_name,
            extra_methods: {},
            extra_methods_impl: {}
        );
    };
    (
        $(#[$label_attr:meta])*
        $label_trait_name:ident,
        extra_methods: { $($trait_extra_methods:tt)* },
        extra_methods_impl: { $($interned_extra_methods_impl:tt)* } $(,)?
    ) => {
        $(#[$label_attr])*
        pub trait $label_trait_name:
            ::core::marker::Send
            + ::core::marker::Sync
            + ::core::fmt::Debug
            + $crate::label::DynEq
            + $crate::label::DynHash
        {
            $($trait_extra_methods)*

            /// A boxed clone of this label.
            fn dyn_clone(&self) -> $crate::label::Box<dyn $label_trait_name>;

            /// The interned handle of this label: equal labels give equal
            /// handles, which compare and hash by address.
            fn intern(&self) -> $crate::intern::Interned<dyn $label_trait_name>
            where
                Self: ::core::marker::Sized,
            {
                static INTERNER: $crate::intern::Interner<dyn $label_trait_name> =
                    $crate::intern::Interner::new();
                INTERNER.intern(self)
            }
        }

        #[diagnostic::do_not_recommend]
        impl $label_trait_name for $crate::intern::Interned<dyn $label_trait_name> {
            $($interned_extra_methods_impl)*

            fn dyn_clone(&self) -> $crate::label::Box<dyn $label_trait_name> {
                (**self).dyn_clone()
            }

            fn intern(&self) -> Self {
                *self
            }
        }

        impl ::core::cmp::PartialEq for dyn $label_trait_name {
            fn eq(&self, other: &Self) -> bool {
                self.dyn_eq(other)
            }
        }

        impl ::core::cmp::Eq for dyn $label_trait_name {}

        impl ::core::hash::Hash for dyn $label_trait_name {
            fn hash<H: ::core::hash::Hasher>(&self, state: &mut H) {
                self.dyn_hash(state);
            }
        }

        impl $crate::intern::Internable for dyn $label_trait_name {
            fn leak(&self) -> &'static Self {
                $crate::label::Box::leak(self.dyn_clone())
            }

            fn ref_eq(&self, other: &Self) -> bool {
                // Zero-sized labels of two types may share an address: the type tells them apart.
                ::core::any::Any::type_id(self) == ::core::any::Any::type_id(other)
                    && ::core::ptr::addr_eq(
                        ::core::ptr::from_ref::<Self>(self),
                        ::core::ptr::from_ref::<Self>(other),
                    )
            }

            fn ref_hash<H: ::core::hash::Hasher>(&self, state: &mut H) {
                ::core::hash::Hash::hash(&::core::any::Any::type_id(self), state);
                // The thin address: the vtable pointer of one type may differ between uses.
                ::core::hash::Hash::hash(
                    &::core::ptr::from_ref::<Self>(self).cast::<()>(),
                    state,
                );
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::{DynEq, DynHash};
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher, Hasher};

    fn hash(value: &dyn DynHash) -> u64 {
        let mut state = BuildHasherDefault::<DefaultHasher>::default().build_hasher();
        value.dyn_hash(&mut state);
        state.finish()
    }

    #[derive(PartialEq, Eq, Hash, Debug, Clone)]
    struct A;
    #[derive(PartialEq, Eq, Hash, Debug, Clone)]
    struct B;

    #[test]
    fn values_of_two_types_are_never_equal() {
        assert!(A.dyn_eq(&A));
        assert!(!A.dyn_eq(&B));
        assert_ne!(hash(&A), hash(&B), "the type takes part in the hash");
    }

    crate::define_label!(
        /// A label trait for these tests.
        TestLabel,
    );

    impl TestLabel for A {
        fn dyn_clone(&self) -> Box<dyn TestLabel> {
            Box::new(self.clone())
        }
    }
    impl TestLabel for B {
        fn dyn_clone(&self) -> Box<dyn TestLabel> {
            Box::new(self.clone())
        }
    }

    #[test]
    fn zero_sized_labels_of_two_types_intern_apart() {
        assert_eq!(A.intern(), A.intern());
        assert_ne!(A.intern(), B.intern());
        let boxed: Box<dyn TestLabel> = A.dyn_clone();
        assert!(*boxed == *A.intern(), "`dyn TestLabel` compares by value");
        assert!(*boxed != *B.intern());
        assert_eq!(A.intern().intern(), A.intern());
    }
}
