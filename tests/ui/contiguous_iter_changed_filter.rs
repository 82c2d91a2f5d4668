// Contiguous access needs whole tables: a filter that looks at each row
// (`Changed`) cannot be cut into slices.
use ecs::prelude::*;

#[derive(Component)]
struct Health(f32);

fn system(query: Query<&Health, Changed<Health>>) {
    for _ in query.contiguous_iter().unwrap() {}
}

fn main() {
    let _ = system;
}
