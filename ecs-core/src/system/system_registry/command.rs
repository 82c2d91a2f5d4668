//! The [`Command`]s behind [`Commands::run_system`](crate::system::Commands::run_system)
//! and the other one-shot system commands, at bevy's `ecs::system::command`
//! path.
//!
//! A command aimed at a system that is running (its own commands, applied
//! as its run ends) waits until the system is back, then applies: so a
//! system can run or unregister itself through its commands. Used on
//! their own (`commands.queue(command::run_system(id))`), they panic on an
//! error, as bevy's default error handler does; the [`Commands`](crate::system::Commands)
//! methods log a warning instead.

use std::{fmt, marker::PhantomData};

use super::{CachedSystemId, RegisteredSystemError, SystemId};
use crate::{
    system::{Command, IntoSystem, SystemInput},
    world::World,
};

/// What to do with an error: panic (the bare command) or warn (the
/// `Commands` method).
pub(crate) type OnError = fn(&dyn fmt::Display);

pub(crate) fn panic_on_error(error: &dyn fmt::Display) {
    panic!("{error}")
}

pub(crate) fn warn_on_error(error: &dyn fmt::Display) {
    log::warn!("{error}")
}

/// Runs the system of `id` with `input` now, or once it is back if it
/// is running.
pub(crate) struct RunSystemWith<I: SystemInput + 'static, O: 'static> {
    pub(crate) id: SystemId<I, O>,
    pub(crate) input: I::Inner<'static>,
    pub(crate) on_error: OnError,
}

impl<I, O> Command for RunSystemWith<I, O>
where
    I: SystemInput<Inner<'static>: Send> + Send + 'static,
    O: 'static,
{
    type Out = ();

    fn apply(self, world: &mut World) {
        if let Some(pending) = world.pending_while_running(self.id) {
            pending.push(self);
            return;
        }
        if let Err(error) = world.run_system_with(self.id, self.input) {
            (self.on_error)(&error);
        }
    }
}

/// Unregisters the system of `id` now, or once it is back if it is
/// running.
pub(crate) struct UnregisterSystem<I: SystemInput + 'static, O: 'static> {
    pub(crate) id: SystemId<I, O>,
    pub(crate) on_error: OnError,
}

impl<I, O> Command for UnregisterSystem<I, O>
where
    I: SystemInput + Send + 'static,
    O: Send + 'static,
{
    type Out = ();

    fn apply(self, world: &mut World) {
        if let Some(pending) = world.pending_while_running(self.id) {
            pending.push(self);
            return;
        }
        if let Err(error) = world.unregister_system(self.id) {
            (self.on_error)(&error);
        }
    }
}

pub(crate) fn cached_id<I, M, S>(world: &mut World, system: S) -> SystemId<I>
where
    I: SystemInput + 'static,
    S: IntoSystem<I, (), M> + 'static,
{
    world.register_system_cached(system)
}

/// A command that runs the system of `id` (no input).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{command, CommandQueue};
///
/// #[derive(Resource, Default)]
/// struct Runs(u32);
///
/// let mut world = World::new();
/// world.init_resource::<Runs>();
/// let id = world.register_system(|mut runs: ResMut<Runs>| runs.0 += 1);
/// let mut queue = CommandQueue::default();
/// Commands::new(&mut queue, &world).queue(command::run_system(id));
/// queue.apply(&mut world);
/// assert_eq!(world.resource::<Runs>().0, 1);
/// ```
pub fn run_system<O: 'static>(id: impl Into<SystemId<(), O>> + Send) -> impl Command {
    // The output is dropped, as bevy's command does.
    RunSystemWith {
        id: id.into(),
        input: (),
        on_error: panic_on_error,
    }
}

/// A command that runs the system of `id` with `input`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{command, CommandQueue};
///
/// #[derive(Resource, Default)]
/// struct Total(u32);
///
/// let mut world = World::new();
/// world.init_resource::<Total>();
/// let id = world.register_system(|In(n): In<u32>, mut total: ResMut<Total>| total.0 += n);
/// let mut queue = CommandQueue::default();
/// Commands::new(&mut queue, &world).queue(command::run_system_with(id, 5));
/// queue.apply(&mut world);
/// assert_eq!(world.resource::<Total>().0, 5);
/// ```
pub fn run_system_with<I>(
    id: impl Into<SystemId<I>> + Send,
    input: I::Inner<'static>,
) -> impl Command
where
    I: SystemInput<Inner<'static>: Send> + Send + 'static,
{
    RunSystemWith {
        id: id.into(),
        input,
        on_error: panic_on_error,
    }
}

