use ecs::entity::MapEntities;
use ecs::prelude::*;

#[derive(MapEntities)]
struct Targets {
    #[entities(all)]
    list: Vec<Entity>,
    #[entities = "first"]
    first: Entity,
}

fn main() {}
