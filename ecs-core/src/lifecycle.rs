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
//!    `On<Add, Player>`.
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
//! For each event, the hooks of every component concerned run first, then
//! the observers of each component.
//! [`World::clear_entities`](crate::world::World::clear_entities) fires
//! none of them.
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
//! world.add_observer(|_: On<Insert, Health>, mut log: ResMut<Log>| log.0.push("Insert"));
//! world.add_observer(|_: On<Discard, Health>, mut log: ResMut<Log>| log.0.push("Discard"));
//! world.add_observer(|_: On<Remove, Health>, mut log: ResMut<Log>| log.0.push("Remove"));
//! world.add_observer(|_: On<Despawn, Health>, mut log: ResMut<Log>| log.0.push("Despawn"));
//!
//! let e = world.spawn(Health(3)).id();
//! assert_eq!(std::mem::take(&mut world.resource_mut::<Log>().0), ["on_add", "Insert"]);
//! world.entity_mut(e).insert(Health(2));
//! assert_eq!(
//!     std::mem::take(&mut world.resource_mut::<Log>().0),
//!     ["on_discard", "Discard", "Insert"]
//! );
//! world.despawn(e);
//! assert_eq!(
//!     std::mem::take(&mut world.resource_mut::<Log>().0),
//!     ["Despawn", "on_discard", "Discard", "Remove"]
//! );
//! ```

#[doc(inline)]
pub use crate::component::{ComponentHook, ComponentHooks, HookContext};
#[doc(inline)]
pub use crate::observer::{Add, Despawn, Discard, Insert, Remove};
