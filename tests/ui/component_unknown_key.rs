use ecs::prelude::*;

#[derive(Component)]
#[component(storge = "SparseSet")]
struct Health(u32);

fn main() {}
