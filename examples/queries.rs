//! Queries: ask the world for every entity of a given shape, and get
//! exactly the data you named.
//!
//! A small arena: what each query term fetches (`&T`, `&mut T`,
//! `Option<&T>`, `Entity`, `Has<T>`, `AnyOf`), how filters pick entities
//! (`With`, `Without`, `Or`), how to look up one entity (`get`,
//! `get_many_mut`, `single`), and how `#[derive(QueryData)]` /
//! `#[derive(QueryFilter)]` name a query you use often. The same queries
//! work standalone (`world.query::<D>()`, a `QueryState`) and as a system
//! parameter (`Query<D, F>`).
//!
//! `cargo run --example queries`

use ecs::prelude::*;
use ecs::query::{QueryEntityError, QuerySingleError};

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

#[derive(Component, Debug)]
struct Name(&'static str);

#[derive(Component, Debug, PartialEq)]
struct Health(i32);

/// Absorbs damage before health does.
#[derive(Component, Debug, PartialEq)]
struct Shield(i32);

/// Fixed damage reduction.
#[derive(Component, Debug, PartialEq)]
struct Armor(i32);

#[derive(Component)]
struct Player;

#[derive(Component)]
struct Enemy;

/// Comes and goes: a sparse set keeps adding it cheap.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct Dead;

/// Everything needed to take a hit, as one named struct instead of a tuple.
///
/// The derive writes `CombatantItem<'w, 's>` (what `iter_mut` yields: `health`
/// is a `Mut<Health>`, `shield` an `Option<Mut<Shield>>`) and, because of
/// `mutable`, the read-only twin `CombatantReadOnlyItem<'w, 's>` (what `iter`
/// yields: plain `&Health`, `Option<&Shield>`).
#[derive(QueryData)]
#[query_data(mutable)]
struct Combatant {
    entity: Entity,
    name: &'static Name,
    health: &'static mut Health,
    shield: Option<&'static mut Shield>,
    armor: Option<&'static Armor>,
}

impl CombatantItem<'_, '_> {
    /// Armor first, then the shield, then health. Only what is actually
    /// written is marked changed.
    fn take_hit(&mut self, damage: i32) {
        let mut damage = (damage - self.armor.map_or(0, |a| a.0)).max(0);
        if let Some(shield) = &mut self.shield {
            let absorbed = damage.min(shield.0);
            shield.0 -= absorbed;
            damage -= absorbed;
        }
        if damage > 0 {
            self.health.0 -= damage;
        }
    }
}

/// A filter used in several places: enemies that are still standing.
#[derive(QueryFilter)]
struct LivingEnemy {
    _enemy: With<Enemy>,
    _alive: Without<Dead>,
}

fn spawn_arena(world: &mut World) -> [Entity; 6] {
    let pos = |x, y| Position { x, y };
    let hero = world
        .spawn((
            Name("hero"),
            Player,
            pos(0.0, 0.0),
            Velocity { x: 1.0, y: 0.0 },
            Health(100),
            Shield(20),
        ))
        .id();
    let goblin = world
        .spawn((
            Name("goblin"),
            Enemy,
            pos(5.0, 0.0),
            Velocity { x: -1.0, y: 0.0 },
            Health(30),
        ))
        .id();
    // The archer stands still: no `Velocity`.
    let archer = world
        .spawn((Name("archer"), Enemy, pos(8.0, 3.0), Health(20), Armor(2)))
        .id();
    let troll = world
        .spawn((
            Name("troll"),
            Enemy,
            pos(12.0, -2.0),
            Velocity { x: -0.5, y: 0.0 },
            Health(80),
            Shield(10),
            Armor(5),
        ))
        .id();
    let ghost = world
        .spawn((Name("ghost"), Enemy, pos(3.0, 3.0), Health(0), Dead))
        .id();
    // Scenery: a name and a place, nothing to fight.
    let tree = world.spawn((Name("tree"), pos(2.0, 2.0))).id();
    [hero, goblin, archer, troll, ghost, tree]
}

/// A system: the same `Combatant` / `LivingEnemy` pair as a `Query`
/// parameter. Every living enemy takes 6 poison damage.
fn poison_cloud(mut enemies: Query<Combatant, LivingEnemy>) {
    for mut enemy in &mut enemies {
        enemy.take_hit(6);
    }
}

/// A system that returns a value: the name of the healthiest living enemy.
fn toughest_enemy(enemies: Query<(&Name, &Health), LivingEnemy>) -> &'static str {
    enemies
        .iter()
        .max_by_key(|(_, health)| health.0)
        .map_or("nobody", |(name, _)| name.0)
}

