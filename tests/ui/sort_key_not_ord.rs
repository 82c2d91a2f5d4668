// `sort` orders by the lens's items, which must be `Ord`.
use ecs::prelude::*;

#[derive(Component)]
struct Health(f32);

fn system(query: Query<&Health>) {
    for _ in query.iter().sort::<&Health>() {}
}

fn main() {
    let _ = system;
}
