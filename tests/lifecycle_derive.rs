//! Behaviour of what the derives generate for an entity's lifecycle:
//! `#[component(on_add = .., ..)]` hooks, `#[require(..)]` components, and
//! `#[derive(Event)]` events, end to end through the `World`.

mod common;

use common::components::{Position, Velocity};
use common::panics::expect_panic;
use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::world::DeferredWorld;

// ---- hooks --------------------------------------------------------------------------

/// What the hooks of one test saw, in order.
#[derive(Resource, Default)]
struct Log(Vec<String>);

fn take_log(world: &mut World) -> Vec<String> {
    std::mem::take(&mut world.resource_mut::<Log>().0)
}

/// A component whose hooks log its value.
trait Logged: Component {
    fn value(&self) -> u32;
}

fn log<C: Logged>(world: &mut DeferredWorld, context: HookContext, kind: &str) {
    let value = world
        .get::<C>(context.entity)
        .unwrap_or_else(|| panic!("{kind}: the value is in place"))
        .value();
    world
        .resource_mut::<Log>()
        .0
        .push(format!("{kind} {value}"));
}

/// Each hook a plain function, one per key.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(on_add = table_add, on_insert = table_insert, on_discard = table_discard)]
#[component(on_remove = table_remove, on_despawn = table_despawn)]
struct TableHooked(u32);

impl Logged for TableHooked {
    fn value(&self) -> u32 {
        self.0
    }
}

fn table_add(mut world: DeferredWorld, context: HookContext) {
    log::<TableHooked>(&mut world, context, "add");
}
fn table_insert(mut world: DeferredWorld, context: HookContext) {
    log::<TableHooked>(&mut world, context, "insert");
}
fn table_discard(mut world: DeferredWorld, context: HookContext) {
    log::<TableHooked>(&mut world, context, "discard");
}
fn table_remove(mut world: DeferredWorld, context: HookContext) {
    log::<TableHooked>(&mut world, context, "remove");
}
fn table_despawn(mut world: DeferredWorld, context: HookContext) {
    log::<TableHooked>(&mut world, context, "despawn");
}

/// Generic hooks named through `Self`, in a module, with `storage` beside
/// them in one attribute.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(
    storage = "SparseSet",
    on_add = hooks::add::<Self>,
    on_insert = hooks::insert::<Self>,
    on_discard = hooks::discard::<Self>,
    on_remove = hooks::remove::<Self>,
    on_despawn = hooks::despawn::<Self>,
)]
struct SparseHooked(u32);

impl Logged for SparseHooked {
    fn value(&self) -> u32 {
        self.0
    }
}

mod hooks {
    use super::*;

