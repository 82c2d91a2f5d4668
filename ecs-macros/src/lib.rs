//! Derive macros of the `ecs` entity-component-system.
//!
//! Use them through the `ecs` crate (`use ecs::prelude::*;`), which
//! re-exports each derive under the name of the trait it implements:
//! [`Component`](derive@Component), [`Bundle`](derive@Bundle),
//! [`Resource`](derive@Resource), [`QueryData`](derive@QueryData),
//! [`QueryFilter`](derive@QueryFilter), [`Event`](derive@Event),
//! [`EntityEvent`](derive@EntityEvent), [`Message`](derive@Message),
//! [`ScheduleLabel`](derive@ScheduleLabel), [`SystemSet`](derive@SystemSet) and
//! [`SystemParam`](derive@SystemParam).
//!
//! Each derive is one small model type with two methods: `parse` reads the
//! input and validates it, `generate` turns the validated model into code
//! and cannot fail.
//!
//! ```text
//! DeriveInput ──parse (read + validate)──▶ model (type, fields, attributes) ──generate──▶ impls
//!                  │
//!                  └──▶ every problem found, combined into one report
//! ```
//!
//! A macro here never panics: each problem is a `syn::Error` on the tokens
//! that caused it, and all of them are reported together. What only the
//! type checker knows (a field type that is not a bundle, query term or
//! system parameter; a hook path that is not a hook) is left to it. For
//! fields, the generated code bounds each field's type by the trait it must
//! implement, spanned at that field, so the compiler's error points there.
//!
//! The examples below are what a user of the `ecs` crate writes, and they
//! run as this crate's doctests (it depends on `ecs` for its tests only).
//!
//! # Where the generated code finds the runtime
//!
//! Generated code names the runtime as `::ecs` by default. A crate that
//! reaches it under another name says so with the container attribute
//! `#[ecs(crate = path)]`, accepted by every derive here:
//!
//! ```
//! // This crate depends on the runtime crate `ecs-core` directly, not on
//! // the facade `ecs`. Any path that reaches the runtime works.
//! use ecs_core::prelude::*;
//!
//! #[derive(Component)]
//! #[ecs(crate = ecs_core)]
//! struct Position { x: f32, y: f32 }
//!
//! let mut world = World::new();
//! let e = world.spawn(Position { x: 1.0, y: 2.0 }).id();
//! assert_eq!(world.get::<Position>(e).map(|p| p.y), Some(2.0));
//! ```

mod attr;
mod bounds;
mod bundle;
mod component;
mod errors;
mod event;
mod fields;
mod generics;
mod map_entities;
mod marker;
mod message;
mod query;
mod relation;
mod resource;
mod schedule_label;
mod snapshot;
mod system_param;
#[cfg(test)]
mod test_support;

use proc_macro::TokenStream;
use syn::DeriveInput;

