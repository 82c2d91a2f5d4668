use ecs::prelude::*;

#[derive(EntityEvent)]
struct Heal {
    #[event_target]
    healer: Entity,
    #[event_target]
    patient: Entity,
}

fn main() {}
