use ecs::prelude::*;

#[derive(Event)]
struct Tick;

fn main() {
    let mut world = World::new();
    world.spawn_empty().observe(|_: On<Tick>| {});
}