/// Implements `Component` for a struct or enum, so its values can be
/// attached to entities.
///
/// Unit, tuple and named structs, enums and unions all derive. Generic
/// parameters are kept with their bounds, and the impl adds
/// `where Self: Send + Sync + 'static` (the trait's supertraits), so
/// `struct Wrapper<T>(T)` needs no bounds of its own and is a component for
/// every `T` that makes it one. Lifetime parameters are rejected: a
/// component must be `'static`.
///
/// # Attributes
///
/// - `#[component(storage = "Table")]` (the default) keeps the values in a
///   column of the entity's table: the fastest to iterate.
/// - `#[component(storage = "SparseSet")]` keeps them in a per-component
///   sparse set: the cheapest to add and remove.
/// - `#[component(on_add = path, on_insert = path, on_discard = path,
///   on_remove = path, on_despawn = path)]` registers lifecycle hooks: each
///   path names a `fn(DeferredWorld, HookContext)`. A bare key
///   (`#[component(on_add)]`) names the type's own associated function of
///   that name (`Self::on_add`), and a call (`on_add = make_hook(args)`)
///   registers the closure it returns, which must capture nothing but what
///   the call made. Each key may be given once.
/// - `#[require(A, B = expr, C(..))]` makes inserting this component also
///   insert each listed component the entity lacks, made by
///   `Default::default()`, by `expr`, or by the value written in its place:
///   `C(..)`, `C { .. }`, an enum variant or associated constant
///   (`Mode::Fast`, `Limit::MAX`: a bare path whose last two segments start
///   upper-case) or a constructor call (`Speed::new(2.0)`: a last segment
///   that starts lower-case). Requirements are transitive; a cycle of them
///   panics, naming the components, when the component is first
///   registered. The attribute may be repeated.
/// - `#[component(clone_behavior = Ignore)]` (or `Custom(path)`,
///   `clone::<Self>()`) sets how entity cloning clones the component; by
///   default a `Clone` type is cloned through `Clone` and any other type
///   is skipped.
/// - `#[entities]` on a field (of a struct or an enum variant) makes
///   cloning remap the entity ids the field holds (its type implements
///   `MapEntities`: `Entity`, `Option<Entity>`, `Vec<Entity>`, ..); a
///   relationship's entity is remapped without it.
///   `#[component(map_entities)]` uses the type's own `MapEntities` impl
///   instead, `map_entities = path` a `fn(&mut Self, &mut impl
///   EntityMapper)`.
/// - `#[component(snapshot)]` makes every world copy the component in its
///   snapshots (`World::snapshot` / `World::restore`) without a
///   `World::register_snapshot` call; `#[component(snapshot = hash)]` also
///   hashes it into `World::checksum`. The type must be `Clone` (and `Hash`
///   for the hashed form): otherwise the compiler's error points at the
///   key.
/// - `#[component(no_change_ticks)]` keeps no change ticks for the component
///   (`Component::CHANGE_TICKS` is `false`): moving an entity between tables
///   copies its value alone, and `Added`, `Changed`, `Ref` and `get_ref`
///   of it panic, naming it.
/// - `#[component(immutable)]` makes the component
///   `Component<Mutability = Immutable>`: no `get_mut` or `&mut T` term
///   compiles for it, and its values change only by replacement (insert,
///   or `World::modify_component`, which runs its `on_discard` and
///   `on_insert` hooks around the change). A `#[relationship(..)]`
///   component is always immutable, as in bevy.
/// - `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
///
/// Any other key is an error.
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
/// use ecs::lifecycle::HookContext;
/// use ecs::world::DeferredWorld;
///
/// #[derive(Component)]
/// struct Position { x: f32, y: f32 }
///
/// #[derive(Component)]
/// #[component(storage = "SparseSet")]
/// struct Stunned;
///
/// #[derive(Component)]
/// #[component(on_add = count_health, on_remove)]
/// #[require(Position { x: 0.0, y: 0.0 }, Team = Team::Red)]
/// struct Health(u32);
///
/// impl Health {
///     // Named by the bare key `on_remove`.
///     fn on_remove(mut world: DeferredWorld, context: HookContext) {
///         world.resource_mut::<HealthCount>().0 -= 1;
///     }
/// }
///
/// #[derive(Resource, Default)]
/// struct HealthCount(u32);
///
/// fn count_health(mut world: DeferredWorld, context: HookContext) {
///     world.resource_mut::<HealthCount>().0 += 1;
/// }
///
/// #[derive(Component, PartialEq, Debug)]
/// enum Team { Red, Blue }
///
/// #[derive(Component)]
/// struct Tagged<T>(T);
///
/// let mut world = World::new();
/// world.init_resource::<HealthCount>();
/// let e = world.spawn((Health(10), Stunned, Tagged("boss"))).id();
/// // The hook ran, and the required components were inserted.
/// assert_eq!(world.resource::<HealthCount>().0, 1);
/// assert_eq!(world.get::<Position>(e).map(|p| p.x), Some(0.0));
/// assert_eq!(world.get::<Team>(e), Some(&Team::Red));
/// assert_eq!(world.get::<Tagged<&str>>(e).map(|t| t.0), Some("boss"));
/// world.entity_mut(e).remove::<Health>();
/// assert_eq!(world.resource::<HealthCount>().0, 0);
///
/// // Part of every snapshot, and of the checksum.
/// #[derive(Component, Clone, Hash)]
/// #[component(snapshot = hash)]
/// struct Ammo(u32);
///
/// let e = world.spawn(Ammo(3)).id();
/// let snapshot = world.snapshot();
/// world.get_mut::<Ammo>(e).unwrap().0 = 0;
/// world.restore(&snapshot).unwrap();
/// assert_eq!(world.get::<Ammo>(e).unwrap().0, 3);
/// ```
#[proc_macro_derive(
    Component,
    attributes(component, require, ecs, relationship, relationship_target, entities)
)]
pub fn derive_component(input: TokenStream) -> TokenStream {
    expand(input, component::derive)
}

/// Implements `MapEntities` for a struct or enum by mapping every field
/// marked `#[entities]` (its type implements `MapEntities`: `Entity`,
/// `Option<Entity>`, `Vec<Entity>`, ..); other fields are left alone.
/// `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::entity::{EntityHashMap, MapEntities};
///
/// #[derive(MapEntities)]
/// struct Link {
///     #[entities]
///     target: Entity,
///     #[entities]
///     backups: Vec<Entity>,
///     weight: f32,
/// }
///
/// #[derive(MapEntities)]
/// enum Order {
///     Follow(#[entities] Entity),
///     Idle,
/// }
///
/// let (a, b) = (Entity::from_raw(1), Entity::from_raw(2));
/// let mut map = EntityHashMap::default();
/// map.insert(a, b);
/// let mut link = Link { target: a, backups: vec![a], weight: 1.0 };
/// link.map_entities(&mut map);
/// assert_eq!((link.target, link.backups), (b, vec![b]));
/// let mut order = Order::Follow(a);
/// order.map_entities(&mut map);
/// assert!(matches!(order, Order::Follow(e) if e == b));
/// ```
#[proc_macro_derive(MapEntities, attributes(entities, ecs))]
pub fn derive_map_entities(input: TokenStream) -> TokenStream {
    expand(input, map_entities::derive)
}

