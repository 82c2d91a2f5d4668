//! The triggers: how each kind of event reaches its observers.

use std::{fmt, marker::PhantomData};

use super::{EntityEvent, Event, SetEntityEventTarget};
use crate::{
    component::ComponentId,
    entity::Entity,
    observer::{run_entity_observers, run_global_observers, run_lifecycle_or_entity_observers},
    query::QueryState,
    traversal::Traversal,
    world::World,
};

pub(crate) mod sealed {
    use crate::world::World;

    /// The dispatch of a trigger, kept inside the crate.
    pub trait Sealed<E> {
        /// Runs the observers of `event` that this trigger reaches.
        fn dispatch(&mut self, world: &mut World, event: &mut E);
    }
}

/// How an [`Event`] is triggered, and the data each trigger carries to
/// its observers.
///
/// The implementations are [`GlobalTrigger`] (the `#[derive(Event)]`
/// default), [`EntityTrigger`] (the `#[derive(EntityEvent)]` default),
/// [`PropagateEntityTrigger`] (`#[entity_event(propagate)]`) and
/// [`EntityComponentsTrigger`] (the lifecycle events). User-defined
/// triggers are not supported, unlike bevy: the dispatch of each trigger
/// reaches into the observer registry, which is private.
pub trait Trigger<E: Event>: sealed::Sealed<E> {}

/// The trigger of a plain [`Event`]: it runs every global observer of the
/// event. It carries no data.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GlobalTrigger;

impl<E: for<'a> Event<Trigger<'a> = Self>> sealed::Sealed<E> for GlobalTrigger {
    fn dispatch(&mut self, world: &mut World, event: &mut E) {
        run_global_observers(world, event, self);
    }
}
impl<E: for<'a> Event<Trigger<'a> = Self>> Trigger<E> for GlobalTrigger {}

/// The trigger of an [`EntityEvent`]: it runs the global observers of the
/// event, then those watching its [`event_target`](EntityEvent::event_target).
/// It carries no data.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct EntityTrigger;

impl<E: EntityEvent + for<'a> Event<Trigger<'a> = Self>> sealed::Sealed<E> for EntityTrigger {
    fn dispatch(&mut self, world: &mut World, event: &mut E) {
        let target = event.event_target();
        warn_if_missing::<E>(world, target);
        run_entity_observers(world, event, self, target);
    }
}

/// Logs a warning when an entity event targets an entity that does not
/// exist: its global observers still run, and no entity observer can.
fn warn_if_missing<E>(world: &World, target: Entity) {
    if world.get_entity(target).is_err() {
        log::warn!(
            "entity event `{}` was triggered on {target:?}, which does not exist: only its global observers run",
            std::any::type_name::<E>()
        );
    }
}
impl<E: EntityEvent + for<'a> Event<Trigger<'a> = Self>> Trigger<E> for EntityTrigger {}

/// The trigger of a propagating [`EntityEvent`]
/// (`#[entity_event(propagate = T)]`): it runs the observers of the target
/// like [`EntityTrigger`], then, while [`propagate`](Self::propagate) is
/// set, moves the event to the entity the [`Traversal`] `T` names from the
/// current one, and runs that entity's observers (global ones included),
/// until the traversal names none.
///
/// With `AUTO_PROPAGATE` (`#[entity_event(auto_propagate)]`) each trigger
/// starts with `propagate` set. Cycles in the traversal are not detected:
/// an observer that keeps propagating around one never returns.
pub struct PropagateEntityTrigger<const AUTO_PROPAGATE: bool, E: EntityEvent, T: Traversal<E>> {
    /// The entity the event first targeted, before propagation moved it.
    pub original_event_target: Entity,
    /// Whether the event moves on to the next entity once the observers of
    /// the current one ran.
    pub propagate: bool,
    marker: PhantomData<fn() -> (E, T)>,
}

impl<const AUTO_PROPAGATE: bool, E: EntityEvent, T: Traversal<E>> Default
    for PropagateEntityTrigger<AUTO_PROPAGATE, E, T>
{
    fn default() -> Self {
        PropagateEntityTrigger {
            original_event_target: Entity::PLACEHOLDER,
            propagate: AUTO_PROPAGATE,
            marker: PhantomData,
        }
    }
}

impl<const AUTO_PROPAGATE: bool, E: EntityEvent, T: Traversal<E>> fmt::Debug
    for PropagateEntityTrigger<AUTO_PROPAGATE, E, T>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PropagateEntityTrigger")
            .field("original_event_target", &self.original_event_target)
            .field("propagate", &self.propagate)
            .finish()
    }
}

impl<const AUTO_PROPAGATE: bool, E, T> sealed::Sealed<E>
    for PropagateEntityTrigger<AUTO_PROPAGATE, E, T>
where
    E: EntityEvent + SetEntityEventTarget + for<'a> Event<Trigger<'a> = Self>,
    T: Traversal<E>,
{
    fn dispatch(&mut self, world: &mut World, event: &mut E) {
        let mut current = event.event_target();
        self.original_event_target = current;
        warn_if_missing::<E>(world, current);
        run_entity_observers(world, event, self, current);
        // Built on the first step only: most triggers never propagate.
        let mut traversal: Option<QueryState<T>> = None;
        while self.propagate {
            let state = traversal.get_or_insert_with(|| QueryState::new(world));
            let Some(next) = state
                .get(world, current)
                .ok()
                .and_then(|item| T::traverse(item, event))
            else {
                break;
            };
            current = next;
            event.set_event_target(current);
            run_entity_observers(world, event, self, current);
        }
    }
}
impl<const AUTO_PROPAGATE: bool, E, T> Trigger<E> for PropagateEntityTrigger<AUTO_PROPAGATE, E, T>
where
    E: EntityEvent + SetEntityEventTarget + for<'a> Event<Trigger<'a> = Self>,
    T: Traversal<E>,
{
}

/// The trigger of the lifecycle events ([`AddEvent`](crate::lifecycle::AddEvent)
/// and its siblings): the components of the operation that fired it.
///
/// Bevy also gives the entity's old and new archetype here; this trigger
/// does not, because the operations fire from several places that do not
/// all keep both archetypes at hand.
///
/// It has no `Default` (bevy's has), so `world.trigger` does not accept a
/// lifecycle event: a lifecycle event fired by hand with no component would
/// reach no lifecycle observer, which is never what was meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityComponentsTrigger<'a> {
    /// Every component of the operation that this event fired for, whether
    /// the observer watches it or not: spawning `(A, B, C)` gives all three
    /// to an observer of `Add<(A, B)>`, which runs once.
    pub components: &'a [ComponentId],
}

impl<'a, E> sealed::Sealed<E> for EntityComponentsTrigger<'a>
where
    E: EntityEvent + Event<Trigger<'a> = EntityComponentsTrigger<'a>>,
{
    fn dispatch(&mut self, world: &mut World, event: &mut E) {
        run_lifecycle_or_entity_observers(world, event, self);
    }
}
impl<'a, E> Trigger<E> for EntityComponentsTrigger<'a> where
    E: EntityEvent + Event<Trigger<'a> = EntityComponentsTrigger<'a>>
{
}
