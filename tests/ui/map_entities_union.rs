use ecs::entity::MapEntities;
use ecs::prelude::*;

#[derive(MapEntities)]
union Either {
    entity: Entity,
    raw: u64,
}

fn main() {}
