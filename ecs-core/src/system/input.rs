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
/// assert_eq!(system.run(12, &mut world), 144);
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
