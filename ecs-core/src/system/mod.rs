//! Systems: functions of queries, resources and commands that a schedule
//! runs, in parallel when their data access allows.
//!
//! A function becomes a system when each of its parameters is a
//! [`SystemParam`]. At initialisation each parameter records what it
//! reads and writes ([`FilteredAccessSet`]); two parameters of one system
//! that conflict panic then, naming the system and the component. The
//! schedule uses the same records to run non-conflicting systems at once.

mod commands;
mod function_system;
mod param;
mod query;

pub use crate::world::CommandQueue;
pub use commands::{Command, Commands, EntityCommands};
pub use ecs_macros::SystemParam;
pub use function_system::{
    ExclusiveFunctionSystem, ExclusiveSystemParamFunction, FunctionSystem,
    IsExclusiveFunctionSystem, IsFunctionSystem, SystemParamFunction,
};
pub use param::{Local, Res, ResMut, SystemMeta, SystemParam, SystemParamItem};
pub use query::Query;

use std::{any::TypeId, borrow::Cow};

use crate::{
    change_detection::Tick,
    query::FilteredAccessSet,
    world::{DeferredWorld, UnsafeWorldCell, World},
};

/// Something a schedule can run.
pub trait System: Send + Sync + 'static {
    /// What a run returns.
    type Out;

    /// The system's name (its function's path).
    fn name(&self) -> Cow<'static, str>;

    /// The identity used by `.before` / `.after` (the function's type).
    fn type_id(&self) -> TypeId;

    /// Builds the parameters' state and records their access. Runs once;
    /// later calls with the same world do nothing.
    ///
    /// # Panics
    /// If two parameters conflict, naming the system and the component; if
    /// called with another world.
    fn initialize(&mut self, world: &mut World);

    /// What the system reads and writes.
    fn access(&self) -> &FilteredAccessSet;

    /// Whether the system needs the whole world (`fn(&mut World)`).
    fn is_exclusive(&self) -> bool;

    /// Whether the system queues deferred work (commands).
    fn has_deferred(&self) -> bool;

    /// Runs the system through a shared world pointer.
    ///
    /// # Safety
    /// The system was initialised with this world; the caller holds the
    /// system's recorded access for the whole run (for an exclusive system:
    /// the whole world, from a mutable cell).
    unsafe fn run_unsafe(&mut self, world: UnsafeWorldCell<'_>) -> Self::Out;

    /// Runs the system with exclusive access, then applies its deferred
    /// work.
    fn run(&mut self, world: &mut World) -> Self::Out {
        world.flush_entities();
        world.check_change_ticks();
        // SAFETY: `&mut World` holds every access.
        let out = unsafe { self.run_unsafe(UnsafeWorldCell::new_mutable(world)) };
        self.apply_deferred(world);
        out
    }

    /// Applies deferred work (commands).
    fn apply_deferred(&mut self, world: &mut World);

    /// The tick the system last ran at.
    fn last_run(&self) -> Tick;
}

/// A boxed system returning `Out`.
pub type BoxedSystem<Out = ()> = Box<dyn System<Out = Out>>;

/// Conversion into a [`System`]: implemented for functions of system
/// parameters and for `fn(&mut World)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a valid system: every parameter must be a `SystemParam`",
    label = "not a system",
    note = "system parameters are `Query`, `Res`, `ResMut`, `Option<Res>`, `Option<ResMut>`, `Local`, `Commands`, `&World` and `#[derive(SystemParam)]` structs; an exclusive system takes only `&mut World`"
)]
pub trait IntoSystem<Out, Marker>: Sized {
    /// The system type.
    type System: System<Out = Out>;
    /// Makes the system.
    fn into_system(this: Self) -> Self::System;
}

impl DeferredWorld<'_> {
    /// Commands, applied right after the current operation.
    #[inline]
    pub fn commands(&mut self) -> Commands<'_, '_> {
        let world = self.world_mut_internal();
        let id = world.id();
        Commands::new_from_entities(&mut world.command_queue, &world.entities, id)
    }
}

impl World {
    /// Initialises and runs a system once, applies its commands, and
    /// returns its output.
    #[track_caller]
    pub fn run_system_once<Out, Marker, S: IntoSystem<Out, Marker>>(&mut self, system: S) -> Out {
        let mut system = IntoSystem::into_system(system);
        system.initialize(self);
        system.run(self)
    }
}

#[cfg(test)]
mod tests;
