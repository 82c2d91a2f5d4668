use ecs::prelude::*;

fn main() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let other = world.spawn_empty().id();
    let child = world.spawn(ChildOf(parent)).id();
    // A relationship is immutable: re-parenting inserts a new `ChildOf`, so
    // its hooks move the child between the parents' `Children`.
    world.entity_mut(child).get_mut::<ChildOf>().unwrap().0 = other;
}
