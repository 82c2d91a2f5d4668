//! Whether a component's values may be changed in place
//! ([`Component::Mutability`]).

use super::Component;

mod private {
    pub trait Seal {}
}

/// The two answers to whether a component may be changed in place:
/// [`Mutable`] (the default of `#[derive(Component)]`) or [`Immutable`]
/// (`#[component(immutable)]`). Sealed: no other type implements it.
pub trait ComponentMutability: private::Seal + 'static {
    /// Whether `&mut` access to the component is allowed.
    const MUTABLE: bool;
}

/// The component may be changed in place: `get_mut`, `&mut T` query
/// terms, `get_mut_by_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Mutable;

impl private::Seal for Mutable {}

impl ComponentMutability for Mutable {
    const MUTABLE: bool = true;
}

/// The component may not be changed in place, only replaced: inserting
/// a new value, or [`World::modify_component`](crate::world::World::modify_component),
/// each of which runs its `on_discard` and `on_insert` hooks and
/// observers. A hook can then keep an index of the values exact.
///
/// Typed mutable access does not compile for such a component, and
/// untyped mutable access (`get_mut_by_id`) refuses it at run time.
///
/// ```compile_fail,E0271
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// #[component(immutable)]
/// struct Name(String);
///
/// let mut world = World::new();
/// let e = world.spawn(Name("a".into())).id();
/// world.get_mut::<Name>(e); // `Name` is immutable
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Immutable;

impl private::Seal for Immutable {}

impl ComponentMutability for Immutable {
    const MUTABLE: bool = false;
}

/// Whether the component `T` may be changed in place.
#[inline(always)]
pub(crate) const fn is_mutable<T: Component>() -> bool {
    <T::Mutability as ComponentMutability>::MUTABLE
}
