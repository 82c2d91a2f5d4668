//! System input: a value the caller hands to a system on each run.
//!
//! A function system takes its input as its first parameter, wrapped in
//! [`In`] (by value), [`InRef`] (shared borrow) or [`InMut`] (mutable
//! borrow); the caller passes the unwrapped value ([`SystemInput::Inner`]):
//!
//! ```text
//! fn f(In(n): In<u32>, ..)        run_system_once_with(f, 7)
//! fn f(InRef(s): InRef<str>, ..)  run_system_once_with(f, "text")
//! fn f(InMut(v): InMut<Vec<u32>>) run_system_once_with(f, &mut vec)
//! fn f(..)                        input `()`
//! ```

use std::ops::{Deref, DerefMut};

use super::System;

/// A type a system can take as input: `()`, [`In<T>`], [`InRef<T>`],
/// [`InMut<T>`], [`StaticSystemInput<I>`], `Option<I>` and tuples of up to
/// 8 inputs.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::RunSystemOnce;
///
/// fn add((InMut(total), In(n)): (InMut<u32>, In<u32>)) {
///     *total += n;
/// }
///
/// let mut world = World::new();
/// let mut total = 12;
/// world.run_system_once_with(add, (&mut total, 30)).unwrap();
/// assert_eq!(total, 42);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system input",
    label = "not a system input",
    note = "a system's input is its first parameter: `In<T>`, `InRef<T>`, `InMut<T>`, or a tuple of them"
)]
pub trait SystemInput: Sized {
    /// What the function system receives as its first parameter (the
    /// input type itself, at lifetime `'i`).
    type Param<'i>: SystemInput;
    /// What the caller passes to [`System::run`].
    type Inner<'i>;

    /// Wraps the caller's value into the function's parameter.
    fn wrap(this: Self::Inner<'_>) -> Self::Param<'_>;
}

/// The value a caller passes to run system `S`.
pub type SystemIn<'a, S> = <<S as System>::In as SystemInput>::Inner<'a>;

/// A system's input, by value.
///
/// ```
/// use ecs::prelude::*;
///
/// fn square(In(n): In<u32>) -> u32 {
///     n * n
/// }
///
/// let mut world = World::new();
/// let mut system = IntoSystem::into_system(square);
/// system.initialize(&mut world);
/// assert_eq!(system.run(12, &mut world).unwrap(), 144);
/// ```
#[derive(Debug)]
pub struct In<T>(pub T);

impl<T: 'static> SystemInput for In<T> {
    type Param<'i> = In<T>;
    type Inner<'i> = T;

    fn wrap(this: Self::Inner<'_>) -> Self::Param<'_> {
        In(this)
    }
}

impl<T> Deref for In<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for In<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// A system's input, as a shared borrow of the caller's value.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::RunSystemOnce;
///
/// fn length(InRef(text): InRef<str>) -> usize {
///     text.len()
/// }
///
/// let mut world = World::new();
/// assert_eq!(world.run_system_once_with(length, "four").unwrap(), 4);
/// ```
#[derive(Debug)]
pub struct InRef<'i, T: ?Sized>(pub &'i T);

impl<T: ?Sized + 'static> SystemInput for InRef<'_, T> {
    type Param<'i> = InRef<'i, T>;
    type Inner<'i> = &'i T;

    fn wrap(this: Self::Inner<'_>) -> Self::Param<'_> {
        InRef(this)
    }
}

impl<T: ?Sized> Deref for InRef<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0
    }
}

/// A system's input, as a mutable borrow of the caller's value.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::RunSystemOnce;
///
/// fn double(InMut(values): InMut<Vec<u32>>) {
///     values.iter_mut().for_each(|v| *v *= 2);
/// }
///
/// let mut world = World::new();
/// let mut values = vec![1, 2];
/// world.run_system_once_with(double, &mut values).unwrap();
/// assert_eq!(values, [2, 4]);
/// ```
#[derive(Debug)]
pub struct InMut<'a, T: ?Sized>(pub &'a mut T);

impl<T: ?Sized + 'static> SystemInput for InMut<'_, T> {
    type Param<'i> = InMut<'i, T>;
    type Inner<'i> = &'i mut T;

