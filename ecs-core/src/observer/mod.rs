//! Observers: systems that run when an event happens, right where it
//! happens.
//!
//! An observer's first parameter is [`On<P>`](On), where `P` is an
//! [`EventPattern`]: a custom [`Event`] (`On<Explode>`), fired with
//! [`World::trigger`](crate::world::World::trigger) or
//! [`Commands::trigger`](crate::system::Commands::trigger), or a lifecycle
//! pattern ([`Add`](crate::lifecycle::Add),
//! [`Insert`](crate::lifecycle::Insert),
//! [`Discard`](crate::lifecycle::Discard),
//! [`Remove`](crate::lifecycle::Remove),
//! [`Despawn`](crate::lifecycle::Despawn)) naming the components watched,
//! fired as entities gain or lose them ([`lifecycle`](crate::lifecycle)
//! says when each fires, and in what order).
//!
//! An observer is global (it runs for every trigger of its event) or
//! watches entities ([`EntityWorldMut::observe`](crate::world::EntityWorldMut::observe),
//! [`Observer::with_entity`]): then it runs only for
//! [`EntityEvent`]s, lifecycle events included, targeting one of them.
//!
//! ```text
//!   world.trigger(Hit { entity: e })
//!     ├─ global observers of Hit          (registry: event → list)
//!     └─ observers watching e             (registry: event → target → list)
//!        then, if Hit propagates and an observer asked to:
//!        the same for the next entity of its Traversal
//! ```
//!
//! An observer is itself an entity (holding an [`ObserverState`]): despawn
//! it to remove it. An [`Observer`] value is built first and registered
//! when spawned or passed to [`World::add_observer`](crate::world::World::add_observer).
//! Like hooks, observers cannot change archetypes directly; their
//! commands apply right after the operation that fired them.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Player;
//! #[derive(Resource, Default)]
//! struct Joined(Vec<Entity>);
//!
//! let mut world = World::new();
//! world.init_resource::<Joined>();
//! world.add_observer(|add: On<Add<Player>>, mut joined: ResMut<Joined>| joined.0.push(add.entity));
//! let a = world.spawn(Player).id();
//! let b = world.spawn(Player).id();
//! assert_eq!(world.resource::<Joined>().0, [a, b]);
//! ```

mod runner;
mod triggering;
mod value;

#[doc(no_inline)]
pub use crate::event::{Event, EventPattern};
pub(crate) use crate::lifecycle::Lifecycle;
#[doc(no_inline)]
#[allow(deprecated)]
pub use crate::lifecycle::Replace;

pub(crate) use runner::{
    lifecycle_hooks, observers_of_lifecycle, run_entity_observers, run_global_observers,
    run_lifecycle_or_entity_observers, trigger_lifecycle, Observers,
};
pub use runner::{ObservedBy, ObserverFunction, ObserverState};
pub use value::{
    IntoEntityObserver, IntoObserver, Observer, ObserverDescriptor, ObserverSystemExt,
    ObserverWithCondition, ObserverWithConditionMarker,
};

use std::{
    marker::PhantomData,
    ops::{Deref, DerefMut},
};

use crate::{
    entity::Entity,
    event::{EntityEvent, EventPatternTrigger, PropagateEntityTrigger},
    traversal::Traversal,
};

/// The first parameter of an observer: the event (which it derefs to), its
/// trigger, and the observer's own entity.
///
/// `P` is the [`EventPattern`] watched: `On<Explode>` for a custom event,
/// `On<Add<Player>>` or `On<Remove<(Enemy, Boss)>>` for a lifecycle event,
/// whose event names the entity (`add.entity`). Changes made through
/// [`event_mut`](On::event_mut) are seen by the observers that run after
/// this one for the same trigger.
pub struct On<'w, 't, P: EventPattern> {
    event: &'w mut P::Event,
    trigger: &'w mut EventPatternTrigger<'t, P>,
    observer: Entity,
    marker: PhantomData<fn() -> P>,
}

impl<'w, 't, P: EventPattern> On<'w, 't, P> {
    pub(crate) fn new(
        event: &'w mut P::Event,
        trigger: &'w mut EventPatternTrigger<'t, P>,
        observer: Entity,
    ) -> Self {
        On {
            event,
            trigger,
            observer,
            marker: PhantomData,
        }
    }

    /// The event.
    #[inline]
    pub fn event(&self) -> &P::Event {
        self.event
    }

    /// The event, to change for the observers that run after this one.
    #[inline]
    pub fn event_mut(&mut self) -> &mut P::Event {
        self.event
    }

    /// The data this trigger carries: for lifecycle events, an
    /// [`EntityComponentsTrigger`](crate::event::EntityComponentsTrigger)
    /// listing the components of the operation.
    #[inline]
    pub fn trigger(&self) -> &EventPatternTrigger<'t, P> {
        self.trigger
    }

    /// The data this trigger carries, to change for the observers that run
    /// after this one (which observers run is decided before the first).
    #[inline]
    pub fn trigger_mut(&mut self) -> &mut EventPatternTrigger<'t, P> {
        self.trigger
    }

    /// The observer's own entity (despawn it to stop observing).
    #[inline]
    pub fn observer(&self) -> Entity {
        self.observer
    }
}

impl<'t, const AUTO_PROPAGATE: bool, P, T> On<'_, 't, P>
where
    P: EventPattern<
        Event: EntityEvent<Trigger<'t> = PropagateEntityTrigger<AUTO_PROPAGATE, P::Event, T>>,
    >,
    T: Traversal<P::Event>,
{
    /// The entity the event targeted when it was triggered, before
    /// propagation moved it ([`EntityEvent::event_target`] is the current
    /// one).
    #[inline]
    pub fn original_event_target(&self) -> Entity {
        self.trigger.original_event_target
    }

    /// Sets whether the event moves on, once the observers of the current
    /// entity ran (all of them still run), to the next entity of its
    /// [`Traversal`]. Off by default, unless the event derives
    /// `#[entity_event(auto_propagate)]`.
    #[inline]
    pub fn propagate(&mut self, should_propagate: bool) {
        self.trigger.propagate = should_propagate;
    }

    /// Whether the event will move on: see [`On::propagate`].
    #[inline]
    pub fn get_propagate(&self) -> bool {
        self.trigger.propagate
    }
}

impl<P: EventPattern> Deref for On<'_, '_, P> {
    type Target = P::Event;
    #[inline]
    fn deref(&self) -> &P::Event {
        self.event
    }
}

impl<P: EventPattern> DerefMut for On<'_, '_, P> {
    #[inline]
    fn deref_mut(&mut self) -> &mut P::Event {
        self.event
    }
}

impl<'t, P> std::fmt::Debug for On<'_, 't, P>
where
    P: EventPattern,
    P::Event: std::fmt::Debug,
    EventPatternTrigger<'t, P>: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("On")
            .field("event", &self.event)
            .field("trigger", &self.trigger)
            .field("observer", &self.observer)
            .finish()
    }
}

#[cfg(test)]
mod pattern_tests;
#[cfg(test)]
mod state_tests;
#[cfg(test)]
mod tests;
