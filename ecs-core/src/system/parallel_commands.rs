//! [`ParallelCommands`]: [`Commands`] that several threads may queue into
//! at once, for use inside
//! [`QueryParIter::for_each`](crate::query::QueryParIter::for_each).
//!
//! The parameter keeps a pool of command queues behind a mutex. Each
//! [`ParallelCommands::command_scope`] takes a queue out of the pool (or
//! makes one), lends it to the closure as a `Commands` without holding the
//! lock, and puts it back: threads never share a queue, and the lock is
//! held only to pop and push. At the system's sync point (like `Commands`)
//! every queue is applied in turn; entity reservation goes through the
//! world's atomic reservation, which any thread may use.

use std::sync::{Mutex, PoisonError};

use super::{Commands, ReadOnlySystemParam, SystemMeta, SystemParam};
use crate::{
    change_detection::Tick,
    entity::Entities,
    world::{CommandQueue, UnsafeWorldCell, World, WorldId},
};

/// Commands queued from several threads at once, applied at the system's
/// sync point like [`Commands`].
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// fn despawn_dead(query: Query<(Entity, &Health)>, par_commands: ParallelCommands) {
///     query.par_iter().for_each(|(entity, health)| {
///         if health.0 == 0 {
///             par_commands.command_scope(|mut commands| {
///                 commands.entity(entity).despawn();
///             });
///         }
///     });
/// }
///
/// let mut world = World::new();
/// world.spawn_batch((0..100).map(|i| Health(i % 2)));
/// world.run_system_once(despawn_dead).unwrap();
/// assert_eq!(world.query::<&Health>().iter(&world).count(), 50);
/// ```
pub struct ParallelCommands<'w, 's> {
    state: &'s ParallelCommandQueues,
    entities: &'w Entities,
    world: WorldId,
}

/// The state of [`ParallelCommands`]: the pool of command queues.
#[derive(Default)]
pub struct ParallelCommandQueues {
    queues: Mutex<Vec<CommandQueue>>,
}

impl ParallelCommandQueues {
    fn take(&self) -> CommandQueue {
        self.queues
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .unwrap_or_default()
    }

    fn give_back(&self, queue: CommandQueue) {
        self.queues
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(queue);
    }
}

/// Puts a lent queue back into the pool even when the closure panics, so
/// the commands queued before the panic are kept and dropped exactly once.
struct Lent<'s> {
    pool: &'s ParallelCommandQueues,
    queue: Option<CommandQueue>,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(queue) = self.queue.take() {
            self.pool.give_back(queue);
        }
    }
}

impl ParallelCommands<'_, '_> {
    /// Runs `f` with [`Commands`] whose commands are applied at the
    /// system's sync point. Safe to call from many threads at once.
    pub fn command_scope<R>(&self, f: impl FnOnce(Commands) -> R) -> R {
        let mut lent = Lent {
            pool: self.state,
            queue: Some(self.state.take()),
        };
        let queue = lent.queue.as_mut().expect("just lent");
        f(Commands::new_from_entities(
            queue,
            self.entities,
            self.world,
        ))
    }
}

// SAFETY: touches no component or resource; entities are only reserved,
// through the atomic reservation.
unsafe impl SystemParam for ParallelCommands<'_, '_> {
    type State = ParallelCommandQueues;
    type Item<'w, 's> = ParallelCommands<'w, 's>;

    fn init_state(_: &mut World, meta: &mut SystemMeta) -> ParallelCommandQueues {
        meta.set_has_deferred();
        ParallelCommandQueues::default()
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut ParallelCommandQueues,
        _: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> ParallelCommands<'w, 's> {
        ParallelCommands {
            state,
            entities: world.entities(),
            world: world.id(),
        }
    }

    fn apply(state: &mut ParallelCommandQueues, world: &mut World) {
        let queues = state
            .queues
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        // A panicking command drops the rest of its queue; the other
        // queues stay for the next sync point.
        for queue in queues.iter_mut() {
            queue.apply(world);
        }
    }

    fn queue(state: &mut ParallelCommandQueues, target: &mut CommandQueue) {
        let queues = state
            .queues
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        for queue in queues.iter_mut() {
            target.append(queue);
        }
    }
}

// SAFETY: reads and writes no component or resource.
unsafe impl ReadOnlySystemParam for ParallelCommands<'_, '_> {}
