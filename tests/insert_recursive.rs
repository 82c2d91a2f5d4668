//! `insert_recursive` and `remove_recursive` down a relationship tree.

use ecs::prelude::*;

#[derive(Component, Clone, Debug, PartialEq)]
struct Tint(u8);

#[derive(Component, Clone, Debug, PartialEq)]
struct Keep;

/// root ─┬─ a ── a1
///       └─ b
fn tree(world: &mut World) -> [Entity; 5] {
    let root = world.spawn(Keep).id();
    let a = world.spawn((Keep, ChildOf(root))).id();
    let a1 = world.spawn((Keep, ChildOf(a))).id();
    let b = world.spawn((Keep, ChildOf(root))).id();
    let outside = world.spawn(Keep).id();
    [root, a, a1, b, outside]
}

#[test]
fn insert_and_remove_reach_the_whole_tree_below() {
    let mut world = World::new();
    let [root, a, a1, b, outside] = tree(&mut world);
    world.entity_mut(a).insert_recursive::<Children>(Tint(3));
    assert_eq!(world.get::<Tint>(a), Some(&Tint(3)));
    assert_eq!(world.get::<Tint>(a1), Some(&Tint(3)));
    assert_eq!(world.get::<Tint>(root), None);
    assert_eq!(world.get::<Tint>(b), None);

    world.entity_mut(root).insert_recursive::<Children>(Tint(7));
    for e in [root, a, a1, b] {
        assert_eq!(world.get::<Tint>(e), Some(&Tint(7)));
    }
    assert_eq!(world.get::<Tint>(outside), None);

    world
        .entity_mut(root)
        .remove_recursive::<Children, (Tint, Keep)>();
    for e in [root, a, a1, b] {
        assert!(!world.entity(e).contains::<Tint>());
        assert!(!world.entity(e).contains::<Keep>());
    }
    assert!(world.entity(outside).contains::<Keep>());
    // The tree itself is untouched.
    assert_eq!(world.get::<ChildOf>(a1), Some(&ChildOf(a)));
    world.check_integrity().unwrap();
}

#[test]
fn through_commands() {
    let mut world = World::new();
    let [root, a, a1, b, _] = tree(&mut world);
    world
        .commands()
        .entity(root)
        .insert_recursive::<Children>(Tint(1));
    world.flush();
    for e in [root, a, a1, b] {
        assert_eq!(world.get::<Tint>(e), Some(&Tint(1)));
    }
    world
        .commands()
        .entity(a)
        .remove_recursive::<Children, Tint>();
    world.flush();
    assert_eq!(world.get::<Tint>(root), Some(&Tint(1)));
    assert_eq!(world.get::<Tint>(b), Some(&Tint(1)));
    assert_eq!(world.get::<Tint>(a), None);
    assert_eq!(world.get::<Tint>(a1), None);
}

#[test]
fn a_deep_chain_does_not_overflow_the_stack() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let mut last = root;
    for _ in 0..2_000 {
        last = world.spawn(ChildOf(last)).id();
    }
    world.entity_mut(root).insert_recursive::<Children>(Tint(9));
    assert_eq!(world.get::<Tint>(last), Some(&Tint(9)));
}
