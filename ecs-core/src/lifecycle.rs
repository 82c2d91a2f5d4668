//! Reacting to components being added, overwritten and removed, and to
//! entities being despawned.
//!
//! Two mechanisms watch an entity's lifecycle:
//!
//! 1. **Hooks** ([`ComponentHooks`]): at most one plain function of each
//!    kind per component type, set with `#[component(on_add = ..)]` and its
//!    siblings or with
//!    [`World::register_component_hooks`](crate::world::World::register_component_hooks).
//!    They are the component's own constructors and destructors: keeping
//!    an index in sync, releasing what the value holds.
//! 2. **Observers** ([`observer`](crate::observer)): any number of systems
//!    watching a lifecycle event for some components, written
//!    `On<Add<Player>>`: a pattern ([`Add`]) naming the components, whose
//!    event ([`AddEvent`]) names the entity.
//!
//! Both get a [`DeferredWorld`](crate::world::DeferredWorld): they read and
//! write values and resources, and queue commands, but cannot change
//! archetypes directly. Their commands apply right after the operation that
//! fired them.
//!
//! # The lifecycle events
//!
//! | event | hook | fires | the value is |
//! |---|---|---|---|
//! | [`Add`] | `on_add` | when the entity gains a component it did not have | in place |
//! | [`Insert`] | `on_insert` | on every insert, new or overwriting | in place |
//! | [`Discard`] | `on_discard` | before a value is overwritten or removed | still there |
//! | [`Remove`] | `on_remove` | before the component is removed | still there |
//! | [`Despawn`] | `on_despawn` | before the entity is despawned | still there |
//!
//! [`Add`] and [`Remove`] are counterparts: they fire only when the entity
//! gains or loses the component. [`Insert`] and [`Discard`] are
//! counterparts too: they fire for every value written and every value let
//! go, so the pair of them sees each value of the component come and go.
//! An insert that keeps the existing value
//! ([`insert_if_new`](crate::world::EntityWorldMut::insert_if_new)) fires
//! neither for a component the entity already has.
//!
//! # The order they fire in
//!
//! Within one operation:
//!
//! - inserting: [`Discard`] for the components the entity already has
//!   (before the old values are overwritten), then, with the new values in
//!   place, [`Add`] for the components it did not have, then [`Insert`] for
//!   all of them;
//! - removing: [`Discard`], then [`Remove`], before the values go;
//! - despawning: [`Despawn`], then [`Discard`], then [`Remove`], for every
//!   component of the entity, before anything is dropped.
//!
//! For [`Add`] and [`Insert`], the hooks of every component concerned run
//! first, then the observers of each component; for [`Discard`],
//! [`Remove`] and [`Despawn`], the observers first, then the hooks, as in
//! bevy, so an observer of a removal still sees what the hooks maintain
//! (the parent's `Children` listing the child whose `ChildOf` goes).
//! `modify_component` runs its `Discard` hook before the observers, as
//! bevy's does. An observer of several components
//! (`On<Remove<(A, B)>>`) runs once per event, at the first of its
//! components, and its [`EntityComponentsTrigger`] lists every component
//! of the event.
//! [`World::clear_entities`](crate::world::World::clear_entities) fires
//! none of them.
//!
//! # When one panics
//!
//! A hook or observer that panics stops neither the others nor the
//! operation: the remaining hooks and observers of the operation run, the
//! values are written, moved or dropped, and then the first panic goes on.
//! So a caught panic never leaves half an operation behind: an entity
//! despawned by a call that panicked is gone, and what hooks keep in step
//! (both ends of a [relationship](crate::relationship), an index) sees the
//! whole operation. The commands they queued wait in the world's queue for
//! its next flush.
//!
//! ```
//! use ecs::lifecycle::HookContext;
//! use ecs::prelude::*;
//! use ecs::world::DeferredWorld;
//!
//! #[derive(Resource, Default)]
//! struct Log(Vec<&'static str>);
//!
//! #[derive(Component)]
//! #[component(on_add = added, on_discard = discarded)]
//! struct Health(u32);
//!
//! fn added(mut world: DeferredWorld, _: HookContext) {
//!     world.resource_mut::<Log>().0.push("on_add");
//! }
//! fn discarded(mut world: DeferredWorld, _: HookContext) {
//!     world.resource_mut::<Log>().0.push("on_discard");
//! }
//!
//! let mut world = World::new();
//! world.init_resource::<Log>();
//! world.add_observer(|_: On<Insert<Health>>, mut log: ResMut<Log>| log.0.push("Insert"));
//! world.add_observer(|_: On<Discard<Health>>, mut log: ResMut<Log>| log.0.push("Discard"));
//! world.add_observer(|_: On<Remove<Health>>, mut log: ResMut<Log>| log.0.push("Remove"));
//! world.add_observer(|_: On<Despawn<Health>>, mut log: ResMut<Log>| log.0.push("Despawn"));
//!
//! let e = world.spawn(Health(3)).id();
//! assert_eq!(std::mem::take(&mut world.resource_mut::<Log>().0), ["on_add", "Insert"]);
//! world.entity_mut(e).insert(Health(2));
//! assert_eq!(
//!     std::mem::take(&mut world.resource_mut::<Log>().0),
//!     ["Discard", "on_discard", "Insert"]
//! );
//! world.despawn(e);
//! assert_eq!(
//!     std::mem::take(&mut world.resource_mut::<Log>().0),
//!     ["Despawn", "Discard", "on_discard", "Remove"]
//! );
//! ```
//!
//! # Removal detection
//!
//! [`RemovedComponents<T>`] reads, like a message reader, the entities that
//! lost `T` by `remove`, `take` or despawn.
//!
//! A component's removals are recorded only once something asks for them:
//! a [`RemovedComponents<T>`] parameter (or the
//! [`any_component_removed`](crate::schedule::common_conditions::any_component_removed)
//! condition) when its system is initialised, or
//! [`World::track_removals`](crate::world::World::track_removals). A world where nobody watches removals pays
//! one flag test per remove or despawn and keeps nothing; a watched
//! component's archetypes take the lifecycle path, which writes one
//! message per removed component.
//!
//! The messages are double-buffered like [`Messages`](crate::message::Messages):
//! [`World::clear_trackers`](crate::world::World::clear_trackers) updates them, so call it once per frame. A
//! reader that runs at least once between two `clear_trackers` sees every
//! removal exactly once.
//!
//! ```
//! use ecs::lifecycle::RemovedComponents;
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Burning;
//! #[derive(Resource, Default)]
//! struct Extinguished(Vec<Entity>);
//!
//! fn note(mut removed: RemovedComponents<Burning>, mut out: ResMut<Extinguished>) {
//!     out.0.extend(removed.read());
//! }
//!
//! let mut world = World::new();
//! world.init_resource::<Extinguished>();
//! let mut schedule = Schedule::default();
//! schedule.add_systems(note);
//! schedule.run(&mut world); // initialises `note`: `Burning` is tracked from here
//!
//! let a = world.spawn(Burning).id();
//! let b = world.spawn(Burning).id();
//! world.entity_mut(a).remove::<Burning>();
//! world.despawn(b);
//! schedule.run(&mut world);
//! assert_eq!(world.resource::<Extinguished>().0, [a, b]);
//! world.clear_trackers();
//! ```