/// Implements `Bundle` for a struct whose fields are bundles, so the
/// struct can be spawned, inserted, removed and taken as one group.
///
/// Each field's type must itself be a bundle: a component, a tuple of
/// bundles, or another derived bundle, so bundles nest. The components are
/// visited in field declaration order. Named, tuple and unit structs derive
/// (a unit struct is the empty bundle); enums and unions do not, since they
/// have no fixed set of components. Lifetime parameters are rejected.
///
/// The derive also implements `BundleFromComponents`, which taking the
/// bundle back out of an entity (`EntityWorldMut::take`) needs, wherever
/// every included field's type implements it.
///
/// # Attributes
///
/// - `#[bundle(ignore)]` on a field leaves it out of the bundle: it is not
///   inserted, it is rebuilt with `Default::default()` when the bundle is
///   taken back out of an entity, and it is dropped when the bundle is
///   inserted. Its type must implement `Default`, unless the struct is
///   `ignore_from_components`.
/// - `#[bundle(ignore_from_components)]` on the struct skips
///   `BundleFromComponents`: the bundle is spawned, inserted and removed as
///   usual but cannot be taken (`take::<ThatBundle>()` is a compile error),
///   so its fields need not be `BundleFromComponents` and its ignored fields
///   need not be `Default`.
/// - `#[ecs(crate = path)]` on the struct names the runtime crate when it is
///   not `::ecs`.
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
/// # #[derive(Component)]
/// # struct Position { x: f32, y: f32 }
/// # #[derive(Component)]
/// # struct Velocity { x: f32, y: f32 }
/// # #[derive(Component)]
/// # struct Player;
/// # #[derive(Component)]
/// # struct Named(String);
///
/// #[derive(Bundle)]
/// struct PlayerBundle {
///     pos: Position,
///     vel: Velocity,
///     marker: (Player, Named),
///     #[bundle(ignore)]
///     spawned_by: Option<String>,
/// }
///
/// let mut world = World::new();
/// let e = world
///     .spawn(PlayerBundle {
///         pos: Position { x: 0.0, y: 0.0 },
///         vel: Velocity { x: 1.0, y: 0.0 },
///         marker: (Player, Named("Ada".to_string())),
///         spawned_by: Some("level start".to_string()),
///     })
///     .id();
/// assert!(world.get::<Player>(e).is_some());
/// assert_eq!(world.get::<Velocity>(e).map(|v| v.x), Some(1.0));
///
/// let bundle: PlayerBundle = world.entity_mut(e).take().unwrap();
/// assert_eq!(bundle.marker.1 .0, "Ada");
/// assert_eq!(bundle.spawned_by, None); // ignored: rebuilt by `Default`
/// assert!(world.get::<Position>(e).is_none());
/// ```
#[proc_macro_derive(Bundle, attributes(bundle, ecs))]
pub fn derive_bundle(input: TokenStream) -> TokenStream {
    expand(input, bundle::derive)
}

/// Implements `Resource` for a type, so a world can hold one value of it
/// (`World::insert_resource`, `Res<R>`, `ResMut<R>`).
///
/// Any struct, enum or union derives. Generic parameters are kept with
/// their bounds, and the impl adds `where Self: Send + Sync + 'static` (the
/// trait's supertraits), so a type parameter needs no bounds of its own.
/// Lifetime parameters are rejected.
///
/// # Attributes
///
/// - `#[resource(snapshot)]` makes every world copy the resource in its
///   snapshots (`World::snapshot` / `World::restore`) without a
///   `World::register_resource_snapshot` call; `#[resource(snapshot =
///   hash)]` also hashes it into `World::checksum`. The type must be
///   `Clone` (and `Hash` for the hashed form): otherwise the compiler's
///   error points at the key.
/// - `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
/// - `#[system_param(builder)]` also generates `<Name>Builder`, with the
///   struct's visibility and one field per parameter field (a tuple struct
///   gets a tuple builder), each holding a `SystemParamBuilder` of that
///   field; the builder builds the whole parameter:
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{LocalBuilder, QueryParamBuilder};
/// # #[derive(Component)]
/// # struct Health(u32);
/// # #[derive(Component)]
/// # struct Player;
///
/// #[derive(SystemParam)]
/// #[system_param(builder)]
/// struct Healing<'w, 's> {
///     targets: Query<'w, 's, &'static mut Health>,
///     amount: Local<'s, u32>,
/// }
///
/// let mut world = World::new();
/// let player = world.spawn((Health(1), Player)).id();
/// let other = world.spawn(Health(1)).id();
/// let system = (HealingBuilder {
///     targets: QueryParamBuilder::new(|q| {
///         q.with::<Player>();
///     }),
///     amount: LocalBuilder(4),
/// },)
///     .build_state(&mut world)
///     .build_system(|mut healing: Healing| {
///         for mut health in &mut healing.targets {
///             health.0 += *healing.amount;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 5);
/// assert_eq!(world.get::<Health>(other).unwrap().0, 1);
/// ```
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource, Default)]
/// struct Time { delta: f32 }
///
/// let mut world = World::new();
/// world.insert_resource(Time { delta: 0.016 });
/// assert_eq!(world.resource::<Time>().delta, 0.016);
///
/// fn delta(time: Res<Time>) -> f32 {
///     time.delta
/// }
/// assert_eq!(world.run_system_once(delta).unwrap(), 0.016);
///
/// // Part of every snapshot, and of the checksum.
/// #[derive(Resource, Clone, Hash)]
/// #[resource(snapshot = hash)]
/// struct Score(u32);
///
/// world.insert_resource(Score(1));
/// let snapshot = world.snapshot();
/// world.resource_mut::<Score>().0 = 9;
/// world.restore(&snapshot).unwrap();
/// assert_eq!(world.resource::<Score>().0, 1);
/// ```
#[proc_macro_derive(Resource, attributes(ecs, resource))]
pub fn derive_resource(input: TokenStream) -> TokenStream {
    expand(input, resource::derive)
}

