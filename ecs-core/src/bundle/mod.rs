//! Bundles: statically typed groups of components inserted or removed at
//! once.
//!
//! Every [`Component`] is a bundle, a tuple of up to 16 bundles is a bundle,
//! and `#[derive(Bundle)]` makes a struct of bundles one. The world resolves
//! each bundle type once to a [`BundleInfo`] (its [`BundleId`] and component
//! ids); after that, an archetype's [`Edges`](crate::archetype::Edges) map
//! the `BundleId` straight to the archetype an insert or remove leads to.
//! Insert, remove and take resolve that edge, fire the hooks around the
//! change and write or read the values here; the row itself moves in the
//! world's `relocation` module (`world/relocation.rs`), which despawn uses too.

mod info;
mod insert;
mod remove;
mod spawn;
mod value_scratch;

pub use ecs_macros::Bundle;
pub(crate) use info::InsertTarget;
pub use info::{BundleId, BundleInfo, Bundles};
pub use insert::InsertMode;
pub(crate) use insert::{
    fire_after_insert, fire_before_replace, insert_bundle, move_and_write, write_bundle,
};
pub(crate) use remove::{
    before_remove_flags, fire_before_remove, remove_bundle, remove_bundle_unhooked, take_bundle,
};
pub(crate) use spawn::BundleSpawner;
pub(crate) use value_scratch::ValueScratch;

use crate::component::{Component, ComponentId, Components, StorageType};

/// A static set of components, inserted or removed together.
///
/// Taking a bundle back out of an entity (`EntityWorldMut::take`) also
/// needs [`BundleFromComponents`], which every component and tuple of such
/// bundles has, and `#[derive(Bundle)]` generates unless told
/// `#[bundle(ignore_from_components)]`.
///
/// # Safety
/// Implement it with `#[derive(Bundle)]`. By hand: [`Bundle::component_ids`],
/// [`Bundle::get_component_ids`] and [`DynamicBundle::get_components`] (and
/// [`BundleFromComponents::from_components`], where implemented) must visit
/// the same components in the same order, and each pointer handed out or
/// read must point to a value of the component type at that position.
/// `get_components` must hand out every component and must not unwind: a
/// value it owns but does not hand out goes to
/// [`ComponentSink::drop_unused`], whose `Drop` may panic.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bundle",
    label = "not a bundle",
    note = "a bundle is a component (derive `Component` for it), a tuple of bundles, or a struct deriving `Bundle` whose fields are bundles"
)]
pub unsafe trait Bundle: DynamicBundle + Send + Sync + 'static {
    /// Registers each component of the bundle, calling `ids` with each id in
    /// order.
    fn component_ids(components: &mut Components, ids: &mut impl FnMut(ComponentId));

    /// Like [`Bundle::component_ids`], without registering: `None` for a
    /// component the registry does not know.
    fn get_component_ids(components: &Components, ids: &mut impl FnMut(Option<ComponentId>));
}

/// A [`Bundle`] that can be rebuilt from its components, so it can be taken
/// back out of an entity (`EntityWorldMut::take`).
///
/// # Safety
/// Implement it with `#[derive(Bundle)]`. By hand:
/// [`BundleFromComponents::from_components`] must call `func` once for each
/// component of the type's [`Bundle`] impl, in that impl's order, reading a
/// value of that component's type each time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be rebuilt from its components, so it cannot be taken out of an entity",
    label = "not `BundleFromComponents`",
    note = "components, tuples of them and `#[derive(Bundle)]` structs are, except a struct marked `#[bundle(ignore_from_components)]` or one with a field that is not; remove its components with `remove::<B>()` instead"
)]
pub unsafe trait BundleFromComponents {
    /// Builds the bundle by reading each component, in order, from the
    /// pointer that `func` returns. It may run user code (`Default` of
    /// ignored fields) that panics; the values read so far are then
    /// dropped by the unwind, and the caller drops those never read.
    ///
    /// # Safety
    /// Each call of `func` must return a pointer to a valid, initialised
    /// value of the next component's type, whose ownership moves into the
    /// bundle (the caller must not drop or read it again).
    unsafe fn from_components<T, F>(ctx: &mut T, func: &mut F) -> Self
    where
        F: FnMut(&mut T) -> *mut u8,
        Self: Sized;
}

