//! Entities linked to entities: a scene graph whose transforms propagate
//! down `ChildOf`, and a many-to-many "who likes whom" relation queried
//! from systems.
//!
//! `cargo run --release --example hierarchy`

use std::f32::consts::FRAC_PI_2;

use ecs::prelude::*;
use ecs::relation::RelationError;

/// A 2D transform: scale, then rotate, then translate.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Transform2 {
    x: f32,
    y: f32,
    angle: f32,
    scale: f32,
}

impl Transform2 {
    const IDENTITY: Self = Self::at(0.0, 0.0);

    const fn at(x: f32, y: f32) -> Self {
        Self {
            x,
            y,
            angle: 0.0,
            scale: 1.0,
        }
    }

    /// `self` applied after `local`: a child's global transform is its
    /// parent's global transform times its own local one.
    fn then(self, local: Self) -> Self {
        let (sin, cos) = self.angle.sin_cos();
        let (lx, ly) = (local.x * self.scale, local.y * self.scale);
        Self {
            x: self.x + lx * cos - ly * sin,
            y: self.y + lx * sin + ly * cos,
            angle: self.angle + local.angle,
            scale: self.scale * local.scale,
        }
    }
}

/// Where a node sits relative to its parent.
#[derive(Component, Clone, Copy, Debug)]
#[require(Global)]
struct Local(Transform2);

/// Where a node sits in the world: written by `propagate`.
#[derive(Component, Clone, Copy, Debug)]
struct Global(Transform2);

impl Default for Global {
    fn default() -> Self {
        Global(Transform2::IDENTITY)
    }
}

/// Walks each tree from its root down `Children`, with an explicit stack
/// (so any depth is fine), composing each node's `Local` with its parent's
/// `Global`.
fn propagate(
    roots: Query<Entity, (With<Local>, Without<ChildOf>)>,
    nodes: Query<(&Local, Option<&Children>)>,
    mut globals: Query<&mut Global>,
) {
    let mut stack: Vec<(Entity, Transform2)> = roots
        .iter()
        .map(|root| (root, Transform2::IDENTITY))
        .collect();
    while let Some((entity, parent)) = stack.pop() {
        let Ok((local, children)) = nodes.get(entity) else {
            continue;
        };
        let global = parent.then(local.0);
        if let Ok(mut slot) = globals.get_mut(entity) {
            slot.0 = global;
        }
        for &child in children.into_iter().flatten() {
            stack.push((child, global));
        }
    }
}

/// Spins every node named in `Spin` by its rate.
#[derive(Component)]
struct Spin(f32);

fn spin(mut nodes: Query<(&mut Local, &Spin)>) {
    for (mut local, spin) in nodes.iter_mut() {
        local.0.angle += spin.0;
    }
}

