//! Systems that only read the world, and the checks doc examples and
//! tests use to confirm that something is a (read-only) system.

use super::{
    FunctionSystem, IntoResult, IntoSystem, ReadOnlySystemParam, RunSystemError, System, SystemIn,
    SystemInput, SystemParamFunction,
};
use crate::world::{UnsafeWorldCell, World};

/// A [`System`] that does not modify the world when it runs: every
/// parameter of a function system is a
/// [`ReadOnlySystemParam`], and a pipe or adapter of read-only systems is
/// read-only.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// fn total(query: Query<&Health>) -> u32 {
///     query.iter().map(|h| h.0).sum()
/// }
///
/// let mut world = World::new();
/// world.spawn(Health(3));
/// world.spawn(Health(4));
/// let mut system = IntoSystem::into_system(total);
/// system.initialize(&mut world);
/// // A shared borrow of the world is enough.
/// assert_eq!(system.run_readonly((), &world).unwrap(), 7);
/// ```
///
/// # Safety
/// The system's recorded access holds no write, and running it only reads
/// the world (its deferred work, applied later with `&mut World`, may
/// write). Its `run_unsafe` panics if it was not initialised with the
/// world it is given, since [`run_readonly`](Self::run_readonly) does not
/// check.
pub unsafe trait ReadOnlySystem: System {
    /// Runs the system with `input` through a shared borrow of the world,
    /// without applying its deferred work.
    ///
    /// Returns the output, or why there is none ([`RunSystemError`]).
    ///
    /// # Panics
    /// If the system was not initialised with this world.
    fn run_readonly(
        &mut self,
        input: SystemIn<'_, Self>,
        world: &World,
    ) -> Result<Self::Out, RunSystemError> {
        // SAFETY: the system only reads, and `&World` lets everyone read.
        unsafe { self.run_unsafe(input, UnsafeWorldCell::new_readonly(world)) }
    }
}

// SAFETY: every parameter is read-only, so the recorded access is reads
// only and `get_param` only reads.
unsafe impl<Marker, Out, F> ReadOnlySystem for FunctionSystem<Marker, Out, F>
where
    Marker: 'static,
    Out: 'static,
    F: SystemParamFunction<Marker, Out: IntoResult<Out>>,
    F::Param: ReadOnlySystemParam,
{
}

/// Checks that `system` is a valid system: builds it and initialises it on
/// a fresh world, which panics if two of its parameters conflict.
///
/// ```should_panic
/// use ecs::prelude::*;
/// use ecs::system::assert_is_system;
///
/// #[derive(Component)]
/// struct Transform;
///
/// fn conflicting(_: Query<&mut Transform>, _: Query<&mut Transform>) {}
///
/// assert_is_system(conflicting);
/// ```
///
/// # Panics
/// If the system's parameters conflict, naming the system and the
/// component.
#[track_caller]
pub fn assert_is_system<In: SystemInput, Out: 'static, Marker>(
    system: impl IntoSystem<In, Out, Marker>,
) {
    let mut system = IntoSystem::into_system(system);
    let mut world = World::new();
    system.initialize(&mut world);
}

/// Checks, when compiling, that `system` is a [`ReadOnlySystem`], and, as
/// [`assert_is_system`] does, that its parameters do not conflict.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::assert_is_read_only_system;
///
/// #[derive(Component)]
/// struct Transform;
///
/// fn count(query: Query<&Transform>) -> usize {
///     query.iter().count()
/// }
///
/// assert_is_read_only_system(count);
/// ```
///
/// A system that writes does not compile:
///
/// ```compile_fail
/// use ecs::prelude::*;
/// use ecs::system::assert_is_read_only_system;
///
/// #[derive(Component)]
/// struct Transform;
///
/// fn writes(_: Query<&mut Transform>) {}
///
/// assert_is_read_only_system(writes);
/// ```
///
/// # Panics
/// If the system's parameters conflict, naming the system and the
/// component.
#[track_caller]
pub fn assert_is_read_only_system<In, Out, Marker, S>(system: S)
where
    In: SystemInput,
    Out: 'static,
    S: IntoSystem<In, Out, Marker>,
    S::System: ReadOnlySystem,
{
    assert_is_system(system);
}

/// Checks that `system` does not conflict with itself: initialises it on
/// a fresh world and runs it once there.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::assert_system_does_not_conflict;
///
/// #[derive(Component)]
/// struct Transform;
/// #[derive(Component)]
/// struct Player;
///
/// fn disjoint(
///     _players: Query<&mut Transform, With<Player>>,
///     _others: Query<&mut Transform, Without<Player>>,
/// ) {
/// }
///
/// assert_system_does_not_conflict(disjoint);
/// ```
///
/// # Panics
/// If the system's parameters conflict (naming the system and the
/// component), or if running it on the empty world panics or fails (a
/// `Res` of a resource the fresh world lacks names the resource). A run
/// skipped by its parameters (`Single`, `If`) passes.
#[track_caller]
pub fn assert_system_does_not_conflict<Out, Params, S: IntoSystem<(), Out, Params>>(sys: S) {
    let mut world = World::new();
    let mut system = IntoSystem::into_system(sys);
    system.initialize(&mut world);
    // A system's own error is its business; a parameter that cannot be
    // fetched (a missing resource) is reported, as bevy's `unwrap` does.
    if let Err(super::RunSystemError::Failed(error)) = system.run((), &mut world) {
        if error
            .downcast_ref::<super::SystemParamValidationError>()
            .is_some()
        {
            panic!("system `{}` could not run: {error}", system.name());
        }
    }
}
