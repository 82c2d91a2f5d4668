//! Systems that own their input: [`IntoSystem::with_input`] and
//! [`IntoSystem::with_input_from`] turn a system taking a mutable borrow
//! (such as [`InMut<T>`](super::InMut)) into one taking no input, which a
//! schedule can run.

use std::borrow::Cow;

use super::{IntoSystem, RunSystemError, System, SystemIn, SystemInput};
use crate::world::{FromWorld, UnsafeWorldCell, World};

/// A system that passes a mutable borrow of the value it owns as the
/// input of `S` on every run. Made by [`IntoSystem::with_input`].
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::WithInputWrapper;
///
/// fn count(InMut(runs): InMut<u32>) -> u32 {
///     *runs += 1;
///     *runs
/// }
///
/// let mut world = World::new();
/// let mut system = WithInputWrapper::new(count, 10);
/// system.initialize(&mut world);
/// assert_eq!(system.run((), &mut world).unwrap(), 11);
/// assert_eq!(system.run((), &mut world).unwrap(), 12);
/// assert_eq!(*system.value(), 12);
/// ```
pub struct WithInputWrapper<S, T>
where
    for<'i> S: System<In: SystemInput<Inner<'i> = &'i mut T>>,
    T: Send + Sync + 'static,
{
    system: S,
    value: T,
}

impl<S, T> WithInputWrapper<S, T>
where
    for<'i> S: System<In: SystemInput<Inner<'i> = &'i mut T>>,
    T: Send + Sync + 'static,
{
    /// Wraps `system`, which will receive `&mut value` on every run.
    pub fn new<M>(system: impl IntoSystem<S::In, S::Out, M, System = S>, value: T) -> Self {
        Self {
            system: IntoSystem::into_system(system),
            value,
        }
    }

    /// The input value.
    pub fn value(&self) -> &T {
        &self.value
    }

    /// The input value, mutably.
    pub fn value_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<S, T> System for WithInputWrapper<S, T>
where
    for<'i> S: System<In: SystemInput<Inner<'i> = &'i mut T>>,
    T: Send + Sync + 'static,
{
    type In = ();
    type Out = S::Out;

    super::delegate_to_inner_system!(system);

    fn name(&self) -> Cow<'static, str> {
        self.system.name()
    }

    fn type_id(&self) -> std::any::TypeId {
        std::any::TypeId::of::<Self>()
    }

    #[track_caller]
    fn initialize(&mut self, world: &mut World) {
        self.system.initialize(world);
    }

    unsafe fn run_unsafe(
        &mut self,
        _input: SystemIn<'_, Self>,
        world: UnsafeWorldCell<'_>,
    ) -> Result<S::Out, RunSystemError> {
        // SAFETY: the caller's guarantee for this system is the one for
        // the wrapped system, whose access and exclusivity it reports.
        unsafe { self.system.run_unsafe(&mut self.value, world) }
    }
}

/// A system that passes a mutable borrow of a value it builds with
/// [`FromWorld`] on its first initialisation as the input of `S` on every
/// run. Made by [`IntoSystem::with_input_from`].
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::WithInputFromWrapper;
///
/// fn push(InMut(seen): InMut<Vec<u32>>) -> usize {
///     seen.push(1);
///     seen.len()
/// }
///
/// let mut world = World::new();
/// let mut system = WithInputFromWrapper::<_, Vec<u32>>::new(push);
/// assert!(system.value().is_none());
/// system.initialize(&mut world);
/// assert_eq!(system.run((), &mut world).unwrap(), 1);
/// assert_eq!(system.run((), &mut world).unwrap(), 2);
/// ```
pub struct WithInputFromWrapper<S, T> {
    system: S,
    value: Option<T>,
}

impl<S, T> WithInputFromWrapper<S, T>
where
    for<'i> S: System<In: SystemInput<Inner<'i> = &'i mut T>>,
    T: Send + Sync + 'static,
{
    /// Wraps `system`; the value is built when it is initialised.
    pub fn new<M>(system: impl IntoSystem<S::In, S::Out, M, System = S>) -> Self {
        Self {
            system: IntoSystem::into_system(system),
            value: None,
        }
    }

    /// The input value, once the system is initialised.
    pub fn value(&self) -> Option<&T> {
        self.value.as_ref()
    }

    /// The input value, mutably, once the system is initialised.
    pub fn value_mut(&mut self) -> Option<&mut T> {
        self.value.as_mut()
    }
}

#[cold]
#[track_caller]
fn input_not_initialized(name: &str) -> ! {
    panic!("system `{name}` was run before `initialize`, which builds its input value")
}

impl<S, T> System for WithInputFromWrapper<S, T>
where
    for<'i> S: System<In: SystemInput<Inner<'i> = &'i mut T>>,
    T: FromWorld + Send + Sync + 'static,
{
    type In = ();
    type Out = S::Out;

    super::delegate_to_inner_system!(system);

    fn name(&self) -> Cow<'static, str> {
        self.system.name()
    }

    fn type_id(&self) -> std::any::TypeId {
        std::any::TypeId::of::<Self>()
    }

    #[track_caller]
    fn initialize(&mut self, world: &mut World) {
        if self.value.is_none() {
            self.value = Some(T::from_world(world));
        }
        self.system.initialize(world);
    }

    unsafe fn run_unsafe(
        &mut self,
        _input: SystemIn<'_, Self>,
        world: UnsafeWorldCell<'_>,
    ) -> Result<S::Out, RunSystemError> {
        let Some(value) = self.value.as_mut() else {
            input_not_initialized(&self.system.name())
        };
        // SAFETY: the caller's guarantee for this system is the one for
        // the wrapped system, whose access and exclusivity it reports.
        unsafe { self.system.run_unsafe(value, world) }
    }
}