#[derive(Component, Debug, Clone, PartialEq)]
struct Name(&'static str);

fn scene_graph() {
    let mut world = World::new();
    // sun ─▶ planet ─▶ moon, and a comet beside them with no parent.
    let mut moon = Entity::PLACEHOLDER;
    let mut planet = Entity::PLACEHOLDER;
    let sun = world
        .spawn((Name("sun"), Local(Transform2::IDENTITY), Spin(FRAC_PI_2)))
        .with_children(|sun| {
            planet = sun
                .spawn((Name("planet"), Local(Transform2::at(10.0, 0.0))))
                .with_children(|planet| {
                    let mut local = Transform2::at(2.0, 0.0);
                    local.scale = 0.5;
                    moon = planet.spawn((Name("moon"), Local(local))).id();
                })
                .id();
        })
        .id();
    let comet = world
        .spawn((Name("comet"), Local(Transform2::at(-5.0, 5.0))))
        .id();

    let mut schedule = Schedule::default();
    schedule.add_systems((spin, propagate).chain());
    schedule.run(&mut world);

    // The sun turned a quarter: the planet moved from +x to +y, and the
    // moon with it.
    let at = |world: &World, e: Entity| world.get::<Global>(e).unwrap().0;
    let close = |a: f32, b: f32| (a - b).abs() < 1e-4;
    let p = at(&world, planet);
    let m = at(&world, moon);
    println!(
        "after one turn: planet at ({:.2}, {:.2}), moon at ({:.2}, {:.2})",
        p.x, p.y, m.x, m.y
    );
    assert!(close(p.x, 0.0) && close(p.y, 10.0), "{p:?}");
    assert!(close(m.x, 0.0) && close(m.y, 12.0), "{m:?}");
    assert_eq!(at(&world, comet), Transform2::at(-5.0, 5.0));

    // Re-parenting the moon to the comet moves it with its new parent.
    world.entity_mut(comet).add_child(moon);
    schedule.run(&mut world);
    let m = at(&world, moon);
    assert!(close(m.x, -3.0) && close(m.y, 5.0), "{m:?}");
    assert_eq!(world.get::<Children>(planet).map(|c| c.len()), None);

    // Despawning the sun despawns the planet under it, not the moon.
    world.despawn(sun);
    assert!(world.get_entity(planet).is_err());
    assert!(world.get_entity(moon).is_ok());
    println!("scene graph: transforms propagate down ChildOf");
}

/// Many-to-many: anyone may like anyone, and everyone knows who likes them.
#[derive(Relation)]
struct Likes;

/// Symmetric: `a` is a friend of `b` exactly when `b` is a friend of `a`.
#[derive(Relation)]
#[relation(symmetric)]
struct FriendOf;

/// Befriends every pair that likes each other.
fn befriend_mutual_likes(
    likers: Query<(Entity, &Targets<Likes>)>,
    world_likes: Related<Likes, Entity>,
    mut commands: Commands,
) {
    for (a, liked) in likers.iter() {
        for &b in liked.iter() {
            if a < b && world_likes.targets(b).contains(&a) {
                commands.entity(a).relate::<FriendOf>(b);
            }
        }
    }
}

/// The names of those who like `target`: the sources of `Likes` that have
/// a `Name`.
fn fans(In(target): In<Entity>, related: Related<Likes, &Name>) -> Vec<&'static str> {
    related.iter_sources(target).map(|name| name.0).collect()
}

/// The most liked entity: "has any fan" is the archetype filter
/// `With<Sources<Likes>>`, and the fans are a slice on each.
fn most_liked(liked: Query<(&Name, &Sources<Likes>)>) -> Option<(&'static str, usize)> {
    liked
        .iter()
        .map(|(name, fans)| (name.0, fans.len()))
        .max_by_key(|&(_, count)| count)
}

fn who_likes_whom() -> Result<(), RelationError> {
    let mut world = World::new();
    let [ana, ben, cho, dee] =
        ["ana", "ben", "cho", "dee"].map(|name| world.spawn(Name(name)).id());
    world
        .entity_mut(ana)
        .relate::<Likes>(ben)?
        .relate::<Likes>(cho)?;
    world.entity_mut(ben).relate::<Likes>(ana)?;
    world.entity_mut(cho).relate::<Likes>(ben)?;
    world
        .entity_mut(dee)
        .relate::<Likes>(ben)?
        .relate::<Likes>(cho)?;

    for (name, person) in [("ana", ana), ("ben", ben), ("cho", cho), ("dee", dee)] {
        let who = world
            .run_system_once_with(fans, person)
            .expect("the system runs");
        println!("{name} is liked by {who:?}");
    }
    assert_eq!(
        world
            .run_system_once_with(fans, ben)
            .expect("the system runs"),
        ["ana", "cho", "dee"]
    );
    assert_eq!(
        world.run_system_once(most_liked).expect("the system runs"),
        Some(("ben", 3))
    );

    world
        .run_system_once(befriend_mutual_likes)
        .expect("the system runs");
    assert_eq!(world.targets_of::<FriendOf>(ben), &[ana]);
    assert_eq!(world.targets_of::<FriendOf>(ana), &[ben]);

    // Liking oneself is refused, naming the entity.
    let refused = world.entity_mut(dee).relate::<Likes>(dee).unwrap_err();
    println!("refused: {refused}");

    // Despawning someone removes them from both sides of every relation.
    world.despawn(ben);
    assert_eq!(world.targets_of::<Likes>(ana), &[cho]);
    assert!(world.get::<Targets<FriendOf>>(ana).is_none());
    assert_eq!(
        world.run_system_once(most_liked).expect("the system runs"),
        Some(("cho", 2))
    );
    world.check_integrity().expect("the world is consistent");
    println!("who likes whom: both sides agree after every change");
    Ok(())
}

fn main() -> Result<(), RelationError> {
    scene_graph();
    who_likes_whom()
}