    fn wrap(this: Self::Inner<'_>) -> Self::Param<'_> {
        InMut(this)
    }
}

impl<T: ?Sized> Deref for InMut<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0
    }
}

impl<T: ?Sized> DerefMut for InMut<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0
    }
}

/// Any input `I`, received as its unwrapped value: lets generic code take
/// an input whose wrapper it does not know.
pub struct StaticSystemInput<'a, I: SystemInput>(pub I::Inner<'a>);

impl<I: SystemInput> SystemInput for StaticSystemInput<'_, I> {
    type Param<'i> = StaticSystemInput<'i, I>;
    type Inner<'i> = I::Inner<'i>;

    fn wrap(this: Self::Inner<'_>) -> Self::Param<'_> {
        StaticSystemInput(this)
    }
}

impl<I: SystemInput> SystemInput for Option<I> {
    type Param<'i> = Option<I::Param<'i>>;
    type Inner<'i> = Option<I::Inner<'i>>;

    fn wrap(this: Self::Inner<'_>) -> Self::Param<'_> {
        this.map(I::wrap)
    }
}

macro_rules! impl_system_input_tuple {
    ($($name:ident),*) => {
        impl<$($name: SystemInput),*> SystemInput for ($($name,)*) {
            type Param<'i> = ($($name::Param<'i>,)*);
            type Inner<'i> = ($($name::Inner<'i>,)*);

            #[allow(non_snake_case, clippy::unused_unit)]
            fn wrap(this: Self::Inner<'_>) -> Self::Param<'_> {
                let ($($name,)*) = this;
                ($($name::wrap($name),)*)
            }
        }
    };
}

crate::utils::all_tuples!(impl_system_input_tuple; I0, I1, I2, I3, I4, I5, I6, I7);

#[cfg(test)]
mod tests {
    use std::{
        panic::{catch_unwind, AssertUnwindSafe},
        sync::atomic::{AtomicUsize, Ordering},
    };

    use crate::prelude::*;
    use crate::system::{BoxedSystem, StaticSystemInput};

    #[derive(Component, Debug, PartialEq)]
    struct Score(u32);

    #[derive(Resource, Debug, PartialEq)]
    struct Total(u32);

    fn add_to_total(In(n): In<u32>, mut commands: Commands) -> u32 {
        commands.insert_resource(Total(n));
        n + 1
    }

    #[test]
    fn in_passes_a_value_and_the_output_comes_back() {
        let mut world = World::new();
        assert_eq!(world.run_system_once_with(add_to_total, 41).unwrap(), 42);
        assert_eq!(world.resource::<Total>(), &Total(41), "commands applied");
    }

    #[test]
    fn in_ref_borrows_an_unsized_value() {
        fn count_words(InRef(text): InRef<str>, scores: Query<&Score>) -> usize {
            text.split_whitespace().count() + scores.iter().count()
        }
        let mut world = World::new();
        world.spawn(Score(1));
        let text = String::from("three little words");
        assert_eq!(world.run_system_once_with(count_words, &text).unwrap(), 4);
    }

    #[test]
    fn in_mut_writes_through_to_the_callers_value() {
        fn collect(InMut(out): InMut<Vec<u32>>, scores: Query<&Score>) {
            out.extend(scores.iter().map(|s| s.0));
        }
        let mut world = World::new();
        world.spawn(Score(3));
        let mut out = vec![1];
        world.run_system_once_with(collect, &mut out).unwrap();
        world.run_system_once_with(collect, &mut out).unwrap();
        assert_eq!(out, [1, 3, 3]);
    }

    #[test]
    fn a_system_without_input_returns_its_value() {
        let mut world = World::new();
        world.spawn(Score(2));
        world.spawn(Score(5));
        let sum = world.run_system_once(|q: Query<&Score>| q.iter().map(|s| s.0).sum::<u32>());
        assert_eq!(sum.unwrap(), 7);
    }

