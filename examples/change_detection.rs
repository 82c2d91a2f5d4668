//! Change detection: react only to what was added or changed since a
//! system last ran.
//!
//! A game server that sends clients only what changed. It shows the
//! `Added<T>` / `Changed<T>` filters, `Ref<T>` with `is_added()` /
//! `is_changed()`, how `Mut<T>` marks a value changed (writes do, reads do
//! not, `set_if_neq` only when the value differs, `bypass_change_detection`
//! never), that every system keeps its own ticks (a system that runs less
//! often still sees each change, once), `is_changed()` on resources, and
//! a component that keeps no change ticks at all (`no_change_ticks`).
//!
//! `cargo run --example change_detection`

use ecs::prelude::*;

#[derive(Component, Debug)]
struct Name(&'static str);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Debug, PartialEq)]
struct Health(u32);

/// Counts down every frame; no system asks whether it changed, so it keeps
/// no change ticks: inserting or removing other components moves its value
/// alone, and `Added`/`Changed`/`Ref` of it panic, naming it.
#[derive(Component, Debug, PartialEq)]
#[component(no_change_ticks)]
struct Cooldown(u32);

#[derive(Resource, Debug, PartialEq)]
struct Difficulty(u32);

/// The messages "sent" to clients this frame.
#[derive(Resource, Default)]
struct Outbox(Vec<String>);

/// What the heads-up display redrew this frame.
#[derive(Resource, Default)]
struct HudLog(Vec<String>);

fn movement(mut movers: Query<(&mut Position, &Velocity)>) {
    for (mut position, velocity) in &mut movers {
        let next = Position {
            x: position.x + velocity.x,
            y: position.y + velocity.y,
        };
        // `*position = next` would mark a unit standing still as changed
        // too; `set_if_neq` writes (and marks) only when the value differs.
        position.set_if_neq(next);
    }
}

/// `Added<T>`: entities that gained a `Name` since this system last ran.
fn sync_spawned(spawned: Query<(&Name, &Position), Added<Name>>, mut outbox: ResMut<Outbox>) {
    for (name, p) in &spawned {
        outbox
            .0
            .push(format!("spawn {} at ({}, {})", name.0, p.x, p.y));
    }
}

/// `Changed<T>` also matches values that were just added (adding is a
/// change); `Ref::is_added` tells them apart.
fn sync_moved(moved: Query<(&Name, Ref<Position>), Changed<Position>>, mut outbox: ResMut<Outbox>) {
    for (name, p) in &moved {
        if p.is_added() {
            continue; // `sync_spawned` sent the whole entity
        }
        outbox
            .0
            .push(format!("move {} to ({}, {})", name.0, p.x, p.y));
    }
}

/// Without a filter, `Ref<T>` visits every entity and answers per value.
fn sync_health(units: Query<(&Name, Ref<Health>)>, mut outbox: ResMut<Outbox>) {
    for (name, health) in &units {
        if health.is_changed() && !health.is_added() {
            outbox.0.push(format!("health {} {}", name.0, health.0));
        }
    }
}

/// Resources carry ticks too: `Res::is_changed` is true on the first run
/// (the value is new to this system) and after each write.
fn apply_difficulty(difficulty: Res<Difficulty>, mut outbox: ResMut<Outbox>) {
    if difficulty.is_changed() {
        outbox.0.push(format!("difficulty {}", difficulty.0));
    }
}

/// Runs every other frame, and still sees every change since its own last
/// run, each exactly once.
fn redraw_hud(units: Query<(&Name, Ref<Health>)>, mut hud: ResMut<HudLog>) {
    for (name, health) in &units {
        if health.is_changed() {
            hud.0.push(format!("{} {}", name.0, health.0));
        }
    }
}

/// Runs the frame's systems and returns what they sent.
fn frame(
    world: &mut World,
    number: u32,
    every_frame: &mut Schedule,
    hud: Option<&mut Schedule>,
) -> (Vec<String>, Vec<String>) {
    every_frame.run(world);
    if let Some(hud) = hud {
        hud.run(world);
    }
    let sent = std::mem::take(&mut world.resource_mut::<Outbox>().0);
    let drawn = std::mem::take(&mut world.resource_mut::<HudLog>().0);
    println!("frame {number}: sent [{}]", sent.join("; "));
    if !drawn.is_empty() {
        println!("         hud redrew [{}]", drawn.join("; "));
    }
    (sent, drawn)
}

fn main() {
    let mut world = World::new();
    world.init_resource::<Outbox>();
    world.init_resource::<HudLog>();
    world.insert_resource(Difficulty(1));

    let mut every_frame = Schedule::default();
    every_frame.add_systems(
        (
            movement,
            sync_spawned,
            sync_moved,
            sync_health,
            apply_difficulty,
        )
            .chain(),
    );
    let mut hud = Schedule::default();
    hud.add_systems(redraw_hud);

    let still = Velocity { x: 0.0, y: 0.0 };
    let knight = world
        .spawn((
            Name("knight"),
            Position { x: 0.0, y: 0.0 },
            Velocity { x: 1.0, y: 0.0 },
            Health(100),
        ))
        .id();
    let archer = world
        .spawn((
            Name("archer"),
            Position { x: 5.0, y: 5.0 },
            still,
            Health(60),
        ))
        .id();
    let wizard = world
        .spawn((
            Name("wizard"),
            Position { x: -3.0, y: 0.0 },
            Velocity { x: 0.0, y: 1.0 },
            Health(40),
        ))
        .id();

    // Frame 1: everything is new.
    let (sent, drawn) = frame(&mut world, 1, &mut every_frame, Some(&mut hud));
    assert_eq!(
        sent,
        [
            "spawn knight at (1, 0)",
            "spawn archer at (5, 5)",
            "spawn wizard at (-3, 1)",
            "difficulty 1",
        ]
    );
    assert_eq!(drawn, ["knight 100", "archer 60", "wizard 40"]);

    // Frame 2: the knight is hit. Looking at the archer through a `Mut`
    // without writing marks nothing.
    world.get_mut::<Health>(knight).unwrap().0 -= 10;
    let last_changed = |world: &World, e| world.get_ref::<Health>(e).unwrap().last_changed();
    let archer_tick = last_changed(&world, archer);
    let archer_health = world.get_mut::<Health>(archer).unwrap();
    assert_eq!(archer_health.0, 60);
    assert_eq!(last_changed(&world, archer), archer_tick);
    let (sent, _) = frame(&mut world, 2, &mut every_frame, None);
    // The archer stands still: `set_if_neq` left its position unmarked.
    assert_eq!(
        sent,
        [
            "move knight to (2, 0)",
            "move wizard to (-3, 2)",
            "health knight 90"
        ]
    );

    // Frame 3: the archer is hit; the wizard's health is restored from a
    // server correction the clients already have, so it bypasses change
    // detection and is not sent again; the difficulty goes up.
    world.get_mut::<Health>(archer).unwrap().0 -= 15;
    let wizard_tick = last_changed(&world, wizard);
    *world
        .get_mut::<Health>(wizard)
        .unwrap()
        .bypass_change_detection() = Health(45);
    assert_eq!(last_changed(&world, wizard), wizard_tick);
    world.resource_mut::<Difficulty>().0 = 2;
    let (sent, drawn) = frame(&mut world, 3, &mut every_frame, Some(&mut hud));
    assert_eq!(
        sent,
        [
            "move knight to (3, 0)",
            "move wizard to (-3, 3)",
            "health archer 45",
            "difficulty 2",
        ]
    );
    // The HUD skipped frame 2 but not the knight's wound: it sees what
    // changed since *it* last ran (frame 1), where `sync_health` saw each
    // change in its own frame.
    assert_eq!(drawn, ["knight 90", "archer 45"]);

    // Frame 4: the knight stops, and writing the same difficulty again
    // with `set_if_neq` is not a change.
    *world.get_mut::<Velocity>(knight).unwrap() = still;
    let changed = world.resource_mut::<Difficulty>().set_if_neq(Difficulty(2));
    assert!(!changed);
    let (sent, _) = frame(&mut world, 4, &mut every_frame, None);
    assert_eq!(sent, ["move wizard to (-3, 4)"]);

    // Outside systems, a `QueryState` compares against the last
    // `world.clear_trackers()`: call it once per frame of your own loop.
    world.clear_trackers();
    world.get_mut::<Health>(wizard).unwrap().0 -= 5;
    let mut hurt = world.query_filtered::<&Name, Changed<Health>>();
    let names: Vec<&str> = hurt.iter(&world).map(|n| n.0).collect();
    println!("changed since clear_trackers: {names:?}");
    assert_eq!(names, ["wizard"]);
    world.clear_trackers();
    assert!(hurt.is_empty(&world));

    // A component without change ticks is written through `&mut` like any
    // other; its value survives the table moves of the knight's inserts
    // and removals.
    world.entity_mut(knight).insert(Cooldown(3));
    for mut cooldown in world.query::<&mut Cooldown>().iter_mut(&mut world) {
        cooldown.0 -= 1;
    }
    world.entity_mut(knight).remove::<Velocity>();
    assert_eq!(world.get::<Cooldown>(knight), Some(&Cooldown(2)));
    const { assert!(!<Cooldown as Component>::CHANGE_TICKS) };
    println!(
        "knight's cooldown, without change ticks: {:?}",
        world.get::<Cooldown>(knight)
    );
}
