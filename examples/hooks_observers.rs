//! Hooks, observers and required components: code that runs when
//! something happens to an entity, at the moment it happens.
//!
//! - A component *hook* belongs to the component type: one of each kind
//!   (`on_add`, `on_insert`, `on_discard`, `on_remove`, `on_despawn`), a
//!   plain `fn(DeferredWorld, HookContext)`, declared with
//!   `#[component(..)]` or registered at run time. Hooks keep a component's
//!   own invariants, whatever code path adds or removes it.
//! - An *observer* is a system whose first parameter is `On<P>`: any
//!   number of them, for lifecycle events (`On<Add<Player>>`) or for your
//!   own `#[derive(Event)]` events, globally or for one entity.
//! - `#[require(..)]` makes a component bring the others it needs.
//! - `#[component(immutable)]` leaves a component no `get_mut`, so every
//!   change passes its hooks: an index they keep stays exact.
//!
//! A small party fights a dragon.
//!
//! `cargo run --example hooks_observers`

use std::collections::HashMap;

use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::world::DeferredWorld;

/// A player character. Spawning one brings what every player needs, unless
/// the spawn gives its own value. Its hooks keep the party roster.
#[derive(Component)]
#[component(on_add = join_party, on_remove = leave_party)]
#[require(Health(100), MaxHealth(100))]
struct Player;

