// Through a world cell, another system may be writing the storages'
// values: reaching them is `unsafe`, as the caller must respect access.
use ecs::prelude::*;
use ecs::world::UnsafeWorldCell;

fn peek(world: UnsafeWorldCell<'_>) -> usize {
    world.storages().tables.len()
}

fn main() {
    let mut world = World::new();
    println!("{}", peek(UnsafeWorldCell::new_mutable(&mut world)));
}
