//! [`ArchetypeFilter`]: the filters decided by archetype alone, for which
//! a query knows its exact length without visiting a row.

use super::{Or, QueryData, QueryFilter, QueryIter, With, Without};
use crate::component::Component;

/// A filter decided by archetype alone: `With<T>`, `Without<T>`, and
/// tuples and `Or`s of them (not `Added`/`Changed`, which look at each
/// row's ticks).
///
/// It gives [`QueryIter`] an [`ExactSizeIterator`] impl, whose `len` adds
/// up the lengths of the matched tables or archetypes.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Enemy;
/// #[derive(Component)]
/// struct Dead;
///
/// let mut world = World::new();
/// world.spawn(Enemy);
/// world.spawn((Enemy, Dead));
/// world.spawn(Enemy);
/// let mut alive = world.query_filtered::<Entity, (With<Enemy>, Without<Dead>)>();
/// assert_eq!(alive.iter(&world).len(), 2);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a filter decided by archetype alone",
    label = "not an archetype filter",
    note = "an `ArchetypeFilter` is `With<T>`, `Without<T>`, or a tuple or `Or` of them; `Added<T>` and `Changed<T>` look at each row"
)]
pub trait ArchetypeFilter: QueryFilter {}

impl<T: Component> ArchetypeFilter for With<T> {}

impl<T: Component> ArchetypeFilter for Without<T> {}

macro_rules! tuple_archetype_filter {
    ($(($name:ident, $s:ident)),*) => {
        impl<$($name: ArchetypeFilter),*> ArchetypeFilter for ($($name,)*) {}
    };
}

crate::utils::all_tuples!(tuple_archetype_filter; (F0, s0), (F1, s1), (F2, s2), (F3, s3), (F4, s4), (F5, s5), (F6, s6), (F7, s7), (F8, s8), (F9, s9), (F10, s10), (F11, s11), (F12, s12), (F13, s13), (F14, s14), (F15, s15));

macro_rules! or_archetype_filter {
    ($(($name:ident, $s:ident)),*) => {
        impl<$($name: ArchetypeFilter),*> ArchetypeFilter for Or<($($name,)*)> {}
    };
}

crate::utils::all_tuples_nonempty!(or_archetype_filter; (F0, s0), (F1, s1), (F2, s2), (F3, s3), (F4, s4), (F5, s5), (F6, s6), (F7, s7), (F8, s8), (F9, s9), (F10, s10), (F11, s11), (F12, s12), (F13, s13), (F14, s14), (F15, s15));

/// The number of items left, without visiting a row.
impl<D: QueryData, F: ArchetypeFilter> ExactSizeIterator for QueryIter<'_, '_, D, F> {
    #[inline]
    fn len(&self) -> usize {
        // An `ArchetypeFilter` impl on a filter that looks at rows would
        // make the count wrong: refuse it at compile time.
        const {
            assert!(
                F::IS_ARCHETYPAL,
                "an `ArchetypeFilter` must be archetypal (`QueryFilter::IS_ARCHETYPAL`)"
            )
        };
        self.size_hint().0
    }
}