    pub fn add<C: Logged>(mut world: DeferredWorld, context: HookContext) {
        log::<C>(&mut world, context, "add");
    }
    pub fn insert<C: Logged>(mut world: DeferredWorld, context: HookContext) {
        log::<C>(&mut world, context, "insert");
    }
    pub fn discard<C: Logged>(mut world: DeferredWorld, context: HookContext) {
        log::<C>(&mut world, context, "discard");
    }
    pub fn remove<C: Logged>(mut world: DeferredWorld, context: HookContext) {
        log::<C>(&mut world, context, "remove");
    }
    pub fn despawn<C: Logged>(mut world: DeferredWorld, context: HookContext) {
        log::<C>(&mut world, context, "despawn");
    }
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Plain(u32);

fn hooks_fire_in_order<C: Logged + Copy>(make: fn(u32) -> C) {
    let mut world = World::new();
    world.init_resource::<Log>();

    let e = world.spawn((make(1), Plain(0))).id();
    assert_eq!(take_log(&mut world), ["add 1", "insert 1"]);

    world.entity_mut(e).insert(make(2));
    assert_eq!(take_log(&mut world), ["discard 1", "insert 2"]);

    world.entity_mut(e).remove::<C>();
    assert_eq!(take_log(&mut world), ["discard 2", "remove 2"]);

    world.entity_mut(e).remove::<C>();
    assert!(take_log(&mut world).is_empty());

    world.entity_mut(e).insert(make(3));
    assert_eq!(take_log(&mut world), ["add 3", "insert 3"]);

    assert!(world.despawn(e));
    assert_eq!(take_log(&mut world), ["despawn 3", "discard 3", "remove 3"]);

    // An entity without the component runs none of its hooks.
    let other = world.spawn(Plain(1)).id();
    world.despawn(other);
    assert!(take_log(&mut world).is_empty());
}

#[test]
fn derived_hooks_fire_in_order_for_table_storage() {
    hooks_fire_in_order(TableHooked);
}

#[test]
fn derived_hooks_fire_in_order_for_sparse_set_storage() {
    hooks_fire_in_order(SparseHooked);
}

#[test]
fn derived_hooks_are_the_registered_hooks() {
    let mut world = World::new();
    let hooks = format!("{:?}", world.register_component_hooks::<TableHooked>());
    for kind in [
        "on_add",
        "on_insert",
        "on_discard",
        "on_remove",
        "on_despawn",
    ] {
        assert!(hooks.contains(&format!("{kind}: true")), "{hooks}");
    }
    let hooks = format!("{:?}", world.register_component_hooks::<Plain>());
    assert!(!hooks.contains("true"), "{hooks}");
}

#[test]
#[should_panic(expected = "already has an `on_add` hook")]
fn a_runtime_hook_does_not_replace_a_derived_one() {
    let mut world = World::new();
    world
        .register_component_hooks::<TableHooked>()
        .on_add(|_, _| {});
}

/// The deprecated names still reach the `on_discard` hook and `Discard` event.
#[test]
#[allow(deprecated)]
fn the_deprecated_replace_names_reach_discard() {
    let mut world = World::new();
    world.init_resource::<Log>();
    world
        .register_component_hooks::<Plain>()
        .on_replace(|mut world, _| world.resource_mut::<Log>().0.push("hook".into()));
    world.add_observer(
        |_: On<ecs::lifecycle::Replace<Plain>>, mut log: ResMut<Log>| log.0.push("observer".into()),
    );
    let e = world.spawn(Plain(1)).id();
    world.entity_mut(e).insert(Plain(2));
    // A removal's observers run before its hooks, as in bevy.
    assert_eq!(take_log(&mut world), ["observer", "hook"]);
}

/// A hook's commands apply right after the operation that ran it.
#[derive(Component)]
#[component(on_add = mark_added)]
struct Marking;

#[derive(Component, Debug, PartialEq)]
struct Marked(Entity);

fn mark_added(mut world: DeferredWorld, context: HookContext) {
    world
        .commands()
        .entity(context.entity)
        .insert(Marked(context.entity));
}

#[test]
fn a_derived_hook_queues_commands() {
    let mut world = World::new();
    let e = world.spawn(Marking).id();
    assert_eq!(world.get::<Marked>(e), Some(&Marked(e)));
}

// ---- hooks named by a bare key or a call ----------------------------------------------

/// Each hook a method of the type, named by the bare key.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(on_add, on_insert, on_discard, on_remove, on_despawn)]
struct MethodHooked(u32);

impl Logged for MethodHooked {
    fn value(&self) -> u32 {
        self.0
    }
}

impl MethodHooked {
    fn on_add(mut world: DeferredWorld, context: HookContext) {
        log::<Self>(&mut world, context, "add");
    }
    fn on_insert(mut world: DeferredWorld, context: HookContext) {
        log::<Self>(&mut world, context, "insert");
    }
    fn on_discard(mut world: DeferredWorld, context: HookContext) {
        log::<Self>(&mut world, context, "discard");
    }
    fn on_remove(mut world: DeferredWorld, context: HookContext) {
        log::<Self>(&mut world, context, "remove");
    }
    fn on_despawn(mut world: DeferredWorld, context: HookContext) {
        log::<Self>(&mut world, context, "despawn");
    }
}

/// A generic type's methods, with the keys split over attributes and mixed
/// with paths. The hooks need `T: Send + ..` (through `Logged`), which the
/// derive's `Self: Send + ..` does not give them, so the type states it.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet", on_add, on_insert = hooks::insert::<Self>)]
#[component(on_discard, on_remove = hooks::remove::<Self>, on_despawn)]
struct GenericMethodHooked<T: Send + Sync + 'static>(u32, std::marker::PhantomData<T>);

impl<T: Send + Sync + 'static> Logged for GenericMethodHooked<T> {
    fn value(&self) -> u32 {
        self.0
    }
}

impl<T: Send + Sync + 'static> GenericMethodHooked<T> {
    fn on_add(mut world: DeferredWorld, context: HookContext) {
        log::<Self>(&mut world, context, "add");
    }
    fn on_discard(mut world: DeferredWorld, context: HookContext) {
        log::<Self>(&mut world, context, "discard");
    }
    fn on_despawn(mut world: DeferredWorld, context: HookContext) {
        log::<Self>(&mut world, context, "despawn");
    }
}

#[test]
fn bare_hook_keys_run_the_types_methods() {
    hooks_fire_in_order(MethodHooked);
    hooks_fire_in_order(|n| GenericMethodHooked::<u8>(n, std::marker::PhantomData));
}