/// Looked up through `NameIndex`, which its hooks keep in sync. It uses
/// `on_insert` / `on_discard` rather than `on_add` / `on_remove` so that a
/// rename (inserting a new `Name` over the old) updates the index too.
/// Immutable, so no `get_mut` can change a name behind the hooks' back:
/// a rename inserts a new value or goes through `modify_component`.
#[derive(Component, Debug)]
#[component(immutable, on_insert = index_name, on_discard = unindex_name)]
struct Name(&'static str);

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

#[derive(Component, Debug, PartialEq)]
struct MaxHealth(u32);

#[derive(Component)]
struct Enraged;

/// Players, in the order they joined.
#[derive(Resource, Default)]
struct Party(Vec<Entity>);

#[derive(Resource, Default)]
struct NameIndex(HashMap<&'static str, Entity>);

/// What happened, in order: written by the observers.
#[derive(Resource, Default)]
struct Journal(Vec<String>);

impl Journal {
    fn write(&mut self, line: String) {
        println!("  {line}");
        self.0.push(line);
    }
}

/// An entity event, aimed at the entity that takes the damage.
#[derive(EntityEvent)]
struct Damage {
    entity: Entity,
    amount: u32,
}

/// A custom event aimed at no entity in particular.
#[derive(Event)]
struct NewDay;

// ---- hooks: `fn(DeferredWorld, HookContext)` --------------------------------
//
// A `DeferredWorld` reads and writes values and resources and queues
// commands, but cannot add or remove components itself.

fn join_party(mut world: DeferredWorld, context: HookContext) {
    world.resource_mut::<Party>().0.push(context.entity);
}

fn leave_party(mut world: DeferredWorld, context: HookContext) {
    world
        .resource_mut::<Party>()
        .0
        .retain(|&e| e != context.entity);
}

fn index_name(mut world: DeferredWorld, context: HookContext) {
    // `on_insert` runs with the new value in place.
    let name = world.get::<Name>(context.entity).expect("in place").0;
    world
        .resource_mut::<NameIndex>()
        .0
        .insert(name, context.entity);
}

fn unindex_name(mut world: DeferredWorld, context: HookContext) {
    // `on_discard` runs while the old value is still there.
    let name = world.get::<Name>(context.entity).expect("still there").0;
    world.resource_mut::<NameIndex>().0.remove(name);
}

/// Registered at run time (for a type you cannot annotate, or a rule that
/// depends on setup): an inserted health never exceeds the maximum.
fn clamp_health(mut world: DeferredWorld, context: HookContext) {
    let Some(max) = world.get::<MaxHealth>(context.entity).map(|m| m.0) else {
        return;
    };
    let mut health = world.get_mut::<Health>(context.entity).expect("in place");
    if health.0 > max {
        health.0 = max;
    }
}

// ---- observers: `On<P>` first, then any system parameters ------------------

fn announce_join(
    joined: On<Add<Player>>,
    names: Query<&Name>,
    party: Res<Party>,
    mut journal: ResMut<Journal>,
) {
    // Hooks run before observers: the roster already counts the newcomer.
    let name = names.get(joined.entity).map_or("someone", |n| n.0);
    journal.write(format!("{name} joins the party ({} strong)", party.0.len()));
}

fn announce_leave(left: On<Remove<Player>>, names: Query<&Name>, mut journal: ResMut<Journal>) {
    // The component is about to go: the entity's values are still there.
    let name = names.get(left.entity).map_or("someone", |n| n.0);
    journal.write(format!("{name} leaves the party"));
}

/// A global observer of an entity event: sees every `Damage`, whatever it
/// targets. Despawning is a command: it applies right after the observers.
fn apply_damage(
    damage: On<Damage>,
    mut targets: Query<(&Name, &mut Health)>,
    mut commands: Commands,
    mut journal: ResMut<Journal>,
) {
    let target = damage.entity;
    let Ok((name, mut health)) = targets.get_mut(target) else {
        return;
    };
    health.0 = health.0.saturating_sub(damage.amount);
    journal.write(format!(
        "{} takes {} ({} left)",
        name.0, damage.amount, health.0
    ));
    if health.0 == 0 {
        journal.write(format!("{} falls", name.0));
        commands.entity(target).despawn();
    }
}

fn dawn(
    _: On<NewDay>,
    mut everyone: Query<(&mut Health, &MaxHealth)>,
    mut journal: ResMut<Journal>,
) {
    for (mut health, max) in &mut everyone {
        health.0 = max.0;
    }
    journal.write("a new day: everyone is healed".into());
}

/// A system that triggers events through its commands.
fn dragon_breath(mut commands: Commands, party: Query<Entity, With<Player>>) {
    for player in &party {
        commands.trigger(Damage {
            entity: player,
            amount: 30,
        });
    }
    commands.trigger(NewDay);
}

fn main() {
    let mut world = World::new();
    world.init_resource::<Party>();
    world.init_resource::<NameIndex>();
    world.init_resource::<Journal>();
    world
        .register_component_hooks::<Health>()
        .on_insert(clamp_health);
    world.add_observer(announce_join);
    world.add_observer(announce_leave);
    world.add_observer(apply_damage);
    world.add_observer(dawn);

    println!("the party gathers:");
    // `Player` requires `Health(100)` and `MaxHealth(100)`.
    let ayla = world.spawn((Player, Name("Ayla"))).id();
    assert_eq!(world.get::<Health>(ayla), Some(&Health(100)));
    assert_eq!(world.get::<MaxHealth>(ayla), Some(&MaxHealth(100)));
    // A given value wins over the required one: Bram's maximum is 80, and
    // the runtime hook clamps the required `Health(100)` to it.
    let bram = world.spawn((Player, Name("Bram"), MaxHealth(80))).id();
    assert_eq!(world.get::<Health>(bram), Some(&Health(80)));
    assert_eq!(world.resource::<Party>().0, [ayla, bram]);

    // An entity observer: runs only for events that target the dragon
    // (after the global `apply_damage`, which was added first).
    let dragon = world
        .spawn((Name("dragon"), Health(300), MaxHealth(300)))
        .observe(
            |hit: On<Damage>,
             dragon: Query<(&Health, &MaxHealth, Has<Enraged>)>,
             mut commands: Commands,
             mut journal: ResMut<Journal>| {
                let (health, max, enraged) = dragon.get(hit.entity).expect("the dragon");
                if !enraged && health.0 * 2 < max.0 {
                    journal.write("the dragon is enraged!".into());
                    commands.entity(hit.entity).insert(Enraged);
                }
            },
        )
        .id();
    assert_eq!(world.resource::<NameIndex>().0["dragon"], dragon);

    println!("the fight:");
    world.trigger(Damage {
        entity: dragon,
        amount: 120,
    });
    world.trigger(Damage {
        entity: dragon,
        amount: 40,
    });
    assert!(world.entity(dragon).contains::<Enraged>());
    world.trigger(Damage {
        entity: bram,
        amount: 90,
    });
    // Bram fell: the observer's despawn applied at once, and the hooks of
    // `Player` and `Name` cleaned the roster and the index.
    assert!(!world.contains_entity(bram));
    assert_eq!(world.resource::<Party>().0, [ayla]);
    assert!(!world.resource::<NameIndex>().0.contains_key("Bram"));

    world.run_system_once(dragon_breath).unwrap();
    assert_eq!(world.get::<Health>(ayla), Some(&Health(100)), "healed");
    assert_eq!(world.get::<Health>(dragon), Some(&Health(300)));

    // Renaming replaces the `Name`: `on_discard` drops the old key and
    // `on_insert` adds the new one. `modify_component` changes it in place
    // with the same two hooks around the change.
    world.entity_mut(ayla).insert(Name("Ayla the Bold"));
    world
        .modify_component(ayla, |name: &mut Name| name.0 = "Ayla the Brave")
        .unwrap();
    let index = &world.resource::<NameIndex>().0;
    let mut names: Vec<&str> = index.keys().copied().collect();
    names.sort_unstable();
    println!("index: {names:?}");
    assert_eq!(names, ["Ayla the Brave", "dragon"]);

    assert_eq!(
        world.resource::<Journal>().0,
        [
            "Ayla joins the party (1 strong)",
            "Bram joins the party (2 strong)",
            "dragon takes 120 (180 left)",
            "dragon takes 40 (140 left)",
            "the dragon is enraged!",
            "Bram takes 90 (0 left)",
            "Bram falls",
            "Bram leaves the party",
            "Ayla takes 30 (70 left)",
            "a new day: everyone is healed",
        ]
    );
}
