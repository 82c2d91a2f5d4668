use ecs::prelude::*;

#[derive(EntityEvent)]
#[entity_event(propagate, bubble)]
struct Click {
    entity: Entity,
}

#[derive(EntityEvent)]
#[entity_event(propagate, propagate)]
struct Press {
    entity: Entity,
}

fn main() {}
