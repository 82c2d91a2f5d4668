//! Observers: systems that run when an event happens, right where it
//! happens.
//!
//! Lifecycle events ([`Add`], [`Insert`], [`Discard`], [`Remove`],
//! [`Despawn`]) fire for the components named in `On<E, B>` as entities
//! gain or lose them ([`lifecycle`](crate::lifecycle) says when each
//! fires, and in what order); custom events fire with
//! [`World::trigger`](crate::world::World::trigger) or
//! [`Commands::trigger`](crate::system::Commands::trigger). An observer is
//! itself an entity (holding an [`ObserverState`]): despawn it to remove
//! it. Like hooks, observers cannot change archetypes directly; their
//! commands apply right after the operation that fired them.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Player;
//! #[derive(Resource, Default)]
//! struct Joined(u32);
//!
//! let mut world = World::new();
//! world.init_resource::<Joined>();
//! world.add_observer(|_: On<Add, Player>, mut joined: ResMut<Joined>| joined.0 += 1);
//! world.spawn(Player);
//! world.spawn(Player);
//! assert_eq!(world.resource::<Joined>().0, 2);
//! ```

mod runner;

pub use ecs_macros::Event;

pub(crate) use runner::{trigger_lifecycle, Observers};
pub use runner::{BoxedObserver, IntoObserver, ObservedBy, ObserverFunction, ObserverState};

use std::{marker::PhantomData, ops::Deref};

use crate::{archetype::ArchetypeFlags, bundle::Bundle, component::ComponentId, entity::Entity};

/// Something that observers can watch.
///
/// Derive it with `#[derive(Event)]` for custom events.
pub trait Event: Send + Sync + 'static {
    /// The lifecycle kind, for the built-in lifecycle events.
    #[doc(hidden)]
    const LIFECYCLE: Option<Lifecycle> = None;
}

/// The kinds of lifecycle events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    /// The entity gained the component.
    Add,
    /// A value of the component was inserted (new or replacing).
    Insert,
    /// A value of the component is about to be replaced or removed.
    Discard,
    /// The component is about to be removed.
    Remove,
    /// The entity is about to be despawned.
    Despawn,
}

impl Lifecycle {
    #[inline]
    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// The archetype flags of hooks and of observers of this kind.
    #[inline]
    pub(crate) fn flags(self) -> (ArchetypeFlags, ArchetypeFlags) {
        match self {
            Lifecycle::Add => (ArchetypeFlags::ON_ADD_HOOK, ArchetypeFlags::ON_ADD_OBSERVER),
            Lifecycle::Insert => (
                ArchetypeFlags::ON_INSERT_HOOK,
                ArchetypeFlags::ON_INSERT_OBSERVER,
            ),
            Lifecycle::Discard => (
                ArchetypeFlags::ON_DISCARD_HOOK,
                ArchetypeFlags::ON_DISCARD_OBSERVER,
            ),
            Lifecycle::Remove => (
                ArchetypeFlags::ON_REMOVE_HOOK,
                ArchetypeFlags::ON_REMOVE_OBSERVER,
            ),
            Lifecycle::Despawn => (
                ArchetypeFlags::ON_DESPAWN_HOOK,
                ArchetypeFlags::ON_DESPAWN_OBSERVER,
            ),
        }
    }

    /// Both flags of this kind.
    #[inline]
    pub(crate) fn any_flags(self) -> ArchetypeFlags {
        let (hook, observer) = self.flags();
        hook | observer
    }

    /// The type of the built-in event of this kind.
    pub(crate) fn event_type(self) -> std::any::TypeId {
        use std::any::TypeId;
        match self {
            Lifecycle::Add => TypeId::of::<Add>(),
            Lifecycle::Insert => TypeId::of::<Insert>(),
            Lifecycle::Discard => TypeId::of::<Discard>(),
            Lifecycle::Remove => TypeId::of::<Remove>(),
            Lifecycle::Despawn => TypeId::of::<Despawn>(),
        }
    }
}

macro_rules! lifecycle_event {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct $name;

        impl Event for $name {
            const LIFECYCLE: Option<Lifecycle> = Some(Lifecycle::$name);
        }
    };
}

lifecycle_event!(
    Add,
    "The watched component was added to an entity that did not have it."
);
lifecycle_event!(
    Insert,
    "A value of the watched component was inserted (new or replacing one)."
);
lifecycle_event!(
    Discard,
    "A value of the watched component is about to be replaced or removed."
);
/// The old name of [`Discard`].
#[deprecated(note = "renamed to Discard, as in bevy 0.20")]
pub type Replace = Discard;

lifecycle_event!(
    Remove,
    "The watched component is about to be removed from an entity."
);
lifecycle_event!(
    Despawn,
    "An entity with the watched component is about to be despawned."
);

/// The first parameter of an observer: the event, and the entity it
/// targets.
///
/// `B` names the components a lifecycle observer watches
/// (`On<Add, Player>`, `On<Remove, (Enemy, Boss)>`); custom events leave it
/// `()`.
pub struct On<'w, E: Event, B: Bundle = ()> {
    event: &'w E,
    entity: Entity,
    component: Option<ComponentId>,
    observer: Entity,
    marker: PhantomData<fn() -> B>,
}

impl<'w, E: Event, B: Bundle> On<'w, E, B> {
    pub(crate) fn new(
        event: &'w E,
        entity: Entity,
        component: Option<ComponentId>,
        observer: Entity,
    ) -> Self {
        On {
            event,
            entity,
            component,
            observer,
            marker: PhantomData,
        }
    }

    /// The event.
    #[inline]
    pub fn event(&self) -> &'w E {
        self.event
    }

    /// The target entity: for lifecycle events, the entity whose component
    /// changed; for a custom event, the entity it was triggered for, or
    /// [`Entity::PLACEHOLDER`] when untargeted.
    #[inline]
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// For lifecycle events, the component concerned.
    #[inline]
    pub fn component(&self) -> Option<ComponentId> {
        self.component
    }

    /// The observer's own entity.
    #[inline]
    pub fn observer(&self) -> Entity {
        self.observer
    }
}

impl<E: Event, B: Bundle> Deref for On<'_, E, B> {
    type Target = E;
    fn deref(&self) -> &E {
        self.event
    }
}

impl<E: Event + std::fmt::Debug, B: Bundle> std::fmt::Debug for On<'_, E, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("On")
            .field("event", self.event)
            .field("entity", &self.entity)
            .finish()
    }
}

#[cfg(test)]
mod state_tests;
#[cfg(test)]
mod tests;
