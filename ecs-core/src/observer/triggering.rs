//! The entry points: adding observers and triggering events, from the
//! world and from commands.

use super::{runner::register_observer, IntoEntityObserver, IntoObserver};
use crate::{
    entity::Entity,
    event::{EntityEvent, Event, Sealed},
    system::{Commands, EntityCommands},
    world::{DeferredWorld, EntityWorldMut, World},
};

impl World {
    /// Adds a global observer: an [`Observer`](super::Observer), or a function whose first
    /// parameter is [`On<P>`](super::On) and whose other parameters are
    /// system parameters. Returns the observer's entity (despawn it to
    /// remove the observer).
    ///
    /// # Panics
    /// If a lifecycle observer names no component, a custom event's
    /// observer names some, an [`Observer`](super::Observer) watches an entity that does not
    /// exist, or its parameters conflict.
    #[track_caller]
    pub fn add_observer<M>(&mut self, observer: impl IntoObserver<M>) -> EntityWorldMut<'_> {
        let entity = register_observer(self, observer.into_observer(), None);
        self.flush_commands();
        self.entity_mut(entity)
    }

    /// Triggers `event`: runs the observers its trigger reaches (for an
    /// [`EntityEvent`], the global observers and
    /// those of its target, then of each entity it propagates to), then
    /// applies the commands they queued (from inside a command, once that
    /// command returns: see [`World::flush_commands`] for the order).
    pub fn trigger<'a, E: Event<Trigger<'a>: Default>>(&mut self, mut event: E) {
        self.trigger_ref(&mut event);
    }

    /// Triggers `event` like [`World::trigger`], leaving it with the
    /// changes its observers made ([`On::event_mut`](super::On::event_mut)).
    pub fn trigger_ref<'a, E: Event<Trigger<'a>: Default>>(&mut self, event: &mut E) {
        let mut trigger = E::Trigger::<'a>::default();
        self.trigger_ref_with(event, &mut trigger);
    }

    /// Triggers `event` with the trigger data `trigger` (such as a
    /// [`PropagateEntityTrigger`](crate::event::PropagateEntityTrigger)
    /// with `propagate` set), like [`World::trigger`].
    pub fn trigger_with<'a, E: Event>(&mut self, mut event: E, mut trigger: E::Trigger<'a>) {
        self.trigger_ref_with(&mut event, &mut trigger);
    }

    /// Triggers `event` with `trigger` like [`World::trigger_with`],
    /// leaving both with the changes its observers made.
    pub fn trigger_ref_with<'a, E: Event>(&mut self, event: &mut E, trigger: &mut E::Trigger<'a>) {
        self.flush_entities();
        self.check_change_ticks();
        trigger.dispatch(self, event);
        self.flush_commands();
    }
}

impl EntityWorldMut<'_> {
    /// Adds an observer that runs only for [`EntityEvent`](crate::event::EntityEvent)s
    /// (lifecycle events included) targeting this entity. Returns the
    /// entity handle (of this entity).
    ///
    /// The entity records its observers in [`ObservedBy`](super::ObservedBy);
    /// they are despawned with it (or when that component is removed).
    #[track_caller]
    pub fn observe<M>(&mut self, observer: impl IntoEntityObserver<M>) -> &mut Self {
        let observer = observer.into_observer_for_entity(self.id());
        self.world_scope(|world| {
            register_observer(world, observer, None);
        });
        self
    }
}

impl EntityWorldMut<'_> {
    /// Triggers the [`EntityEvent`] `event_fn` makes for this entity (see
    /// [`World::trigger`]); its observers' commands apply before it
    /// returns, and may despawn the entity
    /// ([`EntityWorldMut::is_despawned`] tells).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(EntityEvent)]
    /// struct Hit {
    ///     entity: Entity,
    /// }
    ///
    /// #[derive(Component)]
    /// struct Hits(u32);
    ///
    /// let mut world = World::new();
    /// let mut target = world.spawn(Hits(0));
    /// target.observe(|hit: On<Hit>, mut hits: Query<&mut Hits>| {
    ///     hits.get_mut(hit.entity).unwrap().0 += 1;
    /// });
    /// target.trigger(|entity| Hit { entity });
    /// assert_eq!(target.get::<Hits>().unwrap().0, 1);
    /// ```
    #[track_caller]
    pub fn trigger<E: EntityEvent + for<'a> Event<Trigger<'a>: Default>>(
        &mut self,
        event_fn: impl FnOnce(Entity) -> E,
    ) -> &mut Self {
        let event = event_fn(self.id());
        self.world_scope_despawnable(|world| world.trigger(event));
        self
    }
}

impl DeferredWorld<'_> {
    /// Queues triggering `event` (see [`World::trigger`]): its observers
    /// run when the commands of the current operation apply.
    pub fn trigger<E: for<'a> Event<Trigger<'a>: Default>>(&mut self, event: E) {
        self.commands().trigger(event);
    }
}

impl Commands<'_, '_> {
    /// Queues triggering `event` (see [`World::trigger`]). Chains of any
    /// depth (an observer triggering the next) run in constant stack: see
    /// [`World::flush_commands`].
    pub fn trigger<E: for<'a> Event<Trigger<'a>: Default>>(&mut self, event: E) {
        self.queue(move |world: &mut World| world.trigger(event));
    }

    /// Queues triggering `event` with the trigger data `trigger` (see
    /// [`World::trigger_with`]).
    pub fn trigger_with<E: Event<Trigger<'static>: Send + Sync>>(
        &mut self,
        event: E,
        trigger: E::Trigger<'static>,
    ) {
        self.queue(move |world: &mut World| world.trigger_with(event, trigger));
    }

    /// Queues adding a global observer (see [`World::add_observer`]): it
    /// spawns the observer's entity, returned here, which registers it.
    pub fn add_observer<M>(&mut self, observer: impl IntoObserver<M>) -> EntityCommands<'_> {
        self.spawn(observer.into_observer())
    }
}

impl EntityCommands<'_> {
    /// Queues triggering the [`EntityEvent`] `event_fn` makes for this
    /// entity (see [`World::trigger`]).
    pub fn trigger<E: EntityEvent + for<'a> Event<Trigger<'a>: Default>>(
        &mut self,
        event_fn: impl FnOnce(Entity) -> E,
    ) -> &mut Self {
        let event = event_fn(self.id());
        self.commands().trigger(event);
        self
    }

    /// Queues adding an observer of this entity (see
    /// [`EntityWorldMut::observe`]); if the entity is gone by then, the
    /// error goes to the error handler, which panics by default.
    pub fn observe<M>(&mut self, observer: impl IntoEntityObserver<M>) -> &mut Self {
        self.queue(move |mut entity: EntityWorldMut<'_>| {
            entity.observe(observer);
        })
    }
}
