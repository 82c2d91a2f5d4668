//! Events: what observers watch, and how a trigger reaches them.
//!
//! An [`Event`] is a value that observers react to, right where it is
//! triggered. An observer names an [`EventPattern`] as its first parameter
//! (`On<P>`): a plain event type watches every trigger of that event, and
//! a lifecycle pattern ([`Add<Player>`](crate::lifecycle::Add)) watches an
//! event for some components. Each event names its [`Trigger`]: the data
//! that comes with a trigger, read with
//! [`On::trigger`](crate::observer::On::trigger).
//!
//! ```text
//!   On<Explode>        pattern = event Explode,   trigger GlobalTrigger
//!   On<Hit>            pattern = event Hit,       trigger EntityTrigger       (EntityEvent)
//!   On<Click>          pattern = event Click,     trigger PropagateEntityTrigger
//!   On<Add<Player>>    pattern → event AddEvent,  trigger EntityComponentsTrigger
//!                                components Player
//! ```
//!
//! An [`EntityEvent`] names a target entity: triggering it runs the global
//! observers of the event and the observers watching that entity
//! ([`EntityWorldMut::observe`](crate::world::EntityWorldMut::observe)); a
//! propagating one then moves on along a [`Traversal`](crate::traversal::Traversal).
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Event)]
//! struct Explode {
//!     radius: f32,
//! }
//!
//! #[derive(Resource, Default)]
//! struct Craters(Vec<f32>);
//!
//! let mut world = World::new();
//! world.init_resource::<Craters>();
//! world.add_observer(|ev: On<Explode>, mut craters: ResMut<Craters>| craters.0.push(ev.radius));
//! world.trigger(Explode { radius: 2.0 });
//! assert_eq!(world.resource::<Craters>().0, [2.0]);
//! ```

pub use ecs_macros::{EntityEvent, Event};

mod trigger;

pub(crate) use trigger::sealed::Sealed;
pub use trigger::{
    EntityComponentsTrigger, EntityTrigger, GlobalTrigger, PropagateEntityTrigger, Trigger,
};

use crate::{bundle::Bundle, entity::Entity};

// The world triggers it after its periodic tick check; defined beside the
// ticks, an event here.
impl Event for crate::change_detection::CheckChangeTicks {
    type Trigger<'a> = GlobalTrigger;
}

/// Something that observers can watch, triggered with
/// [`World::trigger`](crate::world::World::trigger) or
/// [`Commands::trigger`](crate::system::Commands::trigger).
///
/// Derive it with `#[derive(Event)]`, which sets
/// [`Trigger`](Event::Trigger) to [`GlobalTrigger`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `Event`",
    label = "invalid `Event`",
    note = "consider annotating `{Self}` with `#[derive(Event)]`"
)]
pub trait Event: Send + Sync + Sized + 'static {
    /// The data that comes with each trigger of this event, read with
    /// [`On::trigger`](crate::observer::On::trigger).
    type Trigger<'a>: Trigger<Self>;
}

/// What an observer's `On<P>` watches: an [`Event`], and for lifecycle
/// events the components concerned.
///
/// Every [`Event`] is a pattern of itself (watching no component); the
/// lifecycle patterns ([`Add`](crate::lifecycle::Add),
/// [`Insert`](crate::lifecycle::Insert), ...) name components. The
/// components of a pattern are an OR filter: `Add<(A, B)>` fires when `A`
/// or `B` (or both) is added, once per operation.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `Event` or `EventPattern`",
    label = "invalid `EventPattern`",
    note = "consider annotating `{Self}` with `#[derive(Event)]`, or name a lifecycle pattern such as `Add<{Self}>`"
)]
pub trait EventPattern: Send + Sync + 'static {
    /// The event the observer receives.
    type Event: Event;
    /// The components watched (`()` for a custom event).
    type Components: Bundle;
}

impl<E: Event> EventPattern for E {
    type Event = Self;
    type Components = ();
}

/// The trigger type of the event of pattern `P`.
pub type EventPatternTrigger<'a, P> = <<P as EventPattern>::Event as Event>::Trigger<'a>;

/// An [`Event`] aimed at one entity, its [`event_target`](EntityEvent::event_target).
///
/// Triggering it runs the event's global observers and then the observers
/// that watch the target ([`EntityWorldMut::observe`](crate::world::EntityWorldMut::observe),
/// [`Observer::with_entity`](crate::observer::Observer::with_entity)).
/// Derive it: the target is the field named `entity`, the field marked
/// `#[event_target]`, or the only field of a tuple struct.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(EntityEvent)]
/// struct Hit {
///     entity: Entity,
///     damage: u32,
/// }
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let knight = world.spawn(Health(10)).id();
/// world.entity_mut(knight).observe(|hit: On<Hit>, mut health: Query<&mut Health>| {
///     health.get_mut(hit.entity).unwrap().0 -= hit.damage;
/// });
/// world.trigger(Hit { entity: knight, damage: 3 });
/// assert_eq!(world.get::<Health>(knight).unwrap().0, 7);
/// ```
///
/// `#[entity_event(propagate = T)]` makes the event move on after the
/// observers of each entity ran, to the entity the [`Traversal`](crate::traversal::Traversal)
/// `T` names, while an observer asks for it with
/// [`On::propagate`](crate::observer::On::propagate)
/// (`#[entity_event(auto_propagate)]` asks by default). The trigger is then
/// [`PropagateEntityTrigger`], and the derive also implements
/// [`SetEntityEventTarget`].
///
/// A target that does not exist (despawned) has no observers watching it:
/// only the global observers run, and nothing is reported, as in bevy.
pub trait EntityEvent: Event {
    /// The entity this event targets (the current one, while it propagates).
    fn event_target(&self) -> Entity;
}

/// An [`EntityEvent`] whose target can be changed: propagation moves the
/// event along by setting its target to each next entity.
pub trait SetEntityEventTarget: EntityEvent {
    /// Sets the target.
    fn set_event_target(&mut self, entity: Entity);
}