    #[test]
    fn input_systems_keep_locals_and_see_changes_since_their_last_run() {
        fn changed_plus(
            In(extra): In<u32>,
            changed: Query<&Score, Changed<Score>>,
            mut runs: Local<u32>,
        ) -> (u32, usize) {
            *runs += extra;
            (*runs, changed.iter().count())
        }
        let mut world = World::new();
        let e = world.spawn(Score(0)).id();
        world.spawn(Score(0));
        let mut system = IntoSystem::into_system(changed_plus);
        system.initialize(&mut world);
        assert_eq!(
            system.run(1, &mut world).unwrap(),
            (1, 2),
            "a first run sees all"
        );
        assert_eq!(system.run(10, &mut world).unwrap(), (11, 0));
        world.get_mut::<Score>(e).unwrap().0 = 9;
        assert_eq!(system.run(100, &mut world).unwrap(), (111, 1));
    }

    #[test]
    fn exclusive_systems_take_an_input_before_the_world() {
        fn spawn_n(In(n): In<u32>, world: &mut World) -> usize {
            for i in 0..n {
                world.spawn(Score(i));
            }
            world.entity_count()
        }
        fn drain(InMut(out): InMut<Vec<u32>>, world: &mut World) {
            out.extend(world.query::<&Score>().iter(world).map(|s| s.0));
        }
        let mut world = World::new();
        assert_eq!(world.run_system_once_with(spawn_n, 3).unwrap(), 3);
        let mut out = Vec::new();
        world.run_system_once_with(drain, &mut out).unwrap();
        out.sort_unstable();
        assert_eq!(out, [0, 1, 2]);
    }

    #[test]
    fn tuple_option_and_static_inputs_unwrap_to_their_parts() {
        fn add((InMut(total), In(n)): (InMut<u32>, In<u32>)) {
            *total += n;
        }
        fn maybe(input: Option<In<u32>>) -> u32 {
            input.map_or(0, |In(n)| n * 2)
        }
        fn generic(StaticSystemInput(n): StaticSystemInput<In<u32>>) -> u32 {
            n + 1
        }
        let mut world = World::new();
        let mut total = 1;
        world.run_system_once_with(add, (&mut total, 2)).unwrap();
        assert_eq!(total, 3);
        assert_eq!(world.run_system_once_with(maybe, Some(4)).unwrap(), 8);
        assert_eq!(world.run_system_once_with(maybe, None).unwrap(), 0);
        assert_eq!(world.run_system_once_with(generic, 9).unwrap(), 10);
    }

    #[test]
    fn boxed_systems_carry_their_input_and_output_types() {
        fn double(In(n): In<u32>) -> u32 {
            n * 2
        }
        let mut world = World::new();
        let mut boxed: BoxedSystem<In<u32>, u32> = Box::new(IntoSystem::into_system(double));
        boxed.initialize(&mut world);
        assert_eq!(boxed.run(21, &mut world).unwrap(), 42);
        // A system is itself `IntoSystem`, so it can be run once directly.
        let system = IntoSystem::into_system(double);
        assert_eq!(world.run_system_once_with(system, 4).unwrap(), 8);
    }

    static DROPS: AtomicUsize = AtomicUsize::new(0);

    struct Counted;

    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_panicking_input_system_drops_its_input_once_and_leaves_the_world_usable() {
        fn panics(In(value): In<Counted>, mut commands: Commands) {
            commands.spawn(Score(1));
            let _keep = value;
            panic!("input system failed");
        }
        fn panics_exclusive(In(_value): In<Counted>, world: &mut World) {
            world.spawn(Score(2));
            panic!("exclusive input system failed");
        }
        let mut world = World::new();
        let before = DROPS.load(Ordering::SeqCst);
        let result = catch_unwind(AssertUnwindSafe(|| {
            world.run_system_once_with(panics, Counted)
        }));
        assert!(result.is_err());
        assert_eq!(DROPS.load(Ordering::SeqCst), before + 1);
        let result = catch_unwind(AssertUnwindSafe(|| {
            world.run_system_once_with(panics_exclusive, Counted)
        }));
        assert!(result.is_err());
        assert_eq!(DROPS.load(Ordering::SeqCst), before + 2);
        // The exclusive system's spawn stays; the other's queued spawn
        // never applied.
        let scores: Vec<u32> = world.query::<&Score>().iter(&world).map(|s| s.0).collect();
        assert_eq!(scores, [2]);
        assert_eq!(world.run_system_once_with(add_to_total, 1).unwrap(), 2);
    }
}
