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
//!   On<Add<Player>>    pattern → event AddEvent,  trigger EntityComponentsTrigger
//!                                components Player
//! ```
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

pub use ecs_macros::Event;

use crate::{bundle::Bundle, component::ComponentId};

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

mod sealed {
    pub trait Sealed {}
}

/// How an [`Event`] is triggered, and the data each trigger carries to
/// its observers.
///
/// The implementations are [`GlobalTrigger`] (the `#[derive(Event)]`
/// default) and [`EntityComponentsTrigger`] (the lifecycle events).
/// User-defined triggers are not supported, unlike bevy: the runtime
/// dispatches every trigger itself, so a trigger carries data but no
/// dispatch logic to implement.
pub trait Trigger<E: Event>: sealed::Sealed {}

/// The trigger of a custom event: it runs every observer of the event (and,
/// for [`World::trigger_targets`](crate::world::World::trigger_targets),
/// the observers of the target entity). It carries no data.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GlobalTrigger;

impl sealed::Sealed for GlobalTrigger {}
impl<E: Event> Trigger<E> for GlobalTrigger {}

/// The trigger of the lifecycle events ([`AddEvent`](crate::lifecycle::AddEvent)
/// and its siblings): the components of the operation that fired it.
///
/// Bevy also gives the entity's old and new archetype here; this trigger
/// does not, because the operations fire from several places that do not
/// all keep both archetypes at hand.
///
/// It has no `Default`, so `world.trigger` does not accept a lifecycle
/// event: only the world fires them, as components come and go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntityComponentsTrigger<'a> {
    /// Every component of the operation that this event fired for, whether
    /// the observer watches it or not: spawning `(A, B, C)` gives all three
    /// to an observer of `Add<(A, B)>`, which runs once.
    pub components: &'a [ComponentId],
}

impl sealed::Sealed for EntityComponentsTrigger<'_> {}
impl<E: Event> Trigger<E> for EntityComponentsTrigger<'_> {}