/// `on_insert = labelled("..")`: the hook is the closure the call returns.
#[derive(Component)]
#[component(on_insert = labelled("inserted"), on_remove = labelled("removed"))]
struct CallHooked;

fn labelled(label: &'static str) -> impl Fn(DeferredWorld, HookContext) {
    move |mut world, _| world.resource_mut::<Log>().0.push(label.to_owned())
}

#[test]
fn hook_calls_run_the_closure_they_return() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let e = world.spawn(CallHooked).id();
    world.entity_mut(e).remove::<CallHooked>();
    assert_eq!(take_log(&mut world), ["inserted", "removed"]);
}

/// Panics in its `on_insert` method when it holds `0`, and counts its drops.
#[derive(Component)]
#[component(on_insert)]
struct PanickingMethod(u32, std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl PanickingMethod {
    fn on_insert(world: DeferredWorld, context: HookContext) {
        if world.get::<Self>(context.entity).is_some_and(|v| v.0 == 0) {
            panic!("on_insert of PanickingMethod(0)");
        }
    }
}

impl Drop for PanickingMethod {
    fn drop(&mut self) {
        self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn a_panicking_hook_method_leaves_the_world_consistent() {
    let drops = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut world = World::new();
    let e = world.spawn(PanickingMethod(1, drops.clone())).id();
    let message = expect_panic(|| {
        world
            .entity_mut(e)
            .insert(PanickingMethod(0, drops.clone()));
    });
    assert!(
        message.contains("on_insert of PanickingMethod(0)"),
        "{message}"
    );
    world.check_integrity().unwrap();
    // The replaced value was dropped by the insert, the new one by the world.
    assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 1);
    drop(world);
    assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 2);
}

// ---- required components -------------------------------------------------------

#[derive(Component, Debug, Clone, PartialEq)]
struct Name(String);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[require(Position, Velocity = Velocity(1.0, 0.0))]
#[require(Name = Name(String::from("unnamed")))]
struct Health(u32);

#[test]
fn required_components_come_from_default_and_expressions() {
    let mut world = World::new();
    let e = world.spawn(Health(10)).id();
    let entity = world.entity(e);
    assert_eq!(entity.get::<Health>(), Some(&Health(10)));
    assert_eq!(entity.get::<Position>(), Some(&Position::default()));
    assert_eq!(entity.get::<Velocity>(), Some(&Velocity(1.0, 0.0)));
    assert_eq!(entity.get::<Name>(), Some(&Name("unnamed".into())));
}

#[test]
fn the_callers_value_wins_over_a_required_one() {
    let mut world = World::new();
    let position = Position { x: 3.0, y: 4.0 };
    let e = world.spawn((Velocity(9.0, 9.0), Health(1), position)).id();
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(9.0, 9.0)));
    assert_eq!(world.get::<Position>(e), Some(&position));
    assert_eq!(world.get::<Name>(e), Some(&Name("unnamed".into())));

    // Inserting the requirer later keeps what the entity already has.
    let e = world.spawn(Velocity(5.0, 5.0)).id();
    world.entity_mut(e).insert(Health(2));
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(5.0, 5.0)));
    assert_eq!(world.get::<Position>(e), Some(&Position::default()));
    world.check_integrity().unwrap();
}

/// `Top` requires `Middle` requires `Bottom`; `Top` also names `Bottom`,
/// and the nearest requirer's value wins.
#[derive(Component, Debug, PartialEq)]
#[require(Middle)]
struct Top;

#[derive(Component, Debug, PartialEq, Default)]
#[require(Bottom = Bottom(7), Leaf(1))]
struct Middle;

#[derive(Component, Debug, PartialEq)]
struct Bottom(u32);

#[derive(Component, Debug, PartialEq)]
struct Leaf(u32);

#[derive(Component, Debug, PartialEq)]
#[require(Middle, Bottom(1))]
struct Overriding;

#[test]
fn requirements_are_transitive() {
    let mut world = World::new();
    let e = world.spawn(Top).id();
    let entity = world.entity(e);
    assert!(entity.contains::<Middle>());
    assert_eq!(entity.get::<Bottom>(), Some(&Bottom(7)));
    assert_eq!(entity.get::<Leaf>(), Some(&Leaf(1)));

    let e = world.spawn(Overriding).id();
    assert_eq!(world.get::<Bottom>(e), Some(&Bottom(1)));
    assert_eq!(world.get::<Leaf>(e), Some(&Leaf(1)));
}

/// Required components run their own hooks, and a requirement may name a
/// generic component and a struct-literal shorthand.
#[derive(Component)]
#[require(TableHooked(5), Tagged<u8> = Tagged(3), Position { x: 1.0, y: 2.0 })]
struct NeedsHooked;