/// A command that runs the cached system of `system`'s type
/// ([`World::run_system_cached`]).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{command, CommandQueue};
///
/// #[derive(Resource, Default)]
/// struct Runs(u32);
///
/// fn bump(mut runs: ResMut<Runs>) {
///     runs.0 += 1;
/// }
///
/// let mut world = World::new();
/// world.init_resource::<Runs>();
/// let mut queue = CommandQueue::default();
/// Commands::new(&mut queue, &world).queue(command::run_system_cached(bump));
/// queue.apply(&mut world);
/// assert_eq!(world.resource::<Runs>().0, 1);
/// ```
pub fn run_system_cached<M, S>(system: S) -> impl Command
where
    M: 'static,
    S: IntoSystem<(), (), M> + Send + 'static,
{
    run_system_cached_with(system, ())
}

/// A command that runs the cached system of `system`'s type with
/// `input`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{command, CommandQueue};
///
/// #[derive(Resource, Default)]
/// struct Total(u32);
///
/// fn add(In(n): In<u32>, mut total: ResMut<Total>) {
///     total.0 += n;
/// }
///
/// let mut world = World::new();
/// world.init_resource::<Total>();
/// let mut queue = CommandQueue::default();
/// Commands::new(&mut queue, &world).queue(command::run_system_cached_with(add, 3));
/// queue.apply(&mut world);
/// assert_eq!(world.resource::<Total>().0, 3);
/// ```
pub fn run_system_cached_with<I, M, S>(system: S, input: I::Inner<'static>) -> impl Command
where
    I: SystemInput<Inner<'static>: Send> + Send + 'static,
    M: 'static,
    S: IntoSystem<I, (), M> + Send + 'static,
{
    run_cached_with(system, input, panic_on_error)
}

pub(crate) fn run_cached_with<I, M, S>(
    system: S,
    input: I::Inner<'static>,
    on_error: OnError,
) -> impl Command
where
    I: SystemInput<Inner<'static>: Send> + Send + 'static,
    M: 'static,
    S: IntoSystem<I, (), M> + Send + 'static,
{
    move |world: &mut World| {
        let id = cached_id(world, system);
        RunSystemWith {
            id,
            input,
            on_error,
        }
        .apply(world);
    }
}

/// A command that unregisters the system of `id`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{command, CommandQueue};
///
/// let mut world = World::new();
/// let id = world.register_system(|| {});
/// let mut queue = CommandQueue::default();
/// Commands::new(&mut queue, &world).queue(command::unregister_system(id));
/// queue.apply(&mut world);
/// assert!(world.run_system(id).is_err());
/// ```
pub fn unregister_system<I, O>(system_id: SystemId<I, O>) -> impl Command
where
    I: SystemInput + Send + 'static,
    O: Send + 'static,
{
    UnregisterSystem {
        id: system_id,
        on_error: panic_on_error,
    }
}

/// A command that unregisters the cached system of `system`'s type
/// ([`World::unregister_system_cached`]).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{command, CommandQueue};
///
/// fn noop() {}
///
/// let mut world = World::new();
/// let id = world.register_system_cached(noop);
/// let mut queue = CommandQueue::default();
/// Commands::new(&mut queue, &world).queue(command::unregister_system_cached(noop));
/// queue.apply(&mut world);
/// assert!(world.run_system(id).is_err());
/// ```
pub fn unregister_system_cached<I, O, M, S>(system: S) -> impl Command
where
    I: SystemInput + Send + 'static,
    O: 'static,
    M: 'static,
    S: IntoSystem<I, O, M> + Send + 'static,
{
    unregister_cached(system, panic_on_error)
}

pub(crate) fn unregister_cached<I, O, M, S>(system: S, on_error: OnError) -> impl Command
where
    I: SystemInput + Send + 'static,
    O: 'static,
    M: 'static,
    S: IntoSystem<I, O, M> + Send + 'static,
{
    UnregisterSystemCached {
        system,
        on_error,
        marker: PhantomData::<fn(I, M) -> O>,
    }
}

/// Unregisters the cached system of type `S` now, or once it is back
/// if it is running.
struct UnregisterSystemCached<S, T> {
    system: S,
    on_error: OnError,
    marker: PhantomData<T>,
}

impl<I, O, M, S> Command for UnregisterSystemCached<S, fn(I, M) -> O>
where
    I: SystemInput + Send + 'static,
    O: 'static,
    M: 'static,
    S: IntoSystem<I, O, M> + Send + 'static,
{
    type Out = ();

    fn apply(self, world: &mut World) {
        let Some(cached) = world.get_resource::<CachedSystemId<S>>() else {
            return (self.on_error)(&RegisteredSystemError::<I, O>::SystemNotCached);
        };
        let id = SystemId::<I, O>::new(cached.entity, Some(world.id()));
        if let Some(pending) = world.pending_while_running(id) {
            pending.push(self);
            return;
        }
        if let Err(error) = world.unregister_system_cached(self.system) {
            (self.on_error)(&error);
        }
    }
}
