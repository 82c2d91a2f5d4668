use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

fn main() {
    let mut world = World::new();
    let e = world.spawn(Position(1.0)).id();
    let mut position = world.get_mut::<Position>(e).unwrap();
    world.spawn(Position(2.0));
    position.0 += 1.0;
}
