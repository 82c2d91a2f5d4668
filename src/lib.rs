//! A typed, proc-macro-driven entity-component-system, shaped like
//! bevy_ecs: derive your components, write systems as plain functions of
//! queries and resources, and run them in a parallel schedule. Start with
//! `use ecs::prelude::*;`. What this crate pursues, in order:
//!
//! 1. **Soundness**: every value lives in exactly one place and is dropped
//!    exactly once; the test suite runs under Miri.
//! 2. **Fast traversal and structural change**: struct-of-arrays tables,
//!    per-component sparse sets, and cached archetype edges so that insert
//!    and remove allocate and hash nothing after warm-up.
//! 3. **A bevy-shaped interface**: a bevy_ecs user ports code by changing
//!    the `use` line.
//!
//! # A first program
//!
//! Components and resources are plain types with a derive; systems are
//! plain functions whose parameters say what they read and write; a
//! [`Schedule`](schedule::Schedule) runs them, in parallel where their
//! access allows and in a fixed order where it does not.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Component, Debug, PartialEq)]
//! struct Position { x: f32, y: f32 }
//! #[derive(Component)]
//! struct Velocity { x: f32, y: f32 }
//! /// Comes and goes often: a sparse set makes that cheap.
//! #[derive(Component)]
//! #[component(storage = "SparseSet")]
//! struct Frozen;
//!
//! #[derive(Resource)]
//! struct Time { delta: f32 }
//! #[derive(Resource, Default)]
//! struct Moved(usize);
//!
//! fn movement(mut query: Query<(&mut Position, &Velocity), Without<Frozen>>, time: Res<Time>) {
//!     for (mut p, v) in &mut query {
//!         p.x += v.x * time.delta;
//!         p.y += v.y * time.delta;
//!     }
//! }
//!
//! /// Counts the positions written since this system last ran.
//! fn report(moved: Query<Entity, Changed<Position>>, mut count: ResMut<Moved>) {
//!     count.0 = moved.iter().count();
//! }
//!
//! /// Structural changes from a system are queued as commands.
//! fn thaw(mut commands: Commands, frozen: Query<Entity, With<Frozen>>) {
//!     for e in &frozen {
//!         commands.entity(e).remove::<Frozen>();
//!     }
//! }
//!
//! let mut world = World::new();
//! world.insert_resource(Time { delta: 0.5 });
//! world.init_resource::<Moved>();
//! let a = world.spawn((Position { x: 0.0, y: 0.0 }, Velocity { x: 2.0, y: 0.0 })).id();
//! let b = world.spawn((Position { x: 0.0, y: 0.0 }, Velocity { x: 2.0, y: 0.0 }, Frozen)).id();
//! world.spawn(Position { x: 9.0, y: 9.0 }); // never moves
//!
//! let mut schedule = Schedule::default();
//! schedule.add_systems((movement, report.after(movement), thaw.after(movement)));
//!
//! schedule.run(&mut world); // a moves; b is frozen, and thawed at the end of the run
//! assert_eq!(world.resource::<Moved>().0, 3); // a first run sees every value as new
//! schedule.run(&mut world); // a and b move
//! assert_eq!(world.resource::<Moved>().0, 2);
//!
//! assert_eq!(world.get::<Position>(a), Some(&Position { x: 2.0, y: 0.0 }));
//! assert_eq!(world.get::<Position>(b), Some(&Position { x: 1.0, y: 0.0 }));
//! ```
//!
//! The same data can be reached without systems: [`World::spawn`](world::World::spawn),
//! [`World::get_mut`](world::World::get_mut),
//! [`World::query`](world::World::query) and
//! [`EntityWorldMut::insert`](world::EntityWorldMut::insert) work on a
//! `&mut World` directly.
//!
//! # How the data is laid out
//!
//! ```text
//!  Entity 7v2
//!    │  Entities[7], generation checked
//!    ▼
//!  EntityLocation { archetype 2, archetype row 0, table 1, table row 1 }
//!                   │                             │
//!                   ▼                             ▼
//!  Archetype 2 {Position, Velocity, Frozen*}  ─▶  Table 1 {Position, Velocity}
//!    entities: [(7v2, table row 1), ..]            row 1: 7v2's Position and Velocity
//!    edges: bundle id ─▶ next archetype            (a column per component, with ticks)
//!
//!  ComponentSparseSet of Frozen*:  sparse[7] ─▶ dense row ─▶ 7v2's Frozen (with ticks)
//!  (* sparse-set component)
//! ```
//!
//! An [`Entity`](entity::Entity) is a generational index; its location
//! names its [`archetype`] (the set of its component types) and its row in
//! a [`storage`] table, where each table component has a column. Sparse-set
//! components live in one sparse set per component instead. Each archetype
//! caches where inserting or removing a bundle leads, and each
//! [`QueryState`](query::QueryState) caches the archetypes and tables it
//! matches, so the hot paths are lookups and slice loops. The module docs
//! of [`archetype`], [`storage`] and [`query`] explain each part with
//! diagrams.
//!
//! # Map of the crate
//!
//! Items sit at the module paths bevy_ecs gives them (for example
//! `ecs::world::CommandQueue`, `ecs::lifecycle::HookContext`,
//! `ecs::change_detection::Res`), so a port changes only the crate name
//! in its `use` lines. From the data up to the scheduling:
//!
//! - [`entity`]: [`Entity`](entity::Entity) handles (index and generation)
//!   and the allocator that maps each live one to its location.
//! - [`component`]: the [`Component`](component::Component) trait, storage
//!   types, component ids and their registry, hooks, required components.
//! - [`change_detection`]: ticks, and [`Mut`](change_detection::Mut) and
//!   [`Ref`](change_detection::Ref), which record and report changes.
//! - [`storage`]: type-erased values: struct-of-arrays tables, sparse sets,
//!   resources.
//! - [`archetype`]: component sets, the tables they map to, their cached
//!   edges, and the component index queries search.
//! - [`bundle`]: [`Bundle`](bundle::Bundle), components spawned, inserted
//!   and removed as one group.
//! - [`query`]: [`QueryState`](query::QueryState), query data and filters,
//!   the dense and archetype iteration cursors, parallel iteration.
//! - [`world`]: the [`World`](world::World) that owns all of the above,
//!   entity handles, structural changes, resources.
//! - [`diagnostics`]: reading a world's shape: inspection summaries, the
//!   archetype graph, fragmentation warnings, integrity checks.
//! - [`resource`]: the [`Resource`](resource::Resource) trait for
//!   world-global singletons.
//! - [`system`]: systems as functions of [`SystemParam`](system::SystemParam)s
//!   ([`Query`](system::Query), [`Res`](system::Res),
//!   [`ResMut`](system::ResMut), [`Local`](system::Local),
//!   [`Commands`](system::Commands)).
//! - [`schedule`]: [`Schedule`](schedule::Schedule), which orders systems
//!   and runs those that do not conflict in parallel; schedule labels,
//!   system sets and run conditions.
//! - [`error`]: fallible systems, observers and commands: [`Result`](error::Result),
//!   [`BevyError`](error::BevyError) and the world's error handler.
//! - [`lifecycle`]: the lifecycle events of components and entities, the
//!   component hooks that run on them, and the order they fire in.
//! - [`event`]: the [`Event`](event::Event) and
//!   [`EventPattern`](event::EventPattern) traits observers watch, and the
//!   data a trigger carries.
//! - [`observer`]: lifecycle, custom and entity events, and the observers
//!   that run when they fire; [`traversal`]: the paths entity events
//!   propagate along.
//! - [`message`]: buffered messages between systems
//!   ([`MessageWriter`](message::MessageWriter),
//!   [`MessageReader`](message::MessageReader)).
//! - [`relationship`], [`hierarchy`] and [`spawn`]: entities linked to
//!   entities ([`ChildOf`](hierarchy::ChildOf) and
//!   [`Children`](hierarchy::Children), custom relationships), kept
//!   consistent by hooks, and bundles that spawn related entities.
//! - [`relation`]: many-to-many relations ([`Targets`](relation::Targets)
//!   and [`Sources`](relation::Sources) of a [`Relation`](relation::Relation)
//!   kind), exclusive and symmetric flavours, and the
//!   [`Related`](relation::Related) query parameter.
//! - [`prelude`]: the types most programs need.

pub use ecs_core::*;

// The README's examples run as doctests, so the first example a user copies compiles.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
