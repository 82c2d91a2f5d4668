use ecs::prelude::*;
use ecs::query::QueryData;

#[derive(Component)]
struct Position(f32, f32);

// `Position` is a component, not a query term: the field must be
// `&'static Position`.
#[derive(QueryData)]
struct Reader {
    entity: Entity,
    pos: Position,
}

fn main() {}