/// Implements `Relation` for a type naming a kind of many-to-many relation
/// between entities (`EntityWorldMut::relate::<R>(target)`).
///
/// The type is only a name, never stored: a unit struct is usual. Generic
/// parameters are kept with their bounds; lifetime parameters are rejected.
///
/// # Attributes
///
/// - `#[relation(exclusive)]`: a source has at most one target; relating
///   it again moves it.
/// - `#[relation(symmetric)]`: `a` relates to `b` exactly when `b` relates
///   to `a`.
/// - `#[relation(allow_self)]`: an entity may relate to itself.
/// - `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
/// - `#[system_param(builder)]` also generates `<Name>Builder`, with the
///   struct's visibility and one field per parameter field (a tuple struct
///   gets a tuple builder), each holding a `SystemParamBuilder` of that
///   field; the builder builds the whole parameter:
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{LocalBuilder, QueryParamBuilder};
/// # #[derive(Component)]
/// # struct Health(u32);
/// # #[derive(Component)]
/// # struct Player;
///
/// #[derive(SystemParam)]
/// #[system_param(builder)]
/// struct Healing<'w, 's> {
///     targets: Query<'w, 's, &'static mut Health>,
///     amount: Local<'s, u32>,
/// }
///
/// let mut world = World::new();
/// let player = world.spawn((Health(1), Player)).id();
/// let other = world.spawn(Health(1)).id();
/// let system = (HealingBuilder {
///     targets: QueryParamBuilder::new(|q| {
///         q.with::<Player>();
///     }),
///     amount: LocalBuilder(4),
/// },)
///     .build_state(&mut world)
///     .build_system(|mut healing: Healing| {
///         for mut health in &mut healing.targets {
///             health.0 += *healing.amount;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 5);
/// assert_eq!(world.get::<Health>(other).unwrap().0, 1);
/// ```
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Relation)]
/// #[relation(exclusive)]
/// struct MemberOf;
///
/// let mut world = World::new();
/// let red = world.spawn_empty().id();
/// let blue = world.spawn_empty().id();
/// let player = world.spawn_empty().relate::<MemberOf>(red).unwrap().id();
/// world.entity_mut(player).relate::<MemberOf>(blue).unwrap();
/// assert_eq!(world.targets_of::<MemberOf>(player), &[blue]);
/// assert!(world.sources_of::<MemberOf>(red).is_empty());
/// ```
#[proc_macro_derive(Relation, attributes(relation, ecs))]
pub fn derive_relation(input: TokenStream) -> TokenStream {
    expand(input, relation::derive)
}