/// The by-value half of [`Bundle`]: hands each component to the world.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bundle",
    label = "not a bundle",
    note = "a bundle is a component (derive `Component` for it), a tuple of bundles, or a struct deriving `Bundle` whose fields are bundles"
)]
pub trait DynamicBundle {
    /// Hands each component to `sink`, by value and in the order of
    /// [`Bundle::component_ids`]. Typed bundles call
    /// [`ComponentSink::put`], so the world writes each value with its own
    /// type (no type-erased copy).
    fn get_components(self, sink: &mut impl ComponentSink);
}

/// Receives the components of a bundle, one at a time, in the bundle's
/// order (see [`DynamicBundle::get_components`]).
pub trait ComponentSink {
    /// Takes the next component by value.
    fn put<C: Component>(&mut self, value: C);

    /// Takes the next component by pointer: for values whose type is known
    /// only at run time.
    ///
    /// # Safety
    /// `value` points to an owned, valid value of the next component, whose
    /// storage type is `storage_type`; ownership moves to the sink (the
    /// caller must not drop or read it again).
    unsafe fn put_ptr(&mut self, storage_type: StorageType, value: *mut u8);

    /// Drops a value the bundle owns but does not hand out (a
    /// `#[bundle(ignore)]` field), after its components. A sink writing
    /// into a world catches a panic of its `Drop` and raises it again once
    /// the world is consistent.
    #[inline]
    fn drop_unused<T>(&mut self, value: T) {
        drop(value);
    }
}

// SAFETY: one component, visited once, by its own type.
unsafe impl<C: Component> Bundle for C {
    #[inline]
    fn component_ids(components: &mut Components, ids: &mut impl FnMut(ComponentId)) {
        ids(components.register_component::<C>());
    }

    #[inline]
    fn get_component_ids(components: &Components, ids: &mut impl FnMut(Option<ComponentId>)) {
        ids(components.component_id::<C>());
    }
}

// SAFETY: reads its one component, by its own type.
unsafe impl<C: Component> BundleFromComponents for C {
    #[inline]
    unsafe fn from_components<T, F>(ctx: &mut T, func: &mut F) -> Self
    where
        F: FnMut(&mut T) -> *mut u8,
    {
        // SAFETY: the caller guarantees the pointer is an owned, valid `C`.
        unsafe { func(ctx).cast::<C>().read() }
    }
}

impl<C: Component> DynamicBundle for C {
    #[inline(always)]
    fn get_components(self, sink: &mut impl ComponentSink) {
        sink.put(self);
    }
}

macro_rules! tuple_bundle {
    ($($name:ident),*) => {
        // SAFETY: each element is visited in declaration order by every
        // method, delegating to the element's own (sound) impl.
        unsafe impl<$($name: Bundle),*> Bundle for ($($name,)*) {
            #[inline]
            #[allow(unused_variables)]
            fn component_ids(components: &mut Components, ids: &mut impl FnMut(ComponentId)) {
                $(<$name as Bundle>::component_ids(components, ids);)*
            }

            #[inline]
            #[allow(unused_variables)]
            fn get_component_ids(components: &Components, ids: &mut impl FnMut(Option<ComponentId>)) {
                $(<$name as Bundle>::get_component_ids(components, ids);)*
            }
        }

        // SAFETY: reads each element in declaration order, the order of the
        // tuple's `Bundle` impl, delegating to the element's own impl.
        unsafe impl<$($name: BundleFromComponents),*> BundleFromComponents for ($($name,)*) {
            #[inline]
            #[allow(unused_variables, clippy::unused_unit)]
            unsafe fn from_components<T, F>(ctx: &mut T, func: &mut F) -> Self
            where
                F: FnMut(&mut T) -> *mut u8,
            {
                // SAFETY: forwarded to each element in order; the caller's
                // guarantee covers every element.
                ($(unsafe { <$name as BundleFromComponents>::from_components(ctx, func) },)*)
            }
        }

        impl<$($name: Bundle),*> DynamicBundle for ($($name,)*) {
            #[inline(always)]
            #[allow(unused_variables, non_snake_case)]
            fn get_components(self, sink: &mut impl ComponentSink) {
                let ($($name,)*) = self;
                $($name.get_components(sink);)*
            }
        }
    };
}

crate::utils::all_tuples!(tuple_bundle; B0, B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13, B14, B15);
