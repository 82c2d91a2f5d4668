//! [`ParamSet`]: parameters that may conflict with each other, used one
//! at a time.

use std::any::type_name;

use super::{
    CommandQueue, ReadOnlySystemParam, SystemMeta, SystemParam, SystemParamItem,
    SystemParamValidationError,
};
use crate::{
    change_detection::Tick,
    world::{UnsafeWorldCell, World},
};

/// Up to eight system parameters whose accesses may conflict with each
/// other (not with the system's other parameters), reached one at a time
/// through [`p0`](ParamSet::p0), [`p1`](ParamSet::p1), ...: each borrows
/// the whole set mutably, so two are never alive at once.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// fn heal_to_max(mut set: ParamSet<(Query<&mut Health>, Query<&Health>)>) {
///     let max = set.p1().iter().map(|h| h.0).max().unwrap_or(0);
///     for mut health in &mut set.p0() {
///         health.0 = max;
///     }
/// }
///
/// let mut world = World::new();
/// let a = world.spawn(Health(3)).id();
/// world.spawn(Health(10));
/// world.run_system_once(heal_to_max).unwrap();
/// assert_eq!(world.get::<Health>(a).unwrap().0, 10);
/// ```
///
/// A member that fails validation (a [`Single`](super::Single) with no
/// match) skips the system, as it would outside the set.
///
/// In a `#[derive(SystemParam)]` struct, members name `'static` lifetimes
/// (`ParamSet<'w, 's, (Query<'static, 'static, &'static mut A>,)>`) where
/// bevy's take the struct's `'w` and `'s`: the derive fetches each field
/// through its type with `'static` lifetimes, and a set is invariant in
/// its members.
// `T::State: 'static` repeats the trait's bound on purpose: as a bound of
// the struct it is implied by every function taking a `ParamSet`, which
// makes the elided lifetimes of `ParamSet<(Query<&mut A>,)>` `'static`
// there, as the members' `SystemParam` impls need.
pub struct ParamSet<'w, 's, T: SystemParam>
where
    T::State: 'static,
{
    pub(super) states: &'s mut T::State,
    pub(super) world: UnsafeWorldCell<'w>,
    pub(super) meta: SystemMeta,
    pub(super) change_tick: Tick,
}

impl<'w, 's, T: SystemParam> ParamSet<'w, 's, T> {
    pub(super) fn from_parts(
        states: &'s mut T::State,
        world: UnsafeWorldCell<'w>,
        meta: SystemMeta,
        change_tick: Tick,
    ) -> Self {
        ParamSet {
            states,
            world,
            meta,
            change_tick,
        }
    }
}

/// Builds a member's state in a meta of its own, checks its access against
/// the system's other parameters, and returns the state with that access.
#[track_caller]
fn init_member<P: SystemParam>(
    world: &mut World,
    meta: &mut SystemMeta,
) -> (P::State, crate::query::FilteredAccessSet) {
    init_member_with::<P>(world, meta, P::init_state)
}

/// As `init_member`, with the member's state made by `build` (a
/// [`SystemParamBuilder`](super::SystemParamBuilder)) instead of its default.
#[track_caller]
pub(crate) fn init_member_with<P: SystemParam>(
    world: &mut World,
    meta: &mut SystemMeta,
    build: impl FnOnce(&mut World, &mut SystemMeta) -> P::State,
) -> (P::State, crate::query::FilteredAccessSet) {
    let mut member = meta.for_member();
    let state = build(world, &mut member);
    let conflicts = meta.access.get_conflicts(&member.access);
    if !conflicts.is_empty() {
        let param = format!("{} (in a ParamSet)", type_name::<P>());
        meta.assert_no_conflicts(&param, &conflicts, world);
    }
    if !member.is_send() {
        meta.set_non_send();
    }
    if member.has_deferred {
        meta.set_has_deferred();
    }
    (state, member.access)
}

macro_rules! impl_param_set {
    ($(($index:tt, $param:ident, $get:ident)),*) => {
        // SAFETY: each member records its access, checked against the
        // system's other parameters; members conflicting with each other
        // are only reached one at a time, through `&mut self`.
        unsafe impl<$($param: SystemParam),*> SystemParam for ParamSet<'_, '_, ($($param,)*)> {
            type State = ($($param::State,)*);
            type Item<'w, 's> = ParamSet<'w, 's, ($($param,)*)>;

            #[track_caller]
            #[allow(non_snake_case)]
            fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
                // Every member is checked against the others parameters
                // before any member's access joins the system's.
                $(let $param = init_member::<$param>(world, meta);)*
                $(meta.access.extend($param.1);)*
                ($($param.0,)*)
            }

            #[track_caller]
            unsafe fn get_param<'w, 's>(
                state: &'s mut Self::State,
                meta: &SystemMeta,
                world: UnsafeWorldCell<'w>,
                change_tick: Tick,
            ) -> Self::Item<'w, 's> {
                ParamSet { states: state, world, meta: meta.for_member(), change_tick }
            }

            #[inline]
            unsafe fn try_get_param<'w, 's>(
                state: &'s mut Self::State,
                meta: &SystemMeta,
                world: UnsafeWorldCell<'w>,
                change_tick: Tick,
            ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
                // Members are validated now, so a member that cannot be
                // fetched skips the system rather than panicking in `pN`.
                $(
                    // SAFETY: forwarded from the caller; the item is dropped
                    // before the next member is fetched.
                    drop(unsafe { $param::try_get_param(&mut state.$index, meta, world, change_tick) }?);
                )*
                // SAFETY: forwarded from the caller.
                Ok(unsafe { Self::get_param(state, meta, world, change_tick) })
            }

            fn apply(state: &mut Self::State, world: &mut World) {
                <($($param,)*) as SystemParam>::apply(state, world);
            }

            fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
                <($($param,)*) as SystemParam>::queue(state, queue);
            }
        }

        // SAFETY: every member only reads.
        unsafe impl<$($param: ReadOnlySystemParam),*> ReadOnlySystemParam for ParamSet<'_, '_, ($($param,)*)> {}

        impl<$($param: SystemParam),*> ParamSet<'_, '_, ($($param,)*)> {
            $(
                /// The member at this index; no other member can be used
                /// while it is alive.
                ///
                /// # Panics
                /// If the member fails validation (a `Single` with no
                /// match or several). The system's fetch checks every
                /// member before the run, but writes through an earlier
                /// member (a `Changed` filter, a spawn) can make it fail
                /// afterwards, as in bevy.
                #[track_caller]
                pub fn $get(&mut self) -> SystemParamItem<'_, '_, $param> {
                    // SAFETY: the system holds the member's access (recorded
                    // at initialisation); `&mut self` keeps any other member,
                    // which may conflict with this one, from being alive.
                    unsafe {
                        $param::get_param(&mut self.states.$index, &self.meta, self.world, self.change_tick)
                    }
                }
            )*
        }
    };
}

crate::utils::all_tuples_nonempty!(impl_param_set; (0, P0, p0), (1, P1, p1), (2, P2, p2), (3, P3, p3), (4, P4, p4), (5, P5, p5), (6, P6, p6), (7, P7, p7));