/// Implements `QueryData` for a struct whose fields are query data, so the
/// struct can be the `D` of `Query<D, F>` and each entity yields a struct of
/// named values instead of a tuple.
///
/// Write each field as the query term it fetches, with `'static` where a
/// term borrows (`&'static T`, `&'static mut T`, `Ref<'static, T>`): the
/// derive generates, beside the struct, `{Name}Item<'w, 's>` with the same
/// fields holding what each term yields for one entity (`&'w T`,
/// `Mut<'w, T>`, `Ref<'w, T>`, ..). It has bevy's two lifetimes, so
/// `impl<'w, 's> {Name}Item<'w, 's> { .. }` ports as it is; the item a query
/// yields borrows only the world (`{Name}Item<'w, 'w>`). Fields may be any query data: `Entity`,
/// `Option<D>`, `Has<T>`, `AnyOf<(..)>`, tuples, or another derived
/// `QueryData`. Named, tuple and unit structs derive; enums and unions do
/// not. A struct without fields (`struct S;`, `struct S {}`) fetches
/// nothing and matches every entity, and its item `{Name}Item<'w, 's>` is a
/// type alias of the struct itself. Generic parameters are kept with their
/// bounds, and lifetime parameters are rejected.
///
/// Without `#[query_data(mutable)]` the struct is read-only: every field
/// must be `ReadOnlyQueryData` (a `&'static mut T` field is an error at the
/// field), and the struct itself is `ReadOnlyQueryData`.
///
/// # Attributes
///
/// - `#[query_data(mutable)]` allows fields that write. It also generates
///   the read-only twin `{Name}ReadOnly` (each field replaced by its
///   read-only form, `&'static T` for `&'static mut T`) and its item
///   `{Name}ReadOnlyItem<'w, 's>`: what `QueryState::iter(&World)` yields.
/// - `#[query_data(derive(Debug, ..))]` derives those traits for the item
///   structs. A generic struct's fields must then be query data by the
///   struct's own bounds, as in bevy (`T: Component<Mutability = Mutable>`
///   for a `&'static mut T` field); without derives, the derive adds what
///   the fields need.
/// - `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
/// - `#[system_param(builder)]` also generates `<Name>Builder`, with the
///   struct's visibility and one field per parameter field (a tuple struct
///   gets a tuple builder), each holding a `SystemParamBuilder` of that
///   field; the builder builds the whole parameter:
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{LocalBuilder, QueryParamBuilder};
/// # #[derive(Component)]
/// # struct Health(u32);
/// # #[derive(Component)]
/// # struct Player;
///
/// #[derive(SystemParam)]
/// #[system_param(builder)]
/// struct Healing<'w, 's> {
///     targets: Query<'w, 's, &'static mut Health>,
///     amount: Local<'s, u32>,
/// }
///
/// let mut world = World::new();
/// let player = world.spawn((Health(1), Player)).id();
/// let other = world.spawn(Health(1)).id();
/// let system = (HealingBuilder {
///     targets: QueryParamBuilder::new(|q| {
///         q.with::<Player>();
///     }),
///     amount: LocalBuilder(4),
/// },)
///     .build_state(&mut world)
///     .build_system(|mut healing: Healing| {
///         for mut health in &mut healing.targets {
///             health.0 += *healing.amount;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 5);
/// assert_eq!(world.get::<Health>(other).unwrap().0, 1);
/// ```
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
/// # #[derive(Component)]
/// # struct Position { x: f32 }
/// # #[derive(Component)]
/// # struct Velocity { x: f32 }
///
/// #[derive(QueryData)]
/// #[query_data(mutable)]
/// struct Mover {
///     entity: Entity,
///     pos: &'static mut Position,
///     vel: &'static Velocity,
/// }
///
/// let mut world = World::new();
/// let e = world.spawn((Position { x: 1.0 }, Velocity { x: 2.0 })).id();
/// world.spawn(Position { x: 9.0 }); // no `Velocity`: not a `Mover`
///
/// let mut query = world.query::<Mover>();
/// for mut mover in query.iter_mut(&mut world) {
///     // `mover` is a `MoverItem<'_, '_>`: `pos` is a `Mut<Position>`.
///     mover.pos.x += mover.vel.x;
/// }
/// for mover in query.iter(&world) {
///     // `mover` is a `MoverReadOnlyItem<'_, '_>`: `pos` is a `&Position`.
///     println!("{:?} is at {}", mover.entity, mover.pos.x);
///     assert_eq!((mover.entity, mover.pos.x), (e, 3.0));
/// }
/// ```
#[proc_macro_derive(QueryData, attributes(query_data, ecs))]
pub fn derive_query_data(input: TokenStream) -> TokenStream {
    expand(input, query::derive_data)
}

/// Implements `QueryFilter` for a struct whose fields are query filters, so
/// the struct can be the `F` of `Query<D, F>`: an entity passes when every
/// field's filter passes.
///
/// Fields may be any filter: `With<T>`, `Without<T>`, `Or<(..)>`,
/// `Added<T>`, `Changed<T>`, tuples, or another derived `QueryFilter`.
/// Named, tuple and unit structs derive (a struct without fields keeps
/// every entity); enums and unions do not. Generic parameters are kept with their
/// bounds, and lifetime parameters are rejected.
///
/// # Attributes
///
/// - `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
/// - `#[system_param(builder)]` also generates `<Name>Builder`, with the
///   struct's visibility and one field per parameter field (a tuple struct
///   gets a tuple builder), each holding a `SystemParamBuilder` of that
///   field; the builder builds the whole parameter:
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{LocalBuilder, QueryParamBuilder};
/// # #[derive(Component)]
/// # struct Health(u32);
/// # #[derive(Component)]
/// # struct Player;
///
/// #[derive(SystemParam)]
/// #[system_param(builder)]
/// struct Healing<'w, 's> {
///     targets: Query<'w, 's, &'static mut Health>,
///     amount: Local<'s, u32>,
/// }
///
/// let mut world = World::new();
/// let player = world.spawn((Health(1), Player)).id();
/// let other = world.spawn(Health(1)).id();
/// let system = (HealingBuilder {
///     targets: QueryParamBuilder::new(|q| {
///         q.with::<Player>();
///     }),
///     amount: LocalBuilder(4),
/// },)
///     .build_state(&mut world)
///     .build_system(|mut healing: Healing| {
///         for mut health in &mut healing.targets {
///             health.0 += *healing.amount;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 5);
/// assert_eq!(world.get::<Health>(other).unwrap().0, 1);
/// ```
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
/// # #[derive(Component)]
/// # struct Enemy;
/// # #[derive(Component)]
/// # struct Dead;
///
/// #[derive(QueryFilter)]
/// struct LivingEnemies {
///     _enemy: With<Enemy>,
///     _alive: Without<Dead>,
/// }
///
/// let mut world = World::new();
/// let orc = world.spawn(Enemy).id();
/// world.spawn((Enemy, Dead));
/// world.spawn(Dead);
///
/// let mut query = world.query_filtered::<Entity, LivingEnemies>();
/// assert_eq!(query.iter(&world).collect::<Vec<_>>(), [orc]);
/// ```
#[proc_macro_derive(QueryFilter, attributes(ecs))]
pub fn derive_query_filter(input: TokenStream) -> TokenStream {
    expand(input, query::derive_filter)
}