#[derive(Component, Debug, PartialEq)]
struct Tagged<T: Send + Sync + 'static>(T);

#[test]
fn required_components_run_their_hooks() {
    let mut world = World::new();
    world.init_resource::<Log>();
    let e = world.spawn(NeedsHooked).id();
    assert_eq!(take_log(&mut world), ["add 5", "insert 5"]);
    assert_eq!(world.get::<Tagged<u8>>(e), Some(&Tagged(3)));
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 2.0 }));
}

#[test]
fn commands_and_batches_insert_required_components() {
    let mut world = World::new();
    let ids: Vec<Entity> = world.spawn_batch((0..3).map(Health)).collect();
    for id in ids {
        assert_eq!(world.get::<Velocity>(id), Some(&Velocity(1.0, 0.0)));
    }
    let mut queue = ecs::system::CommandQueue::default();
    let mut commands = Commands::new(&mut queue, &world);
    let e = commands.spawn(Top).id();
    queue.apply(&mut world);
    assert_eq!(world.get::<Bottom>(e), Some(&Bottom(7)));
}

#[derive(Component, Default)]
#[require(CycleB)]
struct CycleA;

#[derive(Component, Default)]
#[require(CycleA)]
struct CycleB;

#[test]
fn a_cycle_of_requirements_panics_naming_both_components() {
    let message = expect_panic(|| {
        World::new().spawn(CycleA);
    });
    assert!(message.contains("cycle"), "{message}");
    assert!(message.contains("CycleA"), "{message}");
    assert!(message.contains("CycleB"), "{message}");

    let message = expect_panic(|| {
        World::new().register_component::<CycleB>();
    });
    assert!(
        message.contains("CycleA") && message.contains("CycleB"),
        "{message}"
    );
}

// ---- events ---------------------------------------------------------------------------

#[derive(Event, Debug, Clone, PartialEq)]
struct Explode {
    radius: f32,
}

#[derive(EntityEvent, Debug, Clone, PartialEq)]
struct Damage(#[event_target] Entity, u32);

#[derive(Event, Debug, Clone, PartialEq)]
struct Ping;

#[derive(Event, Debug, Clone, PartialEq)]
enum Signal {
    Go,
    Stop(u8),
}

#[derive(Event, Debug, Clone, PartialEq)]
struct Wrapped<T: Clone + Send + Sync + 'static>(T);

#[derive(Event, Clone, Copy)]
union Bits {
    int: u32,
    float: f32,
}

#[derive(Resource, Default)]
struct Seen(Vec<String>);

#[test]
fn derived_events_reach_their_observers() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world.add_observer(|ev: On<Explode>, mut seen: ResMut<Seen>| {
        seen.0.push(format!("explode {}", ev.radius));
    });
    world.add_observer(|ev: On<Damage>, mut seen: ResMut<Seen>| {
        seen.0
            .push(format!("damage {} at {:?}", ev.event().1, ev.0));
    });
    world.add_observer(|_: On<Ping>, mut seen: ResMut<Seen>| seen.0.push("ping".into()));
    world.add_observer(|ev: On<Signal>, mut seen: ResMut<Seen>| {
        seen.0.push(format!("{:?}", ev.event()));
    });
    world.add_observer(|ev: On<Wrapped<&'static str>>, mut seen: ResMut<Seen>| {
        seen.0.push(ev.0.to_string());
    });
    world.add_observer(|ev: On<Bits>, mut seen: ResMut<Seen>| {
        // SAFETY: both fields are plain 4-byte values, so any bits are
        // valid for either.
        let (int, float) = unsafe { (ev.int, ev.float) };
        assert_eq!(float.to_bits(), int);
        seen.0.push(format!("bits {int}"));
    });

    let target = world.spawn_empty().id();
    world.trigger(Explode { radius: 2.5 });
    world.trigger(Damage(target, 3));
    world.trigger(Ping);
    world.trigger(Signal::Go);
    world.trigger(Signal::Stop(1));
    world.trigger(Wrapped("wrapped"));
    world.trigger(Bits { int: 9 });
    world.trigger(Wrapped(1_u8)); // no observer for `Wrapped<u8>`

    assert_eq!(
        world.resource::<Seen>().0,
        [
            "explode 2.5".to_owned(),
            format!("damage 3 at {target:?}"),
            "ping".to_owned(),
            "Go".to_owned(),
            "Stop(1)".to_owned(),
            "wrapped".to_owned(),
            "bits 9".to_owned(),
        ]
    );
}
