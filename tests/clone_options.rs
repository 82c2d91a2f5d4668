//! `EntityClonerBuilder` options: the opt-out insert mode, and allowing a
//! component twice in opt-in cloning.

use ecs::bundle::InsertMode;
use ecs::entity::EntityCloner;
use ecs::prelude::*;

#[derive(Component, Clone, PartialEq, Debug)]
struct A(u8);

#[derive(Component, Clone, PartialEq, Debug)]
struct B;

#[derive(Component, Clone, PartialEq, Debug)]
struct C;

#[derive(Component, Clone, PartialEq, Debug)]
#[require(Needed(5))]
struct Needs;

#[derive(Component, Clone, PartialEq, Debug)]
struct Needed(u8);

#[test]
fn opt_out_keep_clones_only_what_the_target_lacks() {
    let mut world = World::new();
    let source = world.spawn((A(5), B, C)).id();
    let target = world.spawn(A(8)).id();
    EntityCloner::build_opt_out(&mut world)
        .deny::<B>()
        .insert_mode(InsertMode::Keep)
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(8)));
    assert!(world.get::<B>(target).is_none());
    assert!(world.get::<C>(target).is_some());

    // Replace, the default, overwrites.
    let target = world.spawn(A(8)).id();
    EntityCloner::build_opt_out(&mut world)
        .insert_mode(InsertMode::Keep)
        .insert_mode(InsertMode::Replace)
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(5)));
    assert!(world.get::<B>(target).is_some());
    world.check_integrity().unwrap();
}

#[test]
fn opt_out_keep_through_entity_world_mut() {
    let mut world = World::new();
    let source = world.spawn((A(1), C)).id();
    let target = world.spawn(A(2)).id();
    world
        .entity_mut(source)
        .clone_with_opt_out(target, |builder| {
            builder.insert_mode(InsertMode::Keep);
        });
    assert_eq!(world.get::<A>(target), Some(&A(2)));
    assert!(world.entity(target).contains::<C>());
}

#[test]
fn allow_and_allow_if_new_always_allows() {
    let mut world = World::new();
    let source = world.spawn(A(1)).id();
    let target = world.spawn(A(2)).id();
    EntityCloner::build_opt_in(&mut world)
        .allow_if_new::<A>()
        .allow::<A>()
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(1)));

    let target = world.spawn(A(2)).id();
    EntityCloner::build_opt_in(&mut world)
        .allow::<A>()
        .allow_if_new::<A>()
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(1)));

    // Only `allow_if_new`: kept.
    let target = world.spawn(A(2)).id();
    EntityCloner::build_opt_in(&mut world)
        .allow_if_new::<A>()
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(2)));
}

#[test]
fn allowing_with_and_without_required_components_includes_them() {
    let mut world = World::new();
    let source = world.spawn((Needs, Needed(10))).id();

    let target = world.spawn_empty().id();
    EntityCloner::build_opt_in(&mut world)
        .without_required_components(|builder| {
            builder.allow::<Needs>();
        })
        .allow::<Needs>()
        .clone_entity(source, target);
    assert_eq!(world.get::<Needed>(target), Some(&Needed(10)));

    let target = world.spawn_empty().id();
    EntityCloner::build_opt_in(&mut world)
        .allow::<Needs>()
        .without_required_components(|builder| {
            builder.allow::<Needs>();
        })
        .clone_entity(source, target);
    assert_eq!(world.get::<Needed>(target), Some(&Needed(10)));

    // Without them only: the target's own requirement is made fresh.
    let target = world.spawn_empty().id();
    EntityCloner::build_opt_in(&mut world)
        .without_required_components(|builder| {
            builder.allow::<Needs>();
        })
        .clone_entity(source, target);
    assert_eq!(world.get::<Needed>(target), Some(&Needed(5)));
    world.check_integrity().unwrap();
}