/// Implements `Event` for a type, so it can be triggered
/// (`World::trigger`, `Commands::trigger`) and watched by observers
/// (`On<E>`). Its trigger is `GlobalTrigger`, which carries no data.
///
/// Structs, enums and unions derive. Generic parameters are kept with their
/// bounds (which must imply `Send + Sync + 'static`); lifetime parameters
/// are rejected.
///
/// # Attributes
///
/// - `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
/// - `#[system_param(builder)]` also generates `<Name>Builder`, with the
///   struct's visibility and one field per parameter field (a tuple struct
///   gets a tuple builder), each holding a `SystemParamBuilder` of that
///   field; the builder builds the whole parameter:
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{LocalBuilder, QueryParamBuilder};
/// # #[derive(Component)]
/// # struct Health(u32);
/// # #[derive(Component)]
/// # struct Player;
///
/// #[derive(SystemParam)]
/// #[system_param(builder)]
/// struct Healing<'w, 's> {
///     targets: Query<'w, 's, &'static mut Health>,
///     amount: Local<'s, u32>,
/// }
///
/// let mut world = World::new();
/// let player = world.spawn((Health(1), Player)).id();
/// let other = world.spawn(Health(1)).id();
/// let system = (HealingBuilder {
///     targets: QueryParamBuilder::new(|q| {
///         q.with::<Player>();
///     }),
///     amount: LocalBuilder(4),
/// },)
///     .build_state(&mut world)
///     .build_system(|mut healing: Healing| {
///         for mut health in &mut healing.targets {
///             health.0 += *healing.amount;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 5);
/// assert_eq!(world.get::<Health>(other).unwrap().0, 1);
/// ```
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Event)]
/// struct Explode { radius: f32 }
///
/// #[derive(Resource, Default)]
/// struct Craters(Vec<f32>);
///
/// let mut world = World::new();
/// world.init_resource::<Craters>();
/// world.add_observer(|ev: On<Explode>, mut craters: ResMut<Craters>| {
///     println!("boom: {}", ev.radius);
///     craters.0.push(ev.radius);
/// });
/// world.trigger(Explode { radius: 2.0 });
/// assert_eq!(world.resource::<Craters>().0, [2.0]);
/// ```
#[proc_macro_derive(Event, attributes(ecs))]
pub fn derive_event(input: TokenStream) -> TokenStream {
    expand(input, event::derive)
}

/// Implements `EntityEvent` (and `Event`) for a struct: an event aimed at
/// the entity in one of its fields, which reaches the global observers of
/// the event and the observers watching that entity.
///
/// The target is the field marked `#[event_target]`, else the field named
/// `entity`, else the only field of a tuple struct; it is an `Entity`.
/// Unlike bevy, two fields marked `#[event_target]` are an error rather
/// than the first one winning, since the second mark can only be a
/// mistake.
///
/// # Attributes
///
/// - `#[entity_event(propagate)]` makes the event propagate along
///   `&'static ChildOf`; `#[entity_event(propagate = T)]` along the
///   `Traversal` `T`. The trigger becomes `PropagateEntityTrigger`, and
///   `SetEntityEventTarget` is implemented too.
/// - `#[entity_event(auto_propagate)]` (implies `propagate`): every
///   trigger propagates unless an observer calls `propagate(false)`.
/// - `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
/// - `#[system_param(builder)]` also generates `<Name>Builder`, with the
///   struct's visibility and one field per parameter field (a tuple struct
///   gets a tuple builder), each holding a `SystemParamBuilder` of that
///   field; the builder builds the whole parameter:
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{LocalBuilder, QueryParamBuilder};
/// # #[derive(Component)]
/// # struct Health(u32);
/// # #[derive(Component)]
/// # struct Player;
///
/// #[derive(SystemParam)]
/// #[system_param(builder)]
/// struct Healing<'w, 's> {
///     targets: Query<'w, 's, &'static mut Health>,
///     amount: Local<'s, u32>,
/// }
///
/// let mut world = World::new();
/// let player = world.spawn((Health(1), Player)).id();
/// let other = world.spawn(Health(1)).id();
/// let system = (HealingBuilder {
///     targets: QueryParamBuilder::new(|q| {
///         q.with::<Player>();
///     }),
///     amount: LocalBuilder(4),
/// },)
///     .build_state(&mut world)
///     .build_system(|mut healing: Healing| {
///         for mut health in &mut healing.targets {
///             health.0 += *healing.amount;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 5);
/// assert_eq!(world.get::<Health>(other).unwrap().0, 1);
/// ```
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(EntityEvent)]
/// struct Hit {
///     #[event_target]
///     victim: Entity,
///     damage: u32,
/// }
///
/// #[derive(Resource, Default)]
/// struct Taken(u32);
///
/// let mut world = World::new();
/// world.init_resource::<Taken>();
/// let knight = world.spawn_empty().id();
/// world
///     .entity_mut(knight)
///     .observe(|hit: On<Hit>, mut taken: ResMut<Taken>| taken.0 += hit.damage);
/// world.trigger(Hit { victim: knight, damage: 4 });
/// assert_eq!(world.resource::<Taken>().0, 4);
/// ```
#[proc_macro_derive(EntityEvent, attributes(ecs, entity_event, event_target))]
pub fn derive_entity_event(input: TokenStream) -> TokenStream {
    expand(input, event::derive_entity)
}

