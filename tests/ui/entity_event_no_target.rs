use ecs::prelude::*;

#[derive(EntityEvent)]
struct Hit {
    victim: Entity,
    damage: u32,
}

#[derive(EntityEvent)]
struct Pair(Entity, Entity);

#[derive(EntityEvent)]
struct Unit;

fn main() {}