#[doc(inline)]
pub use crate::component::{ComponentHook, ComponentHooks, HookContext};

mod removed;
pub use removed::{
    RemovedComponentEntity, RemovedComponentMessages, RemovedComponents, RemovedIter,
    RemovedIterWithId,
};

use std::{any::TypeId, marker::PhantomData};

use crate::{
    archetype::ArchetypeFlags,
    bundle::Bundle,
    entity::Entity,
    event::{EntityComponentsTrigger, Event, EventPattern},
};

/// The kinds of lifecycle events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lifecycle {
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

    /// The kind whose built-in event has type `event`, if any.
    pub(crate) fn of_event(event: TypeId) -> Option<Lifecycle> {
        [
            (TypeId::of::<AddEvent>(), Lifecycle::Add),
            (TypeId::of::<InsertEvent>(), Lifecycle::Insert),
            (TypeId::of::<DiscardEvent>(), Lifecycle::Discard),
            (TypeId::of::<RemoveEvent>(), Lifecycle::Remove),
            (TypeId::of::<DespawnEvent>(), Lifecycle::Despawn),
        ]
        .into_iter()
        .find(|&(id, _)| id == event)
        .map(|(_, kind)| kind)
    }
}

macro_rules! lifecycle_event {
    ($pattern:ident, $event:ident, $alias:literal, $what:literal, $entity:literal) => {
        #[doc = concat!("The event of [`", stringify!($pattern), "`]: ", $what)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $event {
            #[doc = $entity]
            pub entity: Entity,
        }

        impl Event for $event {
            type Trigger<'a> = EntityComponentsTrigger<'a>;
        }

        #[doc = concat!("Watches [`", stringify!($event), "`] for the components of `B`: ", $what)]
        ///
        /// The components are an OR filter: a pattern of `(A, B)` fires when
        /// either is concerned, once per operation (the [module docs](self)
        /// say when, and in what order).
        #[doc(alias = $alias)]
        pub struct $pattern<B: Bundle>(PhantomData<fn() -> B>);

        impl<B: Bundle> EventPattern for $pattern<B> {
            type Event = $event;
            type Components = B;
        }
    };
}

lifecycle_event!(
    Add,
    AddEvent,
    "OnAdd",
    "a component was added to an entity that did not have it.",
    "The entity that gained the component."
);
lifecycle_event!(
    Insert,
    InsertEvent,
    "OnInsert",
    "a value of a component was inserted (new or replacing one).",
    "The entity the value was inserted into."
);
lifecycle_event!(
    Discard,
    DiscardEvent,
    "OnDiscard",
    "a value of a component is about to be replaced or removed.",
    "The entity that holds the value still."
);
lifecycle_event!(
    Remove,
    RemoveEvent,
    "OnRemove",
    "a component is about to be removed from an entity.",
    "The entity losing the component."
);
lifecycle_event!(
    Despawn,
    DespawnEvent,
    "OnDespawn",
    "an entity with the component is about to be despawned.",
    "The entity being despawned."
);

/// The pattern [`Discard`] under its former name.
#[deprecated(note = "use Discard, as in bevy 0.20")]
pub type Replace<B> = Discard<B>;