/// Implements `Message` for a type, so it can be written to a
/// `Messages<M>` buffer (`MessageWriter`, `World::write_message`) and read
/// by every `MessageReader` in order.
///
/// Structs, enums and unions derive. Generic parameters are kept with their
/// bounds, and the impl adds `where Self: Send + Sync + 'static` (the
/// trait's supertraits); lifetime parameters are rejected.
///
/// # Attributes
///
/// - `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
/// - `#[system_param(builder)]` also generates `<Name>Builder`, with the
///   struct's visibility and one field per parameter field (a tuple struct
///   gets a tuple builder), each holding a `SystemParamBuilder` of that
///   field; the builder builds the whole parameter:
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{LocalBuilder, QueryParamBuilder};
/// # #[derive(Component)]
/// # struct Health(u32);
/// # #[derive(Component)]
/// # struct Player;
///
/// #[derive(SystemParam)]
/// #[system_param(builder)]
/// struct Healing<'w, 's> {
///     targets: Query<'w, 's, &'static mut Health>,
///     amount: Local<'s, u32>,
/// }
///
/// let mut world = World::new();
/// let player = world.spawn((Health(1), Player)).id();
/// let other = world.spawn(Health(1)).id();
/// let system = (HealingBuilder {
///     targets: QueryParamBuilder::new(|q| {
///         q.with::<Player>();
///     }),
///     amount: LocalBuilder(4),
/// },)
///     .build_state(&mut world)
///     .build_system(|mut healing: Healing| {
///         for mut health in &mut healing.targets {
///             health.0 += *healing.amount;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 5);
/// assert_eq!(world.get::<Health>(other).unwrap().0, 1);
/// ```
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Message)]
/// struct Scored { points: u32 }
///
/// let mut world = World::new();
/// world.add_message::<Scored>();
/// world.write_message(Scored { points: 3 });
///
/// fn total(mut scored: MessageReader<Scored>) -> u32 {
///     scored.read().map(|s| s.points).sum()
/// }
/// assert_eq!(world.run_system_once(total).unwrap(), 3);
/// ```
#[proc_macro_derive(Message, attributes(ecs))]
pub fn derive_message(input: TokenStream) -> TokenStream {
    expand(input, message::derive)
}

/// Implements `ScheduleLabel` for a struct or enum, so its values name
/// schedules (`Schedule::new(label)`, `World::run_schedule(label)`).
///
/// Unit, tuple and named structs and enums derive; the type must also be
/// `Clone`, `PartialEq`, `Eq`, `Hash` and `Debug` (the error names the
/// one missing), `Send`, `Sync` and `'static`. Generic parameters are kept,
/// and the impl applies where they make the type all of those. Unions and
/// lifetime parameters are rejected. `#[ecs(crate = path)]` names the
/// runtime.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
/// struct Update;
/// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
/// struct Level(u32);
/// #[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
/// enum Stage { Load, Play { round: u8 } }
///
/// assert_eq!(Level(1).intern(), Level(1).intern());
/// assert_ne!(Level(1).intern(), Level(2).intern());
/// assert_ne!(Stage::Load.intern(), Stage::Play { round: 0 }.intern());
/// assert_eq!(Schedule::new(Update).label(), Update.intern());
/// ```
#[proc_macro_derive(ScheduleLabel, attributes(ecs))]
pub fn derive_schedule_label(input: TokenStream) -> TokenStream {
    expand(input, schedule_label::derive)
}

/// Implements `SystemSet` for a struct or enum, so its values name groups
/// of systems a schedule orders and guards together (`.in_set(set)`,
/// `configure_sets`, `.before(set)`, `.run_if` on a set).
///
/// The same shapes and requirements as [`ScheduleLabel`](derive@ScheduleLabel):
/// unit, tuple and named structs and enums that are also `Clone`,
/// `PartialEq`, `Eq`, `Hash` and `Debug`, `Send`, `Sync` and `'static`;
/// unions and lifetime parameters are rejected; `#[ecs(crate = path)]`
/// names the runtime.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
/// enum Physics { Forces, Collisions }
///
/// assert_eq!(Physics::Forces.intern(), Physics::Forces.intern());
/// assert_ne!(Physics::Forces.intern(), Physics::Collisions.intern());
/// ```
#[proc_macro_derive(SystemSet, attributes(ecs))]
pub fn derive_system_set(input: TokenStream) -> TokenStream {
    expand(input, schedule_label::derive_system_set)
}