fn main() {
    let mut world = World::new();
    let [hero, goblin, archer, troll, ghost, tree] = spawn_arena(&mut world);

    // `&mut T` to write, `&T` to read: only entities with both match, so
    // the archer and the tree are not visited.
    let mut movers = world.query::<(&mut Position, &Velocity)>();
    for (mut position, velocity) in movers.iter_mut(&mut world) {
        position.x += velocity.x;
        position.y += velocity.y;
    }
    println!("moved {} entities", movers.count(&world));
    assert_eq!(movers.count(&world), 3);
    assert_eq!(
        world.get::<Position>(hero),
        Some(&Position { x: 1.0, y: 0.0 })
    );
    assert_eq!(
        world.get::<Position>(archer),
        Some(&Position { x: 8.0, y: 3.0 })
    );

    // `Entity` is the id, `Option<&T>` never excludes anyone, and
    // `Has<T>` is a bool: neither of them narrows the match.
    let mut roster = world.query::<(Entity, &Name, &Health, Option<&Shield>, Has<Player>)>();
    println!("roster:");
    for (entity, name, health, shield, is_player) in roster.iter(&world) {
        let shield = shield.map_or(String::from("-"), |s| s.0.to_string());
        let role = if is_player { " (player)" } else { "" };
        println!(
            "  {entity:?} {:<7} health {:>3}, shield {shield:>2}{role}",
            name.0, health.0
        );
    }
    assert_eq!(roster.count(&world), 5, "the tree has no Health");

    // `AnyOf`: entities with at least one of the terms, each an `Option`.
    let mut protected = world.query::<(&Name, AnyOf<(&Shield, &Armor)>)>();
    let mut names: Vec<&str> = protected
        .iter(&world)
        .map(|(name, (shield, armor))| {
            assert!(shield.is_some() || armor.is_some());
            name.0
        })
        .collect();
    names.sort_unstable();
    println!("protected by a shield or armor: {}", names.join(", "));
    assert_eq!(names, ["archer", "hero", "troll"]);

    // Filters choose entities without fetching anything: a tuple of
    // filters must all hold, `Or` needs one of them.
    let mut targets =
        world.query_filtered::<&Name, (Or<(With<Player>, With<Enemy>)>, Without<Dead>)>();
    let mut names: Vec<&str> = targets.iter(&world).map(|n| n.0).collect();
    names.sort_unstable();
    println!("can be hit: {}", names.join(", "));
    assert_eq!(names, ["archer", "goblin", "hero", "troll"]);

    // One entity: `get` says why it cannot answer.
    let mut health = world.query::<&Health>();
    assert_eq!(health.get(&world, goblin), Ok(&Health(30)));
    assert_eq!(
        health.get(&world, tree),
        Err(QueryEntityError::QueryDoesNotMatch(tree))
    );
    let gone = world.spawn(Health(1)).id();
    world.despawn(gone);
    assert_eq!(
        health.get(&world, gone),
        Err(QueryEntityError::NoSuchEntity(gone))
    );
    println!(
        "get: goblin {:?}, tree: {}",
        health.get(&world, goblin).unwrap(),
        health.get(&world, tree).unwrap_err()
    );

    // Two entities mutably at once: the hero drains the goblin's health.
    let mut duel = world.query::<&mut Health>();
    let [mut hero_health, mut goblin_health] = duel
        .get_many_mut(&mut world, [hero, goblin])
        .expect("both exist and have Health");
    goblin_health.0 -= 10;
    hero_health.0 += 10;
    assert_eq!(world.get::<Health>(hero), Some(&Health(110)));
    assert_eq!(
        duel.get_many_mut(&mut world, [hero, hero]).err(),
        Some(QueryEntityError::AliasedMutability(hero)),
        "the same entity twice would alias"
    );

    // `single` for the one entity of its kind, and an error otherwise.
    let mut player = world.query_filtered::<&Name, With<Player>>();
    let name = player.single(&world).expect("one player");
    println!("the single player: {}", name.0);
    assert_eq!(name.0, "hero");
    let mut enemies = world.query_filtered::<&Name, With<Enemy>>();
    assert!(matches!(
        enemies.single(&world),
        Err(QuerySingleError::MultipleEntities(_))
    ));

    // The derived data and filter, standalone: a fireball hits every
    // living enemy for 12. Armor and shields soak some of it.
    let mut living = world.query_filtered::<Combatant, LivingEnemy>();
    for mut enemy in living.iter_mut(&mut world) {
        enemy.take_hit(12);
    }
    // Read-only iteration yields the `ReadOnly` item: plain references.
    println!("after the fireball:");
    for enemy in living.iter(&world) {
        println!(
            "  {:<7} health {:>3} shield {:?}",
            enemy.name.0,
            enemy.health.0,
            enemy.shield.map(|s| s.0)
        );
    }
    assert_eq!(world.get::<Health>(goblin), Some(&Health(8))); // 30 - 10 - 12
    assert_eq!(world.get::<Health>(archer), Some(&Health(10))); // 12 - 2 armor
    assert_eq!(world.get::<Shield>(troll), Some(&Shield(3))); // 12 - 5 armor
    assert_eq!(world.get::<Health>(troll), Some(&Health(80)));
    assert_eq!(
        world.get::<Health>(ghost),
        Some(&Health(0)),
        "dead: skipped"
    );

    // The same types as system parameters.
    world.run_system_once(poison_cloud).unwrap();
    let toughest = world.run_system_once(toughest_enemy).unwrap();
    println!("after the poison cloud the toughest enemy is the {toughest}");
    assert_eq!(world.get::<Health>(goblin), Some(&Health(2)));
    assert_eq!(world.get::<Health>(archer), Some(&Health(6))); // 6 - 2 armor
    assert_eq!(world.get::<Shield>(troll), Some(&Shield(2))); // 6 - 5 armor
    assert_eq!(world.get::<Health>(troll), Some(&Health(80)));
    assert_eq!(toughest, "troll");
}
