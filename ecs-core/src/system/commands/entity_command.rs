//! [`EntityCommand`]: a command for one entity, queued with
//! [`EntityCommands::queue`](super::EntityCommands::queue).
//!
//! ```text
//!  commands.entity(e).queue(cmd)
//!    -> Command: world.get_entity_mut(e)? -> cmd.apply(entity) -> error handler
//! ```

use crate::{
    entity::Entity,
    error::{BevyError, CommandOutput},
    system::Command,
    world::{EntityWorldMut, World},
};

/// A command run on one entity when the queue applies: a closure taking
/// [`EntityWorldMut`] (returning `()` or a `Result`), or a type of yours.
///
/// If the entity is gone by the time the command applies, the command
/// does not run and the error (naming the entity) goes to the error
/// handler, as does an error the command returns.
///
/// Bevy's `Out` is bounded by `EntityCommandOutput`; here it is the
/// [`CommandOutput`] commands already use, which accepts the same `()` and
/// `Result` outputs.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// struct Heal(u32);
///
/// impl EntityCommand for Heal {
///     type Out = ();
///     fn apply(self, mut entity: EntityWorldMut) {
///         if let Some(mut health) = entity.get_mut::<Health>() {
///             health.0 += self.0;
///         }
///     }
/// }
///
/// let mut world = World::new();
/// let e = world.spawn(Health(1)).id();
/// world
///     .run_system_once(move |mut commands: Commands| {
///         commands.entity(e).queue(Heal(2)).queue(|mut entity: EntityWorldMut| {
///             entity.get_mut::<Health>().unwrap().0 *= 10;
///         });
///     })
///     .unwrap();
/// assert_eq!(world.get::<Health>(e).unwrap().0, 30);
/// ```
pub trait EntityCommand: Send + 'static {
    /// What [`apply`](EntityCommand::apply) returns: `()`, or a `Result`.
    type Out: CommandOutput;

    /// Runs the command on `entity`.
    fn apply(self, entity: EntityWorldMut) -> Self::Out;

    /// The [`Command`] that runs this command on `entity`, failing with an
    /// error naming `entity` if it does not exist by then.
    #[inline]
    fn with_entity(self, entity: Entity) -> impl Command<Out = Result<(), BevyError>>
    where
        Self: Sized,
    {
        move |world: &mut World| -> Result<(), BevyError> {
            let entity = world.get_entity_mut(entity)?;
            match self.apply(entity).to_err() {
                Some(error) => Err(error),
                None => Ok(()),
            }
        }
    }
}

impl<F, Out> EntityCommand for F
where
    F: FnOnce(EntityWorldMut) -> Out + Send + 'static,
    Out: CommandOutput,
{
    type Out = Out;

    #[inline]
    fn apply(self, entity: EntityWorldMut) -> Out {
        self(entity)
    }
}