/// Implements `SystemParam` for a struct whose fields are system
/// parameters, so a system can take the whole struct as one parameter.
///
/// The struct has at most two lifetime parameters: `'w`, for what the
/// fields borrow from the world (`Res<'w, R>`, `Query<'w, 's, D>`), and
/// `'s`, for what they borrow from the system's own state (`Local<'s, T>`,
/// `Commands<'w, 's>`); any other lifetime is an error. Fields may be any
/// parameter: `Query`, `Res`, `ResMut`, `Option<Res>`, `Option<ResMut>`,
/// `Local`, `Commands`, `&'w World`, tuples, or another derived
/// `SystemParam`. A field that is not one, or that is one with the wrong
/// lifetime (`Res<'s, R>`), is an error at its type; when the field's type
/// names a type parameter of the struct, that error only comes where the
/// struct is used with the parameter known. Named, tuple and unit structs
/// derive; enums and unions do not. Generic type parameters are kept with
/// their bounds.
///
/// The fields record their access as separate parameters of the system
/// would: two fields that conflict, or a field that conflicts with another
/// parameter of the system, panic when the system is initialised, naming
/// the system.
///
/// # Attributes
///
/// - `#[ecs(crate = path)]` names the runtime crate when it is not `::ecs`.
/// - `#[system_param(builder)]` also generates `<Name>Builder`, with the
///   struct's visibility and one field per parameter field (a tuple struct
///   gets a tuple builder), each holding a `SystemParamBuilder` of that
///   field; the builder builds the whole parameter:
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::{LocalBuilder, QueryParamBuilder};
/// # #[derive(Component)]
/// # struct Health(u32);
/// # #[derive(Component)]
/// # struct Player;
///
/// #[derive(SystemParam)]
/// #[system_param(builder)]
/// struct Healing<'w, 's> {
///     targets: Query<'w, 's, &'static mut Health>,
///     amount: Local<'s, u32>,
/// }
///
/// let mut world = World::new();
/// let player = world.spawn((Health(1), Player)).id();
/// let other = world.spawn(Health(1)).id();
/// let system = (HealingBuilder {
///     targets: QueryParamBuilder::new(|q| {
///         q.with::<Player>();
///     }),
///     amount: LocalBuilder(4),
/// },)
///     .build_state(&mut world)
///     .build_system(|mut healing: Healing| {
///         for mut health in &mut healing.targets {
///             health.0 += *healing.amount;
///         }
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.get::<Health>(player).unwrap().0, 5);
/// assert_eq!(world.get::<Health>(other).unwrap().0, 1);
/// ```
///
/// # Example
///
/// ```
/// use ecs::prelude::*;
/// # #[derive(Component)]
/// # struct Position { x: f32 }
/// # #[derive(Component)]
/// # struct Velocity { x: f32 }
/// # #[derive(Resource)]
/// # struct Time { delta: f32 }
///
/// #[derive(SystemParam)]
/// struct Movers<'w, 's> {
///     query: Query<'w, 's, (Entity, &'static mut Position, &'static Velocity)>,
///     time: Res<'w, Time>,
///     commands: Commands<'w, 's>,
///     moved: Local<'s, u32>,
/// }
///
/// fn movement(mut movers: Movers) {
///     for (entity, mut position, velocity) in &mut movers.query {
///         position.x += velocity.x * movers.time.delta;
///         *movers.moved += 1;
///         if position.x >= 1.0 {
///             // Arrived: stop moving (applied after the system runs).
///             movers.commands.entity(entity).remove::<Velocity>();
///         }
///     }
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Time { delta: 0.5 });
/// let e = world.spawn((Position { x: 0.0 }, Velocity { x: 1.0 })).id();
///
/// let mut schedule = Schedule::default();
/// schedule.add_systems(movement);
/// for _ in 0..3 {
///     schedule.run(&mut world); // x: 0.5, then 1.0 (arrived), then stays
/// }
/// assert_eq!(world.get::<Position>(e).map(|p| p.x), Some(1.0));
/// assert!(world.get::<Velocity>(e).is_none());
/// ```
#[proc_macro_derive(SystemParam, attributes(ecs, system_param))]
pub fn derive_system_param(input: TokenStream) -> TokenStream {
    expand(input, system_param::derive)
}

/// What each derive module exposes: read `input`, then generate its impls
/// or return every problem found.
type Derive = fn(&DeriveInput) -> syn::Result<proc_macro2::TokenStream>;

/// Runs `derive` on `input`: the generated code, or the errors that stopped
/// it (an input that is not an item is the parser's error).
fn expand(input: TokenStream, derive: Derive) -> TokenStream {
    syn::parse::<DeriveInput>(input)
        .and_then(|input| derive(&input))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
